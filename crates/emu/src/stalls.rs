//! Where the loop's lateness comes from, measured in every run so that a
//! late release can be told apart by cause:
//!
//! - `wake_late`: how long after its deadline the loop came back from a
//!   timed sleep (the kernel's timers, or the CPU taken away);
//! - `write`: how long each write to a host's device took (a TUN write runs
//!   the receiving namespace's IP and TCP input in the writer's context, and
//!   whatever those send at once);
//! - `pass`: how long one pass of the loop ran between two sleeps;
//! - the CPU time the hypervisor gave to other guests while the run lasted
//!   (`steal` of /proc/stat, over every CPU), and the loop's own CPU time.
//!
//! On bare metal steal is zero; on a shared VM a release late by several
//! milliseconds while the loop itself was neither late to wake nor busy
//! points at the host machine, not at the emulator.

use satcc_core::engine::stats::Histogram;
use satcc_core::scenario::summary::{num, put, Summary};
use std::time::{Duration, Instant};

pub struct Stalls {
    wake_late_ns: Histogram,
    write_ns: Histogram,
    pass_ns: Histogram,
    steal_at_start: Option<f64>,
    cpu_at_start: Duration,
}

impl Default for Stalls {
    fn default() -> Stalls {
        Stalls::new()
    }
}

impl Stalls {
    pub fn new() -> Stalls {
        Stalls {
            wake_late_ns: Histogram::default(),
            write_ns: Histogram::default(),
            pass_ns: Histogram::default(),
            steal_at_start: steal_s(),
            cpu_at_start: thread_cpu(),
        }
    }

    /// The loop woke at `woke` from a sleep meant to end at `deadline`.
    pub fn woke(&mut self, deadline: Instant, woke: Instant) {
        self.wake_late_ns
            .record(nanos(woke.saturating_duration_since(deadline)));
    }

    pub fn wrote(&mut self, took: Duration) {
        self.write_ns.record(nanos(took));
    }

    pub fn passed(&mut self, took: Duration) {
        self.pass_ns.record(nanos(took));
    }

    pub fn summarise(&self, s: &mut Summary) {
        for (name, h) in [
            ("wake_late", &self.wake_late_ns),
            ("write", &self.write_ns),
            ("pass", &self.pass_ns),
        ] {
            let key = |q: &str| format!("emulator.{name}_{q}_us");
            put(s, key("p99"), num(h.quantile(0.99) / 1e3));
            put(s, key("max"), num(h.quantile(1.0) / 1e3));
        }
        let steal = match (self.steal_at_start, steal_s()) {
            (Some(a), Some(b)) => b - a,
            _ => f64::NAN,
        };
        put(s, "emulator.cpu_steal_s".into(), num(steal));
        let cpu = thread_cpu().saturating_sub(self.cpu_at_start);
        put(s, "emulator.loop_cpu_s".into(), num(cpu.as_secs_f64()));
    }
}

fn nanos(d: Duration) -> u64 {
    d.as_nanos().min(u128::from(u64::MAX)) as u64
}

/// The steal time of all CPUs so far, in seconds; None where /proc/stat
/// has no such field.
pub fn steal_s() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    steal_from_proc_stat(&text)
}

/// The 8th number of /proc/stat's "cpu" line (proc(5)), in USER_HZ ticks.
fn steal_from_proc_stat(text: &str) -> Option<f64> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let ticks: f64 = line.split_whitespace().nth(8)?.parse().ok()?;
    // SAFETY: sysconf takes no pointers.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    Some(ticks / if hz > 0 { hz as f64 } else { 100.0 })
}

/// The calling thread's CPU time.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid timespec for the call to write into.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steal_is_the_eighth_field_of_the_cpu_line() {
        let text =
            "cpu  3703471 868 191084 2361958 17058 0 4598 207160 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n";
        // SAFETY: sysconf takes no pointers.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
        assert_eq!(steal_from_proc_stat(text), Some(207160.0 / hz));
        assert_eq!(steal_from_proc_stat("intr 1 2 3\n"), None);
    }

    #[test]
    fn a_wake_before_the_deadline_counts_as_on_time() {
        let mut s = Stalls::new();
        let t = Instant::now();
        s.woke(t + Duration::from_millis(1), t);
        s.woke(t, t + Duration::from_micros(30));
        let mut out = Summary::new();
        s.summarise(&mut out);
        assert_eq!(out["emulator.wake_late_max_us"], 30.0);
        assert!(out["emulator.loop_cpu_s"].as_f64().unwrap() >= 0.0);
    }
}
