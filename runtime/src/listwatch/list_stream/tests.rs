//! Tests of the list-body decoder, cut at every byte.

use k8s_openapi::api::core::v1::ConfigMap;
use serde_json::json;

use super::*;

/// Decodes `body` fed in chunks of `chunk` bytes, decoding every `batch` bytes.
fn decode_in_chunks<K: DeserializeOwned + Clone + 'static>(
    body: &[u8],
    chunk: usize,
    batch: usize,
    options: DecodeOptions,
) -> serde_json::Result<ObjectList<K>> {
    decode_skipping(body, chunk, batch, options).map(|(list, _)| list)
}

/// As [`decode_in_chunks`], with the items skipped as undecodable.
fn decode_skipping<K: DeserializeOwned + Clone + 'static>(
    body: &[u8],
    chunk: usize,
    batch: usize,
    options: DecodeOptions,
) -> serde_json::Result<(ObjectList<K>, Vec<SkippedObject>)> {
    let mut decoder = ListDecoder::with_batch(options, batch);
    for piece in body.chunks(chunk.max(1)) {
        decoder.feed(piece)?;
    }
    decoder.finish()
}

const SKIP: DecodeOptions = DecodeOptions { skip_managed_fields: true };
const PLAIN: DecodeOptions = DecodeOptions { skip_managed_fields: false };

fn config_map(name: &str) -> serde_json::Value {
    json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "resourceVersion": "3", "managedFields": [{"manager": "m"}]},
        "data": {"k": "v\\n\"quoted\" ]}"}
    })
}

/// Every way of cutting the body: one chunk, small chunks, and a decoding pass
/// after every chunk, so values are cut at every byte.
fn every_cut<K: DeserializeOwned + Clone + 'static>(
    body: &[u8],
    options: DecodeOptions,
) -> Vec<serde_json::Result<ObjectList<K>>> {
    let mut results = vec![decode_in_chunks(body, body.len(), BATCH, options)];
    for chunk in [1, 2, 7, 64] {
        results.push(decode_in_chunks(body, chunk, 1, options));
        results.push(decode_in_chunks(body, chunk, 100, options));
    }
    results
}

#[test]
fn a_list_decodes_like_kube_however_it_is_cut() {
    let body = serde_json::to_vec_pretty(&json!({
        "kind": "ConfigMapList", "apiVersion": "v1",
        "metadata": {"resourceVersion": "9", "continue": "next"},
        "unknown": {"ignored": [1, 2.5, null, true, "]"]},
        "number": 12345,
        "items": [config_map("a"), config_map("b"), config_map("c")]
    }))
    .unwrap();
    let kube: ObjectList<ConfigMap> = serde_json::from_slice(&body).unwrap();
    for ours in every_cut::<ConfigMap>(&body, PLAIN) {
        let ours = ours.unwrap();
        assert_eq!(ours.items, kube.items);
        assert_eq!(ours.metadata, kube.metadata);
        assert_eq!(ours.types, kube.types);
    }
    for skipped in every_cut::<ConfigMap>(&body, SKIP) {
        let skipped = skipped.unwrap();
        let mut expected = kube.items.clone();
        for cm in &mut expected {
            cm.metadata.managed_fields = None;
        }
        assert_eq!(skipped.items, expected);
        assert_eq!(skipped.metadata.continue_.as_deref(), Some("next"));
    }
}

#[test]
fn null_or_empty_items_and_missing_types_are_an_empty_v1_list() {
    for body in [&br#"{"metadata":{},"items":null}"#[..], br#" { "items" : [ ] } "#] {
        for list in every_cut::<ConfigMap>(body, SKIP) {
            let list = list.unwrap();
            assert!(list.items.is_empty());
            assert_eq!((list.types.api_version.as_str(), list.types.kind.as_str()), ("v1", "List"));
        }
    }
}

#[test]
fn a_wrongly_typed_item_is_skipped_and_the_rest_kept_however_the_list_is_cut() {
    // controller-runtime #2591 ("a single bad object will break the entire informer"):
    // client-go fails the whole list; we keep every other item.
    let body = serde_json::to_vec(&json!({
        "kind": "ConfigMapList", "apiVersion": "v1", "metadata": {"resourceVersion": "9"},
        "items": [
            config_map("a"),
            {"metadata": {"name": "bad", "namespace": "ns", "resourceVersion": "4",
                          "labels": "top-secret-value"},
             "data": {"k": ["nested", {"deep": "]}"}]}},
            config_map("c"),
        ]
    }))
    .unwrap();
    for options in [PLAIN, SKIP] {
        let mut cuts = vec![decode_skipping::<ConfigMap>(&body, body.len(), BATCH, options)];
        for chunk in [1, 2, 7, 64] {
            cuts.push(decode_skipping(&body, chunk, 1, options));
            cuts.push(decode_skipping(&body, chunk, 100, options));
        }
        for decoded in cuts {
            let (list, skipped) = decoded.unwrap();
            let names: Vec<_> =
                list.items.iter().map(|cm| cm.metadata.name.clone().unwrap()).collect();
            assert_eq!(names, ["a", "c"]);
            assert_eq!(list.metadata.resource_version.as_deref(), Some("9"));
            assert_eq!(skipped.len(), 1);
            assert_eq!(skipped[0].key, "ns/bad");
            assert_eq!(skipped[0].resource_version.as_deref(), Some("4"));
            assert!(!skipped[0].reason.contains("top-secret-value"), "{}", skipped[0].reason);
        }
    }
}

#[test]
fn malformed_lists_are_errors() {
    for body in [
        &br#"{"metadata":{}}"#[..],         // no items
        br#"{"items":[]} x"#,               // trailing garbage
        br#"{"items":[{"metadata":{}}"#,    // cut short
        br#"{"items":[{"metadata":{]}}]}"#, // invalid JSON
        br#"{"items" 1}"#,                  // no colon
        br#"{"items":7}"#,                  // not an array
        br#"[]"#,                           // not an object
        br#""#,                             // empty
    ] {
        for result in every_cut::<ConfigMap>(body, SKIP) {
            assert!(result.is_err(), "{}", String::from_utf8_lossy(body));
        }
    }
}
