"""`floorgate import-osm FILE` as a user runs it (issue 49, point 6): the station imports
into the embedded database with its summary, remarks and attribution; `--dry-run`
writes nothing; bad input (broken XML, an entity bomb, a file past the size limit, no
indoor features) is one line, exit 1, nothing written. The real command, run as a
process, on the test database. Data (c) OpenStreetMap contributors, ODbL."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from pymongo import MongoClient

from parsing.osm.limits import MAX_OSM_BYTES, MAX_OSM_DEPTH, MAX_OSM_LEVEL_UNITS, MAX_OSM_TAGS
from storage.embedded.server import EmbeddedServer
from tests.rest.cli.test_cli_errors import clean_env, run
from tests.rest.cli.test_import_imdf_options import COLLECTIONS, counts
from tests.storage.osm.test_bounds import rooms
from tests.venues.osm_places import CASERNE, CASERNE_XML, STATION


def env_for(tmp_path: Path, db_server: EmbeddedServer) -> tuple[dict[str, str], str]:
    database = f"floorgate_cli_osm_{uuid.uuid4().hex[:8]}"
    env = clean_env(tmp_path, FLOORGATE_MONGODB_URI=db_server.uri, FLOORGATE_DATABASE=database)
    return env, database


def drop(db_server: EmbeddedServer, database: str) -> None:
    with MongoClient[dict[str, Any]](db_server.uri) as client:
        client.drop_database(database)


def test_the_station_imports_and_the_dry_run_writes_nothing(
    tmp_path: Path, db_server: EmbeddedServer
) -> None:
    """The dry run on the Caserne (GeoJSON): the same path as the station's, at a quarter
    of its CPU (a conversion of the station is 2.5 s)."""
    env, database = env_for(tmp_path, db_server)
    try:
        dry, _ = run(["import-osm", str(CASERNE), "--dry-run"], env)
        assert dry.returncode == 0, dry.stderr
        assert "would import without problems; nothing was written" in dry.stdout
        assert counts(db_server.uri, database) == dict.fromkeys(COLLECTIONS, 0)

        done, _ = run(["import-osm", str(STATION), "--id-prefix", "gare-est"], env)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert lines[:3] == [
            "read as: OSM GeoJSON (Simple Indoor Tagging), data (c) OpenStreetMap "
            "contributors, ODbL",
            "venue 'gare-de-l-est': 2 levels, 126 units (92 listed), 206 locations, "
            "9627 walk lines, 0 connector stops",
            "data (c) OpenStreetMap contributors, ODbL",
        ]
        assert (
            "  level-not-joined (foot, wheelchair): 'Level 0' (ordinal 0): no stairs, "
            "elevator, escalator, ramp or opening joins it to the other level ('Level -1')" in lines
        )
        assert lines[-2] == "View it: https://localhost:8443/viewer/maps/gare-est-stack"
        assert counts(db_server.uri, database) == {
            "assets": 1,
            "floors": 2,
            "units": 92,
            "unit_maps": 3,
            "locations": 206,
        }
        with MongoClient[dict[str, Any]](db_server.uri) as client:
            asset = client[database]["assets"].find_one({"_id": "gare-est"})
            maps = list(client[database]["unit_maps"].find({}, {"tags": 1}))
        assert asset is not None and asset["market"] == "osm"
        assert all({"osm", "odbl"} <= set(m["tags"]) for m in maps)
    finally:
        drop(db_server, database)


def test_the_osm_xml_imports(tmp_path: Path, db_server: EmbeddedServer) -> None:
    env, database = env_for(tmp_path, db_server)
    try:
        done, _ = run(["import-osm", str(CASERNE_XML), "--asset-id", "caserne"], env)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(
            "read as: OSM XML (Simple Indoor Tagging), data (c) OpenStreetMap contributors, "
            "ODbL\nvenue 'Caserne de Bonne': 4 levels, 82 units (59 listed)"
        )
        assert counts(db_server.uri, database)["units"] == 59
    finally:
        drop(db_server, database)


BOMB = (
    b'<?xml version="1.0"?><!DOCTYPE osm [<!ENTITY a "aaaaaaaaaa">'
    b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><osm><node id="1" lat="0" lon="0">'
    b'<tag k="name" v="&b;"/></node></osm>'
)
NOT_INDOOR = (
    b'{"type": "FeatureCollection", "features": [{"type": "Feature", "id": "way/1", '
    b'"properties": {"highway": "service"}, "geometry": {"type": "LineString", '
    b'"coordinates": [[5, 45], [5.001, 45]]}}]}'
)
OSM = b"<?xml version='1.0'?><osm version='0.6'>"
NAN = OSM + b"<node id='17' lat='NaN' lon='5'/></osm>"  # was GEOS's `LinearRing` error
DEEP = OSM + b"<a>" * 300 + b"</a>" * 300 + b"</osm>"  # was libxml2's `Excessive depth`
TAGS = OSM + b"<way id='3'>" + b"<tag k='k' v='v'/>" * 100_000 + b"</way></osm>"


@pytest.mark.parametrize(
    ("name", "data", "problem"),
    [
        ("broken.osm", b"<osm><node id='1'", "malformed XML ("),
        ("bomb.osm", BOMB, "XML entities are not allowed ("),
        ("roads.geojson", NOT_INDOOR, "no indoor features: not one area tagged indoor=room"),
        ("big.geojson", None, f"bytes, at most {MAX_OSM_BYTES}"),
        *(
            pytest.param(*case, marks=pytest.mark.security)
            for case in [
                ("nan.osm", NAN, "node 17: lat='NaN' is not a latitude (a number from -90 to 90)"),
                ("deep.osm", DEEP, f"elements nested more than {MAX_OSM_DEPTH} levels deep"),
                ("tags.osm", TAGS, f"way 3: more than {MAX_OSM_TAGS} tags"),
                (
                    "rooms.osm",
                    rooms(["0"] * (MAX_OSM_LEVEL_UNITS + 1)),
                    f"more than {MAX_OSM_LEVEL_UNITS} indoor areas (units) on level 0",
                ),
            ]
        ),
    ],
    ids=["broken-xml", "entity-bomb", "no-indoor", "too-large", "nan", "deep", "tags", "rooms"],
)
def test_bad_input_is_one_line_and_writes_nothing(
    tmp_path: Path, db_server: EmbeddedServer, name: str, data: bytes | None, problem: str
) -> None:
    env, database = env_for(tmp_path, db_server)
    path = tmp_path / name
    if data is None:
        with path.open("wb") as file:  # sparse: its size is what the bound reads first
            file.truncate(MAX_OSM_BYTES + 1)
    else:
        path.write_bytes(data)
    refused, _ = run(["import-osm", str(path)], env)
    assert refused.returncode == 1
    assert refused.stdout == ""
    assert refused.stderr.startswith(f"Nothing was imported: {path}: ")
    assert problem in refused.stderr
    assert len(refused.stderr.splitlines()) == 1
    assert counts(db_server.uri, database) == dict.fromkeys(COLLECTIONS, 0)
