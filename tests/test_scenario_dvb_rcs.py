# [dvb_rcs.NAME]: a DVB-RCS return channel from the scenario file to the core
# and back. The frame presets and T_q rules resolve to the core's own
# timing; refusals name the key; a TFRC flow behind two Skyplex terminals
# gets its Quick-Start approval and accounts for every packet.

import pytest
import satcc
from satcc.scenario import Scenario
from satcc.scenario.dvb_rcs import frame_timing, preset_frame
from scenario_helpers import changed, refused


def uplink(src: str, dst: str) -> dict:
    return {
        "from": src,
        "to": dst,
        "delay": "252 ms",
        "capacity": {"type": "dvb_rcs", "channel": "rl"},
        "queue": {"limit": "1000 packets"},
    }


BASE = {
    "run": {"name": "skyplex", "duration": "12 s", "seed": 1},
    "nodes": {"h1": {}, "t1": {}, "t2": {}, "h2": {}},
    "links": {
        "lan1": {"from": "h1", "to": "t1", "rate": "100 Mbps", "duplex": True},
        "lan2": {"from": "t2", "to": "h2", "rate": "100 Mbps", "duplex": True},
        "up1": uplink("t1", "t2"),
        "up2": uplink("t2", "t1"),
    },
    "dvb_rcs": {
        "rl": {
            "frame": {"preset": "skyplex-large"},
            "terminals": {
                "t1": {"uplink": "up1", "quick_start": {}},
                "t2": {"uplink": "up2"},
            },
        }
    },
    "tfrc": {
        "v": {
            "from": "h1",
            "to": "h2",
            "packet_size": "1316 B",
            "profile": "rfc3448",
            "media": {"rate": "256 kbps"},
            "quick_start": "320 kbps",
        }
    },
}


def scenario(without: tuple[str, ...] = (), **changes) -> Scenario:
    return changed(BASE, without, **changes)


# up2 as an ordinary link, so that only the terminal's own key is wrong.
PLAIN_UP2 = {"links.up2.capacity": {"type": "constant", "rate": "1 Mbps"}}


def test_the_preset_is_the_papers_skyplex_frame():
    (channel,) = scenario().validate()["dvb_rcs"]
    assert channel["frame"] == {
        "channel_bps": 6.336e6,
        "slot_bytes": 1504,
        "slots_per_frame": 6,
        "frames_per_multiframe": 24,
        "multiframes_per_superframe": 3,
        "propagation_ps": 252 * 10**9,
    }
    assert channel["dama"] == {"release_a": 1.0, "release_b": 0.5, "min_slots": 1, "fca": False}
    assert [t["name"] for t in channel["terminals"]] == ["t1", "t2"]
    assert channel["terminals"][0]["quick_start"]["tq_ps"] == 0
    assert "quick_start" not in channel["terminals"][1]


def test_a_preset_key_can_be_overridden():
    d = scenario(**{"dvb_rcs.rl.frame.propagation": "250 ms"}).validate()
    assert d["dvb_rcs"][0]["frame"]["propagation_ps"] == 250 * 10**9
    assert d["dvb_rcs"][0]["frame"]["frames_per_multiframe"] == 24


@pytest.mark.parametrize(("size", "rule"), [("small", "opt"), ("large", "max")])
def test_tq_rules_are_the_frames_own_eq_6_and_eq_3(size, rule):
    sc = scenario(
        **{
            "dvb_rcs.rl.frame.preset": f"skyplex-{size}",
            "dvb_rcs.rl.terminals.t1.quick_start.qsd": True,
            "dvb_rcs.rl.terminals.t1.quick_start.tq": rule,
        }
    )
    qs = sc.validate()["dvb_rcs"][0]["terminals"][0]["quick_start"]
    timing = frame_timing(preset_frame(f"skyplex-{size}"))
    assert qs["tq_ps"] == round(timing[f"tq_{rule}_s"] * 1e12)
    # Table I and eq. (6): 53 ms (small, T_q,opt), 1273 ms (large, T_q,max).
    expected_ms = {"small": 53.1, "large": 1273.5}[size]
    assert qs["tq_ps"] / 1e9 == pytest.approx(expected_ms, abs=0.1)


@pytest.mark.parametrize(
    ("changes", "key", "fragment"),
    [
        ({"dvb_rcs.rl.frame.preset": "skyplex-huge"}, "dvb_rcs.rl.frame.preset", "skyplex-large"),
        (
            {**PLAIN_UP2, "dvb_rcs.rl.terminals.t2.uplink": "lan2"},
            "dvb_rcs.rl.terminals.t2.uplink",
            'type = "dvb_rcs"',
        ),
        (
            {**PLAIN_UP2, "dvb_rcs.rl.terminals.t2.uplink": "up9"},
            "dvb_rcs.rl.terminals.t2.uplink",
            "up9",
        ),
        (
            {**PLAIN_UP2, "dvb_rcs.rl.terminals.t2.uplink": "up1"},
            "dvb_rcs.rl.terminals.t2.uplink",
            "already",
        ),
        ({"links.up2.capacity.channel": "rx"}, "links.up2.capacity.channel", "rx"),
        ({"dvb_rcs.rl.terminals.t1.quick_start.tq": "1 s"}, None, "qsd = true"),
        ({"dvb_rcs.rl.terminals.t1.quick_start.tq": "soon"}, None, '"opt"'),
        ({"dvb_rcs.rl.terminals.t1.quick_start.qs_thresh": 1.5}, None, "between 0 and 1"),
        ({"dvb_rcs.rl.dama.release_b": 0.0}, "dvb_rcs.rl.dama.release_b", "(0, 1]"),
        ({"dvb_rcs.rl.dama.release_a": 0.4}, "dvb_rcs.rl.dama.release_b", "release_b <="),
        ({"dvb_rcs.rl.dama.min_slots": 100}, "dvb_rcs.rl.dama.min_slots", "144"),
        ({"dvb_rcs.rl.terminals.t1.cra": "-1 kbps"}, "dvb_rcs.rl.terminals.t1.cra", "negative"),
        ({"dvb_rcs.rl.terminals.t1.upink": "up1"}, None, 'did you mean "uplink"'),
        ({"links.up1.duplex": True}, "links.up1.duplex", "one way"),
        (
            {"dvb_rcs.rl.terminals.t1.cra": "3.2 Mbps", "dvb_rcs.rl.terminals.t2.cra": "3.2 Mbps"},
            "dvb_rcs.rl.terminals",
            "146 slots",
        ),
        # Before: a slot of 0 ps, and a Rust panic (division by zero) in validate.
        (
            {"dvb_rcs.rl.frame.channel_rate": "1e8 Gbps"},
            "dvb_rcs.rl.frame.channel_rate",
            "above 1000 Gbps",
        ),
        (
            {
                "dvb_rcs.rl.frame.slots_per_frame": 2**32 - 1,
                "dvb_rcs.rl.frame.channel_rate": "1 Mbps",
            },
            "dvb_rcs.rl.frame",
            "26 days",
        ),
        (
            {
                "dvb_rcs.rl.frame.frames_per_multiframe": 2**20,
                "dvb_rcs.rl.frame.slots_per_frame": 2**12,
            },
            "dvb_rcs.rl.frame",
            "super-frame",
        ),
    ],
)
def test_refusals_name_the_key(changes, key, fragment):
    error = refused(scenario(**changes))
    if key is not None:
        assert error.path == key, str(error)
    assert fragment in str(error), str(error)


def test_a_frame_without_a_preset_needs_every_key():
    error = refused(scenario(without=("dvb_rcs.rl.frame.preset",)))
    assert error.path == "dvb_rcs.rl.frame.channel_rate", str(error)
    assert "skyplex-small" in str(error)


def test_a_link_naming_a_channel_no_terminal_sends_on_is_refused():
    sc = scenario()
    sc.set("links.up3", uplink("t2", "h2"))
    error = refused(sc)
    assert error.path == "links.up3.capacity.channel", str(error)
    assert "no terminal" in str(error)


def test_quick_start_is_approved_and_every_packet_is_counted():
    s = satcc.run(scenario()).summary
    assert s["run.pdus_unaccounted"] == 0
    assert s["links.up1.quick_start.approvals"] == 1
    assert s["tfrc.v.qs_approved_bps"] == 320_000.0
    assert s["dvb_rcs.rl.allocation_delay_ms"] == pytest.approx(1640.7, abs=0.1)
    # The flow's terminal ends with the media rate rounded up to 44 kb/s
    # slots, give or take the release still under way; the other keeps its
    # one slot for the reports.
    assert 6 * 44e3 <= s["dvb_rcs.rl.t1.allocated_bps"] <= 10 * 44e3
    assert s["dvb_rcs.rl.t2.allocated_bps"] == pytest.approx(44e3)
