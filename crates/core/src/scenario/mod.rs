//! Builds a network from a validated scenario description and runs it.
//!
//! The description is the normalised JSON that the Python layer produces
//! after validation (docs/scenario.md); here it is only checked for internal
//! consistency, never re-validated for the user. `builder` writes
//! descriptions in Rust, for tests and benchmarks.

pub(crate) mod builder;
pub(crate) mod description;
pub(crate) mod fairness;
pub mod summary;
pub mod world;

pub use builder::ScenarioBuilder;
pub use description::Description;
pub use world::{StopReason, World};

/// A description that cannot be built (dangling name, impossible value),
/// with the key path where it goes wrong. The Python validator catches
/// most of these first; the binding reports the others with their path.
pub(crate) type BuildError = crate::engine::ConfigError;
