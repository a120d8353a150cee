"""A study's emulated mode (`satcc reproduce STUDY --emulate`): real tools
over the same modelled paths in real time, run after the simulation and
shown beside it (docs/emulate.md). What such a mode returns, and the
checks made before a study runs in it."""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Emulated:
    """What a study's emulation adds to its reproduction: tables that put
    real tools beside the simulation, and the files it wrote."""

    tables: list[Any]
    files: list[str]


class NoEmulation(ValueError):
    """The study has no emulated mode."""


def require_emulation(study: Any) -> None:
    """Refuses, before anything runs, a study without an emulated mode or a
    machine that cannot emulate (no root, no TUN, no `ip`)."""
    if study.emulation is None:
        raise NoEmulation(f"study {study.name} has no emulated mode")
    from satcc.emulate.namespaces import check_machine

    check_machine()


def emulation_in(module: str) -> Callable[..., Emulated]:
    """A study's `emulation` hook that imports `module` (which has the
    mode's `emulation` function) only when the mode runs."""

    def emulation(specs: list, summaries: dict, out: Path, quick: bool) -> Emulated:
        return importlib.import_module(module).emulation(specs, summaries, out, quick)

    return emulation


def bulk_transfer(scenario: dict, work: Path, what: str, seed: int = 1) -> tuple[dict, dict, dict]:
    """A scenario whose hosts `tx` and `rx` run `satcc.emulate.bulk` with
    their logs in `work` (tx.json, rx.json), emulated, and again while the
    emulator fell behind (`emulate_on_time`); the two logs and the summary
    of the run kept."""
    from satcc.emulate import emulate_on_time
    from satcc.studies.errors import RunFailed

    def logs(result) -> tuple[dict, dict]:
        try:
            return tuple(json.loads((work / n).read_text()) for n in ("tx.json", "rx.json"))
        except (OSError, ValueError) as e:
            out = "\n".join(f"{h}: {result.output(h)[-400:]}" for h in ("tx", "rx"))
            raise RunFailed(f"the Linux hosts of {what} left no usable log ({e}):\n{out}") from e

    result, (tx, rx) = emulate_on_time(scenario, logs, seed=seed)
    return tx, rx, result.summary
