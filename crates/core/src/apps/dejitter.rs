//! The receiving application's de-jitter point (the tfrc-dama paper,
//! Fig. 2 and Table II): where each packet's end-to-end delay (E2ED: from
//! generation at the sender's application, so including the transmit
//! buffer) and one-way delay (OWD: from the transport sending it) are
//! measured, and where packets too late to play are discarded.
//!
//! Play-out is fixed by the first packet: a packet generated at t_g plays
//! at t_g + E2ED_first + tolerable delay (Table II); one arriving after
//! that is late. This is the classic fixed-delay de-jitter buffer; the
//! paper does not say how its receiver set its play-out point.

use crate::engine::stats::Histogram;
use crate::engine::{Duration, Time};

#[derive(Clone, Debug)]
pub(crate) struct Dejitter {
    tolerable: Option<Duration>,
    /// E2ED of the first packet, which fixes the play-out point.
    first_e2ed: Option<Duration>,
    pub(crate) packets: u64,
    pub(crate) late: u64,
    pub(crate) e2ed: Histogram,
    pub(crate) owd: Histogram,
    pub(crate) last_e2ed_s: f64,
    pub(crate) last_owd_s: f64,
}

impl Dejitter {
    /// `tolerable`: None keeps every packet (measurement only).
    pub(crate) fn new(tolerable: Option<Duration>) -> Dejitter {
        Dejitter {
            tolerable,
            first_e2ed: None,
            packets: 0,
            late: 0,
            e2ed: Histogram::new(),
            owd: Histogram::new(),
            last_e2ed_s: f64::NAN,
            last_owd_s: f64::NAN,
        }
    }

    /// A packet generated at `generated` and sent at `sent` arrived at
    /// `now`: its E2ED, and whether it is in time to play.
    pub(crate) fn on_packet(&mut self, now: Time, generated: Time, sent: Time) -> (Duration, bool) {
        let e2ed = now.since(generated);
        let owd = now.since(sent);
        self.packets += 1;
        self.e2ed.record(e2ed.ps());
        self.owd.record(owd.ps());
        self.last_e2ed_s = e2ed.as_secs_f64();
        self.last_owd_s = owd.as_secs_f64();
        let first = *self.first_e2ed.get_or_insert(e2ed);
        let in_time = match self.tolerable {
            None => true,
            Some(tol) => e2ed <= first + tol,
        };
        if !in_time {
            self.late += 1;
        }
        (e2ed, in_time)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time(v * 1_000_000_000)
    }

    #[test]
    fn measures_e2ed_and_owd() {
        let mut d = Dejitter::new(None);
        let (e2ed, ok) = d.on_packet(ms(900), ms(100), ms(400));
        assert_eq!(e2ed, Duration::from_millis(800));
        assert!(ok);
        assert!((d.last_owd_s - 0.5).abs() < 1e-12);
    }

    #[test]
    fn late_against_the_first_packet_play_out_point() {
        let mut d = Dejitter::new(Some(Duration::from_millis(100)));
        // First E2ED 400 ms: play-out at E2ED 500 ms.
        assert!(d.on_packet(ms(400), ms(0), ms(0)).1);
        assert!(d.on_packet(ms(600), ms(100), ms(100)).1);
        assert!(!d.on_packet(ms(701), ms(200), ms(200)).1);
        assert_eq!((d.packets, d.late), (3, 1));
    }
}
