# A fuzz target for the scenario validator: random TOML texts and random
# nested data around valid scenarios (keys, values, types and units mutated)
# go to satcc.load / Scenario.validate / Scenario.set and to `satcc validate
# FILE` in-process. Whatever the input, the API raises nothing but
# ScenarioError, the command exits 0 or 2 and never reports an internal
# error, and the two agree on which inputs are good.
#
# The normal test suite runs a fixed number of examples from a fixed seed
# (hypothesis' derandomize), in seconds. To fuzz longer, and elsewhere:
#
#   SATCC_FUZZ_EXAMPLES=20000 .venv/bin/pytest -q tests/test_fuzz_scenario.py
#   SATCC_FUZZ_EXAMPLES=20000 SATCC_FUZZ_SEED=7 .venv/bin/pytest -q tests/test_fuzz_scenario.py
#
# A failure prints the smallest input hypothesis found; make it a regression
# test of its own beside the fix (tests/test_scenario.py, tests/test_cli.py).

from __future__ import annotations

import contextlib
import copy
import datetime
import io
import os
import tomllib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, seed, settings
from hypothesis import strategies as st
from satcc.cli import BadInput, parse_assignment, run_cli
from satcc.executors import Task, execute
from satcc.scenario import Scenario, ScenarioError, load, normalised_json
from satcc.studies import STUDIES
from satcc.units import PACKET_UNITS, RATE_UNITS, SIZE_UNITS, TIME_UNITS

ROOT = Path(__file__).resolve().parent.parent

MAX_EXAMPLES = int(os.environ.get("SATCC_FUZZ_EXAMPLES", "200"))
FUZZ_SEED = os.environ.get("SATCC_FUZZ_SEED")

FUZZ = settings(
    max_examples=MAX_EXAMPLES,
    # The same examples on every run of the suite, unless a seed is asked for.
    derandomize=FUZZ_SEED is None,
    # No .hypothesis/ folder in the checkout.
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def fuzz(test):
    test = FUZZ(test)
    return seed(int(FUZZ_SEED))(test) if FUZZ_SEED is not None else test


# ---------------------------------------------------------------------------
# The corpus: every valid scenario the project has, as raw data.


def _corpus() -> list[tuple[str, dict]]:
    found = []
    for path in sorted((ROOT / "examples").glob("*.toml")) + sorted(
        (ROOT / "tests" / "data" / "guard").glob("*.toml")
    ):
        found.append((path.name, tomllib.loads(path.read_text(encoding="utf-8"))))
    for name, study in sorted(STUDIES.items()):
        # One run per set of sections a study uses (tfrc-dama's single
        # flows and its tfrc_arrivals, for instance).
        kinds: set[frozenset] = set()
        for spec in study.runs(True):
            data = spec.scenario if isinstance(spec.scenario, dict) else spec.scenario.data
            sections = frozenset(data)
            if sections not in kinds:
                kinds.add(sections)
                found.append((f"study {name}: {spec.label}", copy.deepcopy(data)))
    return found


CORPUS = _corpus()


def _vocabulary() -> tuple[list[str], list[object]]:
    """Every key and every scalar value in the corpus: mutations that use them
    make inputs that are almost right, which reach the deeper checks."""
    keys: set[str] = set()
    scalars: list[object] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                keys.add(key)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif value not in scalars:
            scalars.append(value)

    for _, data in CORPUS:
        walk(data)
    return sorted(keys), scalars


KEYS, SCALARS = _vocabulary()
UNITS = sorted(
    set(RATE_UNITS) | set(TIME_UNITS) | set(SIZE_UNITS) | set(PACKET_UNITS)
    | {"", "cells", "KB", "kib", "Mb/s", "mbps", "sec", "min", "h", "%", "µs", "us", "x"}
)  # fmt: skip
NUMBERS = [
    "0", "-0", "1", "-1", "2.5", "1e3", "1e400", "-1e-400", "nan", "inf", "-inf",
    "1_000", "1,5", ".", "0x10", "99999999999999999999999", "1e-30", "+3", " 7 ",
]  # fmt: skip

# ---------------------------------------------------------------------------
# Strategies


def text(max_size: int) -> st.SearchStrategy[str]:
    # Without lone surrogates, which no file can hold.
    return st.text(st.characters(exclude_categories=["Cs"]), max_size=max_size)


def argv_text(max_size: int) -> st.SearchStrategy[str]:
    """What a command line can hold: Python decodes argv's bytes that are not
    UTF-8 to surrogate escapes (\udc80-\udcff)."""
    return text(max_size) | st.binary(max_size=max_size).map(
        lambda raw: raw.decode("utf-8", "surrogateescape")
    )


def unit_strings() -> st.SearchStrategy[str]:
    return st.builds(
        lambda number, space, unit: f"{number}{space}{unit}",
        st.sampled_from(NUMBERS) | st.floats().map(repr) | st.integers().map(str),
        st.sampled_from(["", " ", "  ", "\t"]),
        st.sampled_from(UNITS) | text(4),
    )


def scalars(toml_only: bool) -> st.SearchStrategy[object]:
    options = [
        st.booleans(),
        st.integers(),
        st.integers(-(2**70), 2**70),
        st.floats(),
        text(12),
        unit_strings(),
        st.sampled_from([s for s in SCALARS if not isinstance(s, float)] or [0]),
        st.dates(),
        st.times(),
        st.datetimes(),
        st.datetimes(timezones=st.just(datetime.UTC)),
    ]
    if not toml_only:
        # What Python callers hand over and TOML cannot hold.
        options += [
            st.none(),
            st.integers(-(2**63), 2**63 - 1).map(np.int64),
            st.floats().map(np.float64),
            st.text(max_size=6),  # lone surrogates too: a str may hold them
            st.tuples(st.integers(), text(3)),
            st.builds(set, st.lists(st.integers(), max_size=3)),
            st.binary(max_size=4),
        ]
    return st.one_of(options)


def keys(toml_only: bool = True) -> st.SearchStrategy[object]:
    names = st.sampled_from(KEYS) | text(8)
    if toml_only:
        return names
    # A dict built in Python may have keys TOML cannot write.
    return names | st.integers() | st.none() | st.booleans() | st.tuples(st.integers())


def values(toml_only: bool) -> st.SearchStrategy[object]:
    return st.recursive(
        scalars(toml_only),
        lambda children: (
            st.lists(children, max_size=4) | st.dictionaries(keys(toml_only), children, max_size=4)
        ),
        max_leaves=12,
    )


def _places(data: dict) -> list[tuple[object, object]]:
    """Every (container, key or index) in the tree: where a mutation can act."""
    found: list[tuple[object, object]] = []
    stack: list[object] = [data]
    while stack:
        container = stack.pop()
        items = container.items() if isinstance(container, dict) else enumerate(container)
        for key, item in items:
            found.append((container, key))
            if isinstance(item, dict | list):
                stack.append(item)
    # Leaves first: hypothesis leans towards the first choices, and an edit
    # deep in the tree leaves the rest valid, which reaches the later checks
    # (cross-references, routing) rather than the first structural one.
    return found[::-1]


def _retyped(value: object) -> list[object]:
    """The same value in other types: "2 Mbps" -> 2, ["2 Mbps"], {...}, ..."""
    out: list[object] = [[value], {"value": value}, str(value), True]
    if isinstance(value, str):
        number = value.split(" ")[0]
        with contextlib.suppress(ValueError, OverflowError):  # "x", "inf"
            out += [float(number), int(float(number))]
    if isinstance(value, int | float) and not isinstance(value, bool):
        out += [-value, value * 10**9, float(value), f"{value}"]
    return out


def _mutate(draw, data: dict, toml_only: bool) -> None:
    places = _places(data)
    if not places:
        data[draw(keys(toml_only))] = draw(values(toml_only))
        return
    container, key = draw(st.sampled_from(places))
    current = container[key]
    # Value-level edits first and more often: they keep the structure valid,
    # so the unit, range and cross-reference checks get their share.
    operation = draw(
        st.sampled_from(
            ["unit", "rename-ref", "unit", "retype", "rename-ref", "replace", "delete"]
            + ["rename", "add", "transplant"]
        )
    )
    if operation == "replace":
        container[key] = draw(values(toml_only))
    elif operation == "delete":
        del container[key]
    elif operation == "rename" and isinstance(container, dict):
        text = str(key)
        typos = [text.upper(), text[:-1], text + "s", text.replace("_", "-"), ""]
        new = draw(keys(toml_only) | st.sampled_from(typos))
        container[new] = container.pop(key)
    elif operation == "retype":
        container[key] = draw(st.sampled_from(_retyped(current)))
    elif operation == "unit":
        container[key] = draw(unit_strings())
    elif operation == "add":
        target = current if isinstance(current, dict) else container
        if isinstance(target, dict):
            target[draw(keys(toml_only))] = draw(values(toml_only))
        else:
            target.append(draw(values(toml_only)))
    elif operation == "transplant":
        # A piece of another valid scenario in the wrong place.
        _, other = draw(st.sampled_from(CORPUS))
        donors = _places(other)
        if donors:
            donor, donor_key = draw(st.sampled_from(donors))
            container[key] = copy.deepcopy(donor[donor_key])
    elif operation == "rename-ref":
        container[key] = draw(st.sampled_from([s for s in SCALARS if isinstance(s, str)]))


@st.composite
def mutated_scenarios(draw, toml_only: bool = False, fewest: int = 1, most: int = 4) -> dict:
    _, base = draw(st.sampled_from(CORPUS))
    data = copy.deepcopy(base)
    for _ in range(draw(st.integers(fewest, most))):
        _mutate(draw, data, toml_only)
    return data


TOML_NOISE = list("[]{}=\".,'#\n \t\\-_:+eE0123456789abcxyz") + ["\ufeff", "\x00", "\x7f", "é"]


@st.composite
def mutated_toml_texts(draw) -> bytes:
    """A valid scenario file edited as text: characters in and out, lines
    repeated (duplicate keys) or swapped, a BOM, bytes that are not UTF-8."""
    name, _ = draw(st.sampled_from(CORPUS))
    path = ROOT / "examples" / name
    if not path.is_file():
        path = ROOT / "tests" / "data" / "guard" / name
    if not path.is_file():
        path = ROOT / "examples" / "geo_cbr.toml"
    body = path.read_text(encoding="utf-8")
    for _ in range(draw(st.integers(1, 5))):
        lines = body.split("\n")
        operation = draw(st.sampled_from(["insert", "delete", "repeat", "swap", "replace"]))
        at = draw(st.integers(0, len(body)))
        if operation == "insert":
            noise = draw(st.lists(st.sampled_from(TOML_NOISE) | text(1), max_size=6))
            body = body[:at] + "".join(noise) + body[at:]
        elif operation == "delete":
            body = body[:at] + body[at + draw(st.integers(1, 20)) :]
        elif operation == "repeat":
            i = draw(st.integers(0, len(lines) - 1))
            lines.insert(draw(st.integers(0, len(lines))), lines[i])
            body = "\n".join(lines)
        elif operation == "swap":
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
            body = "\n".join(lines)
        else:
            i = draw(st.integers(0, len(lines) - 1))
            key = lines[i].split("=")[0] if "=" in lines[i] else draw(keys())
            lines[i] = f"{key}= {draw(st.sampled_from(TOML_VALUES))}"
            body = "\n".join(lines)
    raw = body.encode("utf-8")
    if draw(st.booleans()):
        at = draw(st.integers(0, len(raw)))
        raw = raw[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xef\xbb\xbf", b""])) + raw[at:]
    return raw


TOML_VALUES = [
    '"2 Mbps"', "2", "-1", "1e400", "nan", "inf", "true", "[]", "{}", "[[[[1]]]]",
    "[1, \"a\"]", "{ a = 1 }", "1979-05-27", "07:32:00", "1979-05-27T07:32:00Z",
    '"-270 ms"', '"64 KiB"', '"100 packets"', '"0 s"', '""', "0x7fffffffffffffff",
    "99999999999999999999", "[" * 60 + "]" * 60, '"' + "x" * 300 + '"',
]  # fmt: skip


# ---------------------------------------------------------------------------
# What every input must satisfy


def api_verdict(scenario_or_path: object, seed_value: object = None) -> str:
    """ "ok" or "refused"; anything but a ScenarioError fails the test."""
    try:
        scenario = (
            load(scenario_or_path)
            if isinstance(scenario_or_path, Path)
            else Scenario.from_dict(scenario_or_path)
        )
        description = scenario.validate(seed=seed_value)
    except ScenarioError as e:
        assert str(e)  # a message the user can read
        return "refused"
    # The description is what the core reads and run keys hash: JSON.
    normalised_json(description)
    return "ok"


def cli_verdict(*args: str) -> tuple[int, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        status = run_cli(["validate", *args])
    err = stderr.getvalue()
    assert status in (0, 2), err
    assert "internal error" not in err, err
    assert (status == 2) == err.startswith("error: "), err
    return status, err


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz") / "scenario.toml"


@fuzz
@given(data=mutated_scenarios(), seed_value=st.none() | st.integers() | scalars(False))
def test_fuzz_dicts_reach_only_scenario_errors(data, seed_value):
    api_verdict(data, seed_value)


@fuzz
@given(data=mutated_scenarios(toml_only=True))
def test_fuzz_toml_files_agree_between_api_and_command(scratch, data):
    try:
        text = Scenario(data).to_toml()
    except ScenarioError:
        return  # too deep to write: refused, as it should be
    scratch.write_text(text, encoding="utf-8")
    status, err = cli_verdict(str(scratch))
    assert (status == 0) == (api_verdict(scratch) == "ok"), err


@fuzz
@given(raw=mutated_toml_texts())
def test_fuzz_toml_texts_agree_between_api_and_command(scratch, raw):
    scratch.write_bytes(raw)
    status, err = cli_verdict(str(scratch))
    assert (status == 0) == (api_verdict(scratch) == "ok"), err


@fuzz
@given(
    base=st.sampled_from([name for name, _ in CORPUS if name.endswith(".toml")]),
    key=st.lists(keys(), min_size=1, max_size=4).map(".".join) | argv_text(12),
    value=st.sampled_from(TOML_VALUES) | argv_text(12) | unit_strings(),
)
def test_fuzz_set_assignments_agree_between_api_and_command(base, key, value):
    path = ROOT / "examples" / base
    if not path.is_file():
        path = ROOT / "tests" / "data" / "guard" / base
    status, err = cli_verdict(str(path), "--set", f"{key}={value}")
    # The same edit through the API: Scenario.set, then validate.
    try:
        assignment = parse_assignment(f"{key}={value}")
    except BadInput:
        assert status == 2, err
        return
    try:
        scenario = load(path).set(*assignment)
    except ScenarioError:
        verdict = "refused"
    else:
        verdict = api_verdict(scenario.data)
    assert (status == 0) == (verdict == "ok"), err


# ---------------------------------------------------------------------------
# Accepted means runnable: a scenario that validates runs for a simulated
# second, comes back to the budget checks, and accounts for every PDU.

RUN_EXAMPLES = MAX_EXAMPLES
RUN_EVENTS = 3_000_000
RUN_WALL_S = 120.0
# What a run may end with instead of its end: its budgets, not a defect.
BUDGETS = ("event budget of", "wall-clock budget of")


@settings(FUZZ, max_examples=RUN_EXAMPLES)
@given(data=mutated_scenarios(toml_only=True, fewest=0, most=2))
def test_fuzz_accepted_scenarios_run_and_conserve(data):
    if isinstance(data.get("run"), dict):
        data["run"]["duration"] = "1 s"
    if data.get("emulate"):
        data["emulate"] = {}  # real hosts need root and real time: validated above
    try:
        description = Scenario.from_dict(data).validate()
    except ScenarioError:
        event("refused")
        return
    event("ran")
    task = Task("fuzz", normalised_json(description), max_wall_s=RUN_WALL_S, max_events=RUN_EVENTS)
    outcome = execute(task)
    if not outcome.ok:
        assert outcome.error.startswith(
            tuple(f"{k}: {b}" for k in ("TimeoutError", "RuntimeError") for b in BUDGETS)
        ), outcome.info.get("traceback")
        return
    assert outcome.summary["run.pdus_unaccounted"] == 0, outcome.summary
