//! A JSON text 64 bytes at a time, as bitmasks: which bytes are the structural characters
//! `{ } [ ] ,` outside strings. The technique is simdjson's first stage (Langdale and
//! Lemire, "Parsing Gigabytes of JSON per Second", 2019): a mask of the quotes that are not
//! escaped, turned by a prefix XOR into a mask of the bytes inside strings. The per-byte
//! comparisons are plain loops over a fixed-size block, which the compiler turns into
//! vector compares; escapes, rare in Kubernetes objects, take a loop over the backslashes.

/// The bytes classified at a time.
pub(super) const BLOCK: usize = 64;

/// What one block leaves to the next.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Carry {
    /// The block ended inside a string.
    in_string: bool,
    /// The block ended with a backslash that escapes the next block's first byte.
    escaping: bool,
}

/// The structural characters of `block` outside strings: bit `i` for `block[i]`.
pub(super) fn structural(block: &[u8; BLOCK], carry: &mut Carry) -> u64 {
    let (quotes, backslashes, structural) = classify(block);
    let escaped = if backslashes == 0 && !carry.escaping {
        0
    } else {
        escaped(backslashes, &mut carry.escaping)
    };
    let inside = prefix_xor(quotes & !escaped) ^ if carry.in_string { u64::MAX } else { 0 };
    carry.in_string = inside >> (BLOCK - 1) == 1;
    structural & !inside
}

/// The quotes, backslashes and `{ } [ ] ,` of `block`, as three masks.
fn classify(block: &[u8; BLOCK]) -> (u64, u64, u64) {
    // One byte per input byte, all ones where it matches: loops the compiler vectorizes.
    let mut quotes = [0u8; BLOCK];
    let mut backslashes = [0u8; BLOCK];
    let mut structural = [0u8; BLOCK];
    for i in 0..BLOCK {
        let byte = block[i];
        // `[` and `]` differ from `{` and `}` only in the bit 0x20.
        let folded = byte | 0x20;
        quotes[i] = 0u8.wrapping_sub(u8::from(byte == b'"'));
        backslashes[i] = 0u8.wrapping_sub(u8::from(byte == b'\\'));
        structural[i] =
            0u8.wrapping_sub(u8::from(folded == b'{' || folded == b'}' || byte == b','));
    }
    (pack(&quotes), pack(&backslashes), pack(&structural))
}

/// Bit `i` set where `bytes[i]` is all ones (each byte is all ones or zero).
fn pack(bytes: &[u8; BLOCK]) -> u64 {
    let mut mask = 0;
    for (index, eight) in bytes.as_chunks::<8>().0.iter().enumerate() {
        // Byte `k` keeps its bit `k`; the multiplication adds the eight bytes, which
        // share no bit, into the top byte.
        let bits = u64::from_le_bytes(*eight) & 0x8040_2010_0804_0201;
        mask |= (bits.wrapping_mul(0x0101_0101_0101_0101) >> 56) << (8 * index);
    }
    mask
}

/// The bytes escaped by a backslash: each backslash not itself escaped escapes the byte
/// after it, which for the last byte is the next block's first.
fn escaped(mut backslashes: u64, escaping: &mut bool) -> u64 {
    let mut escaped = u64::from(std::mem::take(escaping));
    while backslashes != 0 {
        let at = backslashes.trailing_zeros();
        backslashes &= backslashes - 1;
        if escaped >> at & 1 == 1 {
            continue;
        }
        if at as usize == BLOCK - 1 {
            *escaping = true;
        } else {
            escaped |= 1 << (at + 1);
        }
    }
    escaped
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
