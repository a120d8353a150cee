# Tests for satcc.analysis.tfrc_fluid: the fluid model of section 3.5 of the
# tfrc-dama paper (Secchi et al., IJSCN 2009).
#
# Reference values are worked out here by hand from the frame constants
# (1504-byte slot at 6.336 Mb/s, 6 slots a frame, 4 or 24 frames a
# multi-frame, Table I), from RFC 3448's sender rule applied to rates the test
# computes itself, and from limits the model must reach (empty queues, a
# constant allocation). Where the model disagrees with a number of the paper
# (the T_q,opt of eq. (6)) the test pins the measured value and says why.

import math

import numpy as np
import pytest
from satcc.analysis.tfrc_fluid import (
    FluidResult,
    FluidTiming,
    has_second_hump,
    second_hump_height,
    simulate,
    tq_opt_numeric,
)

LARGE = FluidTiming.large()
SMALL = FluidTiming.small()
SLOT_S = 1504 * 8 / 6.336e6  # 1.8990 ms
MEDIA_BPS = 256e3
CRA_BPS = 6.336e6 / 5  # "one-fifth of an HR frame" (section 3.3)

# ---------------------------------------------------------------- timing


@pytest.mark.parametrize(
    ("timing", "frames", "alloc_superframes"),
    [(LARGE, 24, 2), (SMALL, 4, 6)],
)
def test_timing_from_frame_constants(timing, frames, alloc_superframes):
    t_f = SLOT_S * 6 * frames
    t_b = 3 * t_f
    t_a = alloc_superframes * t_b
    rtt_m = t_f + 2 * 0.252
    assert timing.t_f == pytest.approx(t_f, abs=1e-9)
    assert timing.t_b == pytest.approx(t_b, abs=1e-9)
    assert timing.t_r == timing.t_b
    assert timing.allocation_delay == pytest.approx(t_a, abs=1e-9)
    assert timing.rtt_m == pytest.approx(rtt_m, abs=1e-9)
    assert timing.one_way_delay == pytest.approx(rtt_m / 2, abs=1e-9)
    assert timing.tq_max == pytest.approx(t_b / 2 + t_a - rtt_m, abs=1e-9)
    assert timing.tq_opt == pytest.approx((2 * (t_b + t_a) - 3 * rtt_m) / 5, abs=1e-9)


# Table I values to 0.1 ms. The large-frame T_a and T_q,max come out at
# 1640.7 and 1273.5 ms from the constants (Table I prints 1641 and 1273).
@pytest.mark.parametrize(
    ("timing", "t_f", "t_b", "t_a", "rtt_m", "tq_max", "tq_opt", "gran"),
    [
        (LARGE, 273.5, 820.4, 1640.7, 777.5, 1273.5, 518.0, 44e3),
        (SMALL, 45.6, 136.7, 820.4, 549.6, 339.2, 53.1, 264e3),
    ],
)
def test_timing_matches_table_one(timing, t_f, t_b, t_a, rtt_m, tq_max, tq_opt, gran):
    ms = 1e3
    assert round(timing.t_f * ms, 1) == t_f
    assert round(timing.t_b * ms, 1) == t_b
    assert round(timing.allocation_delay * ms, 1) == t_a
    assert round(timing.rtt_m * ms, 1) == rtt_m
    assert round(timing.tq_max * ms, 1) == tq_max
    assert round(timing.tq_opt * ms, 1) == tq_opt
    assert timing.granularity_bps == pytest.approx(gran, rel=1e-9)


def test_timing_is_frozen_and_validated():
    with pytest.raises(AttributeError):
        LARGE.tp = 0.1
    frame = {
        "channel_bps": 6.336e6,
        "slot_bytes": 1504,
        "slots_per_frame": 0,
        "frames_per_multiframe": 4,
        "multiframes_per_superframe": 3,
        "propagation_ps": 252_000_000_000,
    }
    with pytest.raises(ValueError, match="slot"):
        FluidTiming.from_frame(frame)
    with pytest.raises(ValueError, match="small"):
        FluidTiming.skyplex("medium")


def test_timing_of_another_frame_is_derived_not_looked_up():
    # Eight LR frames per multi-frame at 2.112 Mb/s (section 2.2): 48 slots
    # of 5.70 ms, T_f = 273.5 ms like the large HR frame, so the same T_a.
    frame = {
        "channel_bps": 2.112e6,
        "slot_bytes": 1504,
        "slots_per_frame": 6,
        "frames_per_multiframe": 8,
        "multiframes_per_superframe": 3,
        "propagation_ps": 252_000_000_000,
    }
    t = FluidTiming.from_frame(frame)
    assert t.t_f == pytest.approx(LARGE.t_f, rel=1e-9)
    assert t.allocation_delay == pytest.approx(2 * t.t_b, rel=1e-9)
    assert t.granularity_bps == pytest.approx(44e3, rel=1e-3)


# ---------------------------------------------------------------- arguments


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"rate_bps": 0.0}, "rate_bps"),
        ({"packet_bytes": -1}, "packet_bytes"),
        ({"qs_rate_bps": math.nan, "qs": True}, "qs_rate_bps"),
        ({"tq": -0.1, "qsd": True}, "tq"),
        ({"tq": 0.1}, "tq"),
        ({"phase": -0.1}, "phase"),
        ({"phase": LARGE.t_b}, "phase"),
        ({"duration": 0.0}, "duration"),
        ({"dt": 0.0}, "dt"),
        ({"dt": 30.0}, "dt"),
        ({"initial_rate": "rfc9999"}, "initial_rate"),
        ({"cra_bps": -5.0}, "cra_bps"),
        ({"cra_bps": 1e6, "qsd": True}, "qsd"),
    ],
)
def test_bad_arguments_name_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        simulate(LARGE, **({"duration": 20.0} | kwargs))


def test_tq_opt_numeric_refuses_its_own_arguments():
    with pytest.raises(ValueError, match="tq"):
        tq_opt_numeric(LARGE, tq=0.1)
    with pytest.raises(ValueError, match="step"):
        tq_opt_numeric(LARGE, step=0.0)


# ---------------------------------------------------------------- conservation

CASES = {
    "large no QS": (LARGE, {"duration": 30.0}),
    "large QS": (LARGE, {"qs": True, "duration": 30.0}),
    "large QSD Tq=400ms": (LARGE, {"qsd": True, "tq": 0.4, "duration": 25.0}),
    "large QSD Tq=max phase": (
        LARGE,
        {"qsd": True, "tq": LARGE.tq_max, "phase": 0.6 * LARGE.t_b, "duration": 25.0},
    ),
    "small no QS": (SMALL, {"duration": 15.0}),
    "small QSD": (SMALL, {"qsd": True, "tq": SMALL.tq_opt, "duration": 15.0}),
    "large CRA": (LARGE, {"cra_bps": CRA_BPS, "duration": 20.0}),
}


@pytest.fixture(scope="module")
def runs() -> dict[str, FluidResult]:
    return {name: simulate(timing, **kw) for name, (timing, kw) in CASES.items()}


@pytest.mark.parametrize("name", list(CASES))
def test_curves_are_ordered_and_non_decreasing(runs, name):
    r = runs[name]
    for curve in (r.generated, r.tfrc_out, r.uplink_out, r.received):
        assert np.all(np.diff(curve) >= -1e-9)
        assert curve[0] == 0.0
    assert np.all(r.generated >= r.tfrc_out - 1e-6)
    assert np.all(r.tfrc_out >= r.uplink_out - 1e-6)
    assert np.all(r.uplink_out >= r.received - 1e-6)
    # A1 never outruns TFRC's rate, A2 never outruns the allocation.
    dt = r.t[1] - r.t[0]
    assert np.all(np.diff(r.tfrc_out) <= r.sending_rate[:-1] / 8 * dt + 1e-6)
    assert np.all(np.diff(r.uplink_out) <= r.allocation_bps[:-1] / 8 * dt + 1e-6)


@pytest.mark.parametrize("name", list(CASES))
def test_everything_generated_arrives_except_what_is_in_flight(runs, name):
    # The runs are long enough for both queues to empty, so the only bytes
    # missing at the receiver are the last d = RTT_m/2 seconds of media.
    r = runs[name]
    timing = CASES[name][0]
    assert r.generated[-1] - r.tfrc_out[-1] == pytest.approx(0.0, abs=1e-6)
    assert r.tfrc_out[-1] - r.uplink_out[-1] == pytest.approx(0.0, abs=1e-6)
    in_flight = MEDIA_BPS / 8 * timing.one_way_delay
    assert r.generated[-1] - r.received[-1] == pytest.approx(in_flight, rel=1e-3)


@pytest.mark.parametrize("name", list(CASES))
def test_receiver_is_uplink_output_delayed_by_rtt_m_over_two(runs, name):
    r = runs[name]
    d = CASES[name][0].one_way_delay
    assert np.allclose(r.received, np.interp(r.t - d, r.t, r.uplink_out, left=0.0))


@pytest.mark.parametrize("name", list(CASES))
def test_e2ed_is_the_sum_of_its_parts(runs, name):
    r = runs[name]
    e2ed = r.e2ed()
    parts = r.tx_buffer_delay() + r.uplink_delay() + r.link_delay
    ok = ~np.isnan(e2ed)
    assert np.allclose(e2ed[ok], parts[ok], atol=1e-9)
    # The first byte goes straight through; the last d seconds are in flight.
    assert e2ed[0] == pytest.approx(r.link_delay)
    assert np.all(np.isnan(e2ed[r.t > r.t[-1] - r.link_delay + 1e-3]))
    assert r.max_tx_buffer_bytes >= 0 and r.max_uplink_queue_bytes >= 0


def test_deterministic_and_insensitive_to_the_time_step():
    a = simulate(LARGE, qsd=True, tq=0.4, duration=15.0)
    b = simulate(LARGE, qsd=True, tq=0.4, duration=15.0)
    assert np.array_equal(a.tfrc_out, b.tfrc_out)
    fine = simulate(LARGE, qsd=True, tq=0.4, duration=15.0, dt=5e-4)
    assert fine.max_e2ed() == pytest.approx(a.max_e2ed(), abs=5e-3)


# ---------------------------------------------------------------- CRA


def test_cra_e2ed_tends_to_propagation_plus_framing(runs):
    # With a constant allocation far above the media rate both queues empty
    # and the E2ED ends at the one-way delay d = Tp + T_f/2 (the fluid has no
    # serialisation time).
    r = runs["large CRA"]
    e2ed = r.e2ed()
    last = e2ed[~np.isnan(e2ed)][-1]
    assert last == pytest.approx(LARGE.tp + LARGE.t_f / 2, abs=1e-3)
    assert np.all(r.allocation_bps == CRA_BPS)


def test_tfrc_start_follows_rfc3448_under_cra(runs):
    # RFC 3448 4.3 with p = 0: X = max(min(2X, 2 X_recv), s/R), X = s B/s
    # before the first report. Report 1 (at R) sees nothing received yet
    # (the fluid's first byte lands at d, the report leaves at R - d = d), so
    # X = s/R. Report 2 sees one RTT of the s B/s trickle: X_recv = s B/s, so
    # X = min(2 s/R, 2 s).
    r = runs["large CRA"]
    s, rtt = 1316.0, LARGE.rtt_m
    assert r.feedback_times[:3] == pytest.approx([rtt, 2 * rtt, 3 * rtt])
    assert r.feedback_x_recv_bps[0] == pytest.approx(0.0, abs=1e-9)
    assert r.feedback_x_recv_bps[1] == pytest.approx(8 * s, rel=1e-3)
    x1 = _rate_after(r, r.feedback_times[0])
    x2 = _rate_after(r, r.feedback_times[1])
    assert x1 == pytest.approx(8 * s / rtt, rel=1e-9)
    assert x2 == pytest.approx(min(2 * x1, 2 * 8 * s), rel=1e-3)
    assert _rate_after(r, 0.0) == pytest.approx(8 * s)


def test_rfc5348_feedback_follows_the_receivers_timer():
    # Report 1 at RTT; its rate s/R applies from the second packet at 1 s,
    # the first to carry R; the receiver's timer starts when it arrives
    # (1 + d, the CRA uplink never queues) and reports every RTT after:
    # at the sender 1 + 2 RTT, 1 + 3 RTT. Report 2 covers 1 + RTT seconds
    # that carried the first second's s bytes and RTT seconds at s/R.
    r = simulate(LARGE, cra_bps=CRA_BPS, duration=6.0, feedback="rfc5348")
    s, rtt = 1316.0, LARGE.rtt_m
    assert r.feedback_times[:3] == pytest.approx([rtt, 1 + 2 * rtt, 1 + 3 * rtt], abs=2e-3)
    assert r.feedback_x_recv_bps[0] == 0.0
    assert r.feedback_x_recv_bps[1] == pytest.approx(8 * 2 * s / (1 + rtt), rel=5e-3)
    assert _rate_after(r, rtt) == pytest.approx(8 * s)
    assert _rate_after(r, 1.0) == pytest.approx(8 * s / rtt, rel=1e-9)


def test_rfc5348_feedback_ends_the_qs_phase_at_the_first_report_on_qs_data():
    # The approval reaches the sender at RTT and applies from 1 s; report 2
    # (at 1 + 2 RTT) already covers data sent after the approval, so the
    # phase ends there with twice what arrived since report 1: the 44 kb/s
    # slot's worth over about two RTTs, far below the paper's one-RTT window.
    r = simulate(LARGE, qs=True, duration=6.0, feedback="rfc5348")
    rtt = LARGE.rtt_m
    assert _rate_after(r, 1.0) == pytest.approx(320e3)
    second = r.feedback_times[1]
    assert second == pytest.approx(1 + 2 * rtt, abs=0.05)
    assert _rate_after(r, second) == pytest.approx(2 * r.feedback_x_recv_bps[1], rel=1e-6)
    assert r.feedback_x_recv_bps[1] < LARGE.granularity_bps


def test_feedback_rule_is_checked():
    with pytest.raises(ValueError, match="feedback"):
        simulate(LARGE, feedback="ns2")


def test_rfc5348_initial_rate_is_w_init_over_r():
    r = simulate(LARGE, cra_bps=CRA_BPS, initial_rate="rfc5348", duration=5.0)
    w_init = min(4 * 1316, max(2 * 1316, 4380))
    assert _rate_after(r, LARGE.rtt_m) == pytest.approx(8 * w_init / LARGE.rtt_m)


def _rate_after(r: FluidResult, time: float) -> float:
    i = int(np.searchsorted(r.t, time + 1e-9)) + 1
    return float(r.sending_rate[i])


# ---------------------------------------------------------------- Quick-Start


def test_qs_rate_until_validation_at_three_rtt(runs):
    # Sections 3.3 (b)-(c): the QS rate from the QS-Response at RTT until the
    # report at 3 RTT, which reports the 44 kb/s the single minimum slot
    # delivered while the uplink queue was backlogged; TFRC then sends at
    # twice that.
    r = runs["large QS"]
    rtt = LARGE.rtt_m
    inside = (r.t > rtt + 0.01) & (r.t < 3 * rtt - 0.01)
    assert np.all(r.sending_rate[inside] == 320e3)
    assert np.all(r.sending_rate[r.t < rtt - 0.01] == 8 * 1316)
    assert r.feedback_x_recv_bps[2] == pytest.approx(LARGE.granularity_bps, rel=1e-3)
    assert _rate_after(r, 3 * rtt) == pytest.approx(2 * LARGE.granularity_bps, rel=1e-3)


@pytest.mark.parametrize("phase_fraction", [0.0, 0.3])
def test_qsd_allocation_arrives_t_a_after_the_next_boundary(phase_fraction):
    # The QS rate is added to the first request after t = 0, at T_b - phase
    # (a whole T_b when phase = 0), and is granted T_a later: 320 kb/s plus
    # the trickle of one packet per second rounds up to 8 slots (352 kb/s).
    phase = phase_fraction * LARGE.t_b
    r = simulate(LARGE, qsd=True, phase=phase, duration=4.0)
    first_change = r.t[np.nonzero(np.diff(r.allocation_bps))[0][0] + 1]
    assert first_change == pytest.approx(LARGE.t_b - phase + LARGE.allocation_delay, abs=2e-3)
    assert r.allocation_bps[np.searchsorted(r.t, first_change)] == pytest.approx(8 * 44e3)
    assert np.allclose(r.allocation_bps[r.t < first_change], 44e3)


@pytest.mark.parametrize("timing", [LARGE, SMALL], ids=["large", "small"])
def test_qs_beats_plain_dama_and_qsd_at_tq_max_beats_no_qs(timing):
    duration = 30.0 if timing is LARGE else 15.0
    no_qs = simulate(timing, duration=duration).max_e2ed()
    qs = simulate(timing, qs=True, duration=duration).max_e2ed()
    qsd_max = simulate(timing, qsd=True, tq=timing.tq_max, duration=duration).max_e2ed()
    assert no_qs > qs
    assert qsd_max < no_qs


# ---------------------------------------------------------------- DAMA


@pytest.mark.parametrize(
    ("timing", "rate_bps", "allocated_bps"),
    [
        (LARGE, 256e3, 6 * 44e3),  # ceil(256/44) = 6 slots
        (LARGE, 100e3, 3 * 44e3),  # ceil(100/44) = 3 slots
        (SMALL, 256e3, 264e3),  # the minimum single slot already carries it
        (SMALL, 300e3, 2 * 264e3),
    ],
)
def test_allocation_converges_to_the_request_rounded_up(timing, rate_bps, allocated_bps):
    r = simulate(timing, rate_bps=rate_bps, duration=30.0 if timing is LARGE else 15.0)
    assert r.allocation_bps[-1] == pytest.approx(allocated_bps)
    # Once the source is steady the allocation only decays, never faster than
    # eq. (2) with b = 0.5 toward the steady request.
    steady_slots = round(allocated_bps / timing.granularity_bps)
    peak = int(np.argmax(r.allocation_bps))
    levels = [int(round(x / timing.granularity_bps)) for x in r.allocation_bps[peak:]]
    levels = [n for i, n in enumerate(levels) if i == 0 or n != levels[i - 1]]
    for old, new in zip(levels, levels[1:], strict=False):
        assert new < old
        assert new >= math.floor(old + 0.5 * (steady_slots - old))


def test_minimum_allocation_is_one_slot_per_multiframe():
    r = simulate(LARGE, rate_bps=8e3, duration=10.0)
    assert np.allclose(r.allocation_bps, LARGE.granularity_bps, rtol=1e-12)


# ---------------------------------------------------------------- humps, T_q,opt


def test_second_hump_with_qsd_tq0_but_not_at_fig7_tq(runs):
    # Section 3.5: T_q = 0 shows a second hump (Fig. 5); Fig. 7's T_q =
    # 400 ms keeps decreasing after the initial maximum.
    at_zero = simulate(LARGE, qsd=True, duration=20.0)
    assert has_second_hump(at_zero)
    assert second_hump_height(at_zero) > 0.5
    assert not has_second_hump(runs["large QSD Tq=400ms"])
    assert not has_second_hump(runs["large CRA"])
    assert not has_second_hump(runs["large no QS"])


def test_numeric_tq_opt_large_frame():
    # Measured: with phase 0 (the worst case eq. (5) assumes) the second hump
    # disappears from T_q = 335 ms (5 ms grid) to 540 ms; eq. (6) gives
    # 518 ms, inside that window. The numeric optimum is lower than eq. (6)
    # because eq. (5) asks that TFRC itself reach the media rate by the fifth
    # report, whereas the E2ED only needs the uplink queue built during the QS
    # phase to keep the new allocation busy until TFRC recovers. On the 25 ms
    # grid used here (to keep the test fast) the first hump-free value is
    # 350 ms.
    tq = tq_opt_numeric(LARGE, step=0.025, duration=20.0)
    assert 0.30 <= tq <= 0.40
    assert tq < LARGE.tq_opt - 0.1
    assert not has_second_hump(simulate(LARGE, qsd=True, tq=LARGE.tq_opt, duration=20.0))


def test_numeric_tq_opt_small_frame_is_zero():
    # The small frame's minimum slot (264 kb/s) already exceeds the media
    # rate, so TFRC's throttling never lets the uplink fall below it and no
    # T_q produces a second hump; eq. (6) gives 53 ms.
    assert tq_opt_numeric(SMALL, step=0.05, duration=10.0) == 0.0


def test_peak_e2ed_and_after():
    r = simulate(LARGE, qsd=True, duration=20.0)
    t_peak, peak = r.peak_e2ed()
    assert peak == r.max_e2ed()
    assert peak == pytest.approx(np.nanmax(r.e2ed()))
    assert r.max_e2ed(after=t_peak + 1.0) < peak
    with pytest.raises(ValueError, match="after"):
        r.max_e2ed(after=-1.0)
    with pytest.raises(ValueError, match="received"):
        r.max_e2ed(after=19.9)
