"""Validation, in three stages over the registry of sections, into the normalised description.

1. Structure, types and units: the document model, built from the
   registry, is validated by pydantic (errors as met while reading).
2. Cross-references and values: each section's check, section by section
   in registry order, names sorted.
3. Routing: the paths the sections request, in the same order.
The first refusal is raised as a ScenarioError; then each section writes
its part of the description.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from pydantic import Field, ValidationError, create_model

from satcc import _core
from satcc.seeds import as_seed
from satcc.units import describe_value

from .atm import check_edge_routes
from .constellation import delay_schedules
from .errors import ScenarioError, join_path, quote, refuse_first, translate
from .links import check_queue_sizes
from .memory import check_memory
from .routing import PathRequest, RouteError, resolve_routes
from .sections import SECTIONS
from .tables import Section, _Table
from .values import INT_LIMIT

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


@functools.cache
def document_model(sections: tuple[Section, ...]) -> type[_Table]:
    """The whole file: one field per section, named ones defaulting to empty."""
    fields: dict[str, Any] = {}
    for section in sections:
        if section.named:
            fields[section.key] = (dict[str, section.table], Field(default_factory=dict))
        else:
            fields[section.key] = (section.table, ...)
    return create_model("_Document", __base__=_Table, **fields)


class Checks:
    """What the sections' checks share: the document, the refusals in order, name look-ups."""

    def __init__(self, doc: _Table, sections: Iterable[Section]):
        self.doc = doc
        self.sections = {section.key: section for section in sections}
        self.found: list[tuple[str, str]] = []
        self._entries: dict[str, dict] = {}

    def entries(self, key: str) -> dict:
        """A section's entries as the rest of the scenario sees them (duplex reverses added)."""
        if key not in self._entries:
            section = self.sections[key]
            expand = section.expand
            self._entries[key] = expand(self.doc) if expand else getattr(self.doc, key)
        return self._entries[key]

    def answering(self, target: str) -> Section:
        """The section whose entries a probe with this target key names."""
        for section in self.sections.values():
            if section.probe_target == target:
                return section
        # The core offers a probe target that no section declares it answers to.
        raise LookupError(f"no scenario section answers to probe target {target!r}")

    def refuse(self, path: tuple, reason: str) -> None:
        self.found.append((join_path(path), reason))

    def require_ends(self, path: tuple, entry, what: str) -> bool:
        """Refuse an entry's `from` or `to` naming no node, or both the same
        node (`what` names the entry: "a link"); True if both are fine."""
        ends_known = self.require((*path, "from"), "nodes", entry.from_)
        ends_known = self.require((*path, "to"), "nodes", entry.to) and ends_known
        if ends_known and entry.from_ == entry.to:
            self.refuse(
                (*path, "to"), f"{what} joins two different nodes, got {quote(entry.to)} twice"
            )
            return False
        return ends_known

    def require(self, path: tuple, key: str, name: str) -> bool:
        """Refuse a name that no entry of section `key` has; True if it exists."""
        names = self.entries(key)
        if name not in names:
            self.refuse(path, self._no_such(self.sections[key], name, names))
            return False
        return True

    @staticmethod
    def _no_such(section: Section, name: str, names: Iterable[str]) -> str:
        known = sorted(names)
        listed = ", ".join(known[:20]) + (", ..." if len(known) > 20 else "")
        where = f"{section.plural}: {listed}" if known else f"there are no {section.plural}"
        return f"no {section.noun} named {quote(name)} ({where})"

    def run(self) -> list[tuple[str, str]]:
        for section in self.sections.values():
            if not section.named:
                section.check(self, (section.key,), section.key, getattr(self.doc, section.key))
                continue
            for name, entry in sorted(getattr(self.doc, section.key).items()):
                if not _NAME.fullmatch(name):
                    self.refuse(
                        (section.key, name),
                        f"invalid name {quote(name)}: names start with a letter or "
                        '"_" and contain only letters, digits, "_" and "-"',
                    )
                section.check(self, (section.key, name), name, entry)
        return self.found


class Resolved(NamedTuple):
    """What validation resolved beyond the tables themselves."""

    name: str
    seed: int
    # node -> destination -> link: the next hops the requested paths use.
    routes: dict[str, dict[str, str]]
    # The links as the rest of the scenario sees them (duplex reverses added).
    links: dict[str, Any] = {}
    # Link -> its delay over time, for links on a constellation's path.
    delay_schedules: dict[str, dict] = {}


def _path_requests(checks: Checks) -> Iterator[PathRequest]:
    for section in checks.sections.values():
        if section.paths is not None:
            for name, entry in sorted(getattr(checks.doc, section.key).items()):
                yield from section.paths(name, entry, checks.doc)


def _link_ends(checks: Checks) -> dict[str, tuple[str, str]]:
    return {name: (link.from_, link.to) for name, link in checks.entries("links").items()}


def _routes(checks: Checks) -> dict[str, dict[str, str]]:
    explicit = {name: node.routes for name, node in checks.doc.nodes.items()}
    return resolve_routes(explicit, _link_ends(checks), _path_requests(checks))


def _check_routed(checks: Checks, routes: dict[str, dict[str, str]]) -> None:
    ends = _link_ends(checks)
    for section in checks.sections.values():
        if section.check_routed is not None:
            for name, entry in sorted(checks.entries(section.key).items()):
                section.check_routed(checks, (section.key, name), name, entry, routes, ends)


def _description(checks: Checks, resolved: Resolved) -> dict:
    desc: dict[str, Any] = {}
    for section in checks.sections.values():
        if not section.named:
            desc.update(section.describe(section.key, getattr(checks.doc, section.key), resolved))
            continue
        if section.description_key is None:
            # Feeds other entries' descriptions only ([constellation]).
            continue
        entries = sorted(checks.entries(section.key).items())
        if entries or not section.omit_when_empty:
            desc[section.description_key] = [
                section.describe(name, entry, resolved) for name, entry in entries
            ]
    return desc


def _check_seed(seed: object, source: str) -> int:
    value = as_seed(seed)
    if value is None or not 0 <= value < INT_LIMIT:
        raise ScenarioError(
            source,
            "run.seed",
            f"seed override must be an integer from 0 to 2^63-1, got {describe_value(seed)}",
        )
    # A Python int, whatever was passed: the description is JSON.
    return value


def reseeded(desc: dict, seed: object, source: str) -> dict:
    """`desc`, validated with some seed, as validating the same data with
    `seed` gives it: the seed enters the description at one place, its
    top-level "seed" (run's describe), and no check depends on it, so a
    sweep validates each point once and not once per seed. The seed is
    checked as validate() checks it. Tested against a full validation of
    every example (tests/test_sweep_batches.py)."""
    return {**desc, "seed": _check_seed(seed, source)}


def validate(
    data: dict,
    source: str,
    default_name: str,
    seed: int | None,
    sections: tuple[Section, ...] = SECTIONS,
) -> dict:
    """The normalised description of raw scenario data, or a ScenarioError.

    `sections` is the registry; tests pass their own to try out a new section.
    """
    try:
        doc = document_model(sections).model_validate(data)
    except ValidationError as exc:
        raise refuse_first(source, translate(exc)) from None
    checks = Checks(doc, sections)
    found = checks.run()
    if not found:
        check_memory(checks)
    if found:
        raise refuse_first(source, found)
    try:
        routes = _routes(checks)
    except RouteError as exc:
        raise ScenarioError(source, join_path(exc.path), exc.reason) from None
    check_queue_sizes(checks, routes, _path_requests(checks))
    check_edge_routes(checks, routes, _link_ends(checks))
    _check_routed(checks, routes)
    if checks.found:
        raise refuse_first(source, checks.found)
    chosen_seed = doc.run.seed if seed is None else _check_seed(seed, source)
    name = doc.run.name or default_name
    schedules = delay_schedules(checks) if "constellation" in checks.sections else {}
    resolved = Resolved(name, chosen_seed, routes, checks.entries("links"), schedules)
    desc = _description(checks, resolved)
    if sections is SECTIONS:
        # The core models the registry's sections; a test's own registry
        # may add one it has no model for.
        _check_in_core(source, desc)
    return desc


def _check_in_core(source: str, desc: dict) -> None:
    """The core's own checks of every entry (its configs' `Check`), refused
    by key like the sections' own: a rule the core enforces is written
    there only, not again here."""
    try:
        _core.check_description(json.dumps(desc, allow_nan=False))
    except ValueError as exc:
        path, reason = getattr(exc, "path", ""), getattr(exc, "reason", str(exc))
        raise ScenarioError(source, path, reason) from None
