"""The read cache of one process, the reads through it, the change stream that keeps it
true, and the gate that holds a read of an asset while a staged import switches it in.
"""
