"""The exact shortest walk through a venue's free space (an oracle sharing no code with
the walk graphs it judges) and how much longer E18 walks: pure functions, no I/O."""
