//! TFRC with ECN over a whole run: marks at given positions must give the
//! loss events, loss event rate and sending rate that drops at the same
//! positions give (RFC 5348 §5 counts a marked packet as a lost one; TFRC
//! retransmits nothing, so nothing else differs but the marked packets
//! being delivered).

use crate::engine::RngStream;
use crate::net::pdu::{ecn, Pdu};
use crate::net::port::{Admit, Port, PortCx};
use crate::scenario::world::ports::tests::set_port;
use crate::scenario::world::World;
use crate::scenario::ScenarioBuilder;

/// Marks the PDUs entering its link at these 1-based positions (as the
/// link's `loss_list` counts them).
struct MarkAt {
    seen: u64,
    at: Vec<u64>,
}

impl Port for MarkAt {
    fn ingress(&mut self, _cx: &mut PortCx<'_>, pdu: &mut Pdu) -> Admit {
        self.seen += 1;
        if self.at.binary_search(&self.seen).is_ok() {
            assert_eq!(pdu.ecn, ecn::ECT0, "TFRC data must be ECN-capable");
            pdu.ecn = ecn::CE;
        }
        Admit::Pass
    }
}

fn run(positions: &[u64], mark: bool) -> impl Fn(&str) -> f64 {
    let d = ScenarioBuilder::new("tfrc-ecn", 120.0)
        .host("a")
        .host("b")
        .link_with("fwd", "a", "b", 10e6, 0.05, |l| {
            if !mark {
                l.loss_list = positions.to_vec();
            }
        })
        .link("rev", "b", "a", 10e6, 0.05)
        .tfrc_with("f", "a", "b", 5e6, 1000, |t| t.config.ecn = true)
        .build();
    let mut w = World::build(&d).unwrap();
    if mark {
        let at = positions.to_vec();
        set_port(&mut w, 0, Box::new(MarkAt { seen: 0, at }));
    }
    w.run();
    let s = w.summary();
    move |k: &str| s[&format!("tfrc.f.{k}")].as_f64().unwrap_or(f64::NAN)
}

#[test]
fn marks_give_the_loss_events_and_rate_of_drops_at_the_same_places() {
    let mut rng = RngStream::new(7, "positions");
    let positions: Vec<u64> = (1..=20_000).filter(|_| rng.bernoulli(0.01)).collect();
    let marked = run(&positions, true);
    let dropped = run(&positions, false);
    let sent = dropped("packets_sent");
    let n = positions.iter().filter(|&&i| i as f64 <= sent).count() as f64;
    println!(
        "{n} positions within the {sent} packets; marks: {} events, p {:.5}, {} sent, \
         {} marked, {} lost; drops: {} events, p {:.5}, {} sent, {} lost",
        marked("loss_events"),
        marked("p"),
        marked("packets_sent"),
        marked("packets_marked"),
        marked("packets_lost"),
        dropped("loss_events"),
        dropped("p"),
        sent,
        dropped("packets_lost"),
    );
    assert!(n > 50.0);
    assert_eq!(marked("packets_lost"), 0.0);
    assert_eq!(dropped("packets_marked"), 0.0);
    assert!((marked("packets_marked") - dropped("packets_lost")).abs() <= 2.0);
    let near = |a: f64, b: f64, tol: f64| (a / b - 1.0).abs() < tol;
    assert!(near(marked("loss_events"), dropped("loss_events"), 0.03));
    assert!(near(marked("p"), dropped("p"), 0.06));
    assert!(near(marked("packets_sent"), sent, 0.02));
}
