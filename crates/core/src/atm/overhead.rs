//! The ceiling TCP/IP over ATM can reach, from the encapsulation itself
//! (REFERENCE.md §2.5; Kalyanaraman, Vandalore, Jain et al., "Performance
//! of TCP over ABR with Long-Range Dependent VBR Background Traffic over
//! Terrestrial and Satellite ATM networks", §6): a segment of MSS bytes plus 40 bytes of TCP/IP
//! headers goes in LLC/SNAP and AAL5, rounded up to whole 53-byte cells;
//! under ABR the source also sends one forward RM cell every Nrm cells, so
//! data gets (Nrm − 1)/Nrm of the allowed cell rate.
//!
//! The paper's two figures come out of these functions as follows:
//! * MSS 512: 512 + 40 + 8 + 8 = 568 bytes → 12 cells; 512/(12·53) = 80.5 %
//!   on raw ATM and ×31/32 = 78.0 % of ABR capacity — the paper's "78 %"
//!   includes the RM-cell factor.
//! * MSS 9140 (the RFC 1577 MTU of 9180 less 40 header bytes): 192 cells;
//!   9140/(192·53) = 89.8 % raw and ×31/32 = 87.0 % — the paper's "87 %"
//!   includes the RM-cell factor too.
//!
//! Returning ACKs and SONET framing are not counted: the link rate given is
//! the ATM cell rate (149.76 Mbps of cells on a 155.52 Mbps OC-3c).

use super::aal5::cells_for_ip_packet;
use super::cell::CELL_BYTES;

/// IPv4 and TCP headers without options.
pub(crate) const TCP_IP_HEADER: u32 = 40;
/// Cells between forward RM cells (ATM Forum TM 4.0 default).
pub(crate) const NRM: u32 = 32;

/// Cells carrying one full-sized segment.
pub(crate) fn cells_per_segment(mss: u32) -> u32 {
    cells_for_ip_packet(mss + TCP_IP_HEADER)
}

/// TCP payload bytes per byte of cells on the wire.
pub(crate) fn atm_efficiency(mss: u32) -> f64 {
    mss as f64 / (cells_per_segment(mss) * CELL_BYTES) as f64
}

/// Share of the RM cells' slots left to data: (Nrm − 1)/Nrm.
pub(crate) fn rm_factor(nrm: u32) -> f64 {
    debug_assert!(nrm >= 2);
    (nrm - 1) as f64 / nrm as f64
}

/// TCP payload share of an ABR connection's cell rate, RM cells included.
pub(crate) fn abr_efficiency(mss: u32, nrm: u32) -> f64 {
    atm_efficiency(mss) * rm_factor(nrm)
}

/// Highest TCP payload rate (bit/s) over a cell rate of `link_bps`.
pub(crate) fn max_tcp_throughput(link_bps: f64, mss: u32) -> f64 {
    link_bps * atm_efficiency(mss)
}

/// Highest TCP payload rate (bit/s) over ABR capacity `abr_bps`, one FRM
/// cell every `nrm` cells.
pub(crate) fn max_tcp_throughput_abr(abr_bps: f64, mss: u32, nrm: u32) -> f64 {
    abr_bps * abr_efficiency(mss, nrm)
}

mod tests {
    use super::*;

    const OC3_CELL_RATE: f64 = 149.76e6;

    #[test]
    fn mss_512_is_twelve_cells() {
        assert_eq!(cells_per_segment(512), 12);
        assert_eq!(cells_per_segment(9140), 192);
    }

    #[test]
    fn paper_efficiency_figures() {
        // Paper §6: 512/(12·53) = 80.5 % raw, 78 % with Nrm = 32; 87 % for
        // MSS 9140. Within half a percentage point.
        let close = |x: f64, paper: f64| (x - paper).abs() < 0.005;
        assert!(close(atm_efficiency(512), 0.805), "{}", atm_efficiency(512));
        assert!(close(abr_efficiency(512, NRM), 0.78));
        assert!(close(abr_efficiency(9140, NRM), 0.87));
        // Without the RM factor MSS 9140 gives 89.8 %, not the paper's 87 %.
        assert!(!close(atm_efficiency(9140), 0.87));
    }

    #[test]
    fn paper_throughput_figures() {
        // "when the ABR capacity is 149.76 Mbps, the maximum TCP payload
        // rate is 116.3 Mbps": the formula gives 116.8 (0.78 × 149.76);
        // the paper's figure is 0.3 % lower, within 0.5 %.
        let abr = max_tcp_throughput_abr(OC3_CELL_RATE, 512, NRM);
        assert!((abr / 116.3e6 - 1.0).abs() < 0.005, "{abr}");
        // Row 1 of Table 1: 78 % of 93.32 Mbps of ABR capacity = 72.78.
        let row1 = max_tcp_throughput_abr(93.32e6, 512, NRM);
        assert!((row1 / 72.78e6 - 1.0).abs() < 0.005, "{row1}");
        assert!(max_tcp_throughput(OC3_CELL_RATE, 512) > abr);
    }
}
