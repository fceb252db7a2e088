"""Unit attributes: writes of assignments, the log of their changes, and its live fan-out
to subscribers.
"""
