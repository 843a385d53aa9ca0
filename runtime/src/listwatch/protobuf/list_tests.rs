//! The protobuf list decoder: item by item in any chunking, skipping what does not decode.

use k8s_openapi::api::core::v1::ConfigMap;

use super::super::testing::{Enc, envelope, meta};
use super::*;

fn config_map(name: &str) -> Enc {
    Enc::new().msg(1, meta(name, "default")).entry(2, "k", "v")
}

fn list_body(items: &[Enc]) -> Vec<u8> {
    let mut list = Enc::new().msg(1, Enc::new().str(1, "").str(2, "77").str(3, "").varint(4, 2));
    for item in items {
        list = list.msg(2, item.clone());
    }
    envelope("v1", "ConfigMapList", &list)
}

fn decode_in_chunks<K: DeserializeOwned + Clone + 'static>(
    body: &[u8],
    chunk: usize,
) -> serde_json::Result<(ObjectList<K>, Vec<SkippedObject>)> {
    let mut decoder =
        ProtoListDecoder::<K>::new(DecodeOptions::default(), &schema::API_CORE_V1_CONFIGMAP);
    for piece in body.chunks(chunk) {
        decoder.feed(piece)?;
        // Only the unfinished field is held: never more than one item.
        assert!(decoder.buffer.len() < 400, "{}", decoder.buffer.len());
    }
    decoder.finish()
}

#[test]
fn a_list_decodes_item_by_item_in_any_chunking() {
    let body = list_body(&[config_map("a"), config_map("b"), config_map("c")]);
    for chunk in [1, 2, 3, 7, 64, body.len()] {
        let (list, skipped) = decode_in_chunks::<ConfigMap>(&body, chunk).unwrap();
        assert!(skipped.is_empty());
        let names: Vec<_> = list.items.iter().map(|cm| cm.metadata.name.clone().unwrap()).collect();
        assert_eq!(names, ["a", "b", "c"], "chunk {chunk}");
        assert_eq!(list.metadata.resource_version.as_deref(), Some("77"));
        assert_eq!(list.metadata.remaining_item_count, Some(2));
        assert_eq!(
            (list.types.api_version.as_str(), list.types.kind.as_str()),
            ("v1", "ConfigMapList")
        );
    }
    let (list, _) = decode_in_chunks::<ConfigMap>(&list_body(&[]), 5).unwrap();
    assert!(list.items.is_empty());
}

#[test]
fn an_item_that_does_not_decode_is_skipped_and_named() {
    #[derive(Clone, Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Strict {
        data: Option<std::collections::BTreeMap<String, u32>>,
    }
    let good = Enc::new().msg(1, meta("good", "default"));
    let bad = Enc::new().msg(1, meta("bad", "default")).entry(2, "k", "secret-value");
    let body = list_body(&[good, bad]);
    let (list, skipped) = decode_in_chunks::<Strict>(&body, 10).unwrap();
    assert_eq!(list.items.len(), 1);
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0].key, "default/bad");
    assert_eq!(skipped[0].resource_version.as_deref(), Some("42"));
    assert!(!skipped[0].to_string().contains("secret-value"), "{}", skipped[0]);
}

#[test]
fn a_truncated_or_malformed_body_fails() {
    let body = list_body(&[config_map("a"), config_map("b")]);
    for len in [0, 3, 10, body.len() / 2, body.len() - 1] {
        assert!(decode_in_chunks::<ConfigMap>(&body[..len], 4).is_err(), "{len}");
    }
    let mut no_magic = body.clone();
    no_magic[0] = b'j';
    assert!(decode_in_chunks::<ConfigMap>(&no_magic, 4).is_err());
    // An item longer than the list that holds it.
    let mut list = Enc::new().msg(2, config_map("a")).0;
    list.truncate(list.len() - 3);
    let body = envelope("v1", "ConfigMapList", &Enc(list));
    assert!(decode_in_chunks::<ConfigMap>(&body, 4).is_err());
    // A malformed item (a wire error inside it) fails the list, not just the item.
    let body = list_body(&[Enc::new().msg(1, Enc::new().varint(1, 5))]);
    assert!(decode_in_chunks::<ConfigMap>(&body, 4).is_err());
}
