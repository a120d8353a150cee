//! The engine: simulated time, the event scheduler, per-component random
//! number streams and the statistics every model records with.

pub mod check;
pub mod rng;
pub mod scheduler;
pub mod stats;
pub mod time;
pub mod timer;

pub use check::{Check, ConfigError};
pub use rng::RngStream;
pub use scheduler::{Scheduler, Slot};
pub use time::{Duration, Rate, Time};
pub use timer::Timer;
