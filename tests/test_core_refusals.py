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
