"""The REST table's GET routes planned ahead of time, a strategy the runner picks for a
route's operation (`schema.execution.running.route`): each runs its root field's direct
plan without GraphQL imported or parsed, so the first answer of a process waits for
neither (issue 36, cold start). `routes.py` and `shapes.py` are written by `make
generate` from the REST table (`rest.v1.write_plans`).
"""
