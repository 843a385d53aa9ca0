//! Watch event lines through the in-place route against the line decoded as before.

use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::core::WatchEvent;
use kube_informers_testkit::seed;
use serde_json::json;

use super::object_event;
use crate::listwatch::{
    decode::decode_event,
    in_place::{decoder_of, tests::BOTH},
    item::DecodeOptions,
};

/// A line as kube-apiserver writes it: Go's encoding/json, `type` first, no whitespace.
fn server_line(event: &str, object: &serde_json::Value) -> Vec<u8> {
    let mut line = format!(r#"{{"type":"{event}","object":"#).into_bytes();
    line.extend(serde_json::to_vec(object).unwrap());
    line.extend(b"}\n");
    line
}

fn in_place_event(line: &[u8], options: DecodeOptions) -> Option<WatchEvent<Pod>> {
    object_event::<Pod>(line, options, decoder_of::<Pod>().expect("Pod has an in-place decoder"))
}

#[test]
fn server_shaped_object_events_decode_in_place_to_the_event_decoded_as_before() {
    let pod = seed::pod("prod", "web-1", 1);
    for options in BOTH {
        for event in ["ADDED", "MODIFIED", "DELETED"] {
            let line = server_line(event, &pod);
            let fast = in_place_event(&line, options)
                .unwrap_or_else(|| panic!("{event} did not take the in-place route"));
            let before = decode_event::<Pod>(&line, options, None).unwrap();
            assert_eq!(format!("{fast:?}"), format!("{before:?}"));
            let object = match fast {
                WatchEvent::Added(pod) if event == "ADDED" => pod,
                WatchEvent::Modified(pod) if event == "MODIFIED" => pod,
                WatchEvent::Deleted(pod) if event == "DELETED" => pod,
                other => panic!("{event} became {other:?}"),
            };
            assert_eq!(object.metadata.managed_fields.is_none(), options.skip_managed_fields);
        }
    }
}

#[test]
fn other_lines_are_left_to_the_event_decoder() {
    let pod = seed::pod("prod", "web-1", 1);
    let object = serde_json::to_string(&pod).unwrap();
    let left = [
        // Whitespace, the object first, another key after it: valid, but not the
        // server's shape.
        format!(r#"{{ "type":"ADDED","object":{object}}}"#),
        format!(r#"{{"object":{object},"type":"ADDED"}}"#),
        format!(r#"{{"type":"ADDED","object":{object},"extra":1}}"#),
        format!(r#"{{"type":"ADDED","object":{object},"type":"DELETED"}}"#),
        // Not an object event, or not a whole line.
        r#"{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"5"}}}"#.into(),
        r#"{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","code":410}}"#.into(),
        format!(r#"{{"type":"ADDED","object":{object}"#),
        // An object that does not decode: the error must be the event decoder's.
        r#"{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","labels":"flat"}}}"#.into(),
        r#"{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}}"#.into(),
    ];
    for line in left {
        for options in BOTH {
            assert!(in_place_event(line.as_bytes(), options).is_none(), "{line}");
            let with = decode_event::<Pod>(line.as_bytes(), options, decoder_of::<Pod>());
            let without = decode_event::<Pod>(line.as_bytes(), options, None);
            assert_eq!(format!("{with:?}"), format!("{without:?}"), "{line}");
        }
    }
}

#[test]
fn an_event_decoder_without_an_in_place_decoder_decodes_as_before() {
    // ConfigMap has one; a kind without one (None) must still decode every event.
    let line = server_line(
        "MODIFIED",
        &json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "a", "resourceVersion": "3"}, "data": {"k": "v"}}),
    );
    let with = decode_event::<ConfigMap>(&line, BOTH[0], decoder_of::<ConfigMap>()).unwrap();
    let without = decode_event::<ConfigMap>(&line, BOTH[0], None).unwrap();
    assert_eq!(format!("{with:?}"), format!("{without:?}"));
    assert!(matches!(without, WatchEvent::Modified(cm) if cm.data.as_ref().unwrap()["k"] == "v"));
}
