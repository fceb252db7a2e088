"""The HTTP face: the Starlette app, its outer middleware and error answers; its wings serve
/v1, /graphql, the pages, operations and the `floorgate` command."""
