//! A host's TUN device: created inside the host's network namespace with
//! the host's address, its subnet and MTU, up and non-blocking. IPv4 only
//! (IFF_TUN without packet information: each read is one IP packet).
//! Not persistent: it disappears when the emulator closes it or dies.

use crate::netns;
use std::net::Ipv4Addr;
use std::path::Path;

pub fn open(
    netns: &Path,
    name: &str,
    address: Ipv4Addr,
    prefix_len: u8,
    mtu: u16,
) -> Result<tun::Device, String> {
    if prefix_len > 32 {
        return Err(format!("prefix length {prefix_len} is not 0..32"));
    }
    let mask = Ipv4Addr::from(
        u32::MAX
            .checked_shl(32 - u32::from(prefix_len))
            .unwrap_or(0),
    );
    netns::within(netns, || {
        let mut cfg = tun::Configuration::default();
        cfg.tun_name(name)
            .address(address)
            .netmask(mask)
            .mtu(mtu)
            .up();
        let dev = tun::create(&cfg).map_err(|e| {
            format!(
                "cannot create TUN device {name:?} in {}: {e}",
                netns.display()
            )
        })?;
        dev.set_nonblock()
            .map_err(|e| format!("cannot make TUN device {name:?} non-blocking: {e}"))?;
        Ok(dev)
    })
}
