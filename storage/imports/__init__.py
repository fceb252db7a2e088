"""Writing an import so that readers see all of it or none: the importer, its writer, the
leases that keep one writer per asset, and gc and check for what a killed import leaves.
"""
