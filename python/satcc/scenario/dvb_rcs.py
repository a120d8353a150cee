"""[dvb_rcs.NAME]: a DVB-RCS return channel shared by satellite terminals under DAMA.

An NCC and its terminals on one MF-TDMA channel (EN 301 790; the Skyplex
configurations of the tfrc-dama paper, section 2.2 and Table I). Each
terminal sends on an uplink of the scenario (a link whose capacity is
`{type = "dvb_rcs", channel = NAME}`): the link transmits only in the
slots the NCC's last burst time plan gave the terminal. At every
super-frame boundary each terminal asks for capacity (eq. (1): RBDC, VBDC,
CRA), the NCC plans (proportional allocation, the exponential release of
eq. (2), normalisation when over-subscribed) and the plan applies after
the allocation delay, which the core derives from the frame and the
propagation delay. A terminal with a `quick_start` table has a
Quick-Start agent at its uplink (RFC 4782 target algorithm on the free
capacity of the last TBTP); with `qsd = true` it adds the approved rate to
its next request and holds the QS-Request for `tq` ("opt" and "max" are
eqs. (6) and (3) of the paper, computed for the channel's frame).

Terminals are laid out in the multi-frame in the order they are written.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Annotated, Any

from satcc import _core
from satcc.units import format_rate, format_time, parse_time

from .description import UNLESS_DEFAULT, Desc, describe_table
from .errors import quote
from .tables import Section, _Table
from .values import (
    MAX_RATE_BPS,
    Bool,
    Fraction,
    NonNegativeRate,
    PositiveRate,
    PositiveSize,
    PositiveTime,
    PositiveU32,
    Str,
    UpToOne,
    choice,
    optional,
    optional_table,
    table,
    typed,
)

if TYPE_CHECKING:
    from .validation import Checks

PRESETS = ("skyplex-small", "skyplex-large")
# The core's names of a frame's keys, in the order they are written.
FRAME_KEYS = {
    "channel_rate": "channel_bps",
    "slot_size": "slot_bytes",
    "slots_per_frame": "slots_per_frame",
    "frames_per_multiframe": "frames_per_multiframe",
    "multiframes_per_superframe": "multiframes_per_superframe",
    "propagation": "propagation_ps",
}


def preset_frame(preset: str) -> dict[str, Any]:
    """A Skyplex frame of the paper, as the core's preset writes it."""
    return json.loads(_core.skyplex_frame(preset.removeprefix("skyplex-")))


def frame_timing(frame: dict[str, Any]) -> dict[str, float]:
    """The timing the core derives from a frame entry (seconds, bits/s):
    slot_s, multiframe_s, superframe_s, allocation_delay_s, mean_rtt_s,
    tq_max_s, tq_opt_s, granularity_bps, ..."""
    return json.loads(_core.frame_timing(json.dumps(frame)))


class Frame(_Table):
    """[dvb_rcs.NAME.frame]: the MF-TDMA geometry; a preset, any key overridden."""

    preset: optional(choice(*PRESETS)) = None
    channel_rate: optional(PositiveRate) = None
    # One burst: eight 188-byte MPEG-2 TS packets on Skyplex.
    slot_size: optional(PositiveSize) = None
    slots_per_frame: optional(PositiveU32) = None
    frames_per_multiframe: optional(PositiveU32) = None
    multiframes_per_superframe: optional(PositiveU32) = None
    # One satellite hop, terminal to terminal and NCC to terminal.
    propagation: optional(PositiveTime) = None

    def resolved(self) -> dict[str, Any]:
        """The core's frame entry: the preset's values, then the keys given."""
        frame = preset_frame(self.preset) if self.preset else {}
        for key, core_key in FRAME_KEYS.items():
            value = getattr(self, key)
            if value is not None:
                frame[core_key] = value
        return frame


class Dama(_Table):
    """[dvb_rcs.NAME.dama]: the NCC's allocator."""

    # Eq. (2): N_B <- a N_B + b (N_L - N_B) when a terminal asks for less.
    release_a: UpToOne = 1.0
    release_b: UpToOne = 0.5
    min_slots: PositiveU32 = 1
    fca: Bool = False


TQ_RULES = ("opt", "max")


def _tq(value: object, info) -> int | str:
    if isinstance(value, str) and value in TQ_RULES:
        return value
    try:
        ps = parse_time(value)
    except (TypeError, ValueError) as e:
        raise ValueError(
            f'expected a time ("518 ms") or one of "opt", "max" (eqs. (6) and (3)): {e}'
        ) from None
    if ps < 0:
        raise ValueError(f'must be zero or more, got "{format_time(ps)}"')
    return ps


Tq = typed(int | str, _tq)


class QuickStart(_Table):
    """[dvb_rcs.NAME.terminals.T.quick_start]: the terminal's QS agent."""

    qs_thresh: Fraction = 0.8
    # Approvals remembered over M intervals of state_delay.
    memory_intervals: PositiveU32 = 2
    # Left out: (T_r + T_a)/2 of the frame (the paper's appendix A).
    state_delay: Annotated[optional(PositiveTime), UNLESS_DEFAULT] = None
    qsd: Bool = False
    tq: Annotated[Tq, Desc(hidden=True)] = 0


class Terminal(_Table):
    """[dvb_rcs.NAME.terminals.T]: a terminal, the link it sends on and how it asks."""

    uplink: Str
    # CRA: a rate always held, the floor of eq. (1).
    cra: NonNegativeRate = 0.0
    rbdc: Bool = True
    # VBDC: ask to empty the uplink queue within this time.
    vbdc: optional(PositiveTime) = None
    quick_start: optional_table(QuickStart) = None


class DvbRcs(_Table):
    """A DVB-RCS return channel, [dvb_rcs.NAME]."""

    frame: table(Frame)
    dama: table(Dama) = Dama()
    terminals: dict[str, Terminal]


def check_dvb_rcs(checks: Checks, path: tuple, name: str, channel: DvbRcs) -> None:
    frame = _check_frame(checks, (*path, "frame"), channel.frame)
    if not channel.terminals:
        checks.refuse((*path, "terminals"), "a channel needs at least one terminal")
    links = checks.entries("links")
    owner: dict[str, str] = {}
    for terminal_name, terminal in channel.terminals.items():
        where = (*path, "terminals", terminal_name)
        if not checks.require((*where, "uplink"), "links", terminal.uplink):
            continue
        if terminal.uplink in owner:
            checks.refuse(
                (*where, "uplink"),
                f"link {quote(terminal.uplink)} is already terminal "
                f"{quote(owner[terminal.uplink])}'s uplink",
            )
        owner[terminal.uplink] = terminal_name
        link = links[terminal.uplink]
        capacity = link.capacity
        if capacity is None or capacity.type != "dvb_rcs" or capacity.channel != name:
            checks.refuse(
                (*where, "uplink"),
                f"link {quote(terminal.uplink)} must have capacity "
                f'{{type = "dvb_rcs", channel = {quote(name)}}} to send in this channel\'s slots',
            )
        qs = terminal.quick_start
        if qs is not None and (link.erica is not None or link.explicit_rate is not None):
            checks.refuse(
                (*where, "quick_start"),
                f"link {quote(terminal.uplink)} already has a port (erica or explicit_rate); "
                "a QS agent needs its own",
            )
        if qs is not None and qs.tq != 0 and not qs.qsd:
            checks.refuse(
                (*where, "quick_start", "tq"), "tq delays QS-Requests only with qsd = true"
            )
    slots = frame and frame["slots_per_frame"] * frame["frames_per_multiframe"]
    needed = channel.dama.min_slots * len(channel.terminals)
    if slots and needed > slots:
        checks.refuse(
            (*path, "dama", "min_slots"),
            f"{len(channel.terminals)} terminals with min_slots = {channel.dama.min_slots} "
            f"need {needed} slots, more than the {slots} of a multi-frame",
        )
    elif slots:
        granularity = frame_timing(frame)["granularity_bps"]
        held = sum(
            max(channel.dama.min_slots, math.ceil(t.cra / granularity - 1e-9))
            for t in channel.terminals.values()
        )
        if held > slots:
            checks.refuse(
                (*path, "terminals"),
                f"the terminals' CRA and minimums need {held} slots per multi-frame, "
                f"more than the {slots} of the channel",
            )
    if channel.dama.release_b > channel.dama.release_a:
        checks.refuse(
            (*path, "dama", "release_b"),
            f"eq. (2) decays only with release_b <= release_a ({channel.dama.release_a:g}), "
            f"got {channel.dama.release_b:g}",
        )


def _check_frame(checks: Checks, path: tuple, frame: Frame) -> dict[str, Any] | None:
    resolved = frame.resolved()
    missing = [key for key, core_key in FRAME_KEYS.items() if core_key not in resolved]
    if missing:
        checks.refuse(
            (*path, missing[0]),
            "missing required key (give it, or a preset: " + ", ".join(PRESETS) + ")",
        )
        return None
    if resolved["channel_bps"] > MAX_RATE_BPS:
        checks.refuse(
            (*path, "channel_rate"),
            f"channel_rate above {format_rate(MAX_RATE_BPS)} is not supported "
            "(a slot would last under a picosecond)",
        )
        return None
    try:
        frame_timing(resolved)
    except ValueError as e:
        checks.refuse(path, str(e))
        return None
    return resolved


def check_uplink_capacity(checks: Checks, path: tuple, channel: str) -> None:
    """A link naming a channel: the channel exists and one of its terminals sends on it."""
    if not checks.require((*path, "channel"), "dvb_rcs", channel):
        return
    link = path[1]
    terminals = checks.entries("dvb_rcs")[channel].terminals
    if not any(t.uplink == link for t in terminals.values()):
        checks.refuse(
            (*path, "channel"),
            f"no terminal of dvb_rcs {quote(channel)} sends on link {quote(link)} "
            f"(give it as a terminal's uplink)",
        )


def _tq_ps(tq: int | str, frame: dict[str, Any]) -> int:
    if isinstance(tq, int):
        return tq
    return round(frame_timing(frame)[f"tq_{tq}_s"] * 1e12)


def describe_dvb_rcs(name: str, channel: DvbRcs, resolved: Any = None) -> dict:
    frame = channel.frame.resolved()
    terminals = []
    for terminal_name, t in channel.terminals.items():
        entry = {
            "name": terminal_name,
            "uplink": t.uplink,
            "request": {"cra_bps": t.cra, "rbdc": t.rbdc, "vbdc_ps": t.vbdc},
        }
        if t.quick_start is not None:
            qs = describe_table(t.quick_start)
            qs["tq_ps"] = _tq_ps(t.quick_start.tq, frame)
            entry["quick_start"] = qs
        terminals.append(entry)
    return {
        "name": name,
        "frame": frame,
        "dama": describe_table(channel.dama),
        "terminals": terminals,
    }


SECTION = Section(
    key="dvb_rcs",
    table=DvbRcs,
    noun="dvb_rcs channel",
    description_key="dvb_rcs",
    check=check_dvb_rcs,
    describe=describe_dvb_rcs,
    omit_when_empty=True,
)
