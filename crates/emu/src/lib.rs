//! satcc's real-time emulator (docs/emulate.md): real Linux hosts, each in
//! its own network namespace, joined through TUN devices by the same models
//! the simulator runs. The models do not know they are emulated: the loop
//! (`engine`) drives a world through the core's driver API and the wall
//! clock, and moves packet bytes beside the PDUs that stand for them.
//!
//! Namespaces, addresses inside them and the hosts' commands are set up by
//! the caller (`satcc emulate`, Python); this crate creates the devices
//! inside the namespaces it is given and runs the loop.

pub mod capture;
pub mod clock;
pub mod device;
pub mod engine;
pub mod ipv4;
pub mod netns;
pub mod payloads;
pub mod release;
pub mod stalls;

pub use engine::{EmuConfig, Emulator, HostSetup, Report};
