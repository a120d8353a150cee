"""A small TOML writer: enough for scenarios, so that edited ones can be saved.

The standard library reads TOML but does not write it. Scenarios need only
tables, inline tables, arrays, strings, numbers, booleans and dates.
"""

from __future__ import annotations

import datetime
import json
import math

from satcc.units import describe_value

from .errors import is_bare_key


def _toml_string(text: str) -> str:
    # JSON escapes are valid TOML basic-string escapes; TOML also forbids a raw DEL.
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _toml_key(key: object) -> str:
    text = str(key)
    return text if is_bare_key(text) else _toml_string(text)


def _toml_value(value: object, path: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(item, path) for item in value) + "]"
    if isinstance(value, dict):
        items = ", ".join(
            f"{_toml_key(key)} = {_toml_value(item, f'{path}.{key}')}"
            for key, item in value.items()
        )
        return "{ " + items + " }" if items else "{}"
    raise ValueError(f"{path}: TOML cannot hold {describe_value(value)}; leave the key out instead")


def _write_table(table: dict, prefix: tuple, lines: list[str]) -> None:
    # Tables down to [links.NAME] get headers; deeper ones (queue, capacity,
    # routes) read better inline, as the spec writes them.
    def is_section(value: object) -> bool:
        return isinstance(value, dict) and len(prefix) < 2

    values = [(key, value) for key, value in table.items() if not is_section(value)]
    sections = [(key, value) for key, value in table.items() if is_section(value)]
    if prefix and (values or not sections):
        if lines:
            lines.append("")
        lines.append("[" + ".".join(_toml_key(part) for part in prefix) + "]")
    for key, value in values:
        path = ".".join(str(part) for part in (*prefix, key))
        lines.append(f"{_toml_key(key)} = {_toml_value(value, path)}")
    for key, value in sections:
        _write_table(value, (*prefix, key), lines)


def to_toml(data: dict) -> str:
    lines: list[str] = []
    _write_table(data, (), lines)
    return "\n".join(lines) + "\n"
