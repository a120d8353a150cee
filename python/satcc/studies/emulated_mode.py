# A study's emulated mode (`satcc reproduce STUDY --emulate`): real tools
# over the same modelled paths in real time, run after the simulation and
# shown beside it (docs/emulate.md). What such a mode returns, and the
# checks made before a study runs in it.

from __future__ import annotations

from dataclasses import dataclass
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
