"""[tcp.NAME] keys of the congestion controller (congestion_control, hystart)
and the presets ("linux", "rfc") that fill keys a table does not give."""

from test_scenario_tcp import MS, assert_refused, scenario, tcp_entry


def test_cubic_and_hystart_reach_the_description():
    entry = tcp_entry(
        scenario(**{"tcp.bulk.congestion_control": "cubic", "tcp.bulk.hystart": True})
    )
    assert entry["congestion_control"] == "cubic" and entry["hystart"] is True
    # Reno and no HyStart++ are the defaults, left out of the description.
    assert "congestion_control" not in tcp_entry(scenario())


def test_unknown_congestion_control_is_refused():
    assert_refused(
        scenario(**{"tcp.bulk.congestion_control": "bbr"}), "tcp.bulk.congestion_control"
    )


def test_linux_preset_fills_what_the_table_does_not_give():
    entry = tcp_entry(scenario(**{"tcp.bulk.preset": "linux", "tcp.bulk.min_rto": "300 ms"}))
    assert entry["congestion_control"] == "cubic" and entry["hystart"] is True
    assert entry["variant"] == "sack"
    assert entry["initial_window_segments"] == 10
    assert entry["delayed_ack_ps"] == 40 * MS
    assert entry["receive_buffer_bytes"] == 6 * 2**20
    assert entry["min_rto_ps"] == 300 * MS  # given in the table: kept


def test_rfc_preset():
    entry = tcp_entry(scenario(**{"tcp.bulk.preset": "rfc"}))
    assert entry["variant"] == "sack" and "congestion_control" not in entry
    assert entry["initial_window_segments"] == 3
    assert entry["min_rto_ps"] == 1000 * MS


def test_unknown_preset_is_refused():
    assert_refused(scenario(**{"tcp.bulk.preset": "windows"}), "tcp.bulk.preset", "linux", "rfc")
