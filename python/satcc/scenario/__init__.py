"""Scenarios: load, edit and validate a scenario into the normalised description.

A scenario (TOML file or Python dict, see docs/scenario.md) is kept raw so it
can be edited and written back; validate() turns it into the normalised
description, plain JSON-able data in SI base units that the Rust core takes and
run keys hash. Validation has three stages: pydantic models check structure,
types and units; cross-reference checks find dangling names and inconsistent
values; routing resolves every source's path and both directions of every TCP
connection. The first refusal is raised as a ScenarioError naming the file, the
key path and the reason.

The format is one module per top-level section (run.py, nodes.py, links.py,
sources.py, sinks.py, tcp.py, tfrc.py, dvb_rcs.py, probes.py, ...; shared
sub-tables in atm.py, rate_control.py and the like), each declaring its table
models, its checks and a Section; sections.py lists them in order and
validation.py runs the stages over that list. A table's entry in the
description is generated from its model's fields (description.py), so adding
a section is its module plus one registry line.
"""

from __future__ import annotations

import copy
import difflib
import json
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from satcc.units import describe_value

from . import validation
from .errors import ScenarioError, join_path
from .toml_writer import to_toml

__all__ = ["Scenario", "ScenarioError", "UnknownTable", "load", "normalised_json"]


# No scenario goes deeper than a handful of levels (links.sat.queue.limit is
# four); far beyond that, a file or dict is a mistake, or refers to itself, and
# walking it (tomllib, copy.deepcopy, pydantic, json) would exhaust Python's
# stack with a RecursionError instead of saying what is wrong.
MAX_DEPTH = 32
_TOO_DEEP = f"nested too deeply (more than {MAX_DEPTH} levels of tables and lists)"


def _not_text(text: str) -> bool:
    # A lone surrogate: Python's stand-in for bytes that are not UTF-8 in
    # argv (--set) or file names; pydantic and the core cannot hold one.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


_NOT_TEXT = "is not valid text: it holds bytes that are not UTF-8"


def _check_tree(value: Any, path: tuple, source: str) -> None:
    """Refuses `value`, found at key path `path`, when validation could not
    even read it: nested past MAX_DEPTH, or holding a string that is not text.

    A refusal for depth names `path`, or the section and entry for a whole
    scenario: the full path to the deepest point would be dozens of keys long.
    """
    if _plain_tree(value, len(path)):
        return
    shown = max(len(path), 2)
    # Iterative, so that it cannot itself run out of stack; a dict that
    # contains itself is caught too, since its depth has no end.
    stack = [(value, path)]
    while stack:
        item, where = stack.pop()
        if len(where) > MAX_DEPTH:
            raise ScenarioError(source, join_path(where[:shown]), _TOO_DEEP)
        if isinstance(item, dict):
            for key, child in item.items():
                if isinstance(key, str) and _not_text(key):
                    raise ScenarioError(source, join_path(where), f"the key {key!r} {_NOT_TEXT}")
                stack.append((child, (*where, key)))
        elif isinstance(item, list | tuple):
            stack.extend((v, (*where, i)) for i, v in enumerate(item))
        elif isinstance(item, str) and _not_text(item):
            raise ScenarioError(source, join_path(where), f"{item!r} {_NOT_TEXT}")


def _plain_tree(value: Any, depth: int) -> bool:
    """Whether `_check_tree` has nothing to refuse in `value`, `depth` keys
    down: the same walk without the key paths, which only a refusal needs
    (a study plans thousands of scenarios, each checked this way)."""
    stack = [(value, depth)]
    while stack:
        item, level = stack.pop()
        if level > MAX_DEPTH:
            return False
        if isinstance(item, dict):
            for key, child in item.items():
                if isinstance(key, str) and not key.isascii() and _not_text(key):
                    return False
                stack.append((child, level + 1))
        elif isinstance(item, list | tuple):
            stack.extend((v, level + 1) for v in item)
        elif isinstance(item, str) and not item.isascii() and _not_text(item):
            return False
    return True


def _check_key_path(path: object, source: str) -> list[str]:
    if not isinstance(path, str):
        raise ScenarioError(
            source, "", f'a key path must be a string such as "links.sat.rate", got {path!r}'
        )
    if _not_text(path):
        raise ScenarioError(source, "", f"the key path {path!r} {_NOT_TEXT}")
    return path.split(".")


def normalised_json(desc: dict) -> str:
    """The canonical text of a description: what the Rust core reads and run keys hash."""
    return json.dumps(desc, sort_keys=True, separators=(",", ":"), allow_nan=False)


# Names listed after a did-you-mean, at most: a routing study declares
# thousands of links.
_NAMES_SHOWN = 20


def _nearest(name: str, names: Iterable[str], what: str = "tables") -> str:
    """' (did you mean "x"? links: a, b, x)': the closest of `names`, then all of them."""
    listed = sorted(str(n) for n in names)
    close = difflib.get_close_matches(name, listed, n=1)
    hint = f'did you mean "{close[0]}"? ' if close else ""
    shown = ", ".join(listed[:_NAMES_SHOWN])
    if len(listed) > _NAMES_SHOWN:
        shown += f", ... ({len(listed)} in all)"
    return f" ({hint}{what}: {shown})"


@dataclass(frozen=True)
class UnknownTable:
    """A key path through a table the scenario does not have (Scenario.unknown_table)."""

    reason: str
    # The entry that can be added whole instead ("links.nosuch"), if any.
    entry: str | None
    noun: str = ""

    def message(self, option: str | None = None, *, whole: bool = True) -> str:
        """The reason and, for an entry, how to add one on purpose: with
        Scenario.set (no `option`) or the command line's `option` (--set)
        given the whole entry; or, where an option takes lists of values (a
        sweep's --set and --zip: whole=False), in the scenario file."""
        if self.entry is None:
            return self.reason
        if not whole:
            how = "is declared in the scenario file"
        elif option is None:
            how = f'is set whole, as one table: set("{self.entry}", {{...}})'
        else:
            how = f"is set whole, as one table: {option} '{self.entry}={{key = value, ...}}'"
        return f"{self.reason}; a new {self.noun} {how}"


# ---------------------------------------------------------------------------
# The public Scenario.

_MISSING = object()


def _default_name(source: str) -> str:
    return "scenario" if source.startswith("<") else Path(source).stem


class Scenario:
    """A raw, editable scenario; validate() produces the normalised description."""

    def __init__(self, data: dict, source: str = "<dict>"):
        if not isinstance(data, dict):
            raise ScenarioError(source, "", f"expected a table, got {describe_value(data)}")
        _check_tree(data, (), source)
        self._data = data
        self._source = source

    @classmethod
    def from_dict(cls, data: dict, source: str = "<dict>") -> Scenario:
        """Wrap a deep copy of data, so later edits never touch the caller's dict."""
        if not isinstance(data, dict):
            raise ScenarioError(source, "", f"expected a table, got {describe_value(data)}")
        # Before the copy: deepcopy itself recurses.
        _check_tree(data, (), source)
        return cls(copy.deepcopy(data), source)

    @property
    def data(self) -> dict:
        return self._data

    @property
    def source(self) -> str:
        return self._source

    @property
    def name(self) -> str:
        run = self._data.get("run")
        name = run.get("name") if isinstance(run, dict) else None
        return name if isinstance(name, str) else _default_name(self._source)

    def __repr__(self) -> str:
        return f"Scenario(name={self.name!r}, source={self._source!r})"

    def get(self, path: str, default: Any = _MISSING) -> Any:
        """The raw value at a dotted key path such as "links.sat1.rate"."""
        value: Any = self._data
        for part in _check_key_path(path, self._source):
            if isinstance(value, dict) and part in value:
                value = value[part]
            elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
                value = value[int(part)]
            elif default is _MISSING:
                raise KeyError(path)
            else:
                return default
        return value

    def set(self, path: str, value: Any, *, new_entries: bool = True) -> Scenario:
        """Set the raw value at a dotted key path, creating tables on the way.

        With new_entries=False (the command line's --set, and sweeps) a path
        through an entry the scenario does not declare is refused (see
        missing_entry); a new entry can still be set whole, as one table:
        set("links.new", {"from": "a", ...}).
        """
        parts = _check_key_path(path, self._source)
        if not all(parts):
            raise ScenarioError(self._source, path, "a key path needs non-empty keys")
        if not new_entries:
            unknown = self.unknown_table(path)
            if unknown is not None:
                raise ScenarioError(self._source, path, unknown.message())
        _check_tree(value, tuple(parts), self._source)
        table = self._data
        for depth, part in enumerate(parts[:-1]):
            table = table.setdefault(part, {})
            if not isinstance(table, dict):
                where = ".".join(parts[: depth + 1])
                raise ScenarioError(
                    self._source, path, f"{where} is {describe_value(table)}, not a table"
                )
        table[parts[-1]] = value
        return self

    def unknown_table(self, path: str) -> UnknownTable | None:
        """What in `path` this scenario does not have, or None.

        Setting "links.nosuch.rate" would create the link "nosuch" with one
        key, and validation would then blame the file for the keys that link
        lacks: a path into a named entry (a link, a source, a node ...) the
        scenario does not declare is almost always a typo, and so is a
        top-level table the format does not have. Tables whose names the
        format fixes (links.X.queue, run.stop_when) may be created on the
        way, as before; keys inside existing tables are the validator's to
        check (it names the allowed ones).
        """
        from .sections import SECTIONS

        parts = _check_key_path(path, self._source)
        sections = {section.key: section for section in SECTIONS}
        section = sections.get(parts[0])
        if section is None:
            reason = f'the format has no table "{parts[0]}"' + _nearest(
                parts[0], sections, "its tables"
            )
            return UnknownTable(reason, None)
        entries = self._data.get(parts[0], {})
        if not section.named or len(parts) < 3 or not isinstance(entries, dict):
            return None
        if parts[1] in entries:
            return None
        reason = f'no {section.noun} named "{parts[1]}"'
        if entries:
            reason += _nearest(parts[1], entries, section.plural)
        else:
            reason += f" (the scenario has no {section.plural})"
        return UnknownTable(reason, f"{parts[0]}.{parts[1]}", section.noun)

    def copy(self) -> Scenario:
        # .data is the caller's to edit, so it may have grown since __init__.
        _check_tree(self._data, (), self._source)
        return Scenario(copy.deepcopy(self._data), self._source)

    def validate(self, seed: int | None = None) -> dict:
        """The normalised description (docs/scenario.md); seed overrides run.seed."""
        _check_tree(self._data, (), self._source)
        return validation.validate(self._data, self._source, _default_name(self._source), seed)

    def reseeded(self, desc: dict, seed: int) -> dict:
        """validate(seed), given `desc` = validate(another seed) of this
        scenario unchanged since, without validating again."""
        return validation.reseeded(desc, seed, self._source)

    def to_toml(self) -> str:
        """TOML text that loads back to an equal dict."""
        _check_tree(self._data, (), self._source)
        return to_toml(self._data)


# Scenario files hold tables of a few lines per model; 8000 hosts with their
# links and sources take about 2 MiB.
MAX_SCENARIO_BYTES = 64 * 2**20


def load(path: str | Path) -> Scenario:
    """Read a TOML scenario. Only syntax is checked here; validate() checks the rest."""
    source = str(path)
    try:
        with open(path, "rb") as f:
            # At most one byte past the limit: a 4 GB file (or /dev/zero)
            # is refused without being read whole.
            raw = f.read(MAX_SCENARIO_BYTES + 1)
    except OSError as exc:
        raise ScenarioError(source, "", f"cannot read the file: {exc.strerror}") from None
    if len(raw) > MAX_SCENARIO_BYTES:
        raise ScenarioError(
            source,
            "",
            f"larger than {MAX_SCENARIO_BYTES // 2**20} MiB: not a scenario file (the largest "
            "scenarios, thousands of hosts, take a few MiB)",
        )
    try:
        # A byte order mark is not part of the text (Windows editors write
        # one); TOML allows none, so tomllib would call it an invalid statement.
        text = raw.decode("utf-8").removeprefix("\ufeff")
        data = tomllib.loads(text)
    except RecursionError:
        raise ScenarioError(
            source, "", "nested too deeply: arrays or inline tables deeper than satcc can read"
        ) from None
    except UnicodeDecodeError as exc:
        raise ScenarioError(
            source, "", f"not UTF-8 text: {exc.reason} at byte {exc.start}"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        duplicate = _duplicate_key(str(exc), text)
        if duplicate is not None:
            raise ScenarioError(source, *duplicate) from None
        raise ScenarioError(source, "", f"malformed TOML: {exc}") from None
    return Scenario(data, source)


_AT = re.compile(r"\(at line (\d+), column \d+\)")
_TABLE_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_.\"' -]+?)\s*=")


def _duplicate_key(message: str, text: str) -> tuple[str, str] | None:
    """(key path, message) for tomllib's "Cannot overwrite a value" and
    "Cannot declare (...) twice", which name neither the key in the
    scenario's terms nor, for a table, in TOML's (a Python tuple)."""
    at = _AT.search(message)
    if at is None or not message.startswith(("Cannot overwrite a value", "Cannot declare")):
        return None
    line_no = int(at.group(1))
    lines = text.splitlines()
    if not 0 < line_no <= len(lines):
        return None
    line = lines[line_no - 1]
    header = _TABLE_HEADER.match(line)
    if header is not None and message.startswith("Cannot declare"):
        table = _dotted(header.group(1))
        return table, f"table [{table}] is declared twice (line {line_no}): declare it once"
    key = _KEY.match(line)
    if key is None:
        return None
    table = ""
    for earlier in reversed(lines[: line_no - 1]):
        found = _TABLE_HEADER.match(earlier)
        if found is not None:
            table = _dotted(found.group(1))
            break
    path = ".".join(p for p in (table, _dotted(key.group(1))) if p)
    return path, f"given twice (line {line_no}): each key may be given once"


def _dotted(key: str) -> str:
    return ".".join(part.strip().strip("\"'") for part in key.split("."))
