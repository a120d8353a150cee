//! What sits at a link's input: the hook through which switch algorithms,
//! policers and congestion detectors see the traffic of a link.
//!
//! A port sees every PDU offered to its link before the queue does
//! (`ingress`): it may count it, mark it, drop it, or hold it to release it
//! into the link later (a peak-rate spacer). It also sees the feedback
//! travelling back towards the sources of that traffic (`backward`: an
//! ABR backward RM cell passing the port's node, whose explicit rate an
//! ERICA+ port lowers). It may keep a timer of its own (`poll_at`/`poll`,
//! an averaging interval) and send PDUs of its own from the link's node
//! (backward congestion cells). Like every model it is passive: the
//! driver supplies the time and moves the PDUs.

use super::iface::Outbox;
use super::link::Link;
use super::pdu::Pdu;
use crate::engine::Time;

/// What happens to a PDU offered to a port's link.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Admit {
    /// On to the link's queue (the port may have changed it: CLP marking).
    Pass,
    /// Discarded by the port.
    Drop,
    /// Kept by the port, which releases it into the link later.
    Hold,
}

/// What a port may act on and send while it handles a PDU or its timer.
pub struct PortCx<'a> {
    pub now: Time,
    /// The link this port feeds, as it is before the PDU at hand is queued.
    pub link: &'a Link,
    /// PDUs the port sends from the link's node (e.g. towards a source).
    pub out: &'a mut Outbox,
    /// Held PDUs the port releases into its link, in order.
    pub release: &'a mut Vec<Pdu>,
}

pub trait Port {
    /// A PDU offered to the port's link.
    fn ingress(&mut self, cx: &mut PortCx<'_>, pdu: &mut Pdu) -> Admit;

    /// Feedback (`Pdu::is_feedback`) passing the port's node on its way back
    /// to a source whose traffic this link carries.
    fn backward(&mut self, _now: Time, _pdu: &mut Pdu) {}

    /// When the port's own timer is next due.
    fn poll_at(&self) -> Time {
        Time::NEVER
    }

    /// The port's timer.
    fn poll(&mut self, _cx: &mut PortCx<'_>) {}

    /// Calls `f` for every PDU the port holds (end-of-run accounting).
    fn for_each_held(&self, _f: &mut dyn FnMut(&Pdu)) {}
}
