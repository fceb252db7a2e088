"""Writing an import so that readers see all of it or none: the importer, its writer, the
leases that keep one writer per asset, the staging and switch of an asset past one
transaction, and gc and check for what a killed import leaves.
"""
