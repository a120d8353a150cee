"""Loading and editing scenarios: malformed, too deep or non-text input is
refused as a ScenarioError naming where and why."""

import copy

import numpy as np
import pytest
from satcc.scenario import Scenario, ScenarioError, load
from test_scenario import BASE, refusal

# Loading and editing: what tomllib, copy and dict access would otherwise raise
# as RecursionError or AttributeError reaches the user as a ScenarioError.

BOM = "\ufeff"


@pytest.mark.parametrize("opening, closing", [("[", "]"), ("{a = ", "}")])
def test_toml_nested_too_deeply_for_the_parser_is_refused_naming_the_file(
    tmp_path, opening, closing
):
    path = tmp_path / "deep.toml"
    path.write_text(f"x = {opening * 5000}1{closing * 5000}\n")
    with pytest.raises(ScenarioError) as caught:
        load(path)
    assert caught.value.source == str(path)
    assert "nested too deeply" in caught.value.reason


def test_toml_nested_deeper_than_any_scenario_is_refused_at_load(tmp_path):
    # Parsable, but deeper than the limit: refused before validation walks it.
    path = tmp_path / "deep.toml"
    path.write_text('[run]\nduration = "1 s"\nname = ' + "[" * 100 + "]" * 100 + "\n")
    with pytest.raises(ScenarioError) as caught:
        load(path)
    assert caught.value.path == "run.name"
    assert "nested too deeply" in caught.value.reason


def test_a_dict_nested_too_deeply_or_referring_to_itself_is_refused():
    deep: dict = {"leaf": 1}
    for _ in range(5000):
        deep = {"x": deep}
    with pytest.raises(ScenarioError, match="nested too deeply"):
        Scenario.from_dict({"run": {"duration": "1 s"}, "nodes": deep})
    looped: dict = {"run": {"duration": "1 s"}}
    looped["nodes"] = {"a": looped}
    with pytest.raises(ScenarioError, match="nested too deeply"):
        Scenario(looped).validate()


@pytest.mark.parametrize("method", ["validate", "copy", "to_toml"])
def test_data_made_too_deep_after_loading_is_refused_by_every_walk(method):
    sc = Scenario.from_dict(BASE)
    deep: dict = {}
    for _ in range(5000):
        deep = {"x": deep}
    sc.data["nodes"]["a"] = deep
    with pytest.raises(ScenarioError) as caught:
        getattr(sc, method)()
    assert caught.value.path == "nodes.a" and "nested too deeply" in caught.value.reason


def test_set_refuses_a_value_nested_too_deeply():
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    sc = Scenario.from_dict(BASE)
    with pytest.raises(ScenarioError) as caught:
        sc.set("links.sat.rate", deep)
    assert caught.value.path == "links.sat.rate"
    assert "nested too deeply" in caught.value.reason
    assert sc.get("links.sat.rate") == BASE["links"]["sat"]["rate"]


def test_a_utf8_bom_at_the_start_of_a_file_is_accepted(tmp_path):
    # Windows editors (Notepad) write one; it is not part of the text.
    plain = tmp_path / "plain.toml"
    plain.write_text(Scenario.from_dict(BASE).to_toml(), encoding="utf-8")
    with_bom = tmp_path / "bom.toml"
    with_bom.write_text(BOM + plain.read_text(encoding="utf-8"), encoding="utf-8")
    assert load(with_bom).data == load(plain).data
    assert load(with_bom).validate() == load(plain).validate()


def test_a_bom_elsewhere_than_the_start_is_still_malformed(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_text('[run]\nduration = "1 s"\n' + BOM + "seed = 1\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match="malformed TOML"):
        load(path)


@pytest.mark.parametrize("path", [5, None, ("links", "sat"), b"links.sat"])
def test_a_key_path_that_is_not_a_string_is_refused(path):
    sc = Scenario.from_dict(BASE)
    with pytest.raises(ScenarioError, match="key path must be a string"):
        sc.set(path, "x")
    with pytest.raises(ScenarioError, match="key path must be a string"):
        sc.get(path)
    assert sc.data == BASE


# Found by tests/test_fuzz_scenario.py: a str holding a lone surrogate (what
# Python makes of bytes that are not UTF-8 in argv) made pydantic raise
# UnicodeEncodeError from validate().
NOT_UTF8 = b"geo\xff".decode("utf-8", "surrogateescape")


def test_a_value_that_is_not_text_is_refused_naming_its_key_path():
    data = copy.deepcopy(BASE)
    data["links"]["sat"]["rate"] = NOT_UTF8
    with pytest.raises(ScenarioError) as caught:
        Scenario.from_dict(data)
    assert caught.value.path == "links.sat.rate"
    assert (
        caught.value.reason == "'geo\\udcff' is not valid text: it holds bytes that are not UTF-8"
    )
    sc = Scenario.from_dict(BASE)
    sc.data["run"]["name"] = NOT_UTF8
    with pytest.raises(ScenarioError, match="not valid text") as caught:
        sc.validate()
    assert caught.value.path == "run.name"


def test_a_key_that_is_not_text_is_refused_naming_its_table():
    data = copy.deepcopy(BASE)
    data["nodes"][NOT_UTF8] = {}
    with pytest.raises(ScenarioError) as caught:
        Scenario.from_dict(data)
    assert caught.value.path == "nodes"
    assert "the key 'geo\\udcff' is not valid text" in caught.value.reason


def test_set_refuses_a_key_path_or_value_that_is_not_text():
    sc = Scenario.from_dict(BASE)
    with pytest.raises(ScenarioError, match="key path 'run.geo\\\\udcff' is not valid text"):
        sc.set(f"run.{NOT_UTF8}", 1)
    with pytest.raises(ScenarioError, match="not valid text") as caught:
        sc.set("run.name", [NOT_UTF8])
    assert caught.value.path == "run.name.0"
    assert sc.data == BASE


@pytest.mark.parametrize(
    ("key", "value", "hint"),
    [
        ("links.sat.rate", np.float64(2.0), 'write e.g. "2.0 Mbps"'),
        ("links.sat.delay", np.float64(0.27), 'write e.g. "0.27 s"'),
        ("links.sat.queue.limit", np.float64(64.0), 'write e.g. "64.0 packets"'),
    ],
)
def test_a_bare_numpy_float_gets_the_hint_a_bare_float_gets(key, value, hint):
    # Found by tests/test_fuzz_scenario.py: the hint quoted repr(np.float64(2.0)),
    # "np.float64(2.0)", as a number and raised decimal.InvalidOperation.
    plain = refusal(Scenario.from_dict(BASE).set(key, float(value)))
    numpy = refusal(Scenario.from_dict(BASE).set(key, value))
    assert numpy.path == plain.path == key
    assert hint in plain.reason and hint in numpy.reason
    # The same hint after "got <the value>: ".
    assert numpy.reason.split(": ", 1)[1] == plain.reason.split(": ", 1)[1]


@pytest.mark.parametrize(
    ("text", "key", "says"),
    [
        ('[run]\nduration = "1 s"\nduration = "2 s"\n', "run.duration", "given twice (line 3)"),
        ("[nodes.a]\n[nodes.b]\n[nodes.a]\n", "nodes.a", "table [nodes.a] is declared twice"),
        (
            '[links.l]\nfrom = "a"\nrate = "1 Mbps"\n# a comment\nrate = "2 Mbps"\n',
            "links.l.rate",
            "given twice (line 5)",
        ),
        ('[tcp."my flow"]\nmss = "1 kB"\nmss = "2 kB"\n', "tcp.my flow.mss", "given twice"),
    ],
)
def test_a_duplicate_key_is_named_by_its_path(tmp_path, text, key, says):
    # Before: "malformed TOML: Cannot overwrite a value (at line 3, column 17)",
    # and "Cannot declare ('nodes', 'a') twice" (a Python tuple).
    f = tmp_path / "dup.toml"
    f.write_text(text)
    with pytest.raises(ScenarioError) as e:
        load(f)
    assert e.value.path == key and says in str(e.value), str(e.value)
    assert "Cannot" not in str(e.value) and "(" + "'" not in str(e.value)


def test_text_beyond_ascii_passes_the_tree_check_and_validation_leaves_its_input_as_it_was():
    # The tree check's quick path skips the UTF-8 test for ASCII strings
    # only: a name in other letters reaches the name rule, not a text refusal.
    data = copy.deepcopy(BASE)
    data["run"]["name"] = "Zürich-Tromsø"
    before = copy.deepcopy(data)
    # Scenario wraps the dict itself (studies plan their own dicts this way).
    with pytest.raises(ScenarioError, match="cannot name output folders"):
        Scenario(data).validate()
    assert data == before
    data["run"]["name"] = "zurich"
    Scenario(data).validate()
    assert data == {**before, "run": {**before["run"], "name": "zurich"}}
