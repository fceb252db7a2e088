"""Rows of docs/limits.md's tables of what a request or an import may hold: GraphQL
operations, the inputs of the REST routes (writes and imports among them), and
`floorgate import-imdf`."""

from __future__ import annotations

from resolvers.errors import ErrorCode
from rest.limits.prices import OPTIMIZED_VIA
from rest.limits.rows import (
    Limit,
    Section,
    answer,
    count,
    duration,
    every,
    names,
    part,
    percent,
    said,
    seconds,
    shortened,
    size,
    whole,
)
from rest.limits.values import (
    ACCEPT_LANGUAGE_BYTES,
    ACCEPT_LANGUAGE_RANGES,
    ALIASES,
    ARCHIVE_BYTES,
    ARCHIVE_FILES,
    DEFAULT_PAGE,
    DEPTH,
    DOCUMENT,
    EXPIRE,
    FILTER_LENGTH,
    FRESH,
    ID_LENGTH,
    IMPORT_DOCUMENTS,
    INPUT_ITEMS,
    INT32,
    KEYLESS_COST,
    LABEL,
    MARGIN_FT,
    MARGIN_SHARE,
    MATRIX_PAIRS,
    MAX_COST,
    MAX_PAGE,
    NAME_LANGUAGES,
    NEAREST_IDS,
    NESTING,
    NUMBER_CHARS,
    PERSISTED_BYTES,
    PERSISTED_COUNT,
    PERSISTED_MODE,
    POLL_AHEAD,
    QUIET,
    RECORD,
    REQUEST_TIME,
    REQUIRED,
    SEARCH_ASSETS,
    SEARCH_CHARS,
    SEARCH_MAX_PAGE,
    SEARCH_PAGE,
    SPREADS,
    STAGED_BYTES,
    STAGED_OPERATIONS,
    STREAM_WAIT,
    SVG_BYTES,
    SVG_DEPTH,
    SVG_ELEMENTS,
    SVG_POINTS,
    SWITCH_POLL,
    TAG_CHARS,
    TILE_BYTES,
    TILE_FEATURES,
    TILE_MAX_ZOOM,
    TILE_MIN_ZOOM,
    TOKENS,
    UNITS_KEPT,
    VIA,
    WGS84_MARGIN,
    WRITE_ITEMS,
    ZIP_CHUNK,
)

GRAPHQL = Section("graphql")
REST_INPUTS = Section("rest-inputs")
IMPORT_IMDF = Section("import-imdf")

GRAPHQL_ROWS: tuple[Limit, ...] = (
    Limit(
        GRAPHQL,
        "Document size (UTF-8), and a GET's query string",
        size(DOCUMENT.value),
        DOCUMENT.code,
        f"{answer(ErrorCode.DOCUMENT_TOO_LARGE, limit=whole(DOCUMENT.value))}, not parsed",
        (DOCUMENT,),
    ),
    Limit(
        GRAPHQL,
        "Tokens of a document",
        count(TOKENS.value),
        TOKENS.code,
        "`BAD_USER_INPUT` `Syntax Error: Document contains more than "
        f"{whole(TOKENS.value)} tokens. Parsing aborted.`, nothing runs",
        (TOKENS,),
    ),
    Limit(
        GRAPHQL,
        "Depth, aliases, fragment spreads",
        ", ".join(count(each.value) for each in (DEPTH, ALIASES, SPREADS)),
        shortened(DEPTH, ALIASES, SPREADS),
        f"`BAD_USER_INPUT`, e.g. `40 aliases found. Allowed: {whole(ALIASES.value)}`, nothing runs",
        (DEPTH, ALIASES, SPREADS),
    ),
    Limit(
        GRAPHQL,
        "Cost of one operation, with a key",
        count(MAX_COST.value),
        MAX_COST.code,
        f"`COST_LIMIT`: {said(ErrorCode.COST_LIMIT, cost='N', limit=whole(MAX_COST.value))}; "
        "REST routes are held to it too (the prices: the table below)",
        (MAX_COST,),
    ),
    Limit(
        GRAPHQL,
        "Cost without a key (only introspection can run)",
        count(KEYLESS_COST.value),
        KEYLESS_COST.code,
        f"`COST_LIMIT`, as above with {whole(KEYLESS_COST.value)}; introspection costs what "
        "it walks (docs/graphql.md)",
        (KEYLESS_COST,),
    ),
    Limit(
        GRAPHQL,
        "Characters of a number literal",
        count(NUMBER_CHARS.value),
        NUMBER_CHARS.code,
        f"`BAD_USER_INPUT` `Number literal of N characters: at most {whole(NUMBER_CHARS.value)}`",
        (NUMBER_CHARS,),
    ),
    Limit(
        GRAPHQL,
        "Items in any list of a body or of variables",
        count(INPUT_ITEMS.value),
        INPUT_ITEMS.code,
        f"422 `must have at most {whole(INPUT_ITEMS.value)} items`, before any item is read",
        (INPUT_ITEMS,),
    ),
    Limit(
        GRAPHQL,
        'Persisted documents stored, over every process (docs/graphql.md, "Persisted queries")',
        f"{count(PERSISTED_COUNT.value)} documents, {size(PERSISTED_BYTES.value)} (each its "
        "text's UTF-8 bytes and its 64-character hash)",
        names(PERSISTED_COUNT, PERSISTED_BYTES),
        "registering evicts the least recently used automatic documents, never safelisted "
        "ones; when that is not enough the document runs and is not stored; `floorgate "
        "persisted-queries add` says so and exits 1. A registration's work does not grow "
        "with the store (its totals are one document, its victims read through an index): "
        "2 commands (a conditional update of the totals, the insert) with 100 or 2,000 "
        "stored, where a scan took 40-70 ms at 2,000 (issue 45, point 10)",
        (PERSISTED_COUNT, PERSISTED_BYTES),
    ),
    Limit(
        GRAPHQL,
        "A persisted query's hash and version",
        "the SHA-256 of the text in lowercase hex, version 1",
        "-",
        f"{answer(ErrorCode.PERSISTED_QUERY_HASH_MISMATCH)} (`PERSISTED_QUERY_HASH_MISMATCH`), "
        f"{answer(ErrorCode.PERSISTED_QUERY_VERSION)} (`PERSISTED_QUERY_VERSION`); nothing "
        "runs, nothing is stored",
    ),
    Limit(
        GRAPHQL,
        "Who registers a persisted query",
        "a valid key, once the operation ran",
        "-",
        "without a key it runs and is not stored; a refused or invalid operation is not stored",
    ),
    Limit(
        GRAPHQL,
        "Documents that run in safelist mode",
        "those of `floorgate persisted-queries add` and the REST table (any for `service.admin`)",
        PERSISTED_MODE,
        f"{answer(ErrorCode.PERSISTED_QUERY_NOT_ALLOWED)} (`PERSISTED_QUERY_NOT_ALLOWED`)",
    ),
)

REST_INPUTS_ROWS: tuple[Limit, ...] = (
    Limit(
        REST_INPUTS,
        "Ids, path parameters, `asset`, `group-id`, `market`",
        f"{count(ID_LENGTH.value)} characters",
        ID_LENGTH.code,
        f"422 `must be at most {whole(ID_LENGTH.value)} characters`",
        (ID_LENGTH,),
    ),
    Limit(
        REST_INPUTS,
        "Filter `tags` (E9)",
        f"{count(FILTER_LENGTH.value)} characters",
        FILTER_LENGTH.code,
        f"422 `must be at most {whole(FILTER_LENGTH.value)} characters`",
        (FILTER_LENGTH,),
    ),
    Limit(
        REST_INPUTS,
        "`per-page`",
        f"{count(DEFAULT_PAGE.value)} by default, at most {count(MAX_PAGE.value)}",
        names(DEFAULT_PAGE, MAX_PAGE),
        f"clamped to {whole(MAX_PAGE.value)} (`paging.per_page` says so)",
        (DEFAULT_PAGE, MAX_PAGE),
    ),
    Limit(
        REST_INPUTS,
        "A search (`GET /v1/search`): its text `q`, `per-page`, and the assets it covers "
        "without `asset` or `map`",
        f"{count(SEARCH_CHARS.value)} characters; {count(SEARCH_PAGE.value)} results by "
        f"default, at most {count(SEARCH_MAX_PAGE.value)}; {count(SEARCH_ASSETS.value)} assets",
        names(SEARCH_CHARS, SEARCH_PAGE, SEARCH_MAX_PAGE, SEARCH_ASSETS),
        f"422 on `q`: `must be from 1 to {whole(SEARCH_CHARS.value)} characters`; `per-page` "
        f"clamped to {whole(SEARCH_MAX_PAGE.value)}; 422 on `asset`: `is required when the "
        f"key may see more than {whole(SEARCH_ASSETS.value)} assets`",
        (SEARCH_CHARS, SEARCH_PAGE, SEARCH_MAX_PAGE, SEARCH_ASSETS),
    ),
    Limit(
        REST_INPUTS,
        "`page`, `per-page`",
        "int32",
        "-",
        f"422 `must be at most {whole(INT32.value)}`",
        (INT32,),
    ),
    Limit(
        REST_INPUTS,
        "Distance-matrix pairs (E18)",
        count(MATRIX_PAIRS.value),
        "the spec",
        f"422 on `data`: `at most {whole(MATRIX_PAIRS.value)} source-target pairs (sources "
        "x targets) per request, not N`",
        (MATRIX_PAIRS,),
    ),
    Limit(
        REST_INPUTS,
        "Candidates of a route's `to.nearest` (issue 47): `ids`, the search text `q`",
        f"{count(NEAREST_IDS.value)} ids; {count(SEARCH_CHARS.value)} characters",
        names(NEAREST_IDS, SEARCH_CHARS),
        f"422 on `data.to.nearest.ids`: `must have at most {whole(NEAREST_IDS.value)} items`; "
        f"on `data.to.nearest.q`: `must be from 1 to {whole(SEARCH_CHARS.value)} characters`",
        (NEAREST_IDS, SEARCH_CHARS),
    ),
    Limit(
        REST_INPUTS,
        "Stops of a route (`via`, issue 50), visited in the order given or, with `optimize`, "
        "in the order of least total time",
        f"{count(VIA.value)} waypoints, {count(OPTIMIZED_VIA.value)} with `optimize` "
        "(issue 63: what fits the cost ceiling)",
        f"{VIA.code}, {OPTIMIZED_VIA.code}",
        f"422 on `data.via`: `must hold at most {whole(VIA.value)} waypoints, not N`; "
        f"`must hold at most {whole(OPTIMIZED_VIA.value)} waypoints with optimize, not N`, "
        "counted from the list's length before any stop is read",
        (VIA, OPTIMIZED_VIA),
    ),
    Limit(
        REST_INPUTS,
        "`Accept-Language` of a request (issue 51), on every route and /graphql",
        f"{size(ACCEPT_LANGUAGE_BYTES.value)}; its first {count(ACCEPT_LANGUAGE_RANGES.value)} "
        "ranges are read",
        names(ACCEPT_LANGUAGE_BYTES, ACCEPT_LANGUAGE_RANGES),
        f"431 `Accept-Language header larger than {whole(ACCEPT_LANGUAGE_BYTES.value)} bytes`",
        (ACCEPT_LANGUAGE_BYTES, ACCEPT_LANGUAGE_RANGES),
    ),
    Limit(
        REST_INPUTS,
        "A language tag: `lang=`, `@lang(tag:)`, a key of a dataset's name object",
        f"{count(TAG_CHARS.value)} characters, a well-formed BCP 47 tag",
        TAG_CHARS.code,
        "422 on `lang` (`@lang.tag`): `must be a BCP 47 language tag, such as en, zh-Hant "
        "or de-CH`; in a dataset the import fails: `'x!' is not a BCP 47 language tag`",
        (TAG_CHARS,),
    ),
    Limit(
        REST_INPUTS,
        "Languages of one name in a dataset (`name` as an object of language tags)",
        f"{count(NAME_LANGUAGES.value)} languages",
        NAME_LANGUAGES.code,
        f"the import fails: `must have at most {whole(NAME_LANGUAGES.value)} languages (has N)`",
        (NAME_LANGUAGES,),
    ),
    Limit(
        REST_INPUTS,
        "An ad-hoc waypoint (`x`, `y`, `floor_id`, no `id`) of `route` or of E18 on the walk graph",
        "within the box around its level's walk paths and connectors, widened by "
        f"{count(MARGIN_FT.value)} ft or {part(1 / MARGIN_SHARE.value)} of the box's larger "
        "side, whichever is more",
        names(MARGIN_FT, MARGIN_SHARE),
        "422 on the waypoint (`data.from`, `data.sources.0`), e.g. `(1e+09, -1e+09) is off "
        "the drawing of floor 'b1-f4': x must be from -1096 to 2496 and y from -960 to 1542`",
        (MARGIN_FT, MARGIN_SHARE),
    ),
    Limit(
        REST_INPUTS,
        "A WGS84 waypoint (`lon`, `lat` and `floor_id` or `level`, issue 49) on a "
        "georeferenced map",
        f"within {WGS84_MARGIN.value:g} m of its level's outline (the box around the "
        "level's units and locations), on the earth",
        WGS84_MARGIN.code,
        "422 on the waypoint (`data.from`, `data.sources.0`), e.g. `(-122.35, 47.6062) is "
        "562.8 m outside the outline of level '0': at most 5 m`",
        (WGS84_MARGIN,),
    ),
    Limit(
        REST_INPUTS,
        "A vector tile's address (`/v1/assets/{asset}/tiles/{z}/{x}/{y}.mvt`, docs/tiles.md)",
        f"z {whole(TILE_MIN_ZOOM.value)} to {whole(TILE_MAX_ZOOM.value)}; x and y within the "
        "grid of z",
        names(TILE_MIN_ZOOM, TILE_MAX_ZOOM),
        "422 naming each bad field: `must be from 14 to 22`, `must be from 0 to N at zoom z`",
        (TILE_MIN_ZOOM, TILE_MAX_ZOOM),
    ),
    Limit(
        REST_INPUTS,
        "One vector tile: features, and bytes encoded",
        f"{count(TILE_FEATURES.value)}; {size(TILE_BYTES.value)}",
        names(TILE_FEATURES, TILE_BYTES),
        "the last features in layer order are left out, the tile is served",
        (TILE_FEATURES, TILE_BYTES),
    ),
    Limit(
        REST_INPUTS,
        "Items of one E21/E22 body, or of `assignUnitAttributes`/`unassignUnitAttributes`",
        count(WRITE_ITEMS.value),
        WRITE_ITEMS.code,
        f"422 on `data`: `must have at most {whole(WRITE_ITEMS.value)} items per request, "
        "not N` (GraphQL: `BAD_USER_INPUT`, `fields.data`)",
        (WRITE_ITEMS,),
    ),
    Limit(
        REST_INPUTS,
        "SVG drawing: bytes, elements, depth, points",
        f"{size(SVG_BYTES.value)}, "
        + ", ".join(count(each.value) for each in (SVG_ELEMENTS, SVG_DEPTH, SVG_POINTS)),
        shortened(SVG_BYTES, SVG_ELEMENTS, SVG_DEPTH, SVG_POINTS),
        "413 over the bytes; else 422 naming the limit, e.g. `the SVG has 205969 or more "
        f"elements; the limit is {whole(SVG_ELEMENTS.value)}` (counted while read: the rest "
        "never becomes a tree)",
        (SVG_BYTES, SVG_ELEMENTS, SVG_DEPTH, SVG_POINTS),
    ),
    Limit(
        REST_INPUTS,
        "Documents written in one transaction of an import",
        count(IMPORT_DOCUMENTS.value),
        IMPORT_DOCUMENTS.code,
        'an asset past it is staged and switched in (docs/dataset.md, "Larger assets: staged '
        'and switched in"); readers of the asset wait while it applies, 503 past their budget',
        (IMPORT_DOCUMENTS,),
    ),
    Limit(
        REST_INPUTS,
        "Documents one put (`putUnitMap`, `putLocation`, ...) writes: the record, a drawn "
        "map's level tags and derived locations",
        count(IMPORT_DOCUMENTS.value),
        IMPORT_DOCUMENTS.code,
        answer(
            ErrorCode.WRITE_TOO_LARGE,
            documents="N",
            asset='"a"',
            limit=count(IMPORT_DOCUMENTS.value),
        )
        + " (`WRITE_TOO_LARGE`), before anything is written: a staged write's switch waits "
        "a whole request budget",
        (IMPORT_DOCUMENTS,),
    ),
    Limit(
        REST_INPUTS,
        "Operations and documents of one transaction of a staged import; its bytes",
        f"{count(STAGED_OPERATIONS.value)}; {size(STAGED_BYTES.value)}",
        f"{names(STAGED_OPERATIONS, STAGED_BYTES)} ({STAGED_OPERATIONS.path})",
        "the next batch, in its own transaction",
        (STAGED_OPERATIONS, STAGED_BYTES),
    ),
    Limit(
        REST_INPUTS,
        "The period that times the reading of the switches in progress",
        f"{seconds(SWITCH_POLL.value)} (0.5 s before issue 45)",
        SWITCH_POLL.code,
        "a read checked against what its process knows of them older than two of these "
        "asks the database first; while reads come, a process polls half of one before "
        f"that ({every(FRESH.value - POLL_AHEAD.value)}), and a change of `switches` on its "
        f"change stream makes it poll at once; after {seconds(QUIET.value)} without a read "
        f"({QUIET.code}) it stops polling until the next read, and its stream waits "
        f"{seconds(STREAM_WAIT.value / 1000)} per getMore ({STREAM_WAIT.code}); a switch "
        "waits the request budget plus two of these before it changes anything",
        (SWITCH_POLL, FRESH, POLL_AHEAD, QUIET, STREAM_WAIT),
    ),
    Limit(
        REST_INPUTS,
        "The request budget a switch waits out",
        f"the largest {REQUEST_TIME.code} of the import and of every process that reads "
        f"(each records its own before its first read and {every(RECORD.value)}; a record "
        f"not renewed for {duration(EXPIRE.value)} no longer counts)",
        REQUEST_TIME.code,
        "-",
        (REQUEST_TIME, RECORD, EXPIRE),
    ),
)

IMPORT_IMDF_ROWS: tuple[Limit, ...] = (
    Limit(
        IMPORT_IMDF,
        "JSON files of a folder or zip",
        count(ARCHIVE_FILES.value),
        f"{ARCHIVE_FILES.code} ({ARCHIVE_FILES.path})",
        f"`Nothing was imported: PATH: N JSON files, at most {whole(ARCHIVE_FILES.value)}`",
        (ARCHIVE_FILES,),
    ),
    Limit(
        IMPORT_IMDF,
        "Bytes of JSON (a zip's members as unpacked, and as read: a header's size may lie)",
        size(ARCHIVE_BYTES.value),
        ARCHIVE_BYTES.code,
        f"`Nothing was imported: PATH: N bytes of JSON, at most {whole(ARCHIVE_BYTES.value)}`",
        (ARCHIVE_BYTES,),
    ),
    Limit(
        IMPORT_IMDF,
        f"A zip member as it inflates (read {size(ZIP_CHUNK.value)} at a time, counted)",
        "the size its header declares",
        f"{ZIP_CHUNK.code} ({ZIP_CHUNK.path})",
        "`Nothing was imported: PATH: NAME is larger than its header says`, at most a chunk "
        "past it: a member declaring 1,000 bytes that inflates to 600 MB of zeros is refused "
        "at a peak RSS of 72 MiB (1,095 MiB before issue 45); a bzip2 or LZMA member is "
        "refused unread (`... is compressed with method 12; only stored and deflated "
        "members are read`)",
        (ZIP_CHUNK,),
    ),
    Limit(
        IMPORT_IMDF,
        "Nesting of arrays and objects",
        count(NESTING.value),
        f"{NESTING.code} ({NESTING.path})",
        "the manifest or a file of a type the import reads (`REQUIRED`), and a "
        "single-document venue, are refused: `Nothing was imported: PATH: unit.geojson: "
        f"arrays and objects nested deeper than {whole(NESTING.value)} levels, ...` (past "
        "orjson's 1,024: `...: not JSON (depth limit exceeded: ...)`); another file of a "
        "folder or zip is skipped, and the report says so",
        (NESTING,),
    ),
    Limit(
        IMPORT_IMDF,
        "A file the import reads (the manifest, venue, level, unit, opening, relationship, "
        "amenity, anchor, occupant, address) that is not JSON (`NaN`) or holds no features",
        "-",
        REQUIRED,
        "`Nothing was imported: PATH: unit.geojson: not JSON (unexpected character, "
        "expected a JSON value: line 1 column N (char N-1))`, exit 1, the dry run too; "
        'nothing written (docs/imdf.md, "Files the import reads")',
    ),
    Limit(
        IMPORT_IMDF,
        "Units a stored map keeps through an import (`floorgate import` too)",
        f"{part(1 / UNITS_KEPT.value)}; a map with units never goes to none",
        f"{UNITS_KEPT.code} ({UNITS_KEPT.path}); `--allow-shrink` lifts it",
        "`Nothing was imported: it would leave N stored map(s) with fewer than "
        f"{percent(UNITS_KEPT.value)} of their units: 'ID' from B units to A. Give "
        "--allow-shrink to import it anyway`, exit 1, the dry run too; nothing written",
        (UNITS_KEPT,),
    ),
    Limit(
        IMPORT_IMDF,
        "A label or category",
        f"{count(LABEL.value)} characters",
        LABEL.code,
        "cut, and the report says so",
        (LABEL,),
    ),
    Limit(
        IMPORT_IMDF,
        "The drawings made of the venue",
        "as any SVG above",
        names(SVG_BYTES, SVG_ELEMENTS),
        "`Nothing was imported:` naming the map and the limit",
        (SVG_BYTES, SVG_ELEMENTS),
    ),
    Limit(
        IMPORT_IMDF,
        "Its documents",
        "as any import",
        IMPORT_DOCUMENTS.code,
        "as above (staged past it); a 10-level, 5,000-unit venue writes 15,033 "
        '(docs/imdf.md, "Size")',
        (IMPORT_DOCUMENTS,),
    ),
)
