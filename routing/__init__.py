"""Walk graphs (igraph), distance matrices, routes and their maneuvers; an IMDF venue's
walks and what each place reaches: pure functions, no I/O."""
