"""The read cache of one process, the reads through it, and the change stream that keeps it true."""
