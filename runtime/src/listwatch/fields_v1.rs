//! Decoding a `managedFields` entry's `fieldsV1` once per distinct text: a text this
//! thread decoded recently is cloned from the value it decoded to, not parsed again.
//!
//! k8s-openapi's `FieldsV1` is a `serde_json::Value`, and building it is the largest
//! single cost of a typed list of Pods (about 46 % of a 10,000-Pod sync's CPU from a real
//! kube-apiserver, tests/BENCH.md). client-go keeps the raw bytes instead. Many of those
//! texts repeat: every Pod of a ReplicaSet carries kube-controller-manager's entry for the
//! same template, byte for byte (the owner's uid and the label keys are in it, no values),
//! and a list returns a ReplicaSet's Pods one after another, in name order. kubelet's
//! entry for the status names the Pod's IP, so it differs Pod by Pod.
//!
//! A clone makes the same allocations as a parse (the `BTreeMap` nodes and key `String`s
//! are most of the cost), but skips the parsing and the ordered inserts. What it costs:
//! the text is found first (serde_json cannot seek, so its end is found by a skip, about a
//! tenth of a parse) and hashed. Per Pod, 10,000 in a fresh process (tests/BENCH.md):
//! kube-controller-manager's 3.5 KB text 25.5–29.4 µs instead of 34.3–35.5, kubelet's
//! 0.7 KB one, never seen twice, 6.9–8.4 µs instead of 5.9–6.3. In a 10,000-Pod sync
//! from a real kube-apiserver, whose Pods all carry one text, the informer's user time
//! fell by 12–21 % with JSON and 26–38 % with protobuf.
//!
//! [`Recent`] keeps, per thread, the hashes of the last texts it saw (a text is kept only
//! when it comes a second time, so a text seen once costs no clone) and a few texts with
//! their values. A hit is decided by comparing the whole text, never by the hash alone.
//! It holds at most [`VALUES`] texts of at most [`MAX_TEXT`] bytes each and their values
//! (about 12 times the text's size in heap), so under 4 MB per decoding thread at worst
//! and under 1 MB with Pods' usual 3–5 KB texts, for as long as the thread lives.

use std::{cell::RefCell, hash::BuildHasher, marker::PhantomData};

use serde_json::Value;

use super::json_input::decode_all;

/// Texts whose hashes are remembered: a text is kept on its second sighting.
const SEEN: usize = 256;
/// Texts kept with their values.
pub(crate) const VALUES: usize = 16;
/// The longest text kept: longer ones are always parsed.
pub(crate) const MAX_TEXT: usize = 16 * 1024;

thread_local! {
    static RECENT: RefCell<Recent> = RefCell::new(Recent::new());
}

/// Decodes `text`, a `fieldsV1` value, as [`decode_all`] does, through this thread's
/// [`Recent`] texts.
pub(crate) fn decode(text: &[u8]) -> serde_json::Result<Value> {
    // No cache while the thread's locals are being torn down.
    RECENT.try_with(|recent| recent.borrow_mut().decode(text)).unwrap_or_else(|_| parse(text))
}

/// One JSON document, as a `Value`.
fn parse(text: &[u8]) -> serde_json::Result<Value> {
    decode_all(text, PhantomData::<Value>)
}

/// One kept text and the value it decodes to.
struct Kept {
    hash: u64,
    text: Box<[u8]>,
    value: Value,
}

/// The recently seen `fieldsV1` texts of one thread: hashes in `seen`, and in `values`
/// the texts seen at least twice, with their values. Both tables are direct-mapped by
/// the text's hash: a newer text takes its slot from an older one.
pub(crate) struct Recent {
    hasher: fn(&[u8]) -> u64,
    seen: Box<[u64; SEEN]>,
    values: [Option<Kept>; VALUES],
}

impl Recent {
    pub(crate) fn new() -> Self {
        Self::with_hasher(hash)
    }

    /// With another hash function: the tests make texts collide.
    pub(crate) fn with_hasher(hasher: fn(&[u8]) -> u64) -> Self {
        Self { hasher, seen: Box::new([0; SEEN]), values: std::array::from_fn(|_| None) }
    }

    /// Decodes `text`: a clone of its value if it is kept, else parsed (and kept if this
    /// is its second sighting and it is at most [`MAX_TEXT`] bytes long).
    pub(crate) fn decode(&mut self, text: &[u8]) -> serde_json::Result<Value> {
        if text.len() > MAX_TEXT {
            return parse(text);
        }
        let hash = (self.hasher)(text);
        if let Some(value) = self.kept(hash, text) {
            return Ok(value.clone());
        }
        let value = parse(text)?;
        let seen = &mut self.seen[(hash >> 32) as usize % SEEN];
        if *seen == hash {
            let kept = Kept { hash, text: text.into(), value: value.clone() };
            self.values[hash as usize % VALUES] = Some(kept);
        } else {
            *seen = hash;
        }
        Ok(value)
    }

    /// The value of `text` (whose hash is `hash`), if it is kept: the whole text must match.
    fn kept(&self, hash: u64, text: &[u8]) -> Option<&Value> {
        let kept = self.values[hash as usize % VALUES].as_ref()?;
        (kept.hash == hash && *kept.text == *text).then_some(&kept.value)
    }

    /// Whether `text` is kept with its value.
    #[cfg(test)]
    pub(crate) fn keeps(&self, text: &[u8]) -> bool {
        self.kept((self.hasher)(text), text).is_some()
    }
}

/// foldhash's fast hash, with a fixed seed: the texts come from the API server, and a
/// collision only costs a parse.
fn hash(text: &[u8]) -> u64 {
    foldhash::fast::FixedState::with_seed(0x6669_656c_6473_7631).hash_one(text)
}

#[cfg(test)]
#[path = "fields_v1_tests.rs"]
mod tests;
