"""The emulated hosts' sysctls: checked against the kernel before a run, set
in each host's namespace, read back.

A network namespace has its own copy of many net.* sysctls (the TCP ones
under net.ipv4 since Linux 4.15, tcp_congestion_control among them) and
starts from the values of the namespace that created it. Others are the
whole machine's: registered only in the first namespace (net.core's
netdev_max_backlog, default_qdisc; net.ipv4.tcp_mem), or shown read-only to
the others (net.core's rmem_max, wmem_max, rmem_default, wmem_default on
Linux 6.x, which earlier kernels did not show in a namespace at all).
Which is which depends on the kernel, so each name is tried before
anything runs, in a namespace of the probe's own (`unshare --net`, gone
with the probe): the sysctl must exist there, be writable, and take the
value, and the machine's own value must not have moved. A host's
namespace dies with its run, taking its sysctls along: nothing on the
machine is ever set, so nothing is restored.

    python -m satcc.emulate.sysctls    (inside a namespace: the probe)
"""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
import sys
from pathlib import Path

from satcc.scenario.errors import join_path, quote

from .namespaces import DEVICE, EmulationSetupError, in_namespace

PROC_SYS = Path("/proc/sys")
CONGESTION_CONTROL = "net.ipv4.tcp_congestion_control"
AVAILABLE = "net.ipv4.tcp_available_congestion_control"
# The machine's list of the algorithms a namespace other than its own may
# take as its default (Linux refuses the others there with EPERM; reno and
# the machine's own default are always on it).
ALLOWED = "net.ipv4.tcp_allowed_congestion_control"
# Per-namespace stand-ins for the machine's socket buffer limits.
_BUFFER_HINT = {
    "net.core.rmem_max": "net.ipv4.tcp_rmem",
    "net.core.rmem_default": "net.ipv4.tcp_rmem",
    "net.core.wmem_max": "net.ipv4.tcp_wmem",
    "net.core.wmem_default": "net.ipv4.tcp_wmem",
}


def proc_path(name: str) -> Path:
    return PROC_SYS.joinpath(*name.split("."))


def read(name: str) -> str | None:
    """The value in this process's namespace, spaces single, or None."""
    try:
        return " ".join(proc_path(name).read_text().split())
    except OSError:
        return None


def check(wanted: dict[str, dict[str, str]]) -> None:
    """Refuses, naming each, the sysctls (host -> name -> value) this
    kernel cannot set in a host's namespace; sets nothing on the machine."""
    refused = _congestion_control_problems(wanted)
    # The rest are tried, so that one message names every problem.
    tried = {
        host: {n: v for n, v in settings.items() if (host, n) not in refused}
        for host, settings in wanted.items()
    }
    problems = [*refused.values(), *_probe_problems(tried)]
    if problems:
        raise EmulationSetupError("\n".join(problems))


def _where(host: str, name: str) -> str:
    return join_path(("emulate", host, "sysctl", name))


def _congestion_control_problems(
    wanted: dict[str, dict[str, str]],
) -> dict[tuple[str, str], str]:
    """(host, name) -> why, for congestion controls a namespace cannot
    take. Checked before the probe, and never tried: writing an unloaded
    algorithm's name would have the kernel load its module, which changes
    the machine."""
    offered = (read(AVAILABLE) or "").split()
    allowed = (read(ALLOWED) or "").split()
    problems = {}
    for host, settings in sorted(wanted.items()):
        chosen = settings.get(CONGESTION_CONTROL)
        if chosen is None or chosen in allowed:
            continue
        if chosen not in offered:
            why = (
                f"this kernel does not offer {quote(chosen)} (it offers "
                f"{' '.join(offered)}: {AVAILABLE}); `modprobe tcp_{chosen}` may add it"
            )
        else:
            why = (
                f"a network namespace may default only to an algorithm the host machine "
                f"allows ({' '.join(allowed)}: {ALLOWED}, the machine's own setting): "
                f"allow {quote(chosen)} there, or have the command choose it per "
                f"socket (TCP_CONGESTION, as iperf3 -C {chosen} does)"
            )
        problems[host, CONGESTION_CONTROL] = f"{_where(host, CONGESTION_CONTROL)}: {why}"
    return problems


def _probe_problems(wanted: dict[str, dict[str, str]]) -> list[str]:
    trials = sorted({(n, v) for settings in wanted.values() for n, v in settings.items()})
    if not trials:
        return []
    names = sorted({n for n, _ in trials})
    before = {n: read(n) for n in names}
    found = _probe(trials)
    after = {n: read(n) for n in names}
    problems = []
    for host, settings in sorted(wanted.items()):
        for name, value in sorted(settings.items()):
            why = _refusal(name, value, found[f"{name}={value}"], before[name], after[name])
            if why:
                problems.append(f"{_where(host, name)}: {why}")
    return problems


def _probe(trials: list[tuple[str, str]]) -> dict[str, str]:
    """What became of each (name, value) written in a fresh namespace:
    "set", "absent", "read-only", or the kernel's error."""
    unshare = shutil.which("unshare")
    if unshare is None:
        raise EmulationSetupError(
            "the hosts' sysctls are tried in a namespace of their own first, "
            "which needs `unshare` (util-linux), not installed"
        )
    done = subprocess.run(
        [unshare, "--net", "--", sys.executable, "-m", "satcc.emulate.sysctls"],
        input=json.dumps(trials),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise EmulationSetupError(f"trying the hosts' sysctls failed: {done.stderr.strip()}")
    return json.loads(done.stdout)


def _refusal(name: str, value: str, outcome: str, before, after) -> str | None:
    if before != after:
        return (
            f"setting it in a namespace changed the host machine's value too "
            f"({before} -> {after}): it is not per-namespace on this kernel"
        )
    if outcome == "set":
        return None
    if outcome == "absent" and before is None:
        hint = ""
        if DEVICE in name.split("."):
            hint = (
                f": the host's device {DEVICE} is made after its sysctls are set, and takes "
                "the values of net.ipv4.conf.default.*, which can be set"
            )
        return f"this kernel has no sysctl {name} (no {proc_path(name)}){hint}"
    if outcome in ("absent", "read-only"):
        how = (
            "exists only in the host machine's own namespace"
            if outcome == "absent"
            else "is the host machine's, shown read-only in a namespace"
        )
        hint = f" ({_BUFFER_HINT[name]} is per-namespace)" if name in _BUFFER_HINT else ""
        return (
            f"{name} is not per-namespace on this kernel: it {how}, so setting it "
            f"would change the host machine{hint}"
        )
    return f"the kernel refused {name} = {quote(value)}: {outcome}"


def apply(namespace: str, settings: dict[str, str]) -> dict[str, str]:
    """Sets the sysctls inside `namespace`; returns them as read back."""
    if not settings:
        return {}
    names = sorted(settings)
    pairs = [f"{name}={settings[name]}" for name in names]
    done = subprocess.run(
        in_namespace(namespace, "sysctl", "-qw", *pairs), capture_output=True, text=True
    )
    if done.returncode != 0:
        raise EmulationSetupError(f"sysctl -w in {namespace}: {done.stderr.strip()}")
    done = subprocess.run(
        in_namespace(namespace, "sysctl", "-n", *names), capture_output=True, text=True
    )
    lines = done.stdout.splitlines()
    if done.returncode != 0 or len(lines) != len(names):
        raise EmulationSetupError(f"sysctl -n in {namespace}: {done.stderr.strip()}")
    return {name: " ".join(line.split()) for name, line in zip(names, lines, strict=True)}


def unchanged_on_host(before: dict[str, str | None]) -> None:
    """Refuses a run whose sysctls moved the machine's own values."""
    now = {n: read(n) for n in before}
    moved = {n: (v, now[n]) for n, v in before.items() if now[n] != v}
    if moved:
        listed = ", ".join(f"{n} ({a} -> {b})" for n, (a, b) in sorted(moved.items()))
        raise EmulationSetupError(
            f"setting the hosts' sysctls changed the host machine's: {listed}"
        )


def _try(name: str, value: str) -> str:
    path = proc_path(name)
    try:
        mode = path.stat().st_mode
    except OSError:
        return "absent"
    if not mode & stat.S_IWUSR:
        return "read-only"
    try:
        path.write_text(value)
    except OSError as e:
        return e.strerror or str(e)
    return "set"


def main() -> None:
    trials = json.load(sys.stdin)
    json.dump({f"{n}={v}": _try(n, v) for n, v in trials}, sys.stdout)


if __name__ == "__main__":
    main()
