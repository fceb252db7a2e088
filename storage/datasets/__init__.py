"""A dataset file validated before anything is written: structure, fields, sections and the maps'
drawings.
"""
