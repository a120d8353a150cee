# Tests for satcc.analysis.netpipe: the netpipe-satellite paper's closed forms
# and NetPIPE's measurement rules. Reference values are worked out by hand here
# (cell counts from the AAL5 layout, the paper's worked example of section 2,
# a fluid queue for BB) or copied from NetPIPE's source, independently of the
# module's code.

import math

import pytest
import satcc.analysis
from satcc.analysis import (
    NETPIPE_MBIT,
    NetpipeTest,
    TransferTimeStats,
    aal5_cells,
    atm_efficiency,
    bdp_bytes,
    buffer_requirement_cells,
    fit_slope_through_origin,
    netpipe_block_sizes,
    netpipe_repetitions,
    netpipe_schedule,
    paper_throughput_fraction,
    predicted_slope_mbps_per_kb,
    tcp_segments,
    transfer_time_stats,
    window_limited_goodput_bps,
    window_limited_throughput_bps,
    wire_bytes_atm,
)

# ---------------------------------------------------------------- AAL5 cells


@pytest.mark.parametrize(
    ("ip_bytes", "llc_snap", "cells"),
    [
        # 512-byte segment + 40 B TCP/IP = 552; + 8 LLC/SNAP + 8 trailer = 568
        # = 11 * 48 + 40 -> 12 cells.
        (512 + 40, True, 12),
        # 1500 + 16 = 1516 = 31 * 48 + 28 -> 32 cells.
        (1500, True, 32),
        # RFC 1577's default MTU: 9180 + 16 = 9196 = 191 * 48 + 28 -> 192 cells.
        (9180, True, 192),
        # Exactly one cell payload: 32 + 16 = 48; one byte more needs a second cell.
        (32, True, 1),
        (33, True, 2),
        # VC multiplexing (no LLC/SNAP): 40 + 8 = 48 -> 1 cell, 1500 + 8 = 1508 -> 32.
        (40, False, 1),
        (41, False, 2),
        (1500, False, 32),
    ],
)
def test_aal5_cells_and_cell_tax(ip_bytes, llc_snap, cells):
    assert aal5_cells(ip_bytes, llc_snap=llc_snap) == cells
    assert wire_bytes_atm(ip_bytes, llc_snap=llc_snap) == 53 * cells


def test_cells_agree_with_the_abr_study_rule():
    # studies/abr_lrd_vbr.cells_per_segment: ceil((mss + 40 + 8 + 8) / 48).
    for mss in (512, 536, 1460, 9140):
        assert aal5_cells(mss + 40) == math.ceil((mss + 56) / 48)


def test_tcp_segments():
    assert tcp_segments(0, 1460) == 0
    assert tcp_segments(1, 1460) == 1
    assert tcp_segments(1460, 1460) == 1
    assert tcp_segments(1461, 1460) == 2
    assert tcp_segments(8192, 1460) == 6  # 5 * 1460 = 7300 < 8192 <= 8760
    assert tcp_segments(65536, 512) == 128


def test_atm_efficiency():
    assert atm_efficiency(1460) == pytest.approx(1460 / (32 * 53))  # 0.8608
    assert atm_efficiency(9140) == pytest.approx(9140 / (192 * 53))  # 0.8982
    assert atm_efficiency(512) == pytest.approx(512 / (12 * 53))  # 0.8050
    assert atm_efficiency(1460, llc_snap=False) == pytest.approx(1460 / (32 * 53))
    assert atm_efficiency(1460, header_bytes=52) == pytest.approx(1460 / (32 * 53))
    # 1472 + 40 + 16 = 1528 = 31 * 48 + 40 -> still 32 cells.
    assert atm_efficiency(1472) == pytest.approx(1472 / (32 * 53))
    # The 5/53 header alone costs 9.4 % (paper, introduction): the ceiling.
    assert all(atm_efficiency(m) < 48 / 53 for m in (64, 512, 1460, 9140, 65000))


# ----------------------------------------------------- window-limited laws


def test_window_limited_throughput_bps():
    assert window_limited_throughput_bps(8192, 0.5) == pytest.approx(131072.0)
    assert window_limited_throughput_bps(65536, 0.6) == pytest.approx(65536 * 8 / 0.6)


def test_window_limited_goodput_takes_the_smaller_limit():
    link = 2.048e6
    eff = 1460 / 1696
    # Small window: window-limited, no overhead enters.
    assert window_limited_goodput_bps(8192, 0.5, link, 1460) == pytest.approx(131072.0)
    # Window of 1 MB at 0.5 s would be 16.8 Mb/s: the link caps it at 2.048 Mb/s
    # times the payload share of the wire.
    assert window_limited_goodput_bps(2**20, 0.5, link, 1460) == pytest.approx(link * eff)
    # Exactly at the crossing: window*8/RTT = link*eff.
    w = link * eff * 0.5 / 8
    assert window_limited_goodput_bps(w, 0.5, link, 1460) == pytest.approx(link * eff)


def test_bdp_bytes():
    # Paper, section 2: 2.048 Mb/s * 0.5 s = 1.024 Mbit = 128 000 bytes.
    assert bdp_bytes(2.048e6, 0.5) == pytest.approx(128000.0)
    assert bdp_bytes(2.048e6, 0.6) == pytest.approx(153600.0)


# -------------------------------------------------- the paper's worked example


def test_paper_worked_example():
    rate, rtt = 2.048e6, 0.5
    # "The window size = 2.048 Mbps * 0.5 = 1.024 Mb = 128 k bytes ... 100 %."
    assert paper_throughput_fraction(128000, rate, rtt) == pytest.approx(1.0)
    # "the default socket size on NetPIPE was 8192 bytes ... maximum 8.192/128".
    assert paper_throughput_fraction(8192, rate, rtt) == pytest.approx(8.192 / 128)
    assert paper_throughput_fraction(8192, rate, rtt) == pytest.approx(0.064)
    # "multiply it with X/128 where X is the socket size in k bytes".
    for x_kb in (8.192, 16, 32, 64):
        assert paper_throughput_fraction(x_kb * 1000, rate, rtt) == pytest.approx(x_kb / 128)
    # The formula as printed is not capped at 100 % above the BDP.
    assert paper_throughput_fraction(256000, rate, rtt) == pytest.approx(2.0)


def test_paper_08_mbps_window():
    # "If throughput is measured as 0.8 Mbps, the Acknowledgement window size
    # is 400 k bits which is approximately 52 k bytes."
    rate, rtt = 2.048e6, 0.5
    # With 1 Mb = 1e6 bit: window = 0.8e6 * 0.5 = 400 000 bit = 50 000 bytes,
    # and the formula inverts to the same window.
    window = 0.8e6 * rtt / 8
    assert window == pytest.approx(50000)
    assert paper_throughput_fraction(window, rate, rtt) * rate == pytest.approx(0.8e6)
    # That is 4 % short of "approximately 52 k bytes"; the paper's 52 matches
    # NetPIPE's Mbps of 2**20 bit/s: 0.8 * 2**20 * 0.5 / 8 = 52 428.8 bytes.
    netpipe_window = 0.8 * NETPIPE_MBIT * rtt / 8
    assert netpipe_window == pytest.approx(52428.8)
    assert round(netpipe_window / 1000) == 52
    assert round(window / 1000) == 50


# ------------------------------------------------------- buffer requirement BB


def fluid_backlog_cells(trans_bps, link_bps, burst_bytes):
    """Cells left when a burst of burst_bytes at trans_bps ends, drained at link_bps."""
    duration = burst_bytes * 8 / trans_bps
    drained_bytes = link_bps * duration / 8
    return (burst_bytes - drained_bytes) / 53


@pytest.mark.parametrize(
    ("trans", "link", "burst"),
    [
        (25e6, 2.048e6, 65536),  # 25 Mb/s LAN into the E1 satellite link, 64 KB
        (25e6, 2.048e6, 8192),
        (155.52e6, 2.048e6, 65536),  # OC-3 into E1
        (155.52e6, 25e6, 53 * 1000),  # 1000 cells
    ],
)
def test_buffer_requirement_matches_a_fluid_queue(trans, link, burst):
    assert buffer_requirement_cells(trans, link, burst) == pytest.approx(
        fluid_backlog_cells(trans, link, burst)
    )


def test_buffer_requirement_example_numbers():
    # 64 KB at 25 Mb/s lasts 20.97 ms; the E1 drains 5368.7 bytes meanwhile;
    # 60 167.3 bytes = 1135.2 cells remain.
    bb = buffer_requirement_cells(25e6, 2.048e6, 65536)
    assert bb == pytest.approx((25 - 2.048) / 25 * 65536 / 53)
    assert bb == pytest.approx(1135.2, abs=0.05)
    # 1000 cells arriving at twice the link rate leave 500 cells.
    assert buffer_requirement_cells(2e6, 1e6, 53000) == pytest.approx(500.0)
    # The unit of the speeds does not matter, only their ratio.
    assert buffer_requirement_cells(25, 2.048, 65536) == pytest.approx(bb)


def test_buffer_requirement_zero_without_overload():
    assert buffer_requirement_cells(2.048e6, 2.048e6, 65536) == 0.0
    assert buffer_requirement_cells(2e6, 25e6, 65536) == 0.0
    assert buffer_requirement_cells(25e6, 2e6, 0) == 0.0


# ------------------------------------------------------------ NetPIPE sizes

# NetPIPE 3.7.x netpipe.c main loop (GitHub yihan1998/netpipe src/netpipe.c,
# commit 04e0ea25575f25775a2689a44d35e3706af1fcf8, the 3.7 loop unchanged;
# identical for start = 1 to the NetPIPE 2.x loop), traced by hand for
# start = 1, perturbation 3 (DEFPERT): inc doubles at nq = 3, 5, 7, ...;
# bases 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128; n +- 3 once inc > 4.
# These are also the sizes NPtcp prints ("0: 1 bytes", "1: 2 bytes", ...).
NETPIPE_FIRST_SIZES = [1, 2, 3, 4, 6, 8, 12, 13, 16, 19, 21, 24, 27, 29, 32, 35, 45, 48, 51]
NETPIPE_SIZES_TO_131 = NETPIPE_FIRST_SIZES + [61, 64, 67, 93, 96, 99, 125, 128, 131]


def test_netpipe_schedule_matches_the_source():
    sizes = netpipe_block_sizes(131)
    assert sizes == NETPIPE_SIZES_TO_131
    assert netpipe_block_sizes(100_000)[: len(NETPIPE_FIRST_SIZES)] == NETPIPE_FIRST_SIZES


def test_netpipe_schedule_properties():
    max_bytes = 65536
    sizes = netpipe_block_sizes(max_bytes)
    assert sizes[0] == 1
    assert all(a < b for a, b in zip(sizes, sizes[1:], strict=False))
    assert all(1 <= s <= max_bytes for s in sizes)
    # Bases: 1, 2**k and 3 * 2**k (1, 2, 3, 4, 6, 8, 12, 16, 24, ...); each base
    # from 16 on (increment 8 > p + 1) comes with n - 3 and n + 3.
    bases = sorted({1} | {2**k for k in range(1, 17)} | {3 * 2**k for k in range(16)})
    bases = [b for b in bases if b <= max_bytes]
    for b in bases:
        assert b in sizes
        if b >= 16:
            assert b - 3 in sizes
            if b + 3 <= max_bytes:
                assert b + 3 in sizes
    assert set(sizes) <= {b + d for b in bases for d in (-3, 0, 3)}
    # Two bases per octave: the count grows logarithmically.
    assert len(sizes) == len(set(sizes))
    assert len(sizes) < 3 * len(bases)
    # 65536 is a base; 65539 is dropped by the bound.
    assert sizes[-1] == 65536


def test_netpipe_schedule_without_perturbation_and_with_start():
    assert netpipe_block_sizes(100, perturbation=0) == [
        1,
        2,
        3,
        4,
        6,
        8,
        12,
        16,
        24,
        32,
        48,
        64,
        96,
    ]
    # -l 100: inc = 50, nq = 1 -> bases 100, 150, 200 (inc 100 at nq 3), 300, 400 ...
    assert netpipe_block_sizes(400, start=100) == [
        97,
        100,
        103,
        147,
        150,
        153,
        197,
        200,
        203,
        297,
        300,
        303,
        397,
        400,
    ]
    assert netpipe_block_sizes(1) == [1]
    # Larger perturbation: n - p, n, n + p only once inc > p + 1.
    sizes = netpipe_block_sizes(200, perturbation=5)
    assert sizes[:9] == [1, 2, 3, 4, 6, 8, 11, 12, 16]  # inc 8 > 6 only from base 16
    assert 9 not in sizes and 7 not in sizes  # bases 12 and 8 (inc 4) are not perturbed
    assert sizes == sorted(set(sizes))


def test_netpipe_schedule_gives_each_size_its_base_and_increment():
    # NetPIPE 2.x netpipe.c main loop (1999, rev. 1.9): inc doubles before
    # bases 4, 8, 16, 32, ...; the group c - 3, c, c + 3 shares c and inc.
    tests = netpipe_schedule(35)
    assert [t.bytes for t in tests] == netpipe_block_sizes(35)
    assert [(t.base, t.increment) for t in tests] == [
        (1, 1),
        (2, 1),
        (3, 1),
        (4, 2),
        (6, 2),
        (8, 4),
        (12, 4),
        (16, 8),
        (16, 8),
        (16, 8),
        (24, 8),
        (24, 8),
        (24, 8),
        (32, 16),
        (32, 16),
        (32, 16),
    ]
    # The bound is on the sizes: 35 stays, 67 (base 64) would not.
    assert netpipe_schedule(66)[-1] == NetpipeTest(64, 64, 32)


def test_netpipe_schedule_refuses_bad_bounds():
    with pytest.raises(ValueError):
        netpipe_block_sizes(0)
    with pytest.raises(ValueError):
        netpipe_block_sizes(10, start=20)
    with pytest.raises(ValueError):
        netpipe_block_sizes(10, perturbation=-1)


def test_netpipe_repetitions():
    # 1 byte, 1 ms one-way latency: ceil(0.25 / (0.001 + 8/2.048e6)) = 250.
    assert netpipe_repetitions(1, 2.048e6, latency_s=0.001) == math.ceil(
        0.25 / (0.001 + 8 / 2.048e6)
    )
    # Satellite: 0.2 s one way -> ceil(0.25 / 0.2...) = 2, raised to the minimum 3.
    assert netpipe_repetitions(1, 2.048e6, latency_s=0.2) == 3
    # Very fast transfers are capped.
    assert netpipe_repetitions(1, 1e12) == 1000
    assert netpipe_repetitions(0, 1e6) == 1000
    # 16 000 bytes at 2.048 Mb/s = 62.5 ms -> exactly 4 for a 0.25 s target.
    assert netpipe_repetitions(16000, 2.048e6) == 4
    assert netpipe_repetitions(16000, 2.048e6, target_s=1.0, min_reps=7, max_reps=10) == 10


# ------------------------------------------------------------ transfer times


def test_transfer_time_stats_known_sample():
    # Round trips 2, 4, 4, 4, 5, 5, 7, 9 s: population mean 5, variance 4.
    # Halved: mean 2.5 s, variance 1 s^2, std 1 s -> %CDV = 40.
    stats = transfer_time_stats([2, 4, 4, 4, 5, 5, 7, 9])
    assert isinstance(stats, TransferTimeStats)
    assert stats.mean_s == pytest.approx(2.5)
    assert stats.variance_s2 == pytest.approx(1.0)
    assert stats.cdv_percent == pytest.approx(40.0)
    # Sample variance (ddof=1): 8/7 s^2.
    s1 = transfer_time_stats([2, 4, 4, 4, 5, 5, 7, 9], ddof=1)
    assert s1.variance_s2 == pytest.approx(8 / 7)
    assert s1.cdv_percent == pytest.approx(100 * math.sqrt(8 / 7) / 2.5)


def test_transfer_time_stats_constant_and_bad_input():
    stats = transfer_time_stats([0.8, 0.8, 0.8])
    assert stats == pytest.approx((0.4, 0.0, 0.0))
    with pytest.raises(ValueError):
        transfer_time_stats([])
    with pytest.raises(ValueError):
        transfer_time_stats([0.0, 0.0])
    with pytest.raises(ValueError):
        transfer_time_stats([1.0], ddof=1)


# ------------------------------------------------------------ y = 0.0125 x


def test_fit_slope_through_origin():
    x = [8, 16, 24, 32, 48, 64]
    assert fit_slope_through_origin(x, [0.0125 * v for v in x]) == pytest.approx(0.0125)
    # sum(xy)/sum(x^2) by hand: x = 1, 2, 3, y = 2, 4.5, 5.5 -> (2 + 9 + 16.5)/14.
    assert fit_slope_through_origin([1, 2, 3], [2, 4.5, 5.5]) == pytest.approx(27.5 / 14)
    # Symmetric noise around the line leaves the slope unchanged.
    noisy = [0.0125 * v + (0.001 if i % 2 else -0.001) for i, v in enumerate([10, 10, 20, 20])]
    assert fit_slope_through_origin([10, 10, 20, 20], noisy) == pytest.approx(0.0125)
    with pytest.raises(ValueError):
        fit_slope_through_origin([1, 2], [1])
    with pytest.raises(ValueError):
        fit_slope_through_origin([0, 0], [1, 2])


def test_predicted_slope_at_600_ms():
    # 1 KB = 1024 B of window per 0.6 s: 1024 * 8 / 0.6 = 13 653.3 bit/s.
    assert predicted_slope_mbps_per_kb(0.6) == pytest.approx(0.0136533, rel=1e-5)
    assert predicted_slope_mbps_per_kb(0.6, kb=1000) == pytest.approx(0.0133333, rel=1e-5)
    assert predicted_slope_mbps_per_kb(0.6, mbit=NETPIPE_MBIT) == pytest.approx(0.0130208, rel=1e-5)
    # The paper's 0.0125 against these predictions.
    assert 0.0125 / predicted_slope_mbps_per_kb(0.6) == pytest.approx(0.9155, abs=1e-4)
    assert 0.0125 / predicted_slope_mbps_per_kb(0.6, mbit=NETPIPE_MBIT) == pytest.approx(
        0.96, abs=1e-4
    )
    # Effective round trip implied by the paper's slope: 8192 / 12 500 = 0.655 s.
    assert 1024 * 8 / (0.0125 * 1e6) == pytest.approx(0.65536)
    # Window-limited throughput in Mb/s over a socket sweep is exactly linear.
    xs = [8, 16, 32, 48, 64]
    ys = [window_limited_throughput_bps(x * 1024, 0.6) / 1e6 for x in xs]
    assert fit_slope_through_origin(xs, ys) == pytest.approx(predicted_slope_mbps_per_kb(0.6))


# ------------------------------------------------------------ domain and API


@pytest.mark.parametrize(
    "call",
    [
        lambda: aal5_cells(0),
        lambda: aal5_cells(65535),  # + 8 LLC/SNAP exceeds the AAL5 length field
        lambda: aal5_cells(1.5),
        lambda: tcp_segments(10, 0),
        lambda: atm_efficiency(0),
        lambda: window_limited_throughput_bps(8192, 0),
        lambda: window_limited_goodput_bps(8192, 0.5, -1, 1460),
        lambda: paper_throughput_fraction(8192, 2.048e6, math.nan),
        lambda: buffer_requirement_cells(25e6, 2e6, -1),
        lambda: bdp_bytes(0, 0.5),
        lambda: netpipe_repetitions(1, 1e6, min_reps=5, max_reps=4),
        lambda: predicted_slope_mbps_per_kb(0),
    ],
)
def test_out_of_domain_arguments_are_refused(call):
    with pytest.raises(ValueError):
        call()


def test_package_reexports():
    import satcc.analysis.netpipe as netpipe

    assert set(netpipe.__all__) <= set(satcc.analysis.__all__)
    for name in netpipe.__all__:
        assert getattr(satcc.analysis, name) is getattr(netpipe, name)
    assert aal5_cells(65527) == math.ceil((65527 + 16) / 48)  # the largest LLC/SNAP SDU
