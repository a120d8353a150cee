//! Python bindings of satcc-core and satcc-emu. Thin by design: it converts descriptions
//! and results, and releases the GIL around simulation; every model lives in
//! the core crate.

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use satcc_core::apps::fgn::paxson_fgn;
use satcc_core::engine::{Check, ConfigError, RngStream};
use satcc_core::satmac::{FrameConfig, Skyplex};
use satcc_core::scenario::world::traces::{TcpColumns, TraceData};
use satcc_core::scenario::{summary, Description, World};
use satcc_emu::{EmuConfig, Emulator};
use std::sync::atomic::Ordering;

/// A built simulation (Send: a Dask worker thread may create it and another
/// thread drop it), advanced in chunks so Python can show progress and
/// stay interruptible (Ctrl-C between chunks).
#[pyclass]
struct Simulation {
    world: World,
}

#[pymethods]
impl Simulation {
    /// Builds a simulation from a normalised description (canonical JSON),
    /// with the GIL released (building may draw long random sequences).
    #[new]
    fn new(py: Python<'_>, description_json: &str) -> PyResult<Simulation> {
        let world = py.detach(|| {
            let d = Description::from_json(description_json)?;
            World::build(&d)
        });
        let world = world.map_err(|e| refused(py, e))?;
        Ok(Simulation { world })
    }

    /// Runs at most `budget` events, returning after `slice_s` seconds of
    /// wall time at the latest, with the GIL released; True when done.
    /// Short slices keep Ctrl-C and wall-clock budgets prompt.
    #[pyo3(signature = (budget, slice_s = 0.1))]
    fn advance(&mut self, py: Python<'_>, budget: u64, slice_s: f64) -> bool {
        let world = &mut self.world;
        let slice_s = if slice_s.is_finite() {
            slice_s.clamp(0.0, 3600.0)
        } else {
            3600.0
        };
        let slice = std::time::Duration::from_secs_f64(slice_s);
        py.detach(|| world.advance_for(budget, slice))
    }

    #[getter]
    fn now_ps(&self) -> u64 {
        self.world.now.ps()
    }

    #[getter]
    fn end_ps(&self) -> u64 {
        self.world.end.ps()
    }

    #[getter]
    fn events(&self) -> u64 {
        self.world.events
    }

    #[getter]
    fn finished(&self) -> bool {
        self.world.finished()
    }

    /// The flat summary as canonical JSON.
    fn summary_json(&self) -> String {
        summary::to_json(&self.world.summary())
    }

    /// Probe series, then the components' end-of-run series, as
    /// (name, times_s or x, values), each little-endian f64 bytes.
    fn series<'py>(
        &self,
        py: Python<'py>,
    ) -> Vec<(String, Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let bytes = |xs: &[f64]| PyBytes::new(py, &f64_bytes(xs));
        let probes = self.world.probes.iter().map(|p| {
            (
                p.name.clone(),
                bytes(&p.series.times_s),
                bytes(&p.series.values),
            )
        });
        let ended = self.world.end_series();
        let ended = ended
            .iter()
            .map(|(name, x, v)| (name.clone(), bytes(x), bytes(v)));
        probes.chain(ended).collect()
    }

    /// Every trace as the run leaves it, in description order: (name,
    /// report JSON, columns). A capture's one column is "pcap", the file's
    /// bytes; a TCP trace's are time_s, cwnd_bytes, ssthresh_bytes, srtt_s
    /// and rto_s (little-endian f64 bytes) and state (one byte per row, an
    /// index into `tcp_trace_states()`). Built with the GIL released: a
    /// capture's headers are synthesised here.
    fn traces<'py>(&self, py: Python<'py>) -> Vec<(String, String, TraceColumns<'py>)> {
        let world = &self.world;
        let outputs = py.detach(|| world.traces());
        outputs
            .into_iter()
            .map(|t| {
                let report = serde_json::to_string(&t.report).expect("a report serialises");
                let columns = match &t.data {
                    TraceData::Pcap(file) => vec![("pcap", PyBytes::new(py, file))],
                    TraceData::Tcp(c) => tcp_columns(py, c),
                };
                (t.name, report, columns)
            })
            .collect()
    }
}

/// A trace's columns: (name, bytes).
type TraceColumns<'py> = Vec<(&'static str, Bound<'py, PyBytes>)>;

fn tcp_columns<'py>(py: Python<'py>, c: &TcpColumns) -> TraceColumns<'py> {
    let f = |xs: &[f64]| PyBytes::new(py, &f64_bytes(xs));
    vec![
        ("time_s", f(&c.time_s)),
        ("cwnd_bytes", f(&c.cwnd_bytes)),
        ("ssthresh_bytes", f(&c.ssthresh_bytes)),
        ("srtt_s", f(&c.srtt_s)),
        ("rto_s", f(&c.rto_s)),
        ("state", PyBytes::new(py, &c.state)),
    ]
}

/// A running emulation (`satcc emulate`): the loop runs on its own thread;
/// Python sets up the namespaces, runs the hosts' commands, watches the
/// progress and stops it.
#[pyclass]
struct Emulation {
    emu: Option<Emulator>,
}

#[pymethods]
impl Emulation {
    /// Builds the world, creates each host's TUN device in its namespace
    /// (`config_json`: satcc_emu::EmuConfig) and starts the loop.
    #[new]
    fn new(py: Python<'_>, description_json: &str, config_json: &str) -> PyResult<Emulation> {
        let cfg: EmuConfig = serde_json::from_str(config_json)
            .map_err(|e| PyValueError::new_err(format!("emulator set-up: {e}")))?;
        let emu = py
            .detach(|| Emulator::start(description_json, cfg))
            .map_err(PyRuntimeError::new_err)?;
        Ok(Emulation { emu: Some(emu) })
    }

    /// (model time in s, packets read from hosts, packets written to hosts).
    fn progress(&self) -> (f64, u64, u64) {
        match &self.emu {
            Some(e) => {
                let p = e.progress();
                (
                    e.model_time().as_secs_f64(),
                    p.read.load(Ordering::Relaxed),
                    p.written.load(Ordering::Relaxed),
                )
            }
            None => (f64::NAN, 0, 0),
        }
    }

    /// True once the loop has ended (the scenario's duration was reached).
    #[getter]
    fn finished(&self) -> bool {
        self.emu.as_ref().is_none_or(Emulator::finished)
    }

    /// Stops the loop and returns (summary JSON, [(probe, times bytes,
    /// values bytes)]); the devices are closed.
    fn stop<'py>(&mut self, py: Python<'py>) -> PyResult<(String, SeriesBytes<'py>)> {
        let emu = self
            .emu
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("the emulation was already stopped"))?;
        let report = py.detach(|| emu.join()).map_err(PyRuntimeError::new_err)?;
        let series = report
            .series
            .iter()
            .map(|(name, t, v)| {
                (
                    name.clone(),
                    PyBytes::new(py, &f64_bytes(t)),
                    PyBytes::new(py, &f64_bytes(v)),
                )
            })
            .collect();
        Ok((summary::to_json(&report.summary), series))
    }
}

/// Probe series: (name, times bytes, values bytes).
type SeriesBytes<'py> = Vec<(String, Bound<'py, PyBytes>, Bound<'py, PyBytes>)>;

/// A ValueError for a description the core refuses: its message the
/// refusal's text, its `path` attribute the key path ("" when the refusal
/// names none) and its `reason` the words alone, so the scenario layer
/// reports it by its place as it reports its own refusals.
fn refused(py: Python<'_>, e: ConfigError) -> PyErr {
    let err = PyValueError::new_err(e.to_string());
    let value = err.value(py);
    if let Err(failed) = value
        .setattr("path", e.path)
        .and_then(|()| value.setattr("reason", e.msg))
    {
        return failed;
    }
    err
}

fn f64_bytes(xs: &[f64]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The values of a TCP trace's `state` column, by index.
#[pyfunction]
fn tcp_trace_states() -> Vec<&'static str> {
    TcpColumns::STATES.to_vec()
}

#[pyfunction]
fn version() -> &'static str {
    satcc_core::VERSION
}

/// The probe targets and their metrics, in the scenario format's order:
/// [(target, [metric, ...]), ...].
#[pyfunction]
fn probe_metrics() -> Vec<(&'static str, Vec<&'static str>)> {
    satcc_core::scenario::world::probes::metrics()
}

/// n samples of zero-mean, unit-variance fractional Gaussian noise (Paxson's
/// FFT method) from the stream (seed, name), as little-endian f64 bytes.
#[pyfunction]
fn fgn<'py>(
    py: Python<'py>,
    n: usize,
    hurst: f64,
    seed: u64,
    name: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut rng = RngStream::new(seed, name);
    let x = py
        .detach(|| paxson_fgn(n, hurst, &mut rng))
        .map_err(|e| PyValueError::new_err(e.0))?;
    Ok(PyBytes::new(py, &f64_bytes(&x)))
}

/// A DVB-RCS frame preset of the tfrc-dama paper ("small" or "large" Skyplex)
/// as its description entry (JSON).
#[pyfunction]
fn skyplex_frame(size: &str) -> PyResult<String> {
    let size = match size {
        "small" => Skyplex::Small,
        "large" => Skyplex::Large,
        _ => {
            return Err(PyValueError::new_err(format!(
                "skyplex frame must be \"small\" or \"large\", got {size:?}"
            )))
        }
    };
    Ok(serde_json::to_string(&FrameConfig::skyplex(size)).expect("a frame serialises"))
}

/// The timing a frame's geometry implies (`FrameConfig::timing`), from its
/// description entry (JSON), as JSON.
#[pyfunction]
fn frame_timing(frame_json: &str) -> PyResult<String> {
    let frame: FrameConfig = serde_json::from_str(frame_json)
        .map_err(|e| PyValueError::new_err(format!("invalid frame: {e}")))?;
    frame
        .check()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(serde_json::to_string(&frame.timing()).expect("timing serialises"))
}

/// A panic in the core is a defect of satcc, reported by Python in one line
/// (the PanicException carries its message): the default hook's message and
/// backtrace on stderr come only with SATCC_DEBUG set.
fn quiet_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::env::var_os("SATCC_DEBUG").is_some() {
            default(info);
        }
    }));
}

/// Reads a description as a run would, without building anything: a
/// ValueError for a value its type cannot hold (the scenario layer's
/// integer bounds are cross-checked against this).
#[pyfunction]
fn parse_description(description_json: &str) -> PyResult<()> {
    Description::from_json(description_json)
        .map(|_| ())
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Every entry's own checks on a normalised description, without building
/// anything (`impl Check for Description`): the scenario layer's last
/// validation step, so a rule the core enforces is written only there.
/// A ValueError with `path` and `reason` for the first refusal.
#[pyfunction]
fn check_description(py: Python<'_>, description_json: &str) -> PyResult<()> {
    let d = Description::from_json(description_json).map_err(|e| refused(py, e))?;
    d.check().map_err(|e| refused(py, e))
}

/// Panics with `message`: how the tests check that a panic in the core
/// reaches the user as a one-line internal error, exit 1.
#[pyfunction]
fn panic_for_test(message: &str) {
    panic!("{message}");
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    quiet_panics();
    m.add_class::<Simulation>()?;
    m.add_class::<Emulation>()?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(check_description, m)?)?;
    m.add_function(wrap_pyfunction!(fgn, m)?)?;
    m.add_function(wrap_pyfunction!(probe_metrics, m)?)?;
    m.add_function(wrap_pyfunction!(tcp_trace_states, m)?)?;
    m.add_function(wrap_pyfunction!(skyplex_frame, m)?)?;
    m.add_function(wrap_pyfunction!(frame_timing, m)?)?;
    m.add_function(wrap_pyfunction!(panic_for_test, m)?)?;
    m.add_function(wrap_pyfunction!(parse_description, m)?)?;
    Ok(())
}
