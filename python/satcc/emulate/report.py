"""What `satcc emulate` says after a run, beside the simulation's tables:
the emulator's timing, the packets it could not move, and each command's
fate. Plain text lines, so that the CLI only prints them."""

from __future__ import annotations

from typing import Any

from satcc import fmt

# The emulator's counts of packets that did not make it across.
NOT_MOVED = ("not_ipv4", "truncated", "no_such_host", "write_errors", "payload_missing")


def failed_hosts(info: dict[str, Any]) -> list[str]:
    """Hosts whose foreground command ended by itself with a non-zero status."""
    return [
        host
        for host, c in info["commands"].items()
        if not c["background"] and not c["stopped_by_run"] and c["exit_code"] not in (0, None)
    ]


def lines(summary: dict[str, Any], info: dict[str, Any]) -> list[str]:
    def get(key: str) -> Any:
        return summary.get(f"emulator.{key}")

    out = [
        f"release-time error: median {fmt.number(get('release_error_median_us'))} µs, "
        f"p99 {fmt.number(get('release_error_p99_us'))} µs, "
        f"max {fmt.number(get('release_error_max_us'))} µs "
        f"over {fmt.count(get('release_error_packets'))} packets; "
        f"ended by {info['ended_by']}"
    ]
    shown = ", ".join(f"{fmt.count(get(k))} {k.replace('_', ' ')}" for k in NOT_MOVED if get(k))
    if shown:
        out.append(f"not moved: {shown}")
    for host, c in info["commands"].items():
        state = "stopped by the run" if c["stopped_by_run"] else f"exit {c['exit_code']}"
        out.append(f"{host}: {c['command']!r} ({state})")
    for host, applied in info.get("sysctl", {}).items():
        settings = ", ".join(f"{name} = {value}" for name, value in applied.items())
        out.append(f"{host}: sysctl {settings}")
    return out
