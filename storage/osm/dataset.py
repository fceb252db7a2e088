"""`floorgate import-osm FILE`: an OpenStreetMap indoor place as a floorgate asset
(docs/osm.md). The file is read (storage/osm/files.py), turned into an IMDF venue in
memory (parsing/osm/archive.py) and handed to the IMDF venue pipeline
(storage/imdf/dataset.py venue_dataset), so an OSM place gets the same floors, units,
maps, locations, walk paths, report and all-or-nothing import as an IMDF venue. Every
drawing and the summary carry OSM's attribution. Data (c) OpenStreetMap contributors,
ODbL."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from parsing.imdf.ids import slug
from parsing.imdf.venue import ImdfOptions
from parsing.osm.archive import osm_archive
from parsing.osm.model import ATTRIBUTION, LICENCE_TAG, OsmError
from storage.imdf.dataset import ImdfDataset, venue_dataset
from storage.osm.files import read_osm

OSM_MARKET = "osm"  # the asset's market unless --market says another
MAP_TAGS = ("osm", LICENCE_TAG)  # every map of an OSM place: its source and its licence
TITLE_END = re.compile(r"</title>")


def osm_dataset(path: Path, options: ImdfOptions) -> ImdfDataset:
    """The dataset of the OSM file at `path` (pure but for reading the file). The asset's
    id is `--asset-id`, else the `--id-prefix`, else the file's name as a slug."""
    asset = options.asset_id or options.id_prefix or slug(path.stem) or "osm"
    data = read_osm(path)
    try:
        archive = osm_archive(data, asset, path.stem, options.languages)
    except OsmError as error:  # what the place lacks, said of the file
        raise OsmError(f"{path}: {error}") from None
    dataset = venue_dataset(archive, replace(options, asset_id=asset))
    for record in dataset.data["unit_maps"]:
        record["tags"] = [*record["tags"], *MAP_TAGS]
    desc = f"</title><desc>{ATTRIBUTION}</desc>"
    dataset.svgs = {key: TITLE_END.sub(desc, svg, count=1) for key, svg in dataset.svgs.items()}
    dataset.summary.append(f"data {ATTRIBUTION}")
    return dataset
