"""The REST table's GET routes planned ahead of time: each runs its root field's direct
plan without GraphQL imported or parsed, so the first answer of a process waits for
neither (issue 36, cold start); written by `make generate`.
"""
