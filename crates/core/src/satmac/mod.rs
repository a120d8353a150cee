//! DVB-RCS return-link medium access: the MF-TDMA frame and the timing of
//! the demand-assignment loop (`frame`), a terminal's capacity request
//! (`request`), and the NCC's allocator that turns requests into burst time
//! plans (`dama`). The tfrc-dama study's Skyplex configurations are presets
//! of `frame`.

pub mod dama;
pub mod frame;
pub mod request;

pub use dama::{Allocator, Assignment, DamaConfig};
pub use frame::{FrameConfig, Skyplex};
pub use request::{RequestConfig, Requester};
