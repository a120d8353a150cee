//! The time structure of a DVB-RCS return link (EN 301 790 MF-TDMA:
//! time slots → frames → multi-frames → super-frames) and the timing of the
//! demand-assignment loop that follows from it, as the tfrc-dama paper sets
//! it up for the Skyplex Data platform (section 2.2, section 3.1, Table I).
//!
//! A slot carries one burst; the NCC assigns slots per multi-frame (the
//! allocation period T_f) and sends one burst time plan (TBTP) per
//! super-frame (T_b). Everything the loop's timing needs is derived here
//! from the frame geometry and the propagation delay, never written in:
//! the slot granularity, T_f, T_b, the allocation delay T_a, and the
//! paper's mean RTT, T_q,max (eq. (3)) and T_q,opt (eq. (6)).
//!
//! Skyplex in the paper: a 6.336 Mb/s shared channel; a slot is a burst of
//! eight 188-byte MPEG-2 TS packets (1504 bytes, 1.899 ms); a frame is six
//! slots; a multi-frame groups 4 frames (the *small-frame* configuration,
//! 24 slots, 45.6 ms) or 24 frames (*large-frame*, 144 slots, 273 ms); a
//! super-frame is three multi-frames (137 ms, 820 ms). One slot per
//! multi-frame is the granularity: 6.336 Mb/s / 24 = 264 kb/s for the small
//! frame and / 144 = 44 kb/s for the large one. The paper's "352 kb/s for
//! both LR and HR" is one slot of a single six-slot LR frame (2.112 Mb/s /
//! 6); its "44 kb/s for both" holds for 8 LR or 24 HR frames per
//! multi-frame. The small-frame runs therefore have a 264 kb/s granularity
//! (docs/tfrc-dama.md discusses it).

use crate::engine::{Check, ConfigError, Duration, Time};
use serde::{Deserialize, Serialize};

/// Bytes of one MPEG-2 transport-stream packet.
pub(crate) const MPEG_TS_BYTES: u32 = 188;

/// Beyond this a burst of a few bytes lasts under a picosecond, the
/// clock's tick: the slot would round to nothing (as for links, 1 Tb/s).
pub(crate) const MAX_CHANNEL_BPS: f64 = 1e12;

/// A return link's frame geometry and propagation delay.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrameConfig {
    /// The shared channel's bit rate, all terminals together.
    pub(crate) channel_bps: f64,
    /// Bytes of one burst (one slot).
    pub(crate) slot_bytes: u32,
    pub(crate) slots_per_frame: u32,
    pub(crate) frames_per_multiframe: u32,
    pub(crate) multiframes_per_superframe: u32,
    /// One satellite hop, terminal to terminal (and NCC to terminal on the
    /// forward link): T_p.
    #[serde(rename = "propagation_ps")]
    pub propagation: Duration,
}

/// The Skyplex configurations of the paper.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Skyplex {
    /// 24 slots per multi-frame.
    Small,
    /// 144 slots per multi-frame (the Skyplex Data system's own).
    Large,
}

impl FrameConfig {
    /// A Skyplex preset with Table I's T_p = 252 ms (section 3.2 says
    /// 250 ms; Table I's derived values need 252).
    pub fn skyplex(size: Skyplex) -> FrameConfig {
        FrameConfig {
            channel_bps: 6.336e6,
            slot_bytes: 8 * MPEG_TS_BYTES,
            slots_per_frame: 6,
            frames_per_multiframe: match size {
                Skyplex::Small => 4,
                Skyplex::Large => 24,
            },
            multiframes_per_superframe: 3,
            propagation: Duration::from_millis(252),
        }
    }

    /// The super-frame in ps, None when a product overflows: `check`'s
    /// proof that the methods below cannot.
    fn superframe_ps(&self) -> Option<u64> {
        let per_multiframe = self
            .slots_per_frame
            .checked_mul(self.frames_per_multiframe)?;
        let multiframe = self.slot().ps().checked_mul(u64::from(per_multiframe))?;
        let superframe = multiframe.checked_mul(u64::from(self.multiframes_per_superframe))?;
        // Room for the instants a super-frame apart that the loop adds up.
        (superframe < u64::MAX / 8).then_some(superframe)
    }

    /// One slot: a burst at the channel rate, to the picosecond. Every
    /// longer period is a whole number of slots, so the frame grid never
    /// drifts.
    pub(crate) fn slot(&self) -> Duration {
        let bits = f64::from(self.slot_bytes) * 8.0;
        Duration::from_secs_f64(bits / self.channel_bps)
    }

    pub(crate) fn slots_per_multiframe(&self) -> u32 {
        self.slots_per_frame * self.frames_per_multiframe
    }

    /// The allocation period T_f.
    pub(crate) fn multiframe(&self) -> Duration {
        Duration(self.slot().ps() * u64::from(self.slots_per_multiframe()))
    }

    /// The TBTP period T_b, also the request measurement interval T_r.
    pub fn superframe(&self) -> Duration {
        Duration(self.multiframe().ps() * u64::from(self.multiframes_per_superframe))
    }

    /// The rate of one slot per multi-frame: the allocation granularity.
    pub(crate) fn granularity_bps(&self) -> f64 {
        f64::from(self.slot_bytes) * 8.0 / self.multiframe().as_secs_f64()
    }

    /// Slots per multi-frame that carry `bps`, rounded up.
    pub(crate) fn slots_for(&self, bps: f64) -> u32 {
        let exact = bps.max(0.0) / self.granularity_bps();
        // A rate a rounding error above a whole number of slots needs no
        // extra slot.
        (exact - 1e-9).ceil().max(0.0) as u32
    }

    /// When a request made ready at the super-frame boundary `ready` is
    /// heard by the NCC: the terminal sends it in the next multi-frame (at
    /// its end at the latest) and it crosses one hop.
    pub(crate) fn request_heard(&self, ready: Time) -> Time {
        ready + self.multiframe() + self.propagation
    }

    /// The first TBTP instant (a super-frame boundary) at or after `t`:
    /// when the NCC next computes a plan.
    pub(crate) fn next_tbtp(&self, t: Time) -> Time {
        let tb = self.superframe().ps();
        Time(t.ps().div_ceil(tb) * tb)
    }

    /// The super-frame boundary from which a plan broadcast at `sent`
    /// applies: it crosses the forward link (T_p) and the terminal must
    /// hold it one allocation period before the super-frame it describes.
    ///
    /// That lead of one multi-frame is an assumption (the paper gives only
    /// the resulting T_a): without it the small frame's T_a would be
    /// 5·T_b, not Table I's 6·T_b; with it both Table I values follow
    /// (6·T_b small, 2·T_b large).
    pub(crate) fn plan_applies(&self, sent: Time) -> Time {
        self.next_tbtp(sent + self.propagation + self.multiframe())
    }

    /// The allocation delay T_a: from a request ready at a super-frame
    /// boundary to the super-frame whose plan answers it.
    pub fn allocation_delay(&self) -> Duration {
        let ready = Time(self.superframe().ps());
        let computed = self.next_tbtp(self.request_heard(ready));
        self.plan_applies(computed).since(ready)
    }

    /// The paper's mean RTT, RTT_m = T_f + 2·T_p (Table I): half a
    /// multi-frame's wait for a slot in each direction plus two hops.
    pub(crate) fn mean_rtt(&self) -> Duration {
        self.multiframe() + self.propagation + self.propagation
    }

    /// Eq. (3): T_q,max = T_r/2 + T_a − RTT_m, the QS-Request delay that
    /// makes the QS-Response and the first DAMA allocation arrive together
    /// on average (T_r = T_b).
    pub fn tq_max(&self) -> Duration {
        let t = self.superframe().as_secs_f64() / 2.0 + self.allocation_delay().as_secs_f64()
            - self.mean_rtt().as_secs_f64();
        Duration::from_secs_f64(t.max(0.0))
    }

    /// Eq. (6): T_q,opt = (2·(T_r + T_a) − 3·RTT_m)/5, the smallest delay
    /// for which the E2ED keeps falling after its first maximum.
    pub fn tq_opt(&self) -> Duration {
        let tr_ta = self.superframe().as_secs_f64() + self.allocation_delay().as_secs_f64();
        let t = (2.0 * tr_ta - 3.0 * self.mean_rtt().as_secs_f64()) / 5.0;
        Duration::from_secs_f64(t.max(0.0))
    }
}

impl Check for FrameConfig {
    fn check(&self) -> Result<(), ConfigError> {
        if !(self.channel_bps.is_finite() && self.channel_bps > 0.0) {
            return Err("channel_bps must be positive".into());
        }
        if self.channel_bps > MAX_CHANNEL_BPS {
            return Err(ConfigError::new(format!(
                "channel_bps above {MAX_CHANNEL_BPS:e} is not supported (a slot of a few \
                 bytes would last under a picosecond)"
            )));
        }
        if self.slot_bytes == 0
            || self.slots_per_frame == 0
            || self.frames_per_multiframe == 0
            || self.multiframes_per_superframe == 0
        {
            return Err(
                "slot_bytes and the slot, frame and multi-frame counts must be positive".into(),
            );
        }
        self.superframe_ps().map(|_| ()).ok_or_else(|| {
            "the super-frame (slots per frame x frames per multi-frame x multi-frames per \
             super-frame slots) lasts more than the 26 days a frame may span"
                .into()
        })
    }
}

/// The loop's timing of a frame, in seconds and bits/s: what the paper's
/// Table I lists, as the analysis (`satcc.analysis.tfrc_fluid`) and the
/// study read it, so that T_a and its consequences are derived only here.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FrameTiming {
    pub(crate) slot_s: f64,
    pub(crate) slots_per_multiframe: u32,
    pub(crate) multiframe_s: f64,
    pub(crate) superframe_s: f64,
    pub(crate) allocation_delay_s: f64,
    /// T_a in super-frames (6 small, 2 large).
    pub(crate) allocation_delay_superframes: f64,
    pub(crate) propagation_s: f64,
    pub(crate) mean_rtt_s: f64,
    pub(crate) tq_max_s: f64,
    pub(crate) tq_opt_s: f64,
    pub(crate) granularity_bps: f64,
    pub(crate) channel_bps: f64,
}

impl FrameConfig {
    /// The timing of the demand-assignment loop over this frame, as the
    /// paper's Table I lists it: slot, multi-frame, super-frame, allocation
    /// delay T_a, mean RTT, T_q,max, T_q,opt and the allocation granularity.
    pub fn timing(&self) -> FrameTiming {
        let s = |d: Duration| d.as_secs_f64();
        FrameTiming {
            slot_s: s(self.slot()),
            slots_per_multiframe: self.slots_per_multiframe(),
            multiframe_s: s(self.multiframe()),
            superframe_s: s(self.superframe()),
            allocation_delay_s: s(self.allocation_delay()),
            allocation_delay_superframes: self.allocation_delay().ps() as f64
                / self.superframe().ps() as f64,
            propagation_s: s(self.propagation),
            mean_rtt_s: s(self.mean_rtt()),
            tq_max_s: s(self.tq_max()),
            tq_opt_s: s(self.tq_opt()),
            granularity_bps: self.granularity_bps(),
            channel_bps: self.channel_bps,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(d: Duration) -> f64 {
        d.as_secs_f64() * 1e3
    }

    #[test]
    fn skyplex_periods_match_section_2_2_and_table_1() {
        let small = FrameConfig::skyplex(Skyplex::Small);
        let large = FrameConfig::skyplex(Skyplex::Large);
        // A slot: 1504 bytes at 6.336 Mb/s (also the paper's 1.8 ms phase step).
        assert!((ms(small.slot()) - 12032.0 / 6336.0).abs() < 1e-9);
        // T_f: 45.6 and 273 ms; T_b: 137 and 820 ms.
        assert!((ms(small.multiframe()) - 45.58).abs() < 0.01);
        assert!((ms(large.multiframe()) - 273.45).abs() < 0.01);
        assert!((ms(small.superframe()) - 136.7).abs() < 0.1);
        assert!((ms(large.superframe()) - 820.4).abs() < 0.1);
        assert_eq!(large.superframe().ps(), 432 * large.slot().ps());
    }

    #[test]
    fn granularity_is_one_slot_per_multiframe() {
        let small = FrameConfig::skyplex(Skyplex::Small);
        let large = FrameConfig::skyplex(Skyplex::Large);
        assert!((large.granularity_bps() - 44_000.0).abs() < 1.0);
        assert!((small.granularity_bps() - 264_000.0).abs() < 1.0);
        assert_eq!(large.slots_for(256_000.0), 6);
        assert_eq!(large.slots_for(44_000.0), 1);
        assert_eq!(large.slots_for(0.0), 0);
        assert_eq!(small.slots_for(256_000.0), 1);
    }

    /// Table I: T_a = 6·T_b (820 ms) small, 2·T_b (1641 ms) large.
    #[test]
    fn allocation_delay_follows_from_the_timing() {
        let small = FrameConfig::skyplex(Skyplex::Small);
        let large = FrameConfig::skyplex(Skyplex::Large);
        assert_eq!(small.allocation_delay().ps(), 6 * small.superframe().ps());
        assert_eq!(large.allocation_delay().ps(), 2 * large.superframe().ps());
        assert!((ms(small.allocation_delay()) - 820.0).abs() < 1.0);
        assert!((ms(large.allocation_delay()) - 1641.0).abs() < 1.0);
    }

    /// Table I: RTT_m 550 and 777 ms; T_q,max 339 and 1273 ms. Eq. (6)
    /// gives 53 and 518 ms where section 3.5 quotes 55 and 520.
    #[test]
    fn quick_start_delays_of_table_1_and_eq_6() {
        let small = FrameConfig::skyplex(Skyplex::Small);
        let large = FrameConfig::skyplex(Skyplex::Large);
        assert!((ms(small.mean_rtt()) - 549.6).abs() < 0.1);
        assert!((ms(large.mean_rtt()) - 777.5).abs() < 0.1);
        assert!(
            (ms(small.tq_max()) - 339.0).abs() < 1.0,
            "{}",
            ms(small.tq_max())
        );
        assert!(
            (ms(large.tq_max()) - 1273.6).abs() < 1.0,
            "{}",
            ms(large.tq_max())
        );
        assert!(
            (ms(small.tq_opt()) - 53.0).abs() < 1.0,
            "{}",
            ms(small.tq_opt())
        );
        assert!(
            (ms(large.tq_opt()) - 518.0).abs() < 1.0,
            "{}",
            ms(large.tq_opt())
        );
    }

    #[test]
    fn the_250_ms_hop_of_section_3_2_keeps_the_same_allocation_delay() {
        let mut large = FrameConfig::skyplex(Skyplex::Large);
        large.propagation = Duration::from_millis(250);
        assert_eq!(large.allocation_delay().ps(), 2 * large.superframe().ps());
    }

    #[test]
    fn bad_geometry_is_refused() {
        let mut f = FrameConfig::skyplex(Skyplex::Small);
        f.slots_per_frame = 0;
        assert!(f.check().is_err());
        f = FrameConfig::skyplex(Skyplex::Small);
        f.channel_bps = -1.0;
        assert!(f.check().unwrap_err().to_string().contains("channel_bps"));
    }

    #[test]
    fn a_frame_beyond_the_clock_is_refused_not_divided_by_zero() {
        // 1e8 Gb/s: the slot rounded to 0 ps and next_tbtp divided by it.
        let mut f = FrameConfig::skyplex(Skyplex::Large);
        f.channel_bps = 1e17;
        assert!(f
            .check()
            .unwrap_err()
            .to_string()
            .contains("channel_bps above"));
        f.channel_bps = MAX_CHANNEL_BPS;
        assert!(f.check().is_ok() && f.slot().ps() > 0);
        f.timing(); // no panic at the limit
        f = FrameConfig::skyplex(Skyplex::Large);
        f.slots_per_frame = u32::MAX;
        assert!(f.check().unwrap_err().to_string().contains("super-frame"));
        f = FrameConfig::skyplex(Skyplex::Large);
        f.channel_bps = 1.0;
        f.multiframes_per_superframe = u32::MAX;
        assert!(f.check().unwrap_err().to_string().contains("super-frame"));
    }
}
