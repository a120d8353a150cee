# Deterministic losses on a link, so that two simulators see the same ones:
# every n-th PDU (ns-2's ErrorModel/Periodic) and a list of PDU numbers (its
# ErrorModel/List). Counted as errors, conserved, refused by key when wrong.
import pytest
import satcc
from scenario_helpers import changed, refused

BASE = {
    "run": {"name": "lossy", "duration": "10 s", "seed": 1},
    "nodes": {"a": {}, "b": {}},
    "links": {"ab": {"from": "a", "to": "b", "rate": "10 Mbps", "delay": "10 ms"}},
    # 100 packets a second: 1000 in the run.
    "sources": {
        "cbr": {"type": "cbr", "from": "a", "to": "rx", "rate": "800 kbps", "packet_size": "1000 B"}
    },
    "sinks": {"rx": {"node": "b"}},
}


def run(**changes) -> dict:
    return satcc.run(changed(BASE, **changes)).summary


def test_every_nth_pdu_is_lost_the_first_at_loss_first():
    s = run(**{"links.ab.loss_every": 100})
    assert s["run.pdus_unaccounted"] == 0
    assert s["links.ab.errors"] == s["links.ab.arrivals"] // 100 == 10
    # Every 300th of 1000: the 300th, 600th and 900th, or from the 1st on
    # the 1st, 301st, 601st and 901st.
    assert run(**{"links.ab.loss_every": 300})["links.ab.errors"] == 3
    first = run(**{"links.ab.loss_every": 300, "links.ab.loss_first": 1})
    assert first["links.ab.errors"] == 4


def test_a_list_loses_exactly_the_pdus_named():
    s = run(**{"links.ab.loss_list": [1, 2, 500, 999]})
    assert s["links.ab.errors"] == 4
    assert s["run.pdus_unaccounted"] == 0
    # Beyond the PDUs sent: nothing more.
    assert run(**{"links.ab.loss_list": [10**9]})["links.ab.errors"] == 0


@pytest.mark.parametrize(
    ("path", "value", "fragment"),
    [
        ("links.ab.loss_every", 0, "positive"),
        ("links.ab.loss_first", 3, "loss_first needs loss_every"),
        ("links.ab.loss_list.0", [0, 4], "positive"),
    ],
)
def test_refusals_name_the_key(path, value, fragment):
    key = path.removesuffix(".0")
    error = refused(changed(BASE, **{key: value}))
    assert error.path == path, str(error)
    assert fragment in str(error), str(error)
