//! Host profiles of the receive window: how much of its receive buffer a
//! host advertises (`window_profile`).
//!
//! - `bsd44` (the default, satcc's behaviour before profiles existed):
//!   4.4BSD's `tcp_output()` advertises the free receive buffer,
//!   `sbspace(&so->so_rcv)`; with an application that reads at once that is
//!   the buffer less the data held out of order. Its window-update rule
//!   (send an update once the window opens by two segments or by half the
//!   buffer) is met on every second segment here, which the delayed-ACK
//!   rule already acknowledges.
//! - `linux`: Linux keeps part of the receive buffer for the kernel's own
//!   bookkeeping. `tcp_win_from_space()` (net/ipv4/tcp_input.c, include/
//!   net/tcp.h) gives the payload share of a buffer, `space - (space >>
//!   tcp_adv_win_scale)`: 3/4 with the default scale 2 of Linux 2.4 to 3.3,
//!   1/2 with the default 1 from 3.4 (and the starting `scaling_ratio` of
//!   6.6 and later). `window_clamp` is that share of the whole buffer
//!   (`tcp_full_space()`, fixed once SO_RCVBUF locks the buffer, so no
//!   autotuning). `__tcp_select_window()` (net/ipv4/tcp_output.c) offers the
//!   free share, at most `rcv_ssthresh`, rounded down to a whole number of
//!   segments when the window shift is 0 (to the shift's unit otherwise).
//!   With SO_RCVBUF set the shift follows the buffer: `ss -ti` shows
//!   `wscale:0,0` for NPtcp -b 8192 on Linux 6.18, and windows of whole
//!   segments.
//!   `rcv_ssthresh` starts at ten segments (`tcp_select_initial_window()`,
//!   TCP_INIT_CWND) or the clamp in whole segments if smaller, and
//!   `tcp_grow_window()` raises
//!   it by two segments per in-order segment of at least 128 bytes
//!   (`tcp_event_data_recv()`), up to the clamp. Not modelled: the
//!   truesize test that can stop that growth for small segments, and the
//!   rule that never shrinks an offered window (only out-of-order data
//!   could shrink it here).
//!
//! The `linux` buffer is what the kernel keeps, twice what SO_RCVBUF asked
//! (`sock_setsockopt()`); a scenario gives it as `receive_buffer`.

use serde::{Deserialize, Serialize};

/// Which host's rules turn the receive buffer into the advertised window.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum WindowProfile {
    /// 4.4BSD: the free receive buffer.
    #[default]
    Bsd44,
    /// Linux: the payload share of the buffer, capped by `rcv_ssthresh`,
    /// in whole segments.
    Linux,
}

impl WindowProfile {
    pub(crate) fn is_default(&self) -> bool {
        *self == WindowProfile::Bsd44
    }
}

/// Linux's default `tcp_adv_win_scale` from 3.4 on.
pub(crate) const LINUX_ADV_WIN_SCALE: u8 = 1;

pub(crate) fn is_default_adv_win_scale(s: &u8) -> bool {
    *s == LINUX_ADV_WIN_SCALE
}

pub(crate) fn default_adv_win_scale() -> u8 {
    LINUX_ADV_WIN_SCALE
}

/// Segments in Linux's initial receive window (TCP_INIT_CWND).
const LINUX_INIT_RCV_SEGMENTS: u64 = 10;
/// The smallest segment `tcp_event_data_recv()` grows the window on.
const LINUX_GROW_MIN_BYTES: u64 = 128;

/// The receiving half's window state: the rules of one profile.
#[derive(Clone, Debug)]
pub(crate) struct ReceiveWindow {
    profile: WindowProfile,
    buffer: u64,
    mss: u64,
    adv_win_scale: u8,
    /// Linux's `rcv_ssthresh` (unused by `bsd44`).
    rcv_ssthresh: u64,
}

impl ReceiveWindow {
    pub(crate) fn new(profile: WindowProfile, buffer: u64, mss: u64, adv_win_scale: u8) -> Self {
        let mut w = ReceiveWindow {
            profile,
            buffer,
            mss,
            adv_win_scale,
            rcv_ssthresh: 0,
        };
        let clamp = w.clamp();
        w.rcv_ssthresh = round_down(clamp, mss).min(LINUX_INIT_RCV_SEGMENTS * mss);
        w
    }

    /// `tcp_win_from_space()`: the payload share of `space` bytes.
    fn win_from_space(&self, space: u64) -> u64 {
        space - (space >> self.adv_win_scale)
    }

    /// The largest window the host will offer (Linux's `window_clamp`).
    pub(crate) fn clamp(&self) -> u64 {
        match self.profile {
            WindowProfile::Bsd44 => self.buffer,
            WindowProfile::Linux => self.win_from_space(self.buffer),
        }
    }

    /// The window offered with `held` bytes held out of order, in a
    /// segment whose window field is shifted by `shift`.
    pub(crate) fn advertised(&self, held: u64, shift: u8) -> u64 {
        match self.profile {
            WindowProfile::Bsd44 => self.buffer.saturating_sub(held),
            WindowProfile::Linux => {
                let free = self
                    .win_from_space(self.buffer.saturating_sub(held))
                    .min(self.rcv_ssthresh);
                if shift == 0 {
                    round_down(free, self.mss)
                } else {
                    round_down(free, 1 << shift)
                }
            }
        }
    }

    /// An in-order segment of `len` bytes arrived.
    pub(crate) fn on_in_order(&mut self, len: u64) {
        if self.profile == WindowProfile::Linux && len >= LINUX_GROW_MIN_BYTES {
            self.rcv_ssthresh = (self.rcv_ssthresh + 2 * self.mss).min(self.clamp());
        }
    }
}

fn round_down(x: u64, unit: u64) -> u64 {
    x / unit.max(1) * unit.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1460;

    #[test]
    fn bsd44_offers_the_free_buffer() {
        let w = ReceiveWindow::new(WindowProfile::Bsd44, 8760, MSS, 1);
        assert_eq!(w.advertised(0, 1), 8760);
        assert_eq!(w.advertised(1000, 0), 7760);
        assert_eq!(w.clamp(), 8760);
    }

    /// NPtcp -b 8192 on Linux: the kernel keeps 16384; half of it is
    /// payload (scale 1), 8192; with no window shift, in whole segments:
    /// 7300 B. With a shift (a larger buffer) the share as it is.
    #[test]
    fn linux_offers_half_the_doubled_buffer() {
        let mut w = ReceiveWindow::new(WindowProfile::Linux, 16_384, MSS, 1);
        assert_eq!(w.clamp(), 8192);
        assert_eq!(w.advertised(0, 0), 5 * MSS);
        w.on_in_order(MSS);
        assert_eq!(w.advertised(0, 0), 5 * MSS);
        assert_eq!(w.advertised(0, 1), 8192);
        // Out-of-order data eats its share of the buffer: 16384 - 3000
        // leaves 6692 of payload room, four segments.
        assert_eq!(w.advertised(3000, 0), 4 * MSS);
        assert_eq!(w.advertised(3000, 1), 6692);
    }

    /// Linux 2.4 to 3.3 (scale 2): 3/4 of 16384 is 12288; the first window
    /// eight whole segments.
    #[test]
    fn linux_scale_two_offers_three_quarters() {
        let mut w = ReceiveWindow::new(WindowProfile::Linux, 16_384, MSS, 2);
        assert_eq!(w.clamp(), 12_288);
        assert_eq!(w.advertised(0, 0), 8 * MSS);
        w.on_in_order(MSS);
        assert_eq!(w.advertised(0, 0), 8 * MSS);
        assert_eq!(w.advertised(0, 1), 12_288);
    }

    /// A 64 KB request: 131072 kept, 65536 clamp; the window starts at ten
    /// segments and grows two per segment of at least 128 B.
    #[test]
    fn linux_window_grows_from_ten_segments_to_the_clamp() {
        let mut w = ReceiveWindow::new(WindowProfile::Linux, 131_072, MSS, 1);
        assert_eq!(w.advertised(0, 1), 10 * MSS);
        w.on_in_order(100); // too small to count
        assert_eq!(w.advertised(0, 1), 10 * MSS);
        w.on_in_order(MSS);
        assert_eq!(w.advertised(0, 1), 12 * MSS);
        for _ in 0..100 {
            w.on_in_order(MSS);
        }
        assert_eq!(w.advertised(0, 1), 65_536);
    }

    #[test]
    fn bsd44_ignores_growth() {
        let mut w = ReceiveWindow::new(WindowProfile::Bsd44, 131_072, MSS, 1);
        w.on_in_order(MSS);
        assert_eq!(w.advertised(0, 1), 131_072);
    }
}
