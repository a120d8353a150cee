//! Builds a network from a validated scenario description and runs it.
//!
//! The description is the normalised JSON that the Python layer produces
//! after validation (docs/scenario.md); here it is only checked for internal
//! consistency, never re-validated for the user. `builder` writes
//! descriptions in Rust, for tests and benchmarks.

pub mod builder;
pub mod description;
pub mod summary;
pub mod world;

pub use builder::ScenarioBuilder;
pub use description::Description;
pub use world::{StopReason, World};

/// A description that cannot be built (dangling name, impossible value).
/// The Python validator catches these first with user-facing messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildError(pub String);

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BuildError {}
