"""`satcc emulate`: a scenario's network in real time between real Linux
hosts (network namespaces joined through TUN devices by the core's
models). See docs/emulate.md."""

from .namespaces import EmulationSetupError, cleanup
from .session import EmulationResult, emulate

__all__ = ["EmulationResult", "EmulationSetupError", "cleanup", "emulate"]
