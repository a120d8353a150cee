"""The base of every scenario table: its keys, checked so that unknown ones get suggestions.

A TOML table is a pydantic model that refuses unknown keys itself, before
pydantic sees them, so the message can list the allowed keys and the
closest one ("did you mean ...?"). Tables with a `type` key may allow and
require different keys per type.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, model_validator

from satcc.units import describe_value

from .description import describe_named
from .errors import refusal


class _Table(BaseModel):
    """A TOML table. Checks its keys itself so unknown ones get suggestions.

    Tables with a `type` key may restrict which keys each type allows and
    requires (VARIANTS: type -> (allowed keys, required keys)).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    VARIANTS: ClassVar[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {}
    DEFAULT_VARIANT: ClassVar[str | None] = None
    # Keys the format once had, by the key that replaced them.
    RENAMED: ClassVar[dict[str, str]] = {}

    @classmethod
    def table_keys(cls) -> list[str]:
        return [info.alias or name for name, info in cls.model_fields.items()]

    @classmethod
    def table_variant(cls, data: dict) -> str | None:
        kind = data.get("type", cls.DEFAULT_VARIANT)
        return kind if isinstance(kind, str) and kind in cls.VARIANTS else None

    @model_validator(mode="before")
    @classmethod
    def check_keys(cls, data: object) -> object:
        return cls.check_table(data)

    @classmethod
    def check_table(cls, data: object) -> object:
        """Refuse unknown keys and missing variant keys; subclasses may add rules."""
        if not isinstance(data, dict):
            raise refusal(f"expected a table, got {describe_value(data)}")
        variant = cls.table_variant(data)
        allowed = cls.VARIANTS[variant][0] if variant else tuple(cls.table_keys())
        for key in data:
            if key not in allowed:
                raise refusal(cls.unknown_key_reason(key, variant, allowed), key)
        for key in cls.VARIANTS[variant][1] if variant else ():
            if key not in data:
                raise refusal(f'missing required key for type = "{variant}"', key)
        return data

    @classmethod
    def unknown_key_reason(cls, key: object, variant: str | None, allowed: Iterable[str]) -> str:
        listed = ", ".join(sorted(allowed))
        if key in cls.RENAMED:
            return f'"{key}" is now "{cls.RENAMED[key]}" (allowed: {listed})'
        if variant and key in cls.table_keys():
            return f'"{key}" is not used with type = "{variant}" (allowed: {listed})'
        close = difflib.get_close_matches(str(key), list(allowed), n=1)
        hint = f'did you mean "{close[0]}"? ' if close else ""
        return f'unknown key "{key}" ({hint}allowed: {listed})'


@dataclass(frozen=True)
class Section:
    """A top-level table of the format, and what the rest of validation needs from it.

    Validation iterates the registry (sections.py) in order: the document
    model, the cross-reference checks, the path requests and the normalised
    description all come from these declarations.
    """

    # The top-level key: [key] for a single table, [key.NAME] for named entries.
    key: str
    # The model of one entry (of the table itself when not named).
    table: type[_Table]
    # Names an entry in messages: 'no tcp connection named "x" (tcp connections: ...)'.
    noun: str
    # Its list in the normalised description; None for [run], whose keys are
    # the description's top level.
    description_key: str | None
    # (checks, path, name, entry): refusals across keys and dangling names.
    check: Callable[..., None]
    # (name, entry, resolved) -> its entry in the normalised description;
    # by default its name and then its fields (description.py).
    describe: Callable[[str, Any, Any], dict] = describe_named
    # False for a single required table ([run]), checked and described once.
    named: bool = True
    # An optional model section is left out of the description while empty,
    # so that adding it to the format left the run keys of older scenarios alone.
    omit_when_empty: bool = False
    # (doc) -> the entries as the rest of the scenario sees them, when they
    # differ from the declared ones (a duplex link adds its NAME_rev).
    expand: Callable[[Any], dict] | None = None
    # (name, entry, doc) -> the paths it needs routed (routing.PathRequest).
    paths: Callable[[str, Any, Any], Iterable[Any]] | None = None
    # (checks, path, name, entry, routes, ends): refusals that need the
    # routed paths (node -> destination -> link; link -> its two nodes).
    check_routed: Callable[..., None] | None = None
    # (checks, name, entry) -> [(bytes, key path, what, remedy)]: what the
    # entry's model will hold in memory, for the estimate made before a run.
    memory: Callable[..., list[tuple[float, tuple, str, str]]] | None = None
    # The probe target ("link", "tcp", ...) it answers to, if any.
    probe_target: str | None = None
    # Where the plural is not the noun and an "s".
    plural_noun: str = ""

    @property
    def plural(self) -> str:
        return self.plural_noun or f"{self.noun}s"
