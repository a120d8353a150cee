# docs/scenario.md documents every key the scenario schema accepts, and no
# key it does not, each under the table it belongs to.
#
# The convention read here (docs/scenario.md states it too, under "How
# this page is organised"):
#
# - A heading that names scenario tables in code spans, `[tcp.NAME]`, or
#   several, "TCP parameters: `[tcp.NAME]`, `[arrivals.NAME]`", documents
#   those tables. An upper-case segment (NAME, T) stands for any entry name.
# - Its key tables are the Markdown tables between it and the next heading
#   whose first header cell is "key". Every code span in a row's first cell
#   is a key of each table the heading names; a dotted one (`frame.preset`)
#   is a key of a nested table ([dvb_rcs.NAME.frame]) and documents the key
#   that holds that table (`frame`) as well.
# - A table's documented keys are the union over every heading naming it.
# - A key table under a heading that names no table, and a row whose first
#   cell has no code span, are errors rather than silently skipped.
#
# The schema side is the live registry (satcc.scenario.sections.SECTIONS):
# each section's model, its table_keys(), and recursively every key whose
# type is a table model (optional or not, or a table of named ones such as
# dvb_rcs's `terminals.T`), so keys added to the format are checked as soon
# as they exist.

from __future__ import annotations

import re
import types
import typing
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from pydantic import BaseModel
from satcc.scenario.sections import SECTIONS

ROOT = Path(__file__).resolve().parent.parent
SCENARIO_MD = ROOT / "docs" / "scenario.md"
TCP_MD = ROOT / "docs" / "tcp.md"
README = ROOT / "README.md"

# A code span naming a table: [section], [section.NAME], [section.NAME.sub.T.x].
_TABLE_SPAN = re.compile(r"\[([a-z_][a-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\]")
_PLACEHOLDER = re.compile(r"[A-Z][A-Z0-9_]*")
_KEY = re.compile(r"[a-z_][a-z0-9_]*(?:\.(?:[a-z_][a-z0-9_]*|[A-Z][A-Z0-9_]*))*")
ANY = "*"


class DocFormatError(Exception):
    """The page breaks the convention, so part of it would go unchecked."""


# ---------------------------------------------------------------------------
# The schema: table path -> keys.


def _normalise(path: str) -> str:
    return ".".join(ANY if _PLACEHOLDER.fullmatch(part) else part for part in path.split("."))


def _sub_tables(annotation: object) -> list[tuple[tuple[str, ...], type[BaseModel]]]:
    """The table models a key's type holds, each with the path segments
    between the key and the table (("*",) for a table of named tables)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [((), annotation)]
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _sub_tables(args[0])
    if origin in (typing.Union, types.UnionType, list, tuple):
        return [found for arg in args for found in _sub_tables(arg)]
    if origin is dict:
        return [((ANY, *inner), model) for inner, model in _sub_tables(args[1])]
    return []


def _model_keys(model: type[BaseModel]) -> list[str]:
    table_keys = getattr(model, "table_keys", None)
    if table_keys is not None:
        return table_keys()
    return [info.alias or name for name, info in model.model_fields.items()]


def _walk(model: type[BaseModel], path: str, tables: dict[str, set[str]]) -> None:
    keys = _model_keys(model)
    tables.setdefault(path, set()).update(keys)
    fields = {info.alias or name: info for name, info in model.model_fields.items()}
    for key in keys:
        for between, sub in _sub_tables(fields[key].annotation):
            _walk(sub, ".".join((path, key, *between)), tables)


def schema_tables(sections=SECTIONS) -> dict[str, set[str]]:
    """Every table the format accepts, by normalised path, with its keys."""
    tables: dict[str, set[str]] = {}
    for section in sections:
        _walk(section.table, f"{section.key}.{ANY}" if section.named else section.key, tables)
    return tables


# ---------------------------------------------------------------------------
# The page: table path -> documented keys.


def _code_spans(inline) -> list[str]:
    return [child.content for child in inline.children or () if child.type == "code_inline"]


def _line(token) -> int:
    return token.map[0] + 1 if token.map else 0


def documented_tables(text: str) -> dict[str, set[str]]:
    """Every table the page documents, by normalised path, with its keys."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    documented: dict[str, set[str]] = {}
    heading, tables = "(top of the page)", []
    in_heading = in_table = in_header = False
    is_key_table, cell = False, 0
    for token in tokens:
        kind = token.type
        if kind == "heading_open":
            in_heading = True
        elif kind == "inline" and in_heading:
            spans = [m.group(1) for s in _code_spans(token) if (m := _TABLE_SPAN.fullmatch(s))]
            heading, tables = token.content, [_normalise(span) for span in spans]
            for table in tables:
                documented.setdefault(table, set())
            in_heading = False
        elif kind in ("table_open", "table_close"):
            in_table, table_line = kind == "table_open", _line(token)
        elif kind in ("thead_open", "thead_close"):
            in_header = kind == "thead_open"
        elif kind == "tr_open":
            cell = 0
        elif kind == "inline" and in_table:
            if cell == 0 and in_header:
                is_key_table = token.content.strip().lower() == "key"
                if is_key_table and not tables:
                    raise DocFormatError(
                        f"line {table_line}: a key table under the heading {heading!r}, "
                        "which names no scenario table in a code span"
                    )
            elif cell == 0 and is_key_table:
                keys = [span for span in _code_spans(token) if _KEY.fullmatch(span)]
                if not keys:
                    raise DocFormatError(
                        f"line {_line(token)}: the row {token.content!r} under {heading!r} "
                        "names no key in a code span"
                    )
                for table in tables:
                    for key in keys:
                        _document(documented, table, key)
            cell += 1
    return documented


def _document(documented: dict[str, set[str]], table: str, key: str) -> None:
    """Records `key` (maybe dotted) of `table`, and each table it passes through."""
    parts = key.split(".")
    for depth in range(len(parts)):
        if _PLACEHOLDER.fullmatch(parts[depth]):
            continue
        within = _normalise(".".join((table, *parts[:depth])))
        documented.setdefault(within, set()).add(parts[depth])


# ---------------------------------------------------------------------------
# The comparison.


def _shown(path: str) -> str:
    return "[" + path.replace(ANY, "NAME") + "]"


def differences(schema: dict[str, set[str]], documented: dict[str, set[str]]) -> list[str]:
    """What the page leaves out and what it documents that the schema lacks."""
    found = []
    for path in sorted(schema):
        for key in sorted(schema[path] - documented.get(path, set())):
            found.append(f"{_shown(path)}: key {key!r} is accepted but not documented")
    for path in sorted(documented):
        if path not in schema:
            found.append(f"{_shown(path)}: documented, but the format has no such table")
            continue
        for key in sorted(documented[path] - schema[path]):
            found.append(f"{_shown(path)}: documents {key!r}, which the table does not accept")
    return found


# ---------------------------------------------------------------------------
# The tests.


def test_scenario_md_documents_every_key_and_no_other():
    problems = differences(schema_tables(), documented_tables(SCENARIO_MD.read_text()))
    assert not problems, "docs/scenario.md and the schema disagree:\n" + "\n".join(problems)


def test_removing_a_row_of_scenario_md_is_caught():
    # The real page with the row of one key deleted fails on that key alone.
    text = SCENARIO_MD.read_text()
    row = re.compile(r"^\| `hystart` \|.*\n", re.MULTILINE)
    assert len(row.findall(text)) == 1
    problems = differences(schema_tables(), documented_tables(row.sub("", text)))
    assert problems == ["[tcp.NAME]: key 'hystart' is accepted but not documented"]


def test_tcp_md_names_every_key_of_a_connection():
    # tcp.md explains the mechanisms behind the keys scenario.md lists.
    named = set(re.findall(r"`([a-z_][a-z0-9_]*)", TCP_MD.read_text()))
    assert not schema_tables()["tcp.*"] - named


def test_readme_lists_every_study():
    from satcc.studies import STUDIES

    text = README.read_text()
    listed = set(re.findall(r"^\| `([a-z0-9-]+)` \|", text, re.MULTILINE))
    assert listed == set(STUDIES)


def test_the_schema_walk_reaches_nested_and_named_tables():
    tables = schema_tables()
    assert {"type", "limit", "high", "low"} <= tables["links.*.queue"]
    assert tables["links.*.queue.high"] == {"limit", "clp_threshold"}
    assert "quick_start" in tables["dvb_rcs.*.terminals.*"]
    assert "qsd" in tables["dvb_rcs.*.terminals.*.quick_start"]
    assert {"congestion_control", "hystart", "preset", "cwnd_validation"} <= tables["tcp.*"]
    # Arrivals take a connection's keys but not its application or ATM tables.
    assert not {"app", "abr", "ubr"} & tables["arrivals.*"]
    assert "bases" not in tables["tcp.*.app"]


# The checker on a small page of its own, against a small schema.
SCHEMA = {
    "run": {"duration", "stop_when"},
    "run.stop_when": {"sink", "received_packets"},
    "links.*": {"rate", "queue"},
    "links.*.queue": {"type", "limit"},
    "tcp.*": {"from", "mss"},
    "arrivals.*": {"from", "mss", "rate"},
    "dvb_rcs.*": {"terminals"},
    "dvb_rcs.*.terminals.*": {"uplink"},
}

PAGE = """\
# Format

| quantity | units |
|---|---|
| rate | not a key table, so under a heading that names no table |

## `[run]`

| key | type |
|---|---|
| `duration` | time |
| `stop_when` | table |

### `[run.stop_when]`

| key | type |
|---|---|
| `sink`, `received_packets` | name, count |

## `[links.NAME]`

| key | type |
|---|---|
| `rate` | rate |
| `queue.type`, `queue.limit` | the queue |

## Connection keys: `[tcp.NAME]`, `[arrivals.NAME]`

| key | type |
|---|---|
| `from` | node |
| `mss` | size |

## `[arrivals.NAME]`

- a list item holding a table:

  | key | type |
  |---|---|
  | `rate` | number |

## `[dvb_rcs.NAME]`

| key | type |
|---|---|
| `terminals.T.uplink` | link |
"""


def test_a_complete_page_passes():
    documented = documented_tables(PAGE)
    assert documented["links.*"] == {"rate", "queue"}
    assert documented["arrivals.*"] == {"from", "mss", "rate"}
    assert documented["dvb_rcs.*"] == {"terminals"}
    assert documented["dvb_rcs.*.terminals.*"] == {"uplink"}
    assert differences(SCHEMA, documented) == []


MISSING = "is accepted but not documented"


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ("| `mss` | size |\n", ["[arrivals.NAME]: key 'mss'", "[tcp.NAME]: key 'mss'"]),
        (
            "| `queue.type`, `queue.limit` | the queue |\n",
            [
                "[links.NAME]: key 'queue'",
                "[links.NAME.queue]: key 'limit'",
                "[links.NAME.queue]: key 'type'",
            ],
        ),
        (
            "| `sink`, `received_packets` | name, count |\n",
            ["[run.stop_when]: key 'received_packets'", "[run.stop_when]: key 'sink'"],
        ),
        (
            "| `terminals.T.uplink` | link |\n",
            ["[dvb_rcs.NAME]: key 'terminals'", "[dvb_rcs.NAME.terminals.NAME]: key 'uplink'"],
        ),
        ("  | `rate` | number |\n", ["[arrivals.NAME]: key 'rate'"]),
    ],
)
def test_a_removed_row_is_caught(row, expected):
    assert PAGE.count(row) == 1
    problems = differences(SCHEMA, documented_tables(PAGE.replace(row, "")))
    assert problems == [f"{start} {MISSING}" for start in expected]


def test_a_key_the_schema_lacks_is_caught():
    page = PAGE.replace("| `rate` | rate |\n", "| `rate` | rate |\n| `bandwidth` | rate |\n")
    assert differences(SCHEMA, documented_tables(page)) == [
        "[links.NAME]: documents 'bandwidth', which the table does not accept"
    ]


def test_a_table_the_schema_lacks_is_caught():
    page = PAGE + "\n## `[links.NAME.shaper]`\n\n| key | type |\n|---|---|\n| `rate` | rate |\n"
    assert differences(SCHEMA, documented_tables(page)) == [
        "[links.NAME.shaper]: documented, but the format has no such table"
    ]


def test_a_key_documented_under_the_wrong_table_is_caught():
    # `rate` moved from [links.NAME] to [run]: missing there, foreign here.
    page = PAGE.replace("| `rate` | rate |\n", "")
    page = page.replace("| `duration` | time |\n", "| `duration` | time |\n| `rate` | rate |\n")
    assert differences(SCHEMA, documented_tables(page)) == [
        "[links.NAME]: key 'rate' is accepted but not documented",
        "[run]: documents 'rate', which the table does not accept",
    ]


def test_pages_the_convention_cannot_read_are_refused():
    stray = "# Results\n\n| key | meaning |\n|---|---|\n| `x` | y |\n"
    with pytest.raises(DocFormatError, match="names no scenario table"):
        documented_tables(stray)
    no_code = PAGE.replace("| `rate` | rate |", "| rate | rate |")
    with pytest.raises(DocFormatError, match="names no key"):
        documented_tables(no_code)
