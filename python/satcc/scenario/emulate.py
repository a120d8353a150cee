"""[emulate.NAME]: a real Linux host attached at a node, for `satcc emulate`.

Each host is a network namespace with a TUN device whose packets cross the
modelled network in real time (docs/emulate.md). The hosts share one /24
subnet; a packet goes to the host that owns its destination address. Only
the node and the address reach the core (the world books each host's
packets as one flow); the command, when it starts and whether the run
waits for it belong to the emulation's runner. A simulation of the same
scenario runs the network with the hosts silent. With a `rate_control`
table the host's packets wait in a segmentation buffer served at a link's
fed-back explicit rate before they enter the network (the abr-effcap
paper's testbed: real TCP over end-to-end rate control). A `sysctl` table
sets the host's own network sysctls (its TCP's options), which the runner
checks against the kernel and applies in the host's namespace.
"""

from __future__ import annotations

import ipaddress
import re
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from satcc.units import describe_value

from .description import NOT_DESCRIBED, UNLESS_DEFAULT
from .errors import quote, refusal
from .rate_control import RateControl, check_rate_control, feedback_path
from .routing import PathRequest
from .tables import Section, _Table
from .values import (
    Bool,
    NonNegativeTime,
    PositiveInt,
    Str,
    optional,
    optional_table,
    typed,
)

if TYPE_CHECKING:
    from .validation import Checks

# Hosts without an address get .1, .2, ... in name order, of the /24 of the
# addresses given, or of SUBNET.
SUBNET = ipaddress.IPv4Network("10.77.0.0/24")
PREFIX_LEN = 24
# IPv4's smallest MTU every link must carry (RFC 791) and the largest a
# TUN device takes.
MIN_MTU, MAX_MTU = 68, 65_535
# A sysctl's name as sysctl(8) writes it: words joined by dots.
_SYSCTL_NAME = re.compile(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+")


def _flat_sysctls(value: object) -> dict[str, Any]:
    """The table with TOML's nested tables read as dotted names: unquoted,
    `net.ipv4.tcp_sack = 0` is a table `net` holding `ipv4`, and means
    what the quoted name does."""
    if not isinstance(value, dict):
        raise ValueError(
            f"expected a table of sysctl names and values, got {describe_value(value)}"
        )
    flat: dict[str, Any] = {}

    def walk(table: dict, prefix: str) -> None:
        for key, item in table.items():
            name = f"{prefix}{key}"
            if isinstance(item, dict):
                walk(item, f"{name}.")
            elif name in flat:
                raise refusal("given twice (once quoted, once as nested tables)", name)
            else:
                flat[name] = item

    walk(value, "")
    return flat


Sysctls = typed(dict[str, Any], _flat_sysctls)


class Emulated(_Table):
    """A host outside the model, [emulate.NAME]."""

    node: Str
    address: optional(Str) = None
    mtu: Annotated[PositiveInt, NOT_DESCRIBED] = 1500
    rate_control: Annotated[optional_table(RateControl), UNLESS_DEFAULT] = None
    # A shell command run inside the host's namespace.
    command: Annotated[optional(Str), NOT_DESCRIBED] = None
    # Run in the background (a server): stopped when the foreground
    # commands have ended, never waited for.
    background: Annotated[Bool, NOT_DESCRIBED] = False
    # How long after the devices are up the command starts.
    start: Annotated[NonNegativeTime, NOT_DESCRIBED] = 0
    # sysctl name -> value, set in the host's namespace before it runs.
    sysctl: Annotated[Sysctls, NOT_DESCRIBED] = Field(default_factory=dict)


def expand_emulated(doc) -> dict[str, Emulated]:
    """The hosts with every address filled in, in name order, from the /24
    of the first address given (SUBNET when none is), skipping the
    addresses given."""
    hosts = dict(doc.emulate)
    given = [h.address for _, h in sorted(hosts.items()) if h.address is not None]
    first = next((a for a in map(_parsed, given) if a is not None), None)
    subnet = SUBNET if first is None else ipaddress.IPv4Network(f"{first}/{PREFIX_LEN}", False)
    free = (str(a) for a in subnet.hosts() if str(a) not in given)
    for name, host in sorted(hosts.items()):
        if host.address is None:
            hosts[name] = host.model_copy(update={"address": next(free)})
    return hosts


def check_emulated(checks: Checks, path: tuple, name: str, host: Emulated) -> None:
    checks.require((*path, "node"), "nodes", host.node)
    if not MIN_MTU <= host.mtu <= MAX_MTU:
        checks.refuse((*path, "mtu"), f"mtu must be {MIN_MTU} to {MAX_MTU} bytes, got {host.mtu}")
    if host.rate_control is not None:
        check_rate_control(checks, (*path, "rate_control"), host.rate_control)
    if host.command is not None and "\0" in host.command:
        # execve takes NUL-terminated strings: the command would be cut there.
        checks.refuse((*path, "command"), "a command cannot contain a NUL character")
    for key, value in sorted(host.sysctl.items()):
        problem = sysctl_name_problem(key) or sysctl_value_problem(value)
        if problem:
            checks.refuse((*path, "sysctl", key), problem)
    if host.address is None:
        return
    try:
        address = ipaddress.IPv4Address(host.address)
    except ValueError:
        checks.refuse((*path, "address"), f"not an IPv4 address: {quote(host.address)}")
        return
    if not _unicast(address):
        checks.refuse(
            (*path, "address"),
            f"{address} is not an ordinary unicast address ({_kind(address)}): "
            f"a host on the emulated network needs one, e.g. in {SUBNET}",
        )
        return
    subnet = ipaddress.IPv4Network(f"{address}/{PREFIX_LEN}", strict=False)
    if address in (subnet.network_address, subnet.broadcast_address):
        checks.refuse(
            (*path, "address"),
            f"{address} is the network or broadcast address of {subnet}, not a host's",
        )
        return
    others = {
        other: h
        for other, h in checks.entries("emulate").items()
        if other != name and h.address is not None
    }
    for other, h in sorted(others.items()):
        if h.address == host.address:
            checks.refuse((*path, "address"), f"emulated host {quote(other)} has it too")
            return
        theirs = _parsed(h.address)
        if theirs is not None and theirs not in subnet:
            checks.refuse(
                (*path, "address"),
                f"emulated hosts share one /{PREFIX_LEN} subnet: {address} is not in "
                f"{quote(other)}'s ({h.address})",
            )
            return


def sysctl_name_problem(name: str) -> str | None:
    """Why `name` cannot be set for a host, or None."""
    if "/" in name:
        return "write the name with dots, as sysctl -w does (net.ipv4.tcp_sack), not slashes"
    if not _SYSCTL_NAME.fullmatch(name):
        return 'not a sysctl name: words of letters, digits, "_" and "-" joined by dots'
    if not name.startswith("net."):
        # A namespace has its own copy of (some) net.* sysctls only.
        return (
            "only net.* sysctls can be set for a host: a network namespace has its own "
            "copy of those (the runner checks which), while kernel.*, vm.*, fs.* and the "
            "rest belong to the whole machine, and setting them would change the host machine"
        )
    return None


def sysctl_value_problem(value: object) -> str | None:
    """Why `value` cannot be written to a sysctl, or None: a value is an
    integer, a word ("bbr") or integers separated by spaces, also given as
    a list ("4096 131072 6291456", [4096, 131072, 6291456])."""
    if isinstance(value, bool):
        return "sysctls take numbers: write 1 or 0, not true or false"
    if isinstance(value, int):
        return None
    if isinstance(value, list):
        if value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            return None
        return f"a list holds integers (written space-separated), got {describe_value(value)}"
    expected = "expected an integer, a word or integers separated by spaces, got"
    if not isinstance(value, str):
        return f"{expected} {describe_value(value)}"
    words = value.split()
    if "\0" in value or not words:
        return f"{expected} {quote(value)}"
    if len(words) > 1 and not all(re.fullmatch(r"-?[0-9]+", w) for w in words):
        return (
            f'a value is one word ("bbr") or integers separated by spaces '
            f'("4096 131072 6291456"), got {quote(value)}'
        )
    return None


def sysctl_text(value: int | str | list[int]) -> str:
    """A checked value as sysctl -w writes it (and Linux reads it back,
    integers separated by single spaces)."""
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return " ".join(str(value).split())


def _unicast(address: ipaddress.IPv4Address) -> bool:
    # A loopback address is the namespace's own lo: packets to it never
    # reach the TUN device, and the emulation would carry nothing.
    return not (
        address.is_loopback
        or address.is_multicast
        or address.is_unspecified
        or address.is_link_local
        or address.is_reserved
    )


def _kind(address: ipaddress.IPv4Address) -> str:
    for kind in ("loopback", "multicast", "unspecified", "link_local", "reserved"):
        if getattr(address, f"is_{kind}"):
            return kind.replace("_", "-")
    return "special"


def _parsed(address: str) -> ipaddress.IPv4Address | None:
    """The address, or None where it is not one (refused at its own key)."""
    try:
        return ipaddress.IPv4Address(address)
    except ValueError:
        return None


def emulated_paths(name: str, host: Emulated, doc) -> list[PathRequest]:
    """A path from this host to every other one (each pair asks both ways),
    and the explicit rate's path to it."""
    what = f"explicit-rate feedback of emulated host {quote(name)}"
    feedback = feedback_path(host.rate_control, host.node, ("emulate", name), what, doc)
    return [
        PathRequest(
            host.node,
            other.node,
            ("emulate", name, "node"),
            f"packets of emulated host {quote(name)} to {quote(other_name)}",
            host.mtu,
        )
        for other_name, other in sorted(doc.emulate.items())
        if other_name != name and other.node != host.node
    ] + feedback


SECTION = Section(
    key="emulate",
    table=Emulated,
    noun="emulated host",
    description_key="emulate",
    check=check_emulated,
    omit_when_empty=True,
    expand=expand_emulated,
    paths=emulated_paths,
    probe_target="emulate",
)
