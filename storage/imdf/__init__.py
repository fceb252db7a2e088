"""IMDF venues imported as floorgate assets (`floorgate import-imdf`, docs/imdf.md): the
archive read, its walks and drawings, its places, and the dataset made of them.
"""
