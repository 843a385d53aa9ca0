//! The scan as it was first written: a byte at a time. The tests hold the block scan to it.

use super::Scanned;

/// Off the mute path.
const OFF_PATH: usize = usize::MAX;

/// A container being scanned.
#[derive(Clone, Copy)]
struct Frame {
    object: bool,
    /// An array whose length is recorded: its slot in the output.
    slot: Option<usize>,
    /// Inside the muted value: its arrays are left out of the output.
    muted: bool,
    /// An object: how many keys of the mute path lead to it ([`OFF_PATH`] if none do).
    on_path: usize,
}

/// Scans the object or array starting at `input[0]`. Arrays inside the value at `mute`
/// (a path of object keys from the root, such as `metadata.managedFields`) are left out,
/// since the decoder skips that value without visiting it. `None` when the value does
/// not start with `{` or `[`, or does not end within `input`.
///
/// The scan trusts the input to be JSON: a malformed value gives wrong lengths (they are
/// only capacity hints) and serde_json reports the error when decoding.
pub(super) fn reference_scan(input: &[u8], mute: &[&str]) -> Option<Scanned> {
    if !matches!(input.first(), Some(b'{' | b'[')) {
        return None;
    }
    let mut lengths = Vec::new();
    let mut stack: Vec<Frame> = Vec::with_capacity(16);
    // After a key: how many keys of the mute path it completes (OFF_PATH if it leaves it).
    let mut key_on_path = if mute.is_empty() { OFF_PATH } else { 0 };
    let mut expect_key = false;
    let mut i = 0;
    while i < input.len() {
        let byte = input[i];
        match byte {
            b'"' => {
                let end = string_end(input, i + 1)?;
                if expect_key {
                    let on = stack.last().map_or(OFF_PATH, |frame| frame.on_path);
                    key_on_path = match mute.get(on) {
                        Some(key) if &input[i + 1..end] == key.as_bytes() => on + 1,
                        _ => OFF_PATH,
                    };
                    expect_key = false;
                }
                i = end + 1;
                continue;
            }
            b'{' | b'[' => {
                let muted = stack.last().is_some_and(|frame| frame.muted)
                    || (!mute.is_empty() && key_on_path == mute.len());
                let object = byte == b'{';
                let slot = (!object && !muted).then(|| {
                    lengths.push(u32::from(first_value_follows(input, i + 1)));
                    lengths.len() - 1
                });
                let on_path =
                    if object && key_on_path < mute.len() { key_on_path } else { OFF_PATH };
                stack.push(Frame { object, slot, muted, on_path });
                expect_key = object;
                key_on_path = OFF_PATH;
            }
            b'}' | b']' => {
                stack.pop();
                if stack.is_empty() {
                    return Some(Scanned { lengths, end: i + 1 });
                }
                expect_key = false;
                key_on_path = OFF_PATH;
            }
            b',' => {
                key_on_path = OFF_PATH;
                if let Some(frame) = stack.last() {
                    if let Some(slot) = frame.slot {
                        lengths[slot] += 1;
                    }
                    expect_key = frame.object;
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The offset of the `"` closing the string whose contents start at `from`.
fn string_end(input: &[u8], mut from: usize) -> Option<usize> {
    loop {
        match *input.get(from)? {
            b'"' => return Some(from),
            // An escape: skip the escaped byte (`\"`, `\\`, the `u` of `\uXXXX`).
            b'\\' => from += 2,
            _ => from += 1,
        }
    }
}

/// Whether an array whose `[` is just before `from` holds at least one value.
fn first_value_follows(input: &[u8], from: usize) -> bool {
    input[from..].iter().find(|byte| !byte.is_ascii_whitespace()).is_some_and(|byte| *byte != b']')
}
