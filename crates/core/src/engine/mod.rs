//! The engine: simulated time, the event scheduler, per-component random
//! number streams and the statistics every model records with.

pub(crate) mod check;
pub(crate) mod rng;
pub(crate) mod scheduler;
pub mod stats;
pub(crate) mod time;
pub(crate) mod timer;

pub use check::{Check, ConfigError};
pub use rng::RngStream;
pub use scheduler::{Scheduler, Slot};
pub use time::{Duration, Rate, Time};
pub use timer::Timer;
