//! A pcap file per emulated host, as tcpdump on the host's interface would
//! see it: what the host sent (when the emulator read it) and what it
//! received (when the emulator wrote it), raw IPv4 with nanosecond time
//! stamps. Written with the `pcap-file` crate; readable by Wireshark,
//! tcpdump, scapy and dpkt.

use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, TsResolution};
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub struct Capture {
    writer: PcapWriter<BufWriter<File>>,
    /// The wall-clock time of model time zero.
    epoch: Duration,
}

impl Capture {
    pub fn create(path: &Path, start: SystemTime) -> Result<Capture, String> {
        let file =
            File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        let header = PcapHeader {
            datalink: DataLink::RAW,
            ts_resolution: TsResolution::NanoSecond,
            endianness: Endianness::native(),
            ..PcapHeader::default()
        };
        let writer = PcapWriter::with_header(BufWriter::new(file), header)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(Capture {
            writer,
            epoch: start.duration_since(UNIX_EPOCH).unwrap_or_default(),
        })
    }

    /// Records `packet`, seen at `since_start` after model time zero.
    pub fn record(&mut self, since_start: Duration, packet: &[u8]) -> Result<(), String> {
        let p = PcapPacket::new(self.epoch + since_start, packet.len() as u32, packet);
        self.writer
            .write_packet(&p)
            .map(|_| ())
            .map_err(|e| format!("cannot write a captured packet: {e}"))
    }

    pub fn finish(self) -> Result<(), String> {
        use std::io::Write;
        self.writer
            .into_writer()
            .flush()
            .map_err(|e| format!("cannot finish a capture: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pcap_file::pcap::PcapReader;

    #[test]
    fn packets_read_back_with_their_times() {
        let dir = std::env::temp_dir().join(format!("satcc-capture-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("h.pcap");
        let start = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let mut c = Capture::create(&path, start).unwrap();
        c.record(Duration::from_nanos(1_500), &[0x45, 0, 0, 20])
            .unwrap();
        c.finish().unwrap();
        let mut r = PcapReader::new(File::open(&path).unwrap()).unwrap();
        assert_eq!(r.header().datalink, DataLink::RAW);
        let p = r.next_packet().unwrap().unwrap();
        assert_eq!(
            p.timestamp,
            Duration::from_secs(1_700_000_000) + Duration::from_nanos(1_500)
        );
        assert_eq!(&p.data[..], &[0x45, 0, 0, 20]);
        assert!(r.next_packet().is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
