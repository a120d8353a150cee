"""[tcp.NAME] recovery: RFC 6675's loss detection (the default) or RACK-TLP
(RFC 8985), which needs SACK; a tail loss over GEO without the timer."""

from test_scenario_tcp import assert_refused, scenario, tcp_entry


def test_rack_tlp_reaches_the_description():
    entry = tcp_entry(scenario(**{"tcp.bulk.variant": "sack", "tcp.bulk.recovery": "rack-tlp"}))
    assert entry["recovery"] == "rack-tlp"
    # RFC 6675, the default, is left out, so existing runs are unchanged.
    assert "recovery" not in tcp_entry(scenario(**{"tcp.bulk.variant": "sack"}))
    # The linux preset turns it on with PRR and byte counting, as Linux
    # runs them; with the table's own non-SACK variant it yields, as Linux
    # without SACK marks losses NewReno's way.
    linux = tcp_entry(scenario(**{"tcp.bulk.preset": "linux"}))
    assert (linux["recovery"], linux["prr"], linux["abc"]) == ("rack-tlp", True, True)
    no_sack = tcp_entry(scenario(**{"tcp.bulk.preset": "linux", "tcp.bulk.variant": "newreno"}))
    assert "recovery" not in no_sack
    assert no_sack["prr"] is True
    assert "recovery" not in tcp_entry(scenario(**{"tcp.bulk.preset": "rfc"}))


def test_rack_tlp_without_sack_is_refused():
    assert_refused(
        scenario(**{"tcp.bulk.recovery": "rack-tlp"}),
        "tcp.bulk.recovery",
        "needs SACK",
        'variant = "newreno"',
    )


def test_a_preset_rack_tlp_with_the_tables_newreno_is_not_refused_but_a_given_one_is():
    assert_refused(
        scenario(
            **{
                "tcp.bulk.preset": "linux",
                "tcp.bulk.variant": "newreno",
                "tcp.bulk.recovery": "rack-tlp",
            }
        ),
        "tcp.bulk.recovery",
        "needs SACK",
    )


def test_unknown_recovery_is_refused():
    assert_refused(
        scenario(**{"tcp.bulk.recovery": "fack"}), "tcp.bulk.recovery", "rfc6675", "rack-tlp"
    )


def test_a_lost_tail_is_probed_instead_of_timed_out():
    # 100 kB over the GEO hop of the base scenario (about 550 ms RTT); the
    # data direction loses the transfer's last two segments (PDUs 69 and
    # 70 after the SYN). RFC 6675 waits for the timer, TLP probes.
    import satcc

    def run(recovery: str) -> dict:
        sc = scenario(
            **{
                "tcp.bulk.variant": "sack",
                "tcp.bulk.recovery": recovery,
                "tcp.bulk.app": {"type": "bulk", "size": "100000 B"},
                "tcp.bulk.send_buffer": "1 MiB",
                "tcp.bulk.receive_buffer": "1 MiB",
                "links.sat.loss_list": [69, 70],
            }
        )
        return satcc.run(sc, progress=False).summary

    rfc, rack = run("rfc6675"), run("rack-tlp")
    assert rfc["tcp.bulk.timeouts"] == 1
    assert rack["tcp.bulk.timeouts"] == 0
    assert rack["tcp.bulk.delivered_bytes"] == 100_000
    assert rack["tcp.bulk.completion_time_s"] < rfc["tcp.bulk.completion_time_s"]
