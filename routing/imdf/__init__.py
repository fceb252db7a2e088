"""Walk paths generated from IMDF rooms and doors, the connectors between levels, a
venue's walk network and drawn levels, and what each place can reach on foot or by
wheelchair: pure functions, no I/O."""
