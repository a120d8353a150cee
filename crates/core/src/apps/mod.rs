//! Traffic sources (CBR, Poisson, ON-OFF, MPEG-2 video, constant-rate media
//! behind a transmit buffer; the proactive-atm thesis's voice, video and
//! file-transfer sources and their rate policy), the measuring sink and the
//! de-jitter point.

pub(crate) mod cbr;
pub(crate) mod dejitter;
pub(crate) mod emitter;
pub mod fgn;
pub mod file_transfer;
pub mod media;
pub(crate) mod mpeg2;
pub(crate) mod netpipe;
pub(crate) mod onoff;
pub(crate) mod poisson;
pub mod rate_policy;
pub mod session_source;
pub(crate) mod sink;
pub(crate) mod tcp_app;
pub(crate) mod udp_rr;

pub use emitter::{Emitter, SizeDist};
pub use sink::{FlowRecord, Sink};

use crate::engine::Time;
use crate::net::Pdu;

/// A packet source: emits PDUs at the instants it chooses.
pub(crate) enum Source {
    Cbr(cbr::Cbr),
    Poisson(poisson::Poisson),
    OnOff(onoff::OnOff),
    Mpeg2(mpeg2::Mpeg2),
}

impl Source {
    pub(crate) fn poll_at(&self) -> Time {
        match self {
            Source::Cbr(s) => s.poll_at(),
            Source::Poisson(s) => s.poll_at(),
            Source::OnOff(s) => s.poll_at(),
            Source::Mpeg2(s) => s.poll_at(),
        }
    }

    /// Emits the PDU due at `now`, if any.
    pub(crate) fn poll(&mut self, now: Time) -> Option<Pdu> {
        match self {
            Source::Cbr(s) => s.poll(now),
            Source::Poisson(s) => s.poll(now),
            Source::OnOff(s) => s.poll(now),
            Source::Mpeg2(s) => s.poll(now),
        }
    }

    pub(crate) fn emitter(&self) -> &Emitter {
        match self {
            Source::Cbr(s) => &s.emitter,
            Source::Poisson(s) => &s.emitter,
            Source::OnOff(s) => &s.emitter,
            Source::Mpeg2(s) => &s.emitter,
        }
    }
}
