//! A JSON text 64 bytes at a time, as bitmasks: which bytes are the structural characters
//! `{ } [ ] ,` outside strings. The technique is simdjson's first stage (Langdale and
//! Lemire, "Parsing Gigabytes of JSON per Second", 2019): a mask of the quotes that are not
//! escaped, turned by a prefix XOR into a mask of the bytes inside strings. The bytes are
//! classified by [`classify`](super::classify), and the escaped ones found from the runs of
//! backslashes without a branch per backslash ([`escaped`]).

use super::classify::{BLOCK, classify};

/// What one block leaves to the next.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Carry {
    /// The block ended inside a string.
    in_string: bool,
    /// The block ended with a backslash that escapes the next block's first byte.
    escaping: bool,
}

/// The structural characters of a block outside strings, by kind: bit `i` for byte `i`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Structural {
    /// `{` and `[`.
    pub(super) opens: u64,
    /// `[` alone.
    pub(super) arrays: u64,
    /// `}` and `]`.
    pub(super) closes: u64,
    pub(super) commas: u64,
}

impl Structural {
    /// Every structural character.
    pub(super) fn all(&self) -> u64 {
        self.opens | self.closes | self.commas
    }
}

/// The structural characters of `block` outside strings.
pub(super) fn structural(block: &[u8; BLOCK], carry: &mut Carry) -> Structural {
    let masks = classify(block);
    let escaped = if masks.backslashes == 0 && !carry.escaping {
        0
    } else {
        escaped(masks.backslashes, &mut carry.escaping)
    };
    let inside = prefix_xor(masks.quotes & !escaped) ^ if carry.in_string { u64::MAX } else { 0 };
    carry.in_string = inside >> (BLOCK - 1) == 1;
    let outside = !inside;
    Structural {
        opens: masks.opens & outside,
        arrays: masks.arrays & outside,
        closes: masks.closes & outside,
        commas: masks.commas & outside,
    }
}

/// The bytes escaped by a backslash: each backslash not itself escaped escapes the byte
/// after it, which for the last byte is the next block's first. Of the backslashes, only
/// one carried from the last block is in the result: whether the others are escaped
/// changes nothing, as only quotes are looked up in it.
///
/// Without a branch per backslash: in a run of backslashes, the first escapes the second,
/// the third the fourth, and so on, so the byte after the run is escaped when the run is
/// odd in length. Adding a run's first bit to the run carries through it to the bit just
/// past it; split by whether runs start on an even or an odd bit, that bit's parity tells
/// the run's.
fn escaped(backslashes: u64, escaping: &mut bool) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    let carried = u64::from(*escaping);
    // A first byte escaped from the last block escapes nothing itself.
    let escapers = backslashes & !carried;
    let starts = escapers & !(escapers << 1);
    let past_even_starts = escapers.wrapping_add(starts & EVEN) & !escapers;
    let (odd_sums, overflow) = escapers.overflowing_add(starts & !EVEN);
    let past_odd_starts = odd_sums & !escapers;
    // A run from an odd bit to the last is odd in length: it escapes the next block's first.
    *escaping = overflow;
    carried | (past_even_starts & !EVEN) | (past_odd_starts & EVEN)
}

/// Bit `i` of the result is the XOR of bits `0..=i` of `bits`: set from an opening quote
/// up to, not including, its closing one.
fn prefix_xor(mut bits: u64) -> u64 {
    let mut shift = 1;
    while shift < BLOCK {
        bits ^= bits << shift;
        shift *= 2;
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::escaped;

    /// The escaped bytes found a byte at a time, as a reader of the string finds them.
    fn escaped_one_by_one(backslashes: u64, mut escaping: bool) -> (u64, bool) {
        let mut escaped = 0;
        for at in 0..64 {
            if escaping {
                escaped |= 1 << at;
                escaping = false;
            } else if backslashes >> at & 1 == 1 {
                escaping = true;
            }
        }
        (escaped, escaping)
    }

    #[test]
    fn every_run_of_backslashes_escapes_as_read_one_byte_at_a_time() {
        // Every pattern of 16 bits at the block's start, middle and end, after a block that
        // did and did not leave the first byte escaped. Only the bytes that are not
        // backslashes are compared (see `escaped`).
        for pattern in 0..=u64::from(u16::MAX) {
            for shift in [0, 23, 48] {
                for carried in [false, true] {
                    let backslashes = pattern << shift | if shift == 23 { 1 } else { 0 };
                    let mut escaping = carried;
                    let found = escaped(backslashes, &mut escaping) & !backslashes;
                    let (expected, expected_escaping) = escaped_one_by_one(backslashes, carried);
                    assert_eq!(
                        (found, escaping),
                        (expected & !backslashes, expected_escaping),
                        "{backslashes:#066b}, carried {carried}"
                    );
                }
            }
        }
    }
}
