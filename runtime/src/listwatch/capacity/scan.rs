//! The pre-scan: one pass over an object's JSON that finds where it ends and how many
//! elements each of its arrays holds, in document order.
//!
//! [`blocks`](super::blocks) finds the structural characters outside strings 64 bytes at
//! a time, and only those are visited here: about 1,000 of a realistic Pod's 9,000 bytes.

use super::blocks::{BLOCK, Carry, structural};

/// Off the mute path.
const OFF_PATH: usize = usize::MAX;

/// A container being scanned.
#[derive(Clone, Copy)]
struct Frame {
    /// An array whose length is recorded: its slot in the output.
    slot: Option<usize>,
    /// Inside the muted value: its arrays are left out of the output.
    muted: bool,
    /// An object: how many keys of the mute path lead to it ([`OFF_PATH`] if none do, and
    /// for an array).
    on_path: usize,
}

/// The lengths of the arrays of one JSON value, in the order their `[` appear, and the
/// offset just past the value.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Scanned {
    pub(crate) lengths: Vec<u32>,
    pub(crate) end: usize,
}

/// Scans the object or array starting at `input[0]`. Arrays inside the value at `mute`
/// (a path of object keys from the root, such as `metadata.managedFields`) are left out,
/// since the decoder skips that value without visiting it. `None` when the value does
/// not start with `{` or `[`, or does not end within `input`.
///
/// The scan trusts the input to be JSON: a malformed value gives wrong lengths (they are
/// only capacity hints) and serde_json reports the error when decoding.
pub(crate) fn scan(input: &[u8], mute: &[&str]) -> Option<Scanned> {
    if !matches!(input.first(), Some(b'{' | b'[')) {
        return None;
    }
    let mut scanner = Scanner {
        input,
        mute,
        lengths: Vec::new(),
        stack: Vec::with_capacity(16),
        key_on_path: if mute.is_empty() { OFF_PATH } else { 0 },
    };
    let mut carry = Carry::default();
    let (blocks, tail) = input.as_chunks::<BLOCK>();
    for (index, block) in blocks.iter().enumerate() {
        if let Some(end) = scanner.visit(index * BLOCK, structural(block, &mut carry)) {
            return Some(Scanned { lengths: scanner.lengths, end });
        }
    }
    // The last bytes, padded with spaces (never structural).
    let mut last = [b' '; BLOCK];
    last[..tail.len()].copy_from_slice(tail);
    let end = scanner.visit(blocks.len() * BLOCK, structural(&last, &mut carry))?;
    Some(Scanned { lengths: scanner.lengths, end })
}

struct Scanner<'a> {
    input: &'a [u8],
    mute: &'a [&'a str],
    lengths: Vec<u32>,
    stack: Vec<Frame>,
    /// After a key: how many keys of the mute path it completes (OFF_PATH if it leaves
    /// it).
    key_on_path: usize,
}

impl Scanner<'_> {
    /// Visits the structural characters at `base` plus each set bit of `events`, in
    /// order; the offset past the value if it ends among them.
    fn visit(&mut self, base: usize, mut events: u64) -> Option<usize> {
        while events != 0 {
            let at = base + events.trailing_zeros() as usize;
            events &= events - 1;
            match self.input[at] {
                byte @ (b'{' | b'[') => self.open(at, byte == b'{'),
                b',' => self.next_value(at),
                _ => {
                    self.stack.pop();
                    if self.stack.is_empty() {
                        return Some(at + 1);
                    }
                    self.key_on_path = OFF_PATH;
                }
            }
        }
        None
    }

    /// An object or array opens at `at`.
    fn open(&mut self, at: usize, object: bool) {
        let muted = self.stack.last().is_some_and(|frame| frame.muted)
            || (!self.mute.is_empty() && self.key_on_path == self.mute.len());
        let slot = (!object && !muted).then(|| {
            self.lengths.push(u32::from(first_value_follows(self.input, at + 1)));
            self.lengths.len() - 1
        });
        let on_path =
            if object && self.key_on_path < self.mute.len() { self.key_on_path } else { OFF_PATH };
        self.stack.push(Frame { slot, muted, on_path });
        self.key_on_path = self.key_after(at + 1, on_path);
    }

    /// A comma at `at`: one more element of an array, or one more key of an object.
    fn next_value(&mut self, at: usize) {
        let Some(frame) = self.stack.last() else {
            return;
        };
        if let Some(slot) = frame.slot {
            self.lengths[slot] += 1;
        }
        self.key_on_path = self.key_after(at + 1, frame.on_path);
    }

    /// In an object `on` keys down the mute path, whether the key starting at `from` is
    /// the next one: how many keys of the path it completes, or [`OFF_PATH`].
    fn key_after(&self, from: usize, on: usize) -> usize {
        let Some(key) = self.mute.get(on) else {
            return OFF_PATH;
        };
        let rest = skip_whitespace(self.input, from);
        // The key's text holds no quote or backslash, so its string ends where it does.
        let matches = rest.len() > key.len() + 1
            && rest[0] == b'"'
            && &rest[1..=key.len()] == key.as_bytes()
            && rest[key.len() + 1] == b'"';
        if matches { on + 1 } else { OFF_PATH }
    }
}

/// `input` from `from` on, without its leading whitespace.
fn skip_whitespace(input: &[u8], from: usize) -> &[u8] {
    let rest = input.get(from..).unwrap_or_default();
    let start = rest.iter().position(|byte| !byte.is_ascii_whitespace()).unwrap_or(rest.len());
    &rest[start..]
}

/// Whether an array whose `[` is just before `from` holds at least one value.
fn first_value_follows(input: &[u8], from: usize) -> bool {
    skip_whitespace(input, from).first().is_some_and(|byte| *byte != b']')
}
