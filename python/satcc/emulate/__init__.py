"""`satcc emulate`: a scenario's network in real time between real Linux
hosts (network namespaces joined through TUN devices by the core's
models). See docs/emulate.md."""

from .namespaces import EmulationSetupError, cleanup
from .session import LATE_P99_MS, EmulationResult, emulate, emulate_on_time

__all__ = [
    "LATE_P99_MS",
    "EmulationResult",
    "EmulationSetupError",
    "cleanup",
    "emulate",
    "emulate_on_time",
]
