"""Walk paths generated from IMDF rooms and doors, and the connectors between levels."""
