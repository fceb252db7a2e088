"""Walk graphs (igraph), distance matrices, routes and their maneuvers: pure functions, no I/O."""
