"""The vector tile of an asset (docs/tiles.md): a binary answer in GraphQL, its bytes in
base64; REST serves the bytes themselves (`application/vnd.mapbox-vector-tile`)."""

import strawberry


@strawberry.type(description="One Mapbox Vector Tile (2.1, extent 4096) of an asset's maps.")
class VectorTile:
    etag: str = strawberry.field(
        description="Strong tag of the tile: changes when the asset's georeferenced maps do."
    )
    data: str = strawberry.field(description="The tile's bytes (MVT protobuf), base64.")
    features: int = strawberry.field(description="Features in the tile, every layer.")
