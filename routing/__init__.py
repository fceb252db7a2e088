"""Walk graphs (igraph) and distance matrices: pure functions, no I/O."""
