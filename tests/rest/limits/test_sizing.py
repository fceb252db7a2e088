"""Issue 67, point 4: one process's memory with every budget full, from its settings;
the Kubernetes example's memory is that figure (written by `make generate`)."""

from __future__ import annotations

from dataclasses import replace

from rest.limits.sizing import MIB, STEP_MIB, budgets, process_mib
from storage.settings import Settings
from tests.docs.test_deploy_manifests import container


def test_every_budget_of_the_settings_counts_and_the_total_is_whole_steps():
    settings = Settings()
    parts = {each.what: each.bytes for each in budgets(settings)}
    assert parts["read cache, and a quarter"] == settings.read_cache_mb * MIB * 5 // 4
    assert parts["walk graphs"] == settings.graph_cache_mb * MIB
    assert parts["search indexes"] == settings.search_cache_mb * MIB
    total = process_mib(settings)
    assert total % STEP_MIB == 0 and 0 <= total * MIB - sum(parts.values()) < STEP_MIB * MIB
    bigger = replace(settings, read_cache_mb=settings.read_cache_mb + 512)
    assert process_mib(bigger) == total + 640  # 512 MiB and its quarter


def test_the_kubernetes_example_holds_one_process_at_its_settings():
    spec = container()
    env = {each["name"]: str(each["value"]) for each in spec["env"] if "value" in each}
    memory = f"{process_mib(Settings.from_env(env))}Mi"
    assert spec["resources"]["requests"]["memory"] == memory
    assert spec["resources"]["limits"]["memory"] == memory
