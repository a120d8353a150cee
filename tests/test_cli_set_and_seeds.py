"""`--set` and a sweep's grid keys refuse a path into an entry or a table
that does not exist (naming the option and the closest name), while a
whole new entry is still added; and a sweep warns once when its seeds
change nothing."""

import pytest
import satcc
from cli_helpers import call


def test_set_into_an_entry_the_scenario_lacks_is_refused_with_a_suggestion(capsys, good):
    # Before: the link "ba" was created with one key, and the file was
    # blamed for "links.ba.from: missing required key".
    status, out, err = call(capsys, "run", str(good), "--set", "links.abb.rate=4 Mbps")
    assert status == 2 and out == ""
    assert err.startswith("error: bad --set links.abb.rate: ")
    assert 'no link named "abb" (did you mean "ab"? links: ab)' in err
    assert "a new link is set whole, as one table: --set 'links.abb={key = value, ...}'" in err


def test_set_into_a_section_the_scenario_lacks_or_the_format_lacks(capsys, good):
    status, _, err = call(capsys, "validate", str(good), "--set", "tcp.bulk.congestion=reno")
    assert status == 2
    assert 'no tcp connection named "bulk" (the scenario has no tcp connections)' in err
    status, _, err = call(capsys, "validate", str(good), "--set", "link.ab.rate=4 Mbps")
    assert status == 2
    assert 'bad --set link.ab.rate: the format has no table "link" (did you mean "links"?' in err


def test_set_still_adds_a_whole_entry_and_a_table_the_format_names(capsys, good):
    whole = 'links.ba={from = "b", to = "a", rate = "1 Mbps", delay = "10 ms"}'
    status, out, err = call(capsys, "validate", str(good), "--set", whole)
    assert status == 0, err
    assert "2 links" in out
    # links.ab.queue is not in the file, but its name is the format's.
    status, _, err = call(capsys, "validate", str(good), "--set", "links.ab.queue.limit=10 packets")
    assert status == 0, err


def test_set_of_a_key_an_existing_table_does_not_have_is_refused_by_the_validator(capsys, good):
    status, _, err = call(capsys, "validate", str(good), "--set", "links.ab.rat=4 Mbps")
    assert status == 2
    assert 'links.ab.rat: unknown key "rat" (did you mean "rate"?' in err


def test_python_set_keeps_creating_entries_unless_told_not_to(good):
    sc = satcc.load(good)
    sc.set("nodes.c.routes", {})  # documented: tables are created on the way
    assert sc.get("nodes.c") == {"routes": {}}
    with pytest.raises(satcc.ScenarioError, match='no node named "d" .*set\\("nodes.d", '):
        sc.set("nodes.d.routes", {}, new_entries=False)


@pytest.mark.parametrize("option", ["--set", "--zip"])
def test_sweep_keys_into_an_entry_the_scenario_lacks_are_refused(capsys, good, tmp_path, option):
    campaign = tmp_path / "c"
    args = ["sweep", str(good), option, "sources.s12.rate=1 Mbps,2 Mbps", "--campaign", campaign]
    status, _, err = call(capsys, *map(str, args))
    assert status == 2
    assert f'bad {option} sources.s12.rate: no source named "s12" (did you mean "s1"?' in err
    assert "a new source is declared in the scenario file" in err
    assert not campaign.exists()
    with pytest.raises(satcc.ScenarioError, match='no source named "s12"'):
        satcc.sweep(good, set={"sources.s12.rate": ["1 Mbps"]}, campaign=campaign)


SAME_FOR_EVERY_SEED = "gave identical runs"


def test_a_sweep_over_seeds_of_a_scenario_without_randomness_warns_once(capsys, good, tmp_path):
    # GOOD is one CBR source over an error-free link: nothing is drawn.
    args = ["sweep", str(good), "--seeds", "1..3", "--set", "sources.s1.rate=300 kbps,400 kbps"]
    status, out, err = call(capsys, *args, "--campaign", str(tmp_path / "c"), "-j", "1")
    assert status == 0, err
    assert out.startswith("6 runs: 6 done now")
    assert err.count("warning: ") == 1
    assert "warning: seeds 1 and 2 gave identical runs at sources.s1.rate=" in err
    assert "every seed gives the same result" in err


def test_a_sweep_over_seeds_of_a_random_scenario_does_not_warn(capsys, good, tmp_path):
    poisson = ["--set", "sources.s1.type=poisson"]
    c = tmp_path / "c"
    status, _, err = call(
        capsys, "sweep", str(good), *poisson, "--seeds", "1..2", "--campaign", str(c)
    )
    assert status == 0, err
    assert "warning" not in err


def test_the_seed_warning_from_python_is_in_the_counts(capsys, good, tmp_path):
    c = satcc.sweep(good, seeds=[4, 9], campaign=tmp_path / "c", jobs=1)
    (warning,) = c.last_sweep.warnings
    assert warning.startswith("seeds 4 and 9 gave identical runs: ")
    assert "warning: " + warning in capsys.readouterr().err.replace("\n", " ")
    # One seed has nothing to compare with.
    c = satcc.sweep(good, seeds=[5], campaign=tmp_path / "c", jobs=1)
    assert c.last_sweep.warnings == []
