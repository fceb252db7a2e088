"""IMDF venues imported as floorgate assets (`floorgate import-imdf`, docs/imdf.md): the
files read from disk within bounds, the dataset made of the venue (`parsing/imdf/`) and
its walks (`routing/imdf/`) and imported, and the import report written.
"""
