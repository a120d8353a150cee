//! What a link counts: offered, sent, dropped and errored PDUs, the time
//! averages of its queue, and the wait before transmission. Kept by
//! `net::link` as it runs and read by the summary, the probes and the ports.

use crate::engine::stats::{Histogram, TimeAverage};
use crate::engine::Time;

#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    /// PDUs offered to the link (queued, sent directly or dropped).
    pub arrivals: u64,
    /// Their bytes (what a DVB-RCS terminal measures for its requests).
    pub(crate) arrival_bytes: u64,
    pub tx_packets: u64,
    /// Bytes on the wire, the link's framing included.
    pub(crate) tx_bytes: u64,
    pub drops: u64,
    pub(crate) drops_clp: u64,
    /// Dropped early by an AQM at arrival (RED), though there was room.
    pub(crate) drops_early: u64,
    /// Admitted with their ECN field set to CE at arrival (RED).
    pub(crate) marks: u64,
    /// Dropped because they were sent while the link's path did not exist
    /// (`delay_schedule`).
    pub(crate) drops_unreachable: u64,
    /// PDUs lost to bit errors or per-PDU loss.
    pub(crate) errors: u64,
    pub(crate) busy_ps: u64,
    pub(crate) queue_packets: TimeAverage,
    pub(crate) queue_bytes: TimeAverage,
    /// Waiting plus the one in transmission.
    pub(crate) system_packets: TimeAverage,
    /// Time from enqueue to start of transmission, ps.
    pub(crate) wait: Histogram,
    /// Delivered transmissions by priority level (0 = high, e.g. ATM VBR;
    /// 1 = low, e.g. ABR), for per-class port statistics.
    pub(crate) tx_packets_by_priority: [u64; 2],
    pub(crate) tx_bytes_by_priority: [u64; 2],
    /// Largest number waiting at each priority level.
    pub(crate) queue_max_by_priority: [u64; 2],
    /// The standing queueing delay, kept on AQM links only.
    pub(crate) standing: Option<Box<StandingDelay>>,
}

/// The standing queue delay of Nichols and Jacobson ("Controlling Queue
/// Delay", ACM Queue 10(5), 2012; RFC 8289 §2): the least sojourn time in
/// each window of `window`, the part of the queue that does not drain. A
/// burst that clears within a window does not raise it, which is why it,
/// and not the mean or the median, is what CoDel holds at its target.
/// Windows in which nothing was transmitted are left out.
#[derive(Clone, Debug)]
pub(crate) struct StandingDelay {
    window_ps: u64,
    /// End of the current window, and the least sojourn in it so far.
    window_end: u64,
    least: u64,
    /// Sum and count of the finished windows' least sojourns.
    sum_ps: f64,
    windows: u64,
}

impl StandingDelay {
    /// Standing delay over windows of `window_ps` (> 0) from time zero.
    pub(crate) fn new(window_ps: u64) -> StandingDelay {
        StandingDelay {
            window_ps,
            window_end: window_ps,
            least: u64::MAX,
            sum_ps: 0.0,
            windows: 0,
        }
    }

    /// A PDU that waited `sojourn_ps` starts its transmission at `now_ps`.
    #[inline]
    pub(crate) fn record(&mut self, now_ps: u64, sojourn_ps: u64) {
        if now_ps >= self.window_end {
            self.close();
            self.window_end = (now_ps / self.window_ps + 1) * self.window_ps;
        }
        self.least = self.least.min(sojourn_ps);
    }

    fn close(&mut self) {
        if self.least != u64::MAX {
            self.sum_ps += self.least as f64;
            self.windows += 1;
            self.least = u64::MAX;
        }
    }

    /// The mean of the windows' least sojourns (ps), the current window
    /// counted if anything was sent in it; NaN if nothing was.
    pub(crate) fn mean_ps(&self) -> f64 {
        let mut all = self.clone();
        all.close();
        if all.windows == 0 {
            f64::NAN
        } else {
            all.sum_ps / all.windows as f64
        }
    }
}

impl LinkStats {
    /// A transmission of `bytes` on the wire that reached the far end.
    #[inline]
    pub(crate) fn sent(&mut self, bytes: u32, priority: u8) {
        let level = (priority as usize).min(1);
        self.tx_packets += 1;
        self.tx_bytes += u64::from(bytes);
        self.tx_packets_by_priority[level] += 1;
        self.tx_bytes_by_priority[level] += u64::from(bytes);
    }

    /// The queue holds `waiting` PDUs of `waiting_bytes` from `now` on,
    /// with one more in transmission when `busy`.
    #[inline]
    pub(crate) fn queue_changed(
        &mut self,
        now: Time,
        waiting: u64,
        waiting_bytes: u64,
        busy: bool,
    ) {
        self.queue_packets.set(now.ps(), waiting as f64);
        self.queue_bytes.set(now.ps(), waiting_bytes as f64);
        self.system_packets
            .set(now.ps(), (waiting + u64::from(busy)) as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standing_delay_is_the_mean_of_each_windows_least_sojourn() {
        let mut d = StandingDelay::new(100);
        // Window [0, 100): 30 then 5; [100, 200): nothing; [200, 300): 50.
        d.record(10, 30);
        d.record(90, 5);
        d.record(250, 50);
        assert_eq!(d.mean_ps(), 27.5);
        // A burst's large sojourns do not raise a window's least.
        d.record(260, 1000);
        assert_eq!(d.mean_ps(), 27.5);
        d.record(300, 1);
        assert_eq!(d.mean_ps(), (5.0 + 50.0 + 1.0) / 3.0);
        assert!(StandingDelay::new(100).mean_ps().is_nan());
    }

    #[test]
    fn sent_counts_by_priority_level_with_low_levels_merged() {
        let mut s = LinkStats::default();
        s.sent(53, 0);
        s.sent(100, 1);
        s.sent(100, 7);
        assert_eq!((s.tx_packets, s.tx_bytes), (3, 253));
        assert_eq!(s.tx_packets_by_priority, [1, 2]);
        assert_eq!(s.tx_bytes_by_priority, [53, 200]);
    }

    #[test]
    fn the_system_counts_the_one_in_transmission() {
        let mut s = LinkStats::default();
        s.queue_changed(Time(0), 2, 106, true);
        s.queue_changed(Time(10), 0, 0, false);
        assert_eq!(s.queue_packets.mean(10), 2.0);
        assert_eq!(s.system_packets.mean(10), 3.0);
        assert_eq!(s.queue_bytes.mean(10), 106.0);
    }
}
