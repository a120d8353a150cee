//! DVB-RCS return-link medium access: the MF-TDMA frame and the timing of
//! the demand-assignment loop (`frame`), a terminal's capacity request
//! (`request`), the NCC's allocator that turns requests into burst time
//! plans (`dama`), and the loop that carries requests up and plans down
//! (`ncc`), and the terminal's Quick-Start agent with QSD (`qs_agent`).
//! The tfrc-dama study's Skyplex configurations are presets
//! of `frame`.

pub(crate) mod dama;
pub(crate) mod frame;
pub(crate) mod ncc;
pub(crate) mod qs_agent;
pub(crate) mod request;

pub use dama::{Allocator, Assignment, DamaConfig};
pub use frame::{FrameConfig, Skyplex};
pub use ncc::{Ncc, Tbtp};
pub use qs_agent::{QsAgent, QsAgentConfig};
pub use request::{RequestConfig, Requester};
