"""What a study's runs raise, where the framework and the emulated modes
can both import it."""

from __future__ import annotations


class RunFailed(RuntimeError):
    """One (run, seed) of a study raised; names which, keeps the cause."""
