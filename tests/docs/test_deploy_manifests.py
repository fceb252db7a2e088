"""The Kubernetes example of docs/deploy.md (docs/deploy/kubernetes/*.yaml) is valid
YAML, runs a `floorgate serve` the command line accepts, probes paths the app serves on
ports it declares, sets only settings of the table, and holds the drain in its grace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from rest.cli.main import parser
from rest.middleware import HEALTH_PATHS
from storage.settings import Settings
from storage.settings_fields import rows_of

FOLDER = Path(__file__).resolve().parents[2] / "docs" / "deploy" / "kubernetes"
KINDS = {"Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget", "Ingress"}
# The oldest Kubernetes the example runs on (docs/deploy.md, "Kubernetes": the preStop
# `sleep` action is on by default from 1.30), and the newest whose schemas we have.
OLDEST_KUBERNETES = "1.30.0"
NEWEST_KUBERNETES = kubernetes_validate.latest_version()


def documents() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for path in sorted(FOLDER.glob("*.yaml")):
        found += [doc for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc]
    return found


def container() -> dict[str, Any]:
    (deployment,) = [doc for doc in documents() if doc["kind"] == "Deployment"]
    (only,) = deployment["spec"]["template"]["spec"]["containers"]
    return dict(only)


def test_every_kind_of_the_guide_is_there() -> None:
    assert {doc["kind"] for doc in documents()} == KINDS


def test_the_command_line_is_one_serve_accepts() -> None:
    args = parser().parse_args(container()["args"])
    assert (args.command, args.behind_proxy, args.port) == ("serve", True, 8000)


def test_probes_ask_paths_the_app_serves_on_declared_ports() -> None:
    spec = container()
    ports = {port["name"]: port["containerPort"] for port in spec["ports"]}
    probes = {
        name: spec[name]["httpGet"] for name in ("readinessProbe", "livenessProbe", "startupProbe")
    }
    assert {probe["path"] for probe in probes.values()} <= HEALTH_PATHS
    assert probes["readinessProbe"]["path"] == "/readyz"
    assert {probe["port"] for probe in probes.values()} == {"http"}
    assert ports["http"] == parser().parse_args(spec["args"]).port
    env = {each["name"]: each.get("value") for each in spec["env"]}
    assert ports["metrics"] == int(env["FLOORGATE_METRICS_PORT"])
    assert spec["readinessProbe"]["timeoutSeconds"] > 1  # /readyz answers within 1 s


def test_env_names_are_settings_of_the_table() -> None:
    names = {each["name"] for each in container()["env"]}
    table = {row.variable for row in rows_of(Settings)}
    assert names - table == set()


def test_the_grace_period_holds_the_pre_stop_and_the_drain() -> None:
    (deployment,) = [doc for doc in documents() if doc["kind"] == "Deployment"]
    pod = deployment["spec"]["template"]["spec"]
    spec = container()
    env = {each["name"]: each.get("value") for each in spec["env"]}
    pre_stop = spec["lifecycle"]["preStop"]["sleep"]["seconds"]
    assert (
        pre_stop + float(env["FLOORGATE_DRAIN_SECONDS"]) + 10
        <= pod["terminationGracePeriodSeconds"]
    )


@pytest.mark.parametrize("version", [OLDEST_KUBERNETES, NEWEST_KUBERNETES])
def test_every_manifest_is_valid_against_the_kubernetes_schemas(version: str) -> None:
    """Strict: a field the schema does not know is an error (a typo would be ignored by
    a lenient apply)."""
    for document in documents():
        kubernetes_validate.validate(document, version, strict=True)


def test_the_schemas_would_refuse_the_example_on_an_older_kubernetes() -> None:
    (deployment,) = [doc for doc in documents() if doc["kind"] == "Deployment"]
    with pytest.raises(kubernetes_validate.ValidationError, match="sleep"):
        kubernetes_validate.validate(deployment, "1.28.0", strict=True)
