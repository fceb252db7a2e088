"""How an operation runs: its limits and cost before anything runs, the guard, compiled plans, the
executor and the bounded caches of documents.
"""
