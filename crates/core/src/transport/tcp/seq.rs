//! Sequence numbers: the socket counts bytes of the stream with u64 offsets
//! (no wrap-around logic in the protocol code), and the wire carries the
//! low 32 bits as real TCP does (RFC 9293 §3.4). A receiver recovers the
//! full offset from the nearest value to what it expects.

/// The 32 bits that go on the wire.
pub(crate) fn wire(offset: u64) -> u32 {
    offset as u32
}

/// The u64 offset closest to `near` whose low 32 bits are `w`.
pub(crate) fn unwrap(near: u64, w: u32) -> u64 {
    let base = near & !0xffff_ffff;
    let candidates = [base.wrapping_sub(1 << 32), base, base + (1 << 32)];
    candidates
        .into_iter()
        .map(|b| b | w as u64)
        .min_by_key(|c| c.abs_diff(near))
        .unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwrap_across_the_32_bit_boundary() {
        let near = (1u64 << 32) - 100;
        assert_eq!(unwrap(near, wire(near + 200)), near + 200);
        assert_eq!(unwrap(near + 200, wire(near)), near);
        assert_eq!(unwrap(5, 3), 3);
        assert_eq!(unwrap(7 << 32, wire((7 << 32) + 12345)), (7 << 32) + 12345);
    }
}
