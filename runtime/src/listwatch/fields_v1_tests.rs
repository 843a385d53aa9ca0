//! The recent `fieldsV1` texts decode every text exactly as serde_json does,
//! whatever was seen before it, and keep only what they say they keep.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::{MAX_TEXT, Recent, VALUES};

fn parsed(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

/// A `fieldsV1` text of Pod `index`'s kubelet entry: its IP is a key, so each differs.
fn kubelet_text(index: u32) -> String {
    let ip = format!("k:{{\"ip\":\"10.244.{}.{}\"}}", index / 250, index % 250);
    json!({"f:status": {"f:phase": {}, "f:podIP": {}, "f:podIPs": {".": {}, ip: {".": {}, "f:ip": {}}}}})
        .to_string()
}

#[test]
fn a_text_is_kept_on_its_second_sighting_and_cloned_after_it() {
    let mut recent = Recent::new();
    let text = kubelet_text(1);
    assert_eq!(recent.decode(text.as_bytes()).unwrap(), parsed(&text));
    assert!(!recent.keeps(text.as_bytes()), "kept on its first sighting");
    assert_eq!(recent.decode(text.as_bytes()).unwrap(), parsed(&text));
    assert!(recent.keeps(text.as_bytes()), "not kept on its second sighting");
    for _ in 0..3 {
        assert_eq!(recent.decode(text.as_bytes()).unwrap(), parsed(&text));
    }
}

#[test]
fn texts_whose_hashes_collide_never_share_a_value() {
    let mut recent = Recent::with_hasher(|_| 7);
    let (first, second) = (kubelet_text(1), kubelet_text(2));
    recent.decode(first.as_bytes()).unwrap();
    recent.decode(first.as_bytes()).unwrap();
    assert!(recent.keeps(first.as_bytes()));
    // `second`'s hash counts as seen (it is `first`'s): it is kept at once, in the slot.
    assert_eq!(recent.decode(second.as_bytes()).unwrap(), parsed(&second));
    assert!(recent.keeps(second.as_bytes()) && !recent.keeps(first.as_bytes()));
    assert_eq!(recent.decode(second.as_bytes()).unwrap(), parsed(&second));
    assert_eq!(recent.decode(first.as_bytes()).unwrap(), parsed(&first));
}

#[test]
fn a_text_longer_than_the_limit_is_never_kept() {
    let mut recent = Recent::new();
    let keys: serde_json::Map<String, Value> =
        (0..MAX_TEXT / 8).map(|i| (format!("f:{i}"), json!({}))).collect();
    let text = Value::Object(keys).to_string();
    assert!(text.len() > MAX_TEXT);
    for _ in 0..3 {
        assert_eq!(recent.decode(text.as_bytes()).unwrap(), parsed(&text));
    }
    assert!(!recent.keeps(text.as_bytes()));
}

#[test]
fn a_text_that_is_not_json_is_serde_json_s_error_and_is_not_kept() {
    let mut recent = Recent::new();
    // Bytes that are not UTF-8 get the error that names the bad string, as from a slice.
    let texts: [&[u8]; 4] = [b"{\"f:a\":{}", b"{\"f:a\":{}}x", b"", b"{\"f:\xff\":{}}"];
    for text in texts {
        for _ in 0..3 {
            let ours = recent.decode(text).unwrap_err().to_string();
            let theirs = serde_json::from_slice::<Value>(text).unwrap_err().to_string();
            assert_eq!(ours, theirs, "{text:?}");
        }
        assert!(!recent.keeps(text), "{text:?}");
    }
}

/// Few distinct hashes, so that texts meet in the same slots.
fn coarse(text: &[u8]) -> u64 {
    ((text.len() as u64 % 3) << 32) | (text.len() as u64 % 5)
}

proptest! {
    /// Any sequence of texts, repeated or not, with slots shared or not, decodes to what
    /// serde_json gives each one; and more distinct texts than slots are never all kept.
    #[test]
    fn any_sequence_of_texts_decodes_as_serde_json_does(
        picks in prop::collection::vec(0u32..40, 1..300),
        collide in any::<bool>(),
    ) {
        let mut recent = if collide { Recent::with_hasher(coarse) } else { Recent::new() };
        let texts: Vec<String> = (0..40).map(kubelet_text).collect();
        for pick in picks {
            let text = &texts[pick as usize];
            prop_assert_eq!(recent.decode(text.as_bytes()).unwrap(), parsed(text));
        }
        let kept = texts.iter().filter(|text| recent.keeps(text.as_bytes())).count();
        prop_assert!(kept <= VALUES, "{} texts kept", kept);
    }
}
