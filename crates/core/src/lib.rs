//! satcc-core: the discrete-event engine and the network models of satcc.
//!
//! Layers import downward only: `engine` (time, scheduler, RNG streams,
//! statistics) → `net` (PDU, queues, links, nodes, capacity and error
//! processes) → `transport` (TCP) → `apps` (traffic sources, sinks and the
//! applications over TCP) → `scenario` (builds a
//! network from a validated description and runs it). Models are plain state
//! machines driven by `poll(now)` / `poll_at()`, so the same link and queue
//! code can be driven by the event scheduler or by a real-time clock.
//! `atm` (the cell, AAL5 segmentation/reassembly) and `satmac` (the DVB-RCS
//! return link's frames, capacity requests and demand assignment) sit
//! beside `transport`.

//!
//! The API is what the binding, the emulator, the benchmarks and the
//! integration tests use: the description types and their model configs,
//! `World` and its driver, the summary format. Everything else is
//! `pub(crate)`, and `unreachable_pub` keeps a `pub` from appearing where
//! nothing outside the crate can reach it.

#![warn(unreachable_pub, missing_docs)]

pub mod apps;
pub mod atm;
pub mod engine;
pub mod net;
pub mod satmac;
pub mod scenario;
pub mod transport;

/// Version of the models; part of every run key, so results of different
/// versions are never mixed.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
