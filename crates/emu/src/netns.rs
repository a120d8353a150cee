//! Entering a network namespace for a moment: each emulated host's TUN
//! device is created inside the host's own namespace (an `ip netns` name,
//! bound at /run/netns/NAME), so the device never appears in the
//! emulator's namespace and disappears with the emulator or the namespace.
//! `setns(2)` with CLONE_NEWNET moves only the calling thread.

use nix::sched::{setns, CloneFlags};
use std::fs::File;
use std::path::Path;

/// Runs `f` with the calling thread inside the namespace at `path`, then
/// moves the thread back to the namespace it was in.
pub fn within<T>(path: &Path, f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    let home = File::open("/proc/thread-self/ns/net")
        .map_err(|e| format!("cannot open this thread's network namespace: {e}"))?;
    let target =
        File::open(path).map_err(|e| format!("no network namespace at {}: {e}", path.display()))?;
    setns(&target, CloneFlags::CLONE_NEWNET)
        .map_err(|e| format!("cannot enter network namespace {}: {e}", path.display()))?;
    let result = f();
    // Staying in the host's namespace would send every later device and
    // socket of this thread there: nothing sensible can follow a failure.
    setns(&home, CloneFlags::CLONE_NEWNET)
        .expect("returning to the emulator's own network namespace");
    result
}
