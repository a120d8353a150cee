//! Probes: named quantities sampled every `sample_interval` into time series.

use crate::engine::stats::TimeSeries;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Quantity {
    LinkQueuePackets(u32),
    LinkQueueBytes(u32),
    LinkCapacity(u32),
    /// Bits sent in the last interval / interval.
    LinkThroughput(u32),
    LinkDrops(u32),
    /// Units waiting at priority 0 (ATM: VBR) and 1 (ABR).
    LinkQueueHigh(u32),
    LinkQueueLow(u32),
    /// Bits of priority-0 / priority-1 units sent in the last interval.
    LinkThroughputHigh(u32),
    LinkThroughputLow(u32),
    /// The ERICA+ port's last interval: fair share and ABR capacity (cell
    /// line rate, bit/s) and load factor z.
    EricaFairShare(u32),
    EricaAbrCapacity(u32),
    EricaLoadFactor(u32),
    SinkThroughput(u32),
    SinkReceived(u32),
    /// Mean delay of the packets received in the last interval.
    SinkDelayMean(u32),
    SourceSent(u32),
    SourceRate(u32),
    TcpCwnd(u32),
    TcpSsthresh(u32),
    TcpFlight(u32),
    TcpSrtt(u32),
    TcpRto(u32),
    /// Window advertised by the receiving (`to`) side.
    TcpRwnd(u32),
    TcpGoodput(u32),
    TcpDelivered(u32),
    TcpRetransmissions(u32),
    /// Allowed cell rate of the ABR VC carrying the data (cell line rate,
    /// bit/s); NaN for a connection not over ATM.
    TcpAcr(u32),
}

impl Quantity {
    /// The quantity named by a probe description, with the index of its target.
    pub fn parse(target: &str, metric: &str, index: u32) -> Option<Quantity> {
        use Quantity::*;
        Some(match (target, metric) {
            ("link", "queue_packets") => LinkQueuePackets(index),
            ("link", "queue_bytes") => LinkQueueBytes(index),
            ("link", "capacity_bps") => LinkCapacity(index),
            ("link", "throughput_bps") => LinkThroughput(index),
            ("link", "drops") => LinkDrops(index),
            ("link", "queue_high_packets") => LinkQueueHigh(index),
            ("link", "queue_low_packets") => LinkQueueLow(index),
            ("link", "throughput_high_bps") => LinkThroughputHigh(index),
            ("link", "throughput_low_bps") => LinkThroughputLow(index),
            ("link", "erica_fair_share_bps") => EricaFairShare(index),
            ("link", "erica_abr_capacity_bps") => EricaAbrCapacity(index),
            ("link", "erica_load_factor") => EricaLoadFactor(index),
            ("sink", "throughput_bps") => SinkThroughput(index),
            ("sink", "received_packets") => SinkReceived(index),
            ("sink", "delay_mean_s") => SinkDelayMean(index),
            ("source", "sent_packets") => SourceSent(index),
            ("source", "rate_bps") => SourceRate(index),
            ("tcp", "cwnd_bytes") => TcpCwnd(index),
            ("tcp", "ssthresh_bytes") => TcpSsthresh(index),
            ("tcp", "flight_bytes") => TcpFlight(index),
            ("tcp", "srtt_s") => TcpSrtt(index),
            ("tcp", "rto_s") => TcpRto(index),
            ("tcp", "rwnd_bytes") => TcpRwnd(index),
            ("tcp", "goodput_bps") => TcpGoodput(index),
            ("tcp", "delivered_bytes") => TcpDelivered(index),
            ("tcp", "retransmissions") => TcpRetransmissions(index),
            ("tcp", "acr_bps") => TcpAcr(index),
            _ => return None,
        })
    }
}

pub struct Probe {
    pub name: String,
    pub quantity: Quantity,
    /// Cumulative counters at the previous sample, for interval rates.
    pub last: (f64, f64),
    pub series: TimeSeries,
}

impl Probe {
    pub fn new(name: String, quantity: Quantity) -> Probe {
        Probe {
            name,
            quantity,
            last: (0.0, 0.0),
            series: TimeSeries::default(),
        }
    }

    /// Rate of a cumulative counter over the interval since the last sample.
    pub fn per_interval(&mut self, cumulative: f64, interval_s: f64) -> f64 {
        let d = cumulative - self.last.0;
        self.last.0 = cumulative;
        d / interval_s
    }

    /// Mean of a cumulative sum over a cumulative count since the last sample.
    pub fn interval_mean(&mut self, sum: f64, count: f64) -> f64 {
        let (ds, dn) = (sum - self.last.0, count - self.last.1);
        self.last = (sum, count);
        if dn > 0.0 {
            ds / dn
        } else {
            f64::NAN
        }
    }
}
