"""Writing an import so that readers see all of it or none: the importer, its writer, leases, IMDF
venues, gc and check.
"""
