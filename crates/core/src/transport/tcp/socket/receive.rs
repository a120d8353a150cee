//! The socket's receiving half: in-order delivery to the application, the
//! window it advertises (as the host profile makes it, `window_profile.rs`)
//! and when an arriving segment is acknowledged (delayed ACKs, RFC 1122
//! §4.2.3.2: at least every second full segment; at once for anything out
//! of order or filling a hole, RFC 5681 §4.2).

use super::TcpSocket;
use crate::engine::Time;

impl TcpSocket {
    /// The window this socket advertises, in bytes.
    pub(crate) fn advertised_window(&self) -> u64 {
        self.rwin.advertised(self.rx.held_bytes(), self.my_shift)
    }

    /// A segment carrying `len` bytes at stream offset `seq` arrived.
    pub(super) fn on_data(&mut self, now: Time, seq: u64, len: u64) {
        let a = self.rx.receive(seq, len);
        self.delivered += a.delivered;
        if a.delivered > 0 {
            self.rwin.on_in_order(len);
        }
        if a.out_of_order || a.filled_hole || a.duplicate {
            self.ack_now = true;
            return;
        }
        self.unacked_segments += 1;
        if !self.cfg.delayed_ack || self.unacked_segments >= 2 {
            self.ack_now = true;
        } else if !self.delack_timer.is_armed() {
            self.delack_timer.arm(now, self.cfg.delayed_ack_timeout);
        }
    }
}
