# [tfrc.NAME]: a TFRC media flow from the scenario file to the core and back.
# Refusals name the key and the reason; a run over a lossless path carries
# the media at the path's delay and accounts for every packet.
import pytest
import satcc
from satcc.scenario import Scenario
from scenario_helpers import changed, refused

BASE = {
    "run": {"name": "media", "duration": "20 s", "seed": 3},
    "nodes": {"h": {}, "r": {}},
    "links": {
        "fwd": {"from": "h", "to": "r", "rate": "1 Mbps", "delay": "250 ms"},
        "back": {"from": "r", "to": "h", "rate": "100 Mbps", "delay": "250 ms"},
    },
    "tfrc": {
        "v": {
            "from": "h",
            "to": "r",
            "packet_size": "1316 B",
            "profile": "rfc3448",
            "media": {"rate": "256 kbps", "buffer": 128},
        }
    },
    "probes": {"e2ed": {"tfrc": "v", "metric": "e2ed_s"}},
}


def scenario(**changes) -> Scenario:
    return changed(BASE, **changes)


def test_description_carries_the_flow_in_core_units():
    d = scenario(**{"tfrc.v.quick_start": "320 kbps"}).validate()
    (flow,) = d["tfrc"]
    assert flow["src_node"] == "h" and flow["dst_node"] == "r"
    assert flow["packet_bytes"] == 1316
    assert flow["profile"] == "rfc3448"
    # Left out: the profile's own (2 s; ns2: two packets at 300 B/s).
    assert "initial_rto_ps" not in flow and "header_bytes" not in flow
    d = scenario(**{"tfrc.v.initial_rto": "3 s", "tfrc.v.header_size": "28 B"}).validate()
    assert d["tfrc"][0]["initial_rto_ps"] == 3 * 10**12
    assert d["tfrc"][0]["header_bytes"] == 28
    assert flow["quick_start_bps"] == 320_000.0
    assert flow["media"] == {"rate_bps": 256_000.0, "buffer_packets": 128}


@pytest.mark.parametrize(
    ("path", "value", "key", "fragment"),
    [
        ("tfrc.v.packet_sise", "1316 B", "tfrc.v.packet_sise", 'did you mean "packet_size"'),
        ("tfrc.v.to", "nowhere", "tfrc.v.to", "nowhere"),
        ("tfrc.v.header_size", "1316 B", "tfrc.v.header_size", "smaller than packet_size"),
        ("tfrc.v.quick_start", "20 kbps", "tfrc.v.quick_start", "80 kb/s"),
        ("tfrc.v.quick_start", "40 kbps", "tfrc.v.quick_start", "80 kb/s"),
        ("tfrc.v.profile", "rfc9999", "tfrc.v.profile", "ns2"),
        ("tfrc.v.revision", "rfc3448", "tfrc.v.revision", '"profile"'),
        ("tfrc.v.media.rate", "-1 kbps", "tfrc.v.media.rate", "positive"),
        # A packet interval below a picosecond: the run would never end.
        ("tfrc.v.media.rate", "1e8 Gbps", "tfrc.v.media.rate", "above 1000 Gbps"),
        ("tfrc.v.media.buffer", 2**32, "tfrc.v.media.buffer", "at most 4,294,967,295"),
        ("tfrc.v.packet_size", "70000 B", "tfrc.v.packet_size", "IP datagram"),
    ],
)
def test_refusals_name_the_key(path, value, key, fragment):
    error = refused(scenario(**{path: value}))
    assert error.path == key, str(error)
    assert fragment in str(error), str(error)


def test_a_trace_gives_every_packets_delays_by_generation_time():
    result = satcc.run(scenario(**{"tfrc.v.trace": True}))
    e2ed, owd = result.series("tfrc.v.e2ed"), result.series("tfrc.v.owd")
    s = result.summary
    assert len(e2ed) == len(owd) == s["tfrc.v.packets_received"]
    # Generated every 41.125 ms from the start, in order (no loss, FIFO).
    assert e2ed["time_s"].iloc[0] == 0.0
    assert e2ed["time_s"].diff().dropna().round(9).eq(0.041125).all()
    assert (e2ed["value"] >= owd["value"]).all()
    assert e2ed["value"].max() == pytest.approx(s["tfrc.v.e2ed_max_s"], rel=0.01)
    assert "tfrc.v.e2ed" not in satcc.run(scenario()).series_names


def test_a_lossless_path_carries_the_media_and_every_packet_is_counted():
    result = satcc.run(scenario())
    s = result.summary
    assert s["run.pdus_unaccounted"] == 0
    assert s["tfrc.v.tx_buffer_overflow"] == 0
    assert s["tfrc.v.generated"] - s["tfrc.v.packets_received"] <= 20
    # 250 ms of propagation and 10.5 ms to send 1316 B at 1 Mb/s.
    assert s["tfrc.v.e2ed_p50_s"] == pytest.approx(0.2605, abs=0.005)
    assert len(result.series("e2ed")) > 0


def test_the_ns2_profile_adds_its_headers_on_the_wire():
    # ns-2's Agent/TFRC sends packetSize_ plus headersize_ (32 B) on the wire.
    s = satcc.run(scenario(**{"tfrc.v.profile": "ns2"})).summary
    assert s["run.pdus_unaccounted"] == 0
    assert s["tfrc.v.tx_buffer_overflow"] == 0
    assert s["links.fwd.tx_bytes"] == s["links.fwd.tx_packets"] * (1316 + 32)
    received = s["tfrc.v.packets_received"]
    assert s["tfrc.v.goodput_bps"] * 20 / 8 == pytest.approx(received * (1316 + 32))
    # ns-2's start: 300 B/s, so the second packet waits 1316/300 = 4.4 s
    # unless the first report (one RTT, 0.5 s) comes first, which it does.
    assert 0.5 < s["tfrc.v.first_report_s"] < 0.52
