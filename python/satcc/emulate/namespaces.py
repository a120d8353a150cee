"""The emulated hosts' network namespaces: created for a run, removed after it.

Every namespace a run creates is first written down in a record,
/run/satcc/emulate/PID.json, which the run holds locked (flock) while it
lives. A run that ends normally, on an error, on Ctrl-C or SIGTERM removes
its namespaces and its record. A run killed outright (SIGKILL, a crash)
cannot: its warden, a small process started with the namespaces, waits for
the run to end and then removes what its record lists, killing the host
commands left inside (satcc.emulate.warden). Should the warden be killed
too, the next emulation to start, or `satcc emulate --cleanup`, removes
exactly what such records list (the record's lock is gone with its run),
never the namespaces of a run that is still going, nor any namespace satcc
did not create.

The TUN devices need no record: they belong to the emulator's process and
vanish with it (and with their namespace).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from satcc.fslocks import create_held, release, stale

RECORDS = Path(os.environ.get("SATCC_EMULATE_RECORDS", "/run/satcc/emulate"))
NETNS_DIR = Path("/run/netns")
# The device inside each host's namespace (the namespace tells them apart).
DEVICE = "satcc0"


class EmulationSetupError(Exception):
    """This machine cannot host an emulation (no root, no TUN, no `ip`), or
    setting up its namespaces failed."""


def check_machine() -> None:
    """Refuses, with the reason, a machine that cannot run an emulation."""
    if os.geteuid() != 0:
        raise EmulationSetupError(
            "satcc emulate creates network namespaces and TUN devices: run it as root"
        )
    if not os.path.exists("/dev/net/tun"):
        raise EmulationSetupError("no /dev/net/tun: this kernel or container has no TUN driver")
    if shutil.which("ip") is None:
        raise EmulationSetupError("the `ip` command (iproute2) is not installed")


def ip(*args: str) -> None:
    """Runs `ip ARGS`; its error message becomes the exception's."""
    done = subprocess.run(["ip", *args], capture_output=True, text=True)
    if done.returncode != 0:
        detail = done.stderr.strip() or f"exit status {done.returncode}"
        raise EmulationSetupError(f"ip {' '.join(args)}: {detail}")


def in_namespace(namespace: str, *command: str) -> list[str]:
    return ["ip", "netns", "exec", namespace, *command]


@dataclass
class Namespaces:
    """The namespaces of one run, one per emulated host, and their record."""

    hosts: list[str]
    pid: int = field(default_factory=os.getpid)
    created: list[str] = field(default_factory=list)
    _record: Path | None = None
    _lock: int | None = None
    _warden: subprocess.Popen | None = None

    def name(self, host: str) -> str:
        return f"satcc-{self.pid}-{host}"

    def path(self, host: str) -> Path:
        return NETNS_DIR / self.name(host)

    def create(self) -> None:
        """Writes the record, then creates and prepares each namespace: its
        loopback up, IPv6 off (the model carries IPv4; IPv6 router
        solicitations would only be counted and discarded)."""
        RECORDS.mkdir(parents=True, exist_ok=True)
        cleanup()  # what killed runs left, their wardens killed with them
        record = RECORDS / f"{self.pid}.json"
        if record.exists() and stale(record, self.pid):
            record.unlink()
        self._lock = create_held(record)
        self._record = record
        names = [self.name(h) for h in self.hosts]
        record.write_text(json.dumps({"pid": self.pid, "namespaces": names}) + "\n")
        self._warden = start_warden(self.pid)
        for namespace in names:
            if (NETNS_DIR / namespace).exists():
                raise EmulationSetupError(f"network namespace {namespace} exists already")
            ip("netns", "add", namespace)
            self.created.append(namespace)
            ip("-n", namespace, "link", "set", "lo", "up")
            for conf in ("all", "default"):
                _sysctl(namespace, f"net.ipv6.conf.{conf}.disable_ipv6", "1")

    def remove(self) -> list[str]:
        """Removes what this run created, then its record; returns the
        namespaces removed."""
        removed = _delete_namespaces(self.created)
        self.created.clear()
        if self._record is not None:
            self._record.unlink(missing_ok=True)
            self._record = None
        if self._lock is not None:
            release(self._lock)
            self._lock = None
        if self._warden is not None:
            # Nothing left to watch over.
            self._warden.kill()
            self._warden.wait()
            self._warden = None
        return removed


def _sysctl(namespace: str, key: str, value: str) -> None:
    done = subprocess.run(
        in_namespace(namespace, "sysctl", "-qw", f"{key}={value}"),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise EmulationSetupError(f"sysctl {key}={value} in {namespace}: {done.stderr.strip()}")


def _delete_namespaces(names: list[str]) -> list[str]:
    removed = []
    for namespace in names:
        if (NETNS_DIR / namespace).exists():
            _kill_inside(namespace)
            done = subprocess.run(["ip", "netns", "del", namespace], capture_output=True)
            if done.returncode == 0:
                removed.append(namespace)
    return removed


def _kill_inside(namespace: str) -> None:
    """Ends the processes a killed run left inside its namespace (a server
    started in the background would hold it, and its port, forever)."""
    done = subprocess.run(["ip", "netns", "pids", namespace], capture_output=True, text=True)
    for word in done.stdout.split():
        if word.isdigit():
            try:
                os.kill(int(word), 9)
            except ProcessLookupError:
                pass


def cleanup() -> list[str]:
    """Removes the namespaces of runs that were killed, and their records;
    returns the namespaces removed. Live runs and anything not recorded by
    satcc are left alone."""
    removed: list[str] = []
    if not RECORDS.is_dir():
        return removed
    for record in sorted(RECORDS.glob("*.json")):
        if record.stem.isdigit():
            removed += cleanup_run(int(record.stem))
    return removed


def cleanup_run(pid: int) -> list[str]:
    """Removes what the run of process `pid` recorded, if that run has
    ended without removing it (killed); returns the namespaces removed."""
    record = RECORDS / f"{pid}.json"
    if not record.is_file() or not stale(record, pid):
        return []
    try:
        names = json.loads(record.read_text())["namespaces"]
    except (OSError, ValueError, KeyError, TypeError):
        names = []
    # Only names of the form this module gives, for the recorded run.
    prefix = f"satcc-{pid}-"
    removed = _delete_namespaces([n for n in names if str(n).startswith(prefix)])
    record.unlink(missing_ok=True)
    return removed


def start_warden(pid: int) -> subprocess.Popen:
    """A process that outlives the emulator `pid` only to remove what it
    leaves (satcc.emulate.warden). In a session of its own, holding none of
    the emulator's descriptors: Ctrl-C to the emulator's group passes it by,
    and a caller reading the emulator's output is not kept waiting."""
    return subprocess.Popen(
        [sys.executable, "-m", "satcc.emulate.warden", str(pid)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )
