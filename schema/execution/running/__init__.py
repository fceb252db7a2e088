"""The one runner of every operation (`runner`), what it runs (a /graphql document's
operation, `document`; a REST route's, `route`, on its plan made ahead of time,
`planned`, or over `route_documents`) and how it executes (`strategies`)."""
