"""GraphQL over HTTP at /graphql: the endpoint, the direct path of one operation, GraphiQL and the
SDL.
"""
