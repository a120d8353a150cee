"""Refusals: the ScenarioError users see, key paths, and pydantic's errors in plain words.

Every refusal names the file, the dotted key path and the reason. Pydantic
finds structural errors; they are translated here so that its own wording
and its location markers never reach the user.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from pydantic import ValidationError
from pydantic_core import PydanticCustomError

from satcc.units import describe_value

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


class ScenarioError(ValueError):
    """A scenario refused by validation, loading or editing.

    `source` is the file path or "<dict>", `path` the dotted key path ("" for
    the whole file), `reason` plain words; `errors` lists every (path, reason)
    found in the same stage, the first of which is the one reported.
    """

    def __init__(
        self,
        source: str,
        path: str,
        reason: str,
        errors: list[tuple[str, str]] | None = None,
    ):
        super().__init__(source, path, reason)
        self.source = source
        self.path = path
        self.reason = reason
        self.errors = errors if errors is not None else [(path, reason)]

    def __str__(self) -> str:
        if self.path:
            return f"{self.source}: {self.path}: {self.reason}"
        return f"{self.source}: {self.reason}"

    def __reduce__(self):
        return (type(self), (self.source, self.path, self.reason, self.errors))


def refuse_first(source: str, found: list[tuple[str, str]]) -> ScenarioError:
    return ScenarioError(source, found[0][0], found[0][1], errors=found)


def quote(text: object) -> str:
    return json.dumps(str(text), ensure_ascii=False)


def is_bare_key(text: str) -> bool:
    """A key TOML (and a dotted path) can write without quotes."""
    return _BARE_KEY.fullmatch(text) is not None


def join_path(parts: Iterable[object]) -> str:
    def show(part: object) -> str:
        text = str(part)
        return text if isinstance(part, int) or is_bare_key(text) else quote(text)

    return ".".join(show(part) for part in parts)


def refusal(reason: str, key: object = None) -> PydanticCustomError:
    """A refusal raised inside a model; `key` extends the path to the key at fault."""
    context = {"reason": reason} if key is None else {"reason": reason, "key": key}
    return PydanticCustomError("satcc", "{reason}", context)


def _pydantic_reason(error: dict) -> str:
    kind, context = error["type"], error.get("ctx") or {}
    if kind == "satcc":
        return context["reason"]
    if kind == "value_error":
        return str(context["error"])
    if kind == "missing":
        top_level = len(error["loc"]) == 1
        return (
            f"missing required table [{error['loc'][0]}]" if top_level else "missing required key"
        )
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return f"expected a table, got {describe_value(error['input'])}"
    if kind in ("list_type", "tuple_type"):
        return f"expected a list, got {describe_value(error['input'])}"
    if kind in ("string_type", "str_type"):
        return f"names must be strings, got {describe_value(error['input'])}"
    return error["msg"]


def translate(exc: ValidationError) -> list[tuple[str, str]]:
    """Pydantic's errors as (key path, reason), in the order it found them."""
    found = []
    for error in exc.errors(include_url=False):
        parts = list(error["loc"])
        if parts and parts[-1] == "[key]":  # pydantic's marker for a bad dict key
            parts.pop()
        if error["type"] == "satcc" and "key" in (error.get("ctx") or {}):
            parts.append(error["ctx"]["key"])
        found.append((join_path(parts), _pydantic_reason(error)))
    return found
