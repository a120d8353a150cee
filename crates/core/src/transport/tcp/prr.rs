//! Proportional Rate Reduction (RFC 6937 §3): how much fast recovery may
//! send on each ACK. While the data in the network (pipe) is above
//! ssthresh, sends follow the data delivered in the proportion
//! ssthresh / RecoverFS, so the reduction is spread over the round trip
//! instead of RFC 6675's half a window of silence; once pipe is at or
//! below ssthresh, a reduction bound lets it climb back: PRR-CRB sends no
//! more than was delivered (packet conservation), PRR-SSRB one segment
//! more per ACK (slow start), the variant RFC 6937 recommends and Linux
//! runs (`tcp_cwnd_reduction` in tcp_input.c).
//!
//! Sans-IO: the socket tells it each ACK's DeliveredData and pipe and each
//! transmission in recovery, and sets cwnd = pipe + sndcnt.

/// Which reduction bound applies once pipe ≤ ssthresh (RFC 6937 §3).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    /// Conservative: prr_out never passes prr_delivered.
    #[cfg_attr(not(test), allow(dead_code))]
    Crb,
    /// Slow start: one SMSS more than delivered per ACK.
    Ssrb,
}

/// One fast recovery's PRR state; bytes throughout.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Prr {
    /// The congestion controller's target for the end of recovery.
    ssthresh: u64,
    /// RecoverFS: snd.nxt − snd.una when recovery began.
    recover_fs: u64,
    /// prr_delivered: bytes the receiver got during recovery.
    delivered: u64,
    /// prr_out: bytes sent during recovery.
    out: u64,
    mss: u64,
    bound: Bound,
}

impl Prr {
    pub(crate) fn start(ssthresh: u64, recover_fs: u64, mss: u64, bound: Bound) -> Prr {
        Prr {
            ssthresh,
            recover_fs: recover_fs.max(1),
            delivered: 0,
            out: 0,
            mss,
            bound,
        }
    }

    /// An ACK reported `delivered` bytes (DeliveredData) and left `pipe`
    /// bytes in the network: returns sndcnt, the bytes it may send now.
    ///
    /// CEIL rounds up to a whole segment, as the RFC's examples (counted in
    /// segments) and Linux (in packets) do: rounding up to the byte would
    /// hold back a segment until two ACKs had earned it.
    pub(crate) fn on_ack(&mut self, delivered: u64, pipe: u64) -> u64 {
        self.delivered += delivered;
        if pipe > self.ssthresh {
            let share = (self.delivered as u128 * self.ssthresh as u128)
                .div_ceil(self.recover_fs as u128) as u64;
            return share.next_multiple_of(self.mss).saturating_sub(self.out);
        }
        let banked = self.delivered.saturating_sub(self.out);
        let limit = match self.bound {
            Bound::Crb => banked,
            Bound::Ssrb => banked.max(delivered) + self.mss,
        };
        (self.ssthresh - pipe).min(limit)
    }

    /// A transmission (new data or a retransmission) during recovery.
    pub(crate) fn on_send(&mut self, bytes: u64) {
        self.out += bytes;
    }

    /// prr_out so far.
    #[cfg(test)]
    pub(crate) fn out(&self) -> u64 {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// (segments sent, pipe in segments after sending) on each ACK, the
    /// sender sending whole segments of sndcnt and pipe moving as RFC
    /// 6675 counts it: each ACK takes one delivered segment out, each
    /// send (retransmissions included) puts one in.
    fn run(prr: &mut Prr, mut pipe: u64, acks: usize) -> Vec<(u64, u64)> {
        (0..acks)
            .map(|_| {
                pipe -= MSS;
                let n = prr.on_ack(MSS, pipe) / MSS;
                prr.on_send(n * MSS);
                pipe += n * MSS;
                (n, pipe / MSS)
            })
            .collect()
    }

    fn sends(prr: &mut Prr, pipe: u64, acks: usize) -> Vec<u64> {
        run(prr, pipe, acks).into_iter().map(|(n, _)| n).collect()
    }

    /// RFC 6937 §3.1, one loss: cwnd = FlightSize = pipe = 20 segments,
    /// ssthresh 10; Limited Transmit sends on the ACKs of segments 1 and 2,
    /// the third duplicate ACK (segment 3) starts recovery.
    #[test]
    fn one_loss_spreads_the_reduction_over_the_round_trip() {
        for bound in [Bound::Ssrb, Bound::Crb] {
            let mut prr = Prr::start(10 * MSS, 20 * MSS, MSS, bound);
            // Before the ACK of segment 3: 20 sent + 2 new − 2 delivered.
            let got = run(&mut prr, 20 * MSS - MSS, 17); // ACKs of 3..=19
                                                         // The RFC's PRR pipe row for the ACKs of 4..=19, after sending.
            let rfc_pipe = [
                18, 18, 17, 17, 16, 16, 15, 15, 14, 14, 13, 13, 12, 12, 11, 10,
            ];
            let pipe: Vec<u64> = got[1..].iter().map(|&(_, p)| p).collect();
            assert_eq!(pipe, rfc_pipe, "{bound:?}");
            // The retransmission on the ACK of 3, then new data on every
            // other ACK while pipe > ssthresh. (The RFC's "sent" row moves
            // the last send from ACK 17 to 18 and adds one on 19, which
            // its own pipe row, ending at ssthresh = 10, does not allow.)
            let n: Vec<u64> = got.iter().map(|&(n, _)| n).collect();
            let want: Vec<u64> = (3..=19).map(|a| (a % 2 == 1 && a <= 17) as u64).collect();
            assert_eq!(n, want, "{bound:?}");
        }
    }

    /// RFC 6937 §3.1, segments 0–14 lost: only the ACKs of 15–19 return;
    /// the third (segment 17) starts recovery with pipe = 4.
    #[test]
    fn burst_loss_reduction_bounds() {
        // PRR-SSRB: 2R on each ACK, pipe 4, 5, 6 (RB "bd", "d", "d").
        let mut prr = Prr::start(10 * MSS, 20 * MSS, MSS, Bound::Ssrb);
        assert_eq!(sends(&mut prr, 5 * MSS, 3), vec![2, 2, 2]);
        // PRR-CRB: one R per ACK, pipe stays 4 (RB "b").
        let mut prr = Prr::start(10 * MSS, 20 * MSS, MSS, Bound::Crb);
        assert_eq!(sends(&mut prr, 5 * MSS, 3), vec![1, 1, 1]);
    }

    /// RFC 6937 §4: with one loss the window converges exactly to the
    /// target: after the duplicate ACKs of the other RecoverFS − 1
    /// segments (the next ACK, of the retransmission, ends recovery at
    /// cwnd = ssthresh), pipe is ssthresh, having fallen from RecoverFS by
    /// at most one segment per ACK and never below ssthresh.
    #[test]
    fn one_loss_brings_pipe_to_ssthresh_smoothly() {
        for (fs, ss) in [(20, 10), (37, 18), (100, 70), (9, 4), (64, 44)] {
            let mut prr = Prr::start(ss * MSS, fs * MSS, MSS, Bound::Ssrb);
            let got = run(&mut prr, fs * MSS - MSS, fs as usize - 1);
            let mut last = fs - 1;
            for &(_, pipe) in &got {
                assert!(
                    pipe >= ss && pipe <= last && last - pipe <= 1,
                    "{fs}/{ss}: {got:?}"
                );
                last = pipe;
            }
            assert_eq!(last, ss, "RecoverFS {fs}, ssthresh {ss}");
            assert_eq!(prr.out(), ss * MSS);
        }
    }
}
