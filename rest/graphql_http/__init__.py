"""GraphQL over HTTP at /graphql: the endpoint, the direct path of one operation, GraphiQL and the
SDL; and its subscriptions over WebSocket (the sockets, their guards and their fan-out).
"""
