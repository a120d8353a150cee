"""How a table's fields become its entry in the normalised description.

Each parameter is declared once, as a field of its table's model; its entry
is generated from the field. By default a key is written as it is, under
its own name plus its unit's suffix (`delay` -> `delay_ps`, `mss` ->
`mss_bytes`, `rate` -> `rate_bps`), and a sub-table is written as its own
entry. A `Desc` in the field's annotation says where it differs:

    mss: PositiveSize = 1460                              -> "mss_bytes": 1460
    clock_granularity: Annotated[PositiveTime, Desc("granularity_ps")]
    restart_after_idle: Annotated[Bool, UNLESS_DEFAULT] = True   (written only when false)
    min_block: Annotated[PositiveSize, NOT_DESCRIBED] = 1  (folded into another key)

In a table with a `type` key, a key that type does not use (its VARIANTS)
is left out, or written as `if_unused` says; a `derived` key, which no
table gives, is computed for the types its Desc names.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from .values import Unit


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()


@dataclass(frozen=True)
class Desc:
    """How one field is written in the normalised description."""

    # The key, where it is not the field's own plus its unit's suffix.
    key: str | None = None
    # value -> what the core reads (e.g. "unlimited" -> null).
    convert: Callable[[Any], Any] | None = None
    # table -> the value, for one computed from other keys of the table.
    compute: Callable[[Any], Any] | None = None
    # What is written for a key left out, where its default depends on the type.
    default: Any = UNSET
    # Left out while at its default, so that adding the key to the format left
    # the description (and the run keys) of existing scenarios unchanged.
    omit_default: bool = False
    # What is written for a type that does not use the key (else it is left out).
    if_unused: Any = UNSET
    # The types this Desc is for, where the key is written differently per type.
    types: tuple[str, ...] = ()
    # Not written at all: validation resolves it, or another key carries it.
    hidden: bool = False
    # Written though no table gives it (its type does not allow the key):
    # computed from the table's other keys (`compute`).
    derived: bool = False


UNLESS_DEFAULT = Desc(omit_default=True)
NOT_DESCRIBED = Desc(hidden=True)
_PLAIN = Desc()


class _Key(NamedTuple):
    name: str  # the field's attribute
    table_key: str  # as written in the scenario ("from")
    key: str  # in the description
    desc: Desc
    field: FieldInfo


def _desc_for(field: FieldInfo, kind: str | None) -> Desc:
    for desc in field.metadata:
        if isinstance(desc, Desc) and (not desc.types or kind in desc.types):
            return desc
    return _PLAIN


def _suffix(field: FieldInfo) -> str:
    return next((unit.suffix for unit in field.metadata if isinstance(unit, Unit)), "")


@functools.cache
def _keys(model: type[BaseModel], kind: str | None) -> tuple[_Key, ...]:
    keys = []
    for name, field in model.model_fields.items():
        desc = _desc_for(field, kind)
        if not desc.hidden:
            table_key = field.alias or name
            keys.append(_Key(name, table_key, desc.key or table_key + _suffix(field), desc, field))
    return tuple(keys)


def _default(key: _Key) -> Any:
    return key.desc.default if key.desc.default is not UNSET else key.field.default


def _value(table: BaseModel, key: _Key) -> Any:
    desc = key.desc
    if desc.compute is not None:
        return desc.compute(table)
    value = getattr(table, key.name)
    if value is None and desc.default is not UNSET:
        value = desc.default
    if desc.convert is not None:
        return desc.convert(value)
    if isinstance(value, BaseModel):
        return describe_table(value)
    return value


def describe_table(table: BaseModel) -> dict:
    """The table's entry in the normalised description, generated from its fields."""
    variants = getattr(table, "VARIANTS", {})
    kind = getattr(table, "type", None) if variants else None
    used = variants[kind][0] if kind is not None else None
    entry = {}
    for key in _keys(type(table), kind):
        if used is not None and key.table_key not in used and not key.desc.derived:
            if key.desc.if_unused is not UNSET:
                entry[key.key] = key.desc.if_unused
            continue
        value = _value(table, key)
        if not (key.desc.omit_default and value == _default(key)):
            entry[key.key] = value
    return entry


def describe_named(name: str, table: BaseModel, resolved: Any = None) -> dict:
    """A named entry ([links.NAME], ...): its name, then its fields."""
    return {"name": name, **describe_table(table)}
