"""The core's own refusals reach Python typed: a ValueError whose `path`
names the key where the description goes wrong (`engine::ConfigError`)."""

import json
from pathlib import Path

import pytest
import satcc
from satcc import _core

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_a_refusal_of_the_core_carries_its_key_path():
    """The core's refusals are typed (`ConfigError`): the ValueError the
    binding raises names the key path in its `path` attribute, so a refusal
    no Python rule caught is still reported by its place."""
    d = satcc.load(EXAMPLES / "dumbbell_geo.toml").validate()
    d["tcp"][0]["dst_node"] = d["tcp"][0]["src_node"]
    with pytest.raises(ValueError) as refused:
        _core.Simulation(json.dumps(d))
    assert refused.value.path == f"tcp.{d['tcp'][0]['name']}"
    with pytest.raises(ValueError) as malformed:
        _core.Simulation("{")
    assert malformed.value.path == ""


def test_the_erica_averagings_refusal_names_rate_alpha_in_the_core_too():
    d = satcc.load(EXAMPLES / "abr_vbr.toml").validate()
    link = next(link for link in d["links"] if link.get("erica"))
    link["erica"].update(z_alpha=0.5, rate_alpha=0.5)
    with pytest.raises(ValueError) as refused:
        _core.Simulation(json.dumps(d))
    assert refused.value.path == f"links.{link['name']}.erica.rate_alpha"


def test_validation_asks_the_core_and_reports_its_refusal_by_key():
    """ERICA+'s alternative averagings are a rule of `EricaConfig::check`
    only: validation runs the core's checks (`check_description`) and
    reports the refusal as its own, by key, before any run starts."""
    scenario = satcc.load(EXAMPLES / "abr_vbr.toml")
    d = scenario.validate()
    name = next(link["name"] for link in d["links"] if link.get("erica"))
    both = scenario.set(f"links.{name}.erica.z_alpha", 0.5)
    both = both.set(f"links.{name}.erica.rate_alpha", 0.5)
    with pytest.raises(satcc.ScenarioError) as refused:
        both.validate()
    assert refused.value.path == f"links.{name}.erica.rate_alpha"
    assert "got 0.5 and 0.5" in refused.value.reason


def test_check_description_refuses_with_path_and_reason():
    d = satcc.load(EXAMPLES / "abr_vbr.toml").validate()
    link = next(link for link in d["links"] if link.get("erica"))
    link["erica"]["a"] = 0.5
    with pytest.raises(ValueError) as refused:
        _core.check_description(json.dumps(d))
    assert refused.value.path == f"links.{link['name']}.erica"
    assert "a > 1" in refused.value.reason
    _core.check_description(json.dumps(satcc.load(EXAMPLES / "abr_vbr.toml").validate()))
