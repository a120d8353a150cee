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
paper's testbed: real TCP over end-to-end rate control).
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING, Annotated

from .description import NOT_DESCRIBED, UNLESS_DEFAULT
from .errors import quote
from .rate_control import RateControl, check_rate_control, feedback_path
from .routing import PathRequest
from .tables import Section, _Table
from .values import Bool, NonNegativeTime, PositiveInt, Str, optional, optional_table

if TYPE_CHECKING:
    from .validation import Checks

# Hosts without an address get .1, .2, ... in name order, of the /24 of the
# addresses given, or of SUBNET.
SUBNET = ipaddress.IPv4Network("10.77.0.0/24")
PREFIX_LEN = 24
# IPv4's smallest MTU every link must carry (RFC 791) and the largest a
# TUN device takes.
MIN_MTU, MAX_MTU = 68, 65_535


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
