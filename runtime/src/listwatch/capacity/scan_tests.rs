//! The block scan against the byte-at-a-time one it replaced ([`reference_scan`]), on
//! JSON chosen to catch a 64-byte block's edges: escapes and strings across them, and
//! structural characters inside strings.

use proptest::prelude::*;
use serde_json::{Map, Value};

use super::scan_reference::reference_scan;
use super::{EVENT_MANAGED_FIELDS, MANAGED_FIELDS, scan};

const MUTES: [&[&str]; 3] = [&[], MANAGED_FIELDS, EVENT_MANAGED_FIELDS];

fn assert_same(input: &[u8]) {
    for mute in MUTES {
        assert_eq!(
            scan(input, mute),
            reference_scan(input, mute),
            "mute {mute:?}, input {:?}",
            String::from_utf8_lossy(input)
        );
    }
}

#[test]
fn escapes_and_strings_across_a_block_edge_scan_as_byte_by_byte() {
    // Each tricky string is moved over every offset of the first two block edges.
    let tricky = [r#"\\"#, r#"\""#, r#"\\\""#, r#"\\\\"#, r#"[{,}]"#, r#"\u005b"#, "é"];
    for text in tricky {
        for pad in 0..140 {
            let json = format!(
                r#"{{"p":"{}","s":"{text}{text}","a":[1,"{text}",[2,{{"k":[]}}],{{}}],"metadata":{{"managedFields":[[3]],"x":[4,5]}}}}"#,
                "x".repeat(pad)
            );
            assert_same(json.as_bytes());
            assert_eq!(scan(json.as_bytes(), &[]).unwrap().lengths, vec![4, 2, 0, 1, 1, 2]);
            assert_eq!(scan(json.as_bytes(), MANAGED_FIELDS).unwrap().lengths, vec![4, 2, 0, 2]);
        }
    }
}

#[test]
fn a_value_ending_on_a_block_edge_or_in_the_padding_ends_there() {
    for len in 4..200 {
        let json = format!(r#"["{}"]"#, "y".repeat(len - 4));
        let bytes = json.as_bytes();
        assert_eq!(bytes.len(), len);
        assert_eq!(scan(bytes, &[]).map(|s| s.end), Some(bytes.len()), "{json}");
        // Cut by one byte, it does not end: the padding is never taken for a bracket.
        assert_eq!(scan(&bytes[..bytes.len() - 1], &[]), None, "{json}");
    }
}

/// Text with what trips a scanner: quotes, backslashes, brackets, commas, non-ASCII.
fn text() -> impl Strategy<Value = String> {
    proptest::string::string_regex(r#"[a-z"\\\[\]{},: é\n]{0,12}"#).unwrap()
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => Just("metadata".to_owned()),
        2 => Just("managedFields".to_owned()),
        1 => Just("object".to_owned()),
        3 => text(),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

proptest! {
    #[test]
    fn the_block_scan_finds_what_the_byte_scan_finds(
        value in json_value(),
        pretty in any::<bool>(),
        trailing in "[ ,\\]}{\"a-z]{0,8}",
        cut in any::<prop::sample::Index>(),
    ) {
        let root = match value {
            Value::Array(_) | Value::Object(_) => value,
            scalar => Value::Array(vec![scalar]),
        };
        let mut json = if pretty {
            serde_json::to_vec_pretty(&root).unwrap()
        } else {
            serde_json::to_vec(&root).unwrap()
        };
        json.extend_from_slice(trailing.as_bytes());
        assert_same(&json);
        assert_same(&json[..cut.index(json.len() + 1)]);
    }
}

/// An object `depth` levels deep, each level with `width` empty objects before the next
/// level, and `array` (if any) at the deepest level: managedFields' `fieldsV1` in shape.
fn nested(depth: usize, width: usize, array: &str) -> String {
    let mut json = array.to_owned();
    for level in 0..depth {
        let siblings: String = (0..width).map(|i| format!(r#""f:{level}-{i}":{{}},"#)).collect();
        json = format!(r#"{{{siblings}"f:next":{json}}}"#);
    }
    json
}

#[test]
fn deep_objects_passed_a_block_at_a_time_scan_as_byte_by_byte() {
    // Deep enough that whole blocks pass without a character visited, with arrays inside
    // the deep part (recorded, or muted under managedFields) and after it.
    for depth in [1, 3, 8, 14] {
        for width in [0, 1, 3] {
            for array in ["[]", "[1,[2,3],{}]", r#"{"a":[{"b":[4]}]}"#] {
                let inner = nested(depth, width, array);
                for pad in [0, 5, 31, 63] {
                    let json = format!(
                        r#"{{"p":"{}","metadata":{{"managedFields":[{{"fieldsV1":{inner}}},{inner}],"x":[{inner},7]}},"spec":{inner},"tail":[1,2]}}"#,
                        "x".repeat(pad)
                    );
                    assert_same(json.as_bytes());
                    let event = format!(r#"{{"type":"ADDED","object":{json}}}"#);
                    assert_same(event.as_bytes());
                }
            }
        }
    }
}
