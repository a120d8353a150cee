//! NetPIPE's results in a connection's summary: one group of keys per
//! block size it tested (`tcp.NAME.netpipe.block_NNNNNNNNN.*`), named so
//! that they sort by size. The application itself is `apps::netpipe`.

use crate::apps::netpipe::NetPipe;
use crate::scenario::summary::{num, put, Summary};

pub fn summarise(s: &mut Summary, prefix: &str, np: &NetPipe) {
    put(s, format!("{prefix}netpipe.blocks"), np.results.len());
    for r in &np.results {
        let q = format!("{prefix}netpipe.block_{:09}.", r.bytes);
        let t = r.transfer_time_mean_s();
        put(s, q.clone() + "bytes", r.bytes);
        put(s, q.clone() + "repetitions", r.round_trips.n);
        put(s, q.clone() + "transfer_time_s", num(t));
        put(
            s,
            q.clone() + "transfer_time_var_s2",
            num(r.transfer_time_var_s2()),
        );
        put(s, q + "throughput_bps", num(r.bytes as f64 * 8.0 / t));
    }
}
