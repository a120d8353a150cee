//! NetPIPE's results in a connection's summary: one group of keys per
//! block size it tested (`tcp.NAME.netpipe.block_NNNNNNNNN.*`), named so
//! that they sort by size. The application itself is `apps::netpipe`.
//!
//! `transfer_time_s` and `transfer_time_var_s2` are what the application
//! reports (`app.report`), and `throughput_bps` is the block over the
//! reported time, as NetPIPE computes it. With trials or NetPIPE's report,
//! each block also gives its trials, their exchanges and the mean and
//! variance over every timed exchange.

use crate::apps::netpipe::{NetPipe, Report};
use crate::scenario::summary::{num, put, Summary};

pub(crate) fn summarise(s: &mut Summary, prefix: &str, np: &NetPipe) {
    put(s, format!("{prefix}netpipe.blocks"), np.results.len());
    let cfg = np.config();
    if cfg.latency_repetitions > 0 {
        put(s, format!("{prefix}netpipe.latency_s"), num(np.latency_s()));
    }
    let trials = cfg.trials > 1 || cfg.report != Report::Mean;
    for r in &np.results {
        let q = format!("{prefix}netpipe.block_{:09}.", r.bytes);
        let t = r.transfer_time_s();
        put(s, q.clone() + "bytes", r.bytes);
        put(s, q.clone() + "repetitions", r.round_trips.tally.n);
        put(s, q.clone() + "transfer_time_s", num(t));
        put(
            s,
            q.clone() + "transfer_time_var_s2",
            num(r.transfer_time_var_s2()),
        );
        put(
            s,
            q.clone() + "throughput_bps",
            num(r.bytes as f64 * 8.0 / t),
        );
        if trials {
            put(s, q.clone() + "trials", r.trials.tally.n);
            put(s, q.clone() + "repetitions_per_trial", r.repetitions);
            let mean = r.exchange_mean_s();
            put(s, q.clone() + "exchanges_transfer_time_mean_s", num(mean));
            put(
                s,
                q + "exchanges_transfer_time_var_s2",
                num(r.exchange_var_s2()),
            );
        }
    }
}
