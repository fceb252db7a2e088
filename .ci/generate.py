"""Every file of the repository written from the code, in one table, and `make generate`:

    .venv/bin/python .ci/generate.py            # rewrite the stale files
    .venv/bin/python .ci/generate.py --check    # name the stale ones; exit 1 if any

`GENERATED` is the table: a file and the function that writes its text from the code (the
route table, the schema, the settings, the import graph). tests/docs/test_generated_files.py
fails while any of them is stale and names it with the command that fixes it.

Some files are recorded from the demo instead, by their tests with a flag, since they need
a running database (`RECORDED`; `make generate` runs them between two passes of this
script, because the OpenAPI document embeds the recorded examples). Not generated: the
parser's golden files and the screenshots, which are expectations a person looks at
(their tests say how to write them anew).
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import orjson
from architecture import DOC as ARCHITECTURE_DOC
from architecture import drawn
from structure import ROOT

COMMAND = "make generate"


@dataclass(frozen=True)
class Generated:
    """A file written from the code: its path in the repository and its text's maker."""

    path: str
    make: Callable[[], str]


@functools.cache
def _schema() -> Any:
    """strawberry's schema with the default settings (the served one's types)."""
    from schema.build import build_schema
    from storage.settings import Settings

    return build_schema(Settings())


def schema_sdl() -> str:
    from rest.graphql_http.sdl import sdl_text

    return sdl_text(_schema())


def openapi_json() -> str:
    from rest.v1.openapi.document import openapi_document
    from rest.v1.routes import ROUTES
    from schema.execution.running.route_documents import requirement_of
    from storage.settings import Settings

    schema = _schema()._schema  # graphql-core's, under strawberry's
    requirements = {route.operation_id: requirement_of(schema, route) for route in ROUTES}
    document = openapi_document(schema, requirements, Settings())
    return orjson.dumps(document, option=orjson.OPT_INDENT_2).decode()


def configuration_md() -> str:
    from storage.settings_doc import configuration_doc

    return configuration_doc()


def architecture_md() -> str:
    return drawn(ARCHITECTURE_DOC.read_text(encoding="utf-8"))


def limits_md() -> str:
    """docs/limits.md with its tables written from the table of limits (its prose kept)."""
    from rest.limits.doc import DOC, limits_doc

    return limits_doc(DOC.read_text(encoding="utf-8"))


KUBERNETES_DEPLOYMENT = "docs/deploy/kubernetes/deployment.yaml"
MEMORY = re.compile(r"(?<=\bmemory: )\d+Mi|\d+Mi(?=, request and limit)")


def kubernetes_deployment() -> str:
    """The Kubernetes example with its memory written from the budgets of one process at
    the settings its container sets (`rest/limits/sizing.py`)."""
    import yaml

    from rest.limits.sizing import process_mib
    from storage.settings import Settings

    text = (ROOT / KUBERNETES_DEPLOYMENT).read_text(encoding="utf-8")
    (deployment,) = [
        each for each in yaml.safe_load_all(text) if each and each["kind"] == "Deployment"
    ]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    env = {each["name"]: str(each["value"]) for each in container["env"] if "value" in each}
    return MEMORY.sub(f"{process_mib(Settings.from_env(env))}Mi", text)


def viewer_vocabulary() -> str:
    from routing.vocabulary import viewer_icons

    return orjson.dumps(viewer_icons(), option=orjson.OPT_INDENT_2).decode() + "\n"


@functools.cache
def _planned() -> tuple[str, str]:
    from rest.v1.write_plans import sources

    return sources()


def planned_routes() -> str:
    return _planned()[0]


def planned_shapes() -> str:
    return _planned()[1]


GENERATED: tuple[Generated, ...] = (
    Generated("schema/execution/running/planned/routes.py", planned_routes),
    Generated("schema/execution/running/planned/shapes.py", planned_shapes),
    Generated("docs/schema.graphql", schema_sdl),
    Generated("docs/openapi.json", openapi_json),
    Generated("docs/configuration.md", configuration_md),
    Generated("docs/architecture.md", architecture_md),
    Generated("docs/limits.md", limits_md),
    Generated(KUBERNETES_DEPLOYMENT, kubernetes_deployment),
    Generated("rest/pages/static/viewer/route/vocabulary.json", viewer_vocabulary),
)

# Recorded from the demo by a test run with its flag (`make generate` runs them).
RECORDED: dict[str, str] = {
    "rest/v1/openapi/examples.json": "FLOORGATE_RECORD_EXAMPLES",
    "docs/routing-maneuvers.svg": "FLOORGATE_UPDATE_ROUTING_PICTURE",
    "docs/routing-exclude.svg": "FLOORGATE_UPDATE_ROUTING_PICTURE",
    "docs/routing-penalty.svg": "FLOORGATE_UPDATE_ROUTING_PICTURE",
    "docs/routing-walking-speed.svg": "FLOORGATE_UPDATE_ROUTING_PICTURE",
    "docs/routing-closure.svg": "FLOORGATE_UPDATE_ROUTING_PICTURE",
    "docs/routing-stops.svg": "FLOORGATE_UPDATE_ROUTING_PICTURE",
}


def stale(table: tuple[Generated, ...] | None = None) -> list[str]:
    """The paths (of GENERATED unless given) whose text is not what the code writes now."""
    return [
        entry.path
        for entry in table or GENERATED
        if not (ROOT / entry.path).exists()
        or (ROOT / entry.path).read_text(encoding="utf-8") != entry.make()
    ]


def write(table: tuple[Generated, ...] | None = None) -> list[str]:
    """Rewrite the stale files (of GENERATED unless given), in order; the paths written."""
    written = []
    for entry in table or GENERATED:
        text = entry.make()
        path = ROOT / entry.path
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(entry.path)
    return written


def main(argv: list[str]) -> int:
    if "--check" in argv:
        late = stale()
        for path in late:
            print(f"{path} is stale: run `{COMMAND}`")
        return 1 if late else 0
    for path in write():
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
