"""Panics of the compiled core, as Python sees them.

PyO3 turns a Rust panic into `pyo3_runtime.PanicException`, a BaseException
(not an Exception), so `except Exception` lets it through: the command line
and the executors catch it by this test and report it as a defect of satcc,
in one line, instead of a traceback.
"""

from __future__ import annotations


def is_core_panic(error: BaseException) -> bool:
    kind = type(error)
    return kind.__name__ == "PanicException" and kind.__module__ == "pyo3_runtime"


def panic_text(error: BaseException) -> str:
    return f"the simulation core failed (a defect of satcc, please report it): {error}"
