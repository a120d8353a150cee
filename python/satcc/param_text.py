"""How a swept parameter's value is written in the campaign's tables: the
`param.<key>` column holds it as the user wrote it, so that a query can
compare it with what the sweep was given."""

from __future__ import annotations

import json
from typing import Any


def written(value: Any) -> str:
    """A swept value as the user wrote it: the `param.<key>` column text."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=False)
