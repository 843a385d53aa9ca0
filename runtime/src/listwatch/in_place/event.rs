//! Watch events as kube-apiserver writes them, their object decoded in place.

use kube::core::WatchEvent;

use super::decode::{DecodeFn, decode_with};
use crate::listwatch::{
    capacity::{Lengths, object_mute, scan},
    item::DecodeOptions,
};

/// Decodes a watch event line the way kube-apiserver writes one for an object,
/// `{"type":"MODIFIED","object":{…}}` (Go's encoding/json: `type` first, no whitespace),
/// with `decode`, `K`'s in-place decoder, on the object's bytes, as a list item is
/// decoded. `None` for any other line (a bookmark, an error, another shape) and for an
/// object that does not decode this way: the caller then decodes the line as before, so
/// that every error is the one it gives.
pub(crate) fn object_event<K: 'static>(
    line: &[u8],
    options: DecodeOptions,
    decode: DecodeFn,
) -> Option<WatchEvent<K>> {
    let rest = line.trim_ascii_end().strip_prefix(br#"{"type":""#)?;
    let (name, rest) = rest.split_at(rest.iter().position(|byte| *byte == b'"')?);
    let event = match name {
        b"ADDED" => WatchEvent::Added,
        b"MODIFIED" => WatchEvent::Modified,
        b"DELETED" => WatchEvent::Deleted,
        _ => return None,
    };
    let rest = rest.strip_prefix(br#"","object":"#)?;
    let object = rest.strip_suffix(b"}")?;
    // The object must end where the line's last brace begins: nothing follows it.
    let scanned = scan(object, object_mute(options)).filter(|s| s.end == object.len())?;
    decode_with(decode, object, &Lengths::new(scanned.lengths), options).map(event)
}

#[cfg(test)]
#[path = "event_tests.rs"]
mod tests;
