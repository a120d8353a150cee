//! The real-time loop: it drives a world built from a scenario through the
//! core's driver API, as the wall clock goes. Packets a host writes to its
//! TUN device enter the model at the host's node at the instant they are
//! read; packets the model delivers to a host are written to its device at
//! the instant the model says they arrive (their release-time error is
//! measured). Between events the loop sleeps on the devices until the
//! world's next wake-up.
//!
//! One thread owns the world and the devices; `Emulator` starts it, asks it
//! to stop, and takes its report.

use crate::capture::Capture;
use crate::clock::{self, Clock};
use crate::device;
use crate::ipv4::{self, NotMoved};
use crate::payloads::Payloads;
use crate::release::ReleaseErrors;
use crate::stalls::Stalls;
use satcc_core::engine::Time;
use satcc_core::scenario::summary::{self, put, Summary};
use satcc_core::scenario::world::emulated::HostHandle;
use satcc_core::scenario::{Description, World};
use serde::Deserialize;
use std::net::Ipv4Addr;
use std::os::fd::{AsRawFd, RawFd};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

/// Where each host's device goes, and how the loop waits.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmuConfig {
    pub hosts: Vec<HostSetup>,
    /// Spin this long before each deadline instead of sleeping.
    #[serde(default = "default_spin_ns")]
    pub spin_ns: u64,
    #[serde(default = "default_slack_ns")]
    pub timer_slack_ns: u64,
    /// The loop thread's SCHED_FIFO priority; 0: the normal scheduler.
    #[serde(default = "default_realtime_priority")]
    pub realtime_priority: i32,
}

fn default_realtime_priority() -> i32 {
    50
}

fn default_spin_ns() -> u64 {
    20_000
}

fn default_slack_ns() -> u64 {
    1
}

/// One `[emulate.NAME]` host: its namespace (a path such as
/// /run/netns/NAME), its device's name, subnet and MTU, and where to
/// write its capture (none: no capture).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostSetup {
    pub name: String,
    pub netns: PathBuf,
    pub device: String,
    pub prefix_len: u8,
    pub mtu: u16,
    #[serde(default)]
    pub pcap: Option<PathBuf>,
}

/// The longest the loop sleeps before it looks at a stop request.
const LOOK_EVERY: Duration = Duration::from_millis(20);
/// The most packets read from one device in one pass, so that a host
/// flooding its device cannot starve the others or the releases.
const READ_BURST: usize = 64;
/// Larger than any IPv4 packet.
const BUFFER: usize = 65_536;

/// A run's figures, shared with the caller while it runs.
#[derive(Default)]
pub struct Progress {
    pub model_ns: AtomicU64,
    pub read: AtomicU64,
    pub written: AtomicU64,
}

struct Host {
    name: String,
    handle: HostHandle,
    dev: tun::Device,
    capture: Option<Capture>,
}

/// Why the frames read from devices did not enter the model.
#[derive(Default)]
struct NotEntered {
    not_ipv4: u64,
    truncated: u64,
    no_such_host: u64,
}

struct Emulation {
    world: World,
    hosts: Vec<Host>,
    clock: Clock,
    wall_start: SystemTime,
    payloads: Payloads,
    release: ReleaseErrors,
    stalls: Stalls,
    not_entered: NotEntered,
    read: u64,
    written: u64,
    write_errors: u64,
    spin: Duration,
    /// The loop runs at a real-time priority.
    realtime: bool,
    buf: Vec<u8>,
}

/// What a finished run returns: the summary (the world's keys and the
/// emulator's) and the probes' series.
pub struct Report {
    pub summary: Summary,
    pub series: Vec<(String, Vec<f64>, Vec<f64>)>,
}

impl Emulation {
    fn new(d: &Description, cfg: &EmuConfig) -> Result<Emulation, String> {
        clock::set_timer_slack(cfg.timer_slack_ns)?;
        // Without the privilege the loop still runs, only later at times;
        // the summary says which it was.
        let realtime =
            cfg.realtime_priority > 0 && clock::set_realtime(cfg.realtime_priority).is_ok();
        let mut world = World::build(d).map_err(|e| e.to_string())?;
        world.drive();
        let handles = world.emulated_hosts();
        if handles.len() != cfg.hosts.len() {
            return Err(format!(
                "the scenario has {} emulated hosts, the set-up {}",
                handles.len(),
                cfg.hosts.len()
            ));
        }
        let mut hosts = Vec::new();
        for (handle, setup) in handles.into_iter().zip(&cfg.hosts) {
            let dev = device::open(
                &setup.netns,
                &setup.device,
                handle.address,
                setup.prefix_len,
                setup.mtu,
            )?;
            hosts.push(Host {
                name: setup.name.clone(),
                handle,
                dev,
                capture: None,
            });
        }
        let wall_start = SystemTime::now();
        for (h, setup) in hosts.iter_mut().zip(&cfg.hosts) {
            if let Some(path) = &setup.pcap {
                h.capture = Some(Capture::create(path, wall_start)?);
            }
        }
        let n = hosts.len();
        Ok(Emulation {
            world,
            hosts,
            clock: Clock::start(),
            wall_start,
            payloads: Payloads::new(n),
            release: ReleaseErrors::default(),
            stalls: Stalls::new(),
            not_entered: NotEntered::default(),
            read: 0,
            written: 0,
            write_errors: 0,
            spin: Duration::from_nanos(cfg.spin_ns),
            realtime,
            buf: vec![0; BUFFER],
        })
    }

    /// Runs until asked to stop or the scenario's duration is reached.
    fn run(&mut self, stop: &AtomicBool, progress: &Progress) -> Result<&'static str, String> {
        let fds: Vec<RawFd> = self.hosts.iter().map(|h| h.dev.as_raw_fd()).collect();
        loop {
            let pass = Instant::now();
            if stop.load(Ordering::Relaxed) {
                return Ok("stopped");
            }
            self.world.run_until(self.clock.now());
            self.release_arrived()?;
            if self.world.finished() {
                return Ok("duration");
            }
            self.read_devices()?;
            self.release_arrived()?;
            progress
                .model_ns
                .store(self.world.now.ps() / 1000, Ordering::Relaxed);
            progress.read.store(self.read, Ordering::Relaxed);
            progress.written.store(self.written, Ordering::Relaxed);
            let deadline = self.world.next_wakeup().map(|t| self.clock.instant(t));
            self.stalls.passed(pass.elapsed());
            let look = Instant::now() + LOOK_EVERY;
            let readable = clock::wait(&fds, deadline, self.spin, LOOK_EVERY);
            if let Some(d) = deadline.filter(|&d| !readable && d <= look) {
                self.stalls.woke(d, Instant::now());
            }
        }
    }

    /// Writes what the model delivered to each host.
    fn release_arrived(&mut self) -> Result<(), String> {
        for to in 0..self.hosts.len() {
            let arrived = self.world.take_arrived(self.hosts[to].handle);
            for (t, pdu) in arrived {
                let Some(from) = self.hosts.iter().position(|h| h.handle.flow == pdu.flow) else {
                    continue;
                };
                let Some(mut bytes) = self.payloads.take(from, to, pdu.seq) else {
                    continue;
                };
                // A queue of the model marked it: the host sees the mark
                // (only ECN-capable packets are marked, so the bytes are).
                if pdu.ecn == ipv4::CE && bytes[1] & ipv4::CE != 0 {
                    ipv4::set_ce(&mut bytes);
                }
                self.release.record(self.clock.lateness_ns(t));
                let since = self.clock_since_start();
                let host = &mut self.hosts[to];
                let began = Instant::now();
                match host.dev.send(&bytes) {
                    Ok(_) => self.written += 1,
                    Err(_) => self.write_errors += 1,
                }
                self.stalls.wrote(began.elapsed());
                if let Some(c) = &mut host.capture {
                    c.record(since, &bytes)?;
                }
                self.payloads.recycle(bytes);
            }
        }
        Ok(())
    }

    /// Moves what the hosts wrote into the model.
    fn read_devices(&mut self) -> Result<(), String> {
        for from in 0..self.hosts.len() {
            for _ in 0..READ_BURST {
                let n = match self.hosts[from].dev.recv(&mut self.buf) {
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(format!("reading host {:?}: {e}", self.hosts[from].name)),
                };
                self.read += 1;
                let since = self.clock_since_start();
                if let Some(c) = &mut self.hosts[from].capture {
                    c.record(since, &self.buf[..n])?;
                }
                self.enter(from, n);
            }
        }
        Ok(())
    }

    /// The frame of `n` bytes in the buffer, read from host `from`'s
    /// device, enters the model now.
    fn enter(&mut self, from: usize, n: usize) {
        let info = match ipv4::parse(&self.buf[..n]) {
            Ok(info) => info,
            Err(NotMoved::NotIpv4) => return self.not_entered.not_ipv4 += 1,
            Err(NotMoved::Truncated) => return self.not_entered.truncated += 1,
        };
        let Some(to) = self.host_with(info.dst) else {
            return self.not_entered.no_such_host += 1;
        };
        let len = usize::from(info.total_len);
        self.world.run_until(self.clock.now());
        let (src, dst) = (self.hosts[from].handle, self.hosts[to].handle);
        let seq = self
            .world
            .send_from_host_with_ecn(src, dst, info.total_len.into(), info.ecn);
        self.payloads.keep(from, to, seq, &self.buf[..len]);
    }

    fn host_with(&self, addr: Ipv4Addr) -> Option<usize> {
        self.hosts.iter().position(|h| h.handle.address == addr)
    }

    fn clock_since_start(&self) -> Duration {
        Duration::from_nanos(self.clock.now().ps() / 1000)
    }

    fn report(mut self, why: &str) -> Result<Report, String> {
        for h in &mut self.hosts {
            if let Some(c) = h.capture.take() {
                c.finish()?;
            }
        }
        let mut s = self.world.summary();
        put(&mut s, "emulator.stop_reason".into(), why);
        put(&mut s, "emulator.realtime".into(), self.realtime);
        put(&mut s, "emulator.packets_read".into(), self.read);
        put(&mut s, "emulator.packets_written".into(), self.written);
        put(&mut s, "emulator.write_errors".into(), self.write_errors);
        put(
            &mut s,
            "emulator.not_ipv4".into(),
            self.not_entered.not_ipv4,
        );
        put(
            &mut s,
            "emulator.truncated".into(),
            self.not_entered.truncated,
        );
        let nsh = self.not_entered.no_such_host;
        put(&mut s, "emulator.no_such_host".into(), nsh);
        put(
            &mut s,
            "emulator.payload_missing".into(),
            self.payloads.missing,
        );
        self.release.summarise(&mut s);
        self.stalls.summarise(&mut s);
        let zero = self.clock.zero_monotonic_ns;
        put(&mut s, "emulator.clock_zero_monotonic_ns".into(), zero);
        let wall = self.wall_start.elapsed().unwrap_or_default();
        put(
            &mut s,
            "emulator.wall_s".into(),
            summary::num(wall.as_secs_f64()),
        );
        let series = self
            .world
            .probes
            .iter()
            .map(|p| {
                (
                    p.name.clone(),
                    p.series.times_s.clone(),
                    p.series.values.clone(),
                )
            })
            .collect();
        Ok(Report { summary: s, series })
    }
}

/// A running emulation, on its own thread.
pub struct Emulator {
    stop: Arc<AtomicBool>,
    progress: Arc<Progress>,
    thread: Option<JoinHandle<Result<Report, String>>>,
}

impl Emulator {
    /// Builds the world and creates every host's device, then starts the
    /// loop; an error in either comes back here, before anything runs.
    pub fn start(description_json: &str, cfg: EmuConfig) -> Result<Emulator, String> {
        let d = Description::from_json(description_json).map_err(|e| e.to_string())?;
        let stop = Arc::new(AtomicBool::new(false));
        let progress = Arc::new(Progress::default());
        let (ready_tx, ready_rx) = mpsc::channel();
        let (stop2, progress2) = (stop.clone(), progress.clone());
        let thread = std::thread::Builder::new()
            .name("satcc-emulator".into())
            .spawn(move || {
                let mut emu = match Emulation::new(&d, &cfg) {
                    Ok(emu) => {
                        let _ = ready_tx.send(Ok(()));
                        emu
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e.clone()));
                        return Err(e);
                    }
                };
                let why = emu.run(&stop2, &progress2)?;
                emu.report(why)
            })
            .map_err(|e| format!("cannot start the emulator's thread: {e}"))?;
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(Emulator {
                stop,
                progress,
                thread: Some(thread),
            }),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => Err(match thread.join() {
                Err(_) => "the emulator's thread panicked while starting".into(),
                Ok(_) => "the emulator's thread ended while starting".into(),
            }),
        }
    }

    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    /// Asks the loop to stop; `join` waits for it.
    pub fn request_stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// True once the loop has ended by itself (duration) or on request.
    pub fn finished(&self) -> bool {
        self.thread.as_ref().is_none_or(|t| t.is_finished())
    }

    pub fn join(mut self) -> Result<Report, String> {
        self.request_stop();
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(r)) => r,
            Some(Err(_)) => Err("the emulator's thread panicked".into()),
            None => Err("the emulator was already joined".into()),
        }
    }

    /// Model time now, from the running loop.
    pub fn model_time(&self) -> Time {
        Time(self.progress.model_ns.load(Ordering::Relaxed) * 1000)
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        self.request_stop();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
