"""[traces.NAME]: link captures read by tshark, TCP sender traces, their files and refusals.

The pcap files are decoded by tshark (Wireshark's dissectors), which was
not written here: packet counts against the link's summary, TCP sequence
numbers against what the sender sent, time stamps against the simulated
transmission times, checksums verified by tshark itself.
"""

from __future__ import annotations

import shutil
import subprocess
import warnings

import pandas as pd
import pytest
import satcc
from satcc.result_folder import read_series_parquet
from satcc.runner import TraceWarning
from satcc.scenario import ScenarioError

TSHARK = shutil.which("tshark")
needs_tshark = pytest.mark.skipif(
    TSHARK is None, reason="tshark is not installed (scripts/ensure-tshark.sh)"
)

RATE = 10e6
MSS = 1460


def scenario(traces: dict, loss: float = 0.0, **tcp) -> dict:
    """A bulk transfer a -> b over 10 Mb/s, 20 ms each way, for 2 s."""
    return {
        "run": {"duration": "2 s"},
        "nodes": {"a": {}, "b": {}},
        "links": {
            "fwd": {"from": "a", "to": "b", "rate": "10 Mb/s", "delay": "20 ms", "loss": loss},
            "rev": {"from": "b", "to": "a", "rate": "10 Mb/s", "delay": "20 ms"},
        },
        "tcp": {"t": {"from": "a", "to": "b", "receive_buffer": "256 KiB", **tcp}},
        "traces": traces,
    }


def tshark(path, *fields: str, options: tuple[str, ...] = ()) -> list[list[str]]:
    """One row per packet, the given fields as tshark prints them."""
    args = [TSHARK, "-r", str(path), *options, "-T", "fields"]
    for field in fields:
        args += ["-e", field]
    done = subprocess.run(args, capture_output=True, text=True, check=True)
    return [line.split("\t") for line in done.stdout.splitlines()]


@needs_tshark
def test_tshark_reads_every_packet_the_link_sent_with_the_sender_s_numbers(tmp_path):
    # A finite transfer, done before the run ends: all it sent was transmitted.
    app = {"type": "bulk", "size": "1 MB"}
    res = satcc.run(scenario({"cap": {"pcap": "fwd"}}, start="0.5 s", app=app))
    res.to_dir(tmp_path / "out")
    path = tmp_path / "out" / "cap.pcap"
    assert path.read_bytes() == res.pcap("cap")
    rows = tshark(
        path,
        "frame.time_epoch",
        "frame.len",
        "frame.cap_len",
        "tcp.flags.syn",
        "tcp.seq_raw",
        "tcp.len",
        "ip.src",
        "tcp.srcport",
        "tcp.dstport",
    )
    s = res.summary
    assert len(rows) == s["links.fwd.tx_packets"] > 100
    assert s["links.fwd.errors"] == 0
    # The SYN goes on the wire when the connection opens.
    t, length, cap, syn, seq, _, src, sport, dport = rows[0]
    assert (float(t), syn, seq, src, dport) == (0.5, "1", "0", "10.0.0.1", "5001")
    # Headers only, the packet's real length.
    data = [r for r in rows if int(r[5]) > 0]
    assert all((int(r[1]), int(r[2])) == (int(r[5]) + 40, 40) for r in data)
    assert max(int(r[5]) for r in data) == MSS
    # Without loss the sender's bytes go out once each, in order, from 1.
    seqs = [(int(r[4]), int(r[5])) for r in data]
    assert seqs[0][0] == 1
    assert all(b == a + n for (a, n), (b, _) in zip(seqs, seqs[1:], strict=False))
    assert sum(int(r[5]) for r in data) == s["tcp.t.bytes_sent"] == 1_000_000
    assert len(data) == s["tcp.t.segments_sent"]
    # A segment goes on the wire once the one before it has left: never
    # sooner than its transmission time, and exactly then back to back.
    times = [float(r[0]) for r in data]
    gaps = [
        (round((b - a) * 1e9), round((n + 40) * 8 / RATE * 1e9))
        for a, b, n in zip(times[:-1], times[1:], (int(r[5]) for r in data[:-1]), strict=True)
    ]
    assert all(gap >= tx for gap, tx in gaps)
    assert sum(gap == tx for gap, tx in gaps) > len(gaps) / 2


@needs_tshark
def test_tshark_verifies_the_checksums_of_full_packets(tmp_path):
    res = satcc.run(scenario({"cap": {"pcap": "rev", "payload": True}}, variant="sack"), seed=3)
    res.write_pcap("cap", tmp_path / "rev.pcap")
    rows = tshark(
        tmp_path / "rev.pcap",
        "ip.checksum.status",
        "tcp.checksum.status",
        "tcp.ack_raw",
        "tcp.flags.syn",
        options=("-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE"),
    )
    assert len(rows) == res.summary["links.rev.tx_packets"]
    # 1: good (0 bad, 2 unverified).
    assert {(ip, tcp) for ip, tcp, _, _ in rows} == {("1", "1")}
    # The SYN-ACK acknowledges the SYN; the ACKs then grow with the data.
    assert rows[0][2:] == ["1", "1"]
    acks = [int(r[2]) for r in rows]
    assert acks == sorted(acks) and acks[-1] > 1_000_000


@needs_tshark
def test_a_lossy_link_s_capture_shows_the_lost_and_resent_segments(tmp_path):
    res = satcc.run(scenario({"cap": {"pcap": "fwd"}}, loss=0.01))
    res.write_pcap("cap", tmp_path / "fwd.pcap")
    rows = tshark(tmp_path / "fwd.pcap", "tcp.seq_raw", "tcp.len")
    s = res.summary
    assert s["links.fwd.errors"] > 0
    # Lost on the wire, yet sent: the capture is at the sending end.
    assert len(rows) == s["links.fwd.tx_packets"] + s["links.fwd.errors"]
    # A segment below the highest sequence number sent so far is a resend.
    highest, resent = 0, 0
    for seq, length in ((int(a), int(b)) for a, b in rows):
        if length:
            resent += seq < highest
            highest = max(highest, seq + length)
    assert resent == s["tcp.t.retransmissions"] > 0


def test_a_tcp_trace_is_a_row_per_change_with_the_sender_s_state(tmp_path):
    res = satcc.run(scenario({"cw": {"tcp": "t"}}, loss=0.01))
    frame = res.trace("cw")
    assert list(frame.columns) == [
        "time_s",
        "cwnd_bytes",
        "ssthresh_bytes",
        "srtt_s",
        "rto_s",
        "state",
    ]
    assert frame.time_s.is_monotonic_increasing
    assert frame.state.iloc[0] == "connecting"
    assert {"slow_start", "congestion_avoidance", "recovery"} <= set(frame.state)
    assert frame.srtt_s.dropna().between(0.04, 1.0).all()
    assert res.info["traces"]["cw"]["records"] == len(frame)
    res.to_dir(tmp_path / "out")
    stored = read_series_parquet(tmp_path / "out" / "traces" / "cw.parquet")
    pd.testing.assert_frame_equal(stored, frame)
    # An rtt-only trace has a row for every RTT sample's change, none for cwnd alone.
    rtt = satcc.run(scenario({"cw": {"tcp": "t", "events": ["rtt"]}}, loss=0.01)).trace("cw")
    assert (rtt[["srtt_s", "rto_s"]].diff().iloc[1:] != 0).any(axis=1).all()


def test_traces_leave_the_run_as_it_was_and_repeat_exactly():
    plain = satcc.run(scenario({}))
    traced = satcc.run(scenario({"cap": {"pcap": "fwd"}, "cw": {"tcp": "t"}}))
    assert plain.summary == traced.summary
    again = satcc.run(scenario({"cap": {"pcap": "fwd"}, "cw": {"tcp": "t"}}))
    assert again.pcap("cap") == traced.pcap("cap")
    pd.testing.assert_frame_equal(again.trace("cw"), traced.trace("cw"))
    assert "traces" not in plain.description


def test_a_bound_stops_the_trace_and_says_so():
    with pytest.warns(TraceWarning, match="'cap' stopped recording .* max_packets"):
        res = satcc.run(scenario({"cap": {"pcap": "fwd", "max_packets": 10}}))
    report = res.info["traces"]["cap"]
    assert report["records"] == 10
    assert report["not_recorded"] == res.summary["links.fwd.tx_packets"] - 10
    with pytest.warns(TraceWarning, match="max_bytes"):
        res = satcc.run(scenario({"cap": {"pcap": "fwd", "max_bytes": "1 kB"}}))
    assert len(res.pcap("cap")) <= 1000
    with pytest.warns(TraceWarning, match="max_records"):
        satcc.run(scenario({"cw": {"tcp": "t", "max_records": 3}}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        satcc.run(scenario({"cap": {"pcap": "fwd"}}))


@needs_tshark
def test_datagrams_are_udp(tmp_path):
    res = satcc.run(
        {
            "run": {"duration": "1 s"},
            "nodes": {"a": {}, "b": {}},
            "links": {"l": {"from": "a", "to": "b", "rate": "1 Mb/s", "duplex": True}},
            "udp_rr": {"x": {"from": "a", "to": "b", "request": "100 B"}},
            "sinks": {"k": {"node": "b"}},
            "sources": {"c": {"type": "cbr", "from": "a", "to": "k", "rate": "100 kb/s"}},
            "traces": {"cap": {"pcap": "l"}},
        }
    )
    res.write_pcap("cap", tmp_path / "l.pcap")
    rows = tshark(tmp_path / "l.pcap", "udp.srcport", "udp.dstport", "udp.length")
    assert len(rows) == res.summary["links.l.tx_packets"]
    ports = {(r[0], r[1]) for r in rows}
    assert ("12865", "12865") in ports and len(ports) == 2
    assert all(r[2] for r in rows)


@pytest.mark.parametrize(
    ("trace", "path", "words"),
    [
        ({}, "traces.x", 'needs pcap = "LINK" or tcp = "CONNECTION"'),
        ({"pcap": "fwd", "tcp": "t"}, "traces.x.tcp", "not both"),
        ({"pcap": "nope"}, "traces.x.pcap", 'no link named "nope"'),
        ({"tcp": "nope"}, "traces.x.tcp", 'no tcp connection named "nope"'),
        ({"tcp": "t", "payload": True}, "traces.x.payload", "for a pcap trace"),
        ({"pcap": "fwd", "events": ["rtt"]}, "traces.x.events", "for a tcp trace"),
        ({"tcp": "t", "events": ["loss"]}, "traces.x.events.0", '"loss"'),
        ({"tcp": "t", "events": []}, "traces.x.events", "at least one"),
        ({"pcap": "fwd", "max_packets": 0}, "traces.x.max_packets", "positive"),
        ({"pcap": "fwd", "max_bytes": "10 B"}, "traces.x.max_bytes", "at least one packet"),
        ({"pcap": "fwd", "max_packets": 10**12}, "traces.x.max_packets", "memory"),
    ],
)
def test_refusals_name_the_key(trace, path, words):
    with pytest.raises(ScenarioError) as e:
        satcc.run(scenario({"x": trace}))
    assert e.value.path == path, str(e.value)
    assert words in str(e.value)


def test_one_trace_per_link():
    with pytest.raises(ScenarioError) as e:
        satcc.run(scenario({"a": {"pcap": "fwd"}, "b": {"pcap": "fwd"}}))
    assert e.value.path == "traces.b.pcap"
    assert 'already traced by trace "a"' in str(e.value)


def test_asking_for_a_trace_it_does_not_have_lists_those_it_has():
    res = satcc.run(scenario({"cap": {"pcap": "fwd"}, "cw": {"tcp": "t"}}))
    assert res.trace_names == ["cap", "cw"]
    with pytest.raises(KeyError, match=r"no pcap trace named 'cw' \(pcap traces: cap\)"):
        res.pcap("cw")
    with pytest.raises(KeyError, match=r"no tcp trace named 'x' \(tcp traces: cw\)"):
        res.trace("x")
