//! The emulator's clock: model time is the monotonic clock since the start,
//! in the core's picoseconds. Waiting for the next modelled event sleeps in
//! `ppoll(2)` on the hosts' devices, so a packet a host sends wakes the loop
//! at once, and spins for the last microseconds before the deadline.
//!
//! Linux delays a sleeping thread's wake-up by up to its timer slack (50 µs
//! by default) to batch timers; with the slack at 1 ns the kernel's
//! high-resolution timers wake it a few microseconds late instead
//! (prctl(2), PR_SET_TIMERSLACK).

use satcc_core::engine::Time;
use std::os::fd::RawFd;
use std::time::{Duration, Instant};

pub struct Clock {
    start: Instant,
    /// CLOCK_MONOTONIC at model time zero, in nanoseconds: the clock every
    /// namespace shares, so that the hosts' own logs can be put on model
    /// time.
    pub zero_monotonic_ns: u64,
}

impl Clock {
    pub fn start() -> Clock {
        Clock {
            start: Instant::now(),
            zero_monotonic_ns: monotonic_ns(),
        }
    }

    /// Model time now.
    pub fn now(&self) -> Time {
        Time(self.start.elapsed().as_nanos() as u64 * 1000)
    }

    /// The instant model time `t` falls on.
    pub fn instant(&self, t: Time) -> Instant {
        self.start + Duration::from_nanos(t.ps() / 1000)
    }

    /// How late the wall clock is with respect to model time `t`, in
    /// nanoseconds (negative: early).
    pub fn lateness_ns(&self, t: Time) -> i64 {
        self.now().ps() as i64 / 1000 - t.ps() as i64 / 1000
    }
}

/// CLOCK_MONOTONIC now, in nanoseconds (what `Instant` reads on Linux).
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid timespec for the call to write into.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Sets the calling thread's timer slack.
pub fn set_timer_slack(ns: u64) -> Result<(), String> {
    // SAFETY: PR_SET_TIMERSLACK takes one unsigned long and no pointers.
    let rc = unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, ns as libc::c_ulong, 0, 0, 0) };
    if rc == 0 {
        Ok(())
    } else {
        Err(format!(
            "cannot set the timer slack: {}",
            std::io::Error::last_os_error()
        ))
    }
}

/// Gives the calling thread a real-time priority (SCHED_FIFO, `priority`
/// 1..99) so that the hosts' own processes and the kernel's TCP work, which
/// the emulator's packets set off, cannot delay its wake-ups by a time
/// slice. Its sleeps are short and its spins shorter, so it never holds a
/// CPU for long.
pub fn set_realtime(priority: i32) -> Result<(), String> {
    let param = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: a valid sched_param for this thread (tid 0 = the caller).
    let rc = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) };
    if rc == 0 {
        Ok(())
    } else {
        Err(format!(
            "cannot use SCHED_FIFO: {}",
            std::io::Error::last_os_error()
        ))
    }
}

/// Waits until `deadline` (or at most `longest`, to look at a stop request)
/// or until one of `fds` has something to read; true if one has. The last
/// `spin` before the deadline is spent spinning rather than sleeping.
pub fn wait(fds: &[RawFd], deadline: Option<Instant>, spin: Duration, longest: Duration) -> bool {
    let now = Instant::now();
    let until = deadline.map_or(now + longest, |d| d.min(now + longest));
    let sleep_until = until.checked_sub(spin).unwrap_or(until);
    if sleep_until > now && poll(fds, Some(sleep_until - now)) {
        return true;
    }
    while Instant::now() < until {
        std::hint::spin_loop();
    }
    poll(fds, None)
}

/// `ppoll(2)` for input on `fds`: for `timeout`, or only a look (None).
fn poll(fds: &[RawFd], timeout: Option<Duration>) -> bool {
    let mut pfds: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let d = timeout.unwrap_or(Duration::ZERO);
    let ts = libc::timespec {
        tv_sec: d.as_secs() as libc::time_t,
        tv_nsec: d.subsec_nanos() as libc::c_long,
    };
    // SAFETY: `pfds` is a valid array of `pfds.len()` entries and `ts` a
    // valid timespec, both alive for the call; no signal mask is passed.
    let n = unsafe {
        libc::ppoll(
            pfds.as_mut_ptr(),
            pfds.len() as libc::nfds_t,
            &ts,
            std::ptr::null(),
        )
    };
    n > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_time_follows_the_monotonic_clock() {
        let c = Clock::start();
        let t = c.now();
        assert_eq!(c.instant(Time::ZERO), c.start);
        assert!(c.instant(t) <= Instant::now());
        assert!(c.lateness_ns(Time::ZERO) >= 0);
        let since_zero = monotonic_ns() - c.zero_monotonic_ns;
        let model = c.now().ps() / 1000;
        assert!(since_zero + 1_000_000 >= model && since_zero <= model + 1_000_000);
    }

    #[test]
    fn waiting_without_devices_returns_at_the_deadline_not_before() {
        set_timer_slack(1).unwrap();
        let deadline = Instant::now() + Duration::from_millis(3);
        assert!(!wait(
            &[],
            Some(deadline),
            Duration::from_micros(20),
            Duration::from_secs(1)
        ));
        assert!(Instant::now() >= deadline);
    }

    #[test]
    fn a_readable_descriptor_ends_the_wait() {
        let mut fds = [0; 2];
        // SAFETY: `fds` has room for the two descriptors pipe(2) writes.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: writing one byte from a valid buffer to the pipe's end.
        assert_eq!(unsafe { libc::write(fds[1], b"x".as_ptr().cast(), 1) }, 1);
        let far = Instant::now() + Duration::from_secs(30);
        assert!(wait(
            &fds[..1],
            Some(far),
            Duration::ZERO,
            Duration::from_secs(60)
        ));
        for fd in fds {
            // SAFETY: closing descriptors this test opened.
            unsafe { libc::close(fd) };
        }
    }
}
