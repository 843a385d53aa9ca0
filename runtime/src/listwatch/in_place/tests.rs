//! The in-place route against k8s-openapi's own `Deserialize`: the same object from the
//! same bytes, the same error, and the capacity hints used up in step.

use std::fmt::Debug;

use k8s_openapi::api::{
    apps::v1::Deployment,
    core::v1::{ConfigMap, Pod, Service},
};
use kube_informers_testkit::seed;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::{DecodeFn, decode_slice, decoder_of};
use crate::listwatch::{
    capacity::{self, Lengths, object_mute, scan},
    item::DecodeOptions,
};

/// Both decode options, with and without managedFields (the event tests use them too).
pub(super) const BOTH: [DecodeOptions; 2] =
    [DecodeOptions { skip_managed_fields: false }, DecodeOptions { skip_managed_fields: true }];

fn lengths(bytes: &[u8], options: DecodeOptions) -> Vec<u32> {
    scan(bytes, object_mute(options)).map(|scanned| scanned.lengths).unwrap_or_default()
}

/// Decodes `bytes` in place, without the fallback: the object and whether the hints
/// were used up in step.
fn in_place<K: DeserializeOwned + 'static>(
    bytes: &[u8],
    options: DecodeOptions,
) -> serde_json::Result<(K, bool)> {
    let decode: DecodeFn = decoder_of::<K>().expect("K has an in-place decoder");
    let lengths = Lengths::new(lengths(bytes, options));
    let mut slot = None::<K>;
    decode(bytes, &lengths, options, &mut slot)?;
    Ok((slot.expect("the decoder filled its slot"), lengths.in_step()))
}

/// Through k8s-openapi's `Deserialize`, with the same hints.
fn through_serde<K: DeserializeOwned>(
    bytes: &[u8],
    options: DecodeOptions,
) -> serde_json::Result<K> {
    capacity::decode_with(bytes, &Lengths::new(lengths(bytes, options)), options)
}

/// Both routes give the same object from `json`, with the hints in step.
fn assert_same<K: DeserializeOwned + PartialEq + Debug + 'static>(json: &Value) {
    let bytes = serde_json::to_vec(json).unwrap();
    for options in BOTH {
        let (ours, in_step) = in_place::<K>(&bytes, options).unwrap();
        let theirs: K = through_serde(&bytes, options).unwrap();
        assert_eq!(ours, theirs, "{options:?}");
        assert!(in_step, "hints out of step with {options:?}");
    }
}

#[test]
fn seeded_objects_decode_in_place_as_k8s_openapi_decodes_them() {
    assert_same::<Pod>(&seed::pod("prod", "web-0", 7));
    assert_same::<Deployment>(&seed::deployment("prod", "web", 3));
    assert_same::<ConfigMap>(&seed::config_map("prod", "settings", 1));
}

#[test]
fn the_pod_keeps_every_vec_at_its_exact_length() {
    let bytes = serde_json::to_vec(&seed::pod("prod", "web-0", 7)).unwrap();
    let (pod, _) = in_place::<Pod>(&bytes, DecodeOptions::default()).unwrap();
    let spec = pod.spec.unwrap();
    assert_eq!(spec.containers.capacity(), spec.containers.len());
    let volumes = spec.volumes.unwrap();
    assert_eq!(volumes.capacity(), volumes.len());
    let managed = pod.metadata.managed_fields.unwrap();
    assert_eq!(managed.capacity(), managed.len());
}

#[test]
fn null_and_missing_fields_are_defaults_and_a_repeated_key_replaces() {
    assert_same::<Pod>(&json!({"metadata": null, "spec": null, "status": {"conditions": null}}));
    assert_same::<Pod>(&json!({"spec": {"containers": null, "volumes": null, "nodeName": null}}));
    assert_same::<Pod>(&json!({}));
    // serde_json's `Value` keeps one of each key; repeats are written by hand.
    let repeated = br#"{"spec": {"containers": [{"name": "a"}, {"name": "b"}], "nodeName": "n1"},
        "spec": {"containers": [{"name": "c"}]},
        "metadata": {"name": "x", "labels": {"a": "1"}}, "metadata": {"namespace": "y"}}"#;
    let (ours, _) = in_place::<Pod>(repeated, DecodeOptions::default()).unwrap();
    let theirs: Pod = serde_json::from_slice(repeated).unwrap();
    assert_eq!(ours, theirs);
    assert_eq!(ours.spec.unwrap().containers.len(), 1);
    assert_eq!(ours.metadata.name, None);
    // A repeated `Vec` key: the second value, at its own capacity.
    let repeated = br#"{"spec": {"containers": [{"name": "a"}, {"name": "b"}], "containers": [{"name": "c"}]}}"#;
    let (ours, in_step) = in_place::<Pod>(repeated, DecodeOptions::default()).unwrap();
    assert_eq!(ours, serde_json::from_slice::<Pod>(repeated).unwrap());
    let containers = ours.spec.unwrap().containers;
    assert_eq!((containers.len(), containers.capacity()), (1, 1));
    assert!(in_step);
}

#[test]
fn unknown_keys_are_skipped_and_their_arrays_keep_the_hints_in_step() {
    assert_same::<Pod>(&json!({
        "future": [[1, 2], {"x": [3]}],
        "spec": {"unknownList": [1, 2, 3], "containers": [{"name": "a", "later": [[]]}]},
        "metadata": {"name": "p", "finalizers": ["f"]},
    }));
    assert_same::<Service>(&json!({
        "spec": {"ports": [{"port": 80, "targetPort": "http"}, {"port": 443, "targetPort": 8443}],
                 "clusterIPs": ["10.0.0.1"], "selector": {"app": "web"}},
        "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4", "ports": [{"port": 80, "protocol": "TCP"}]}]}},
    }));
}

#[test]
fn an_escaped_key_names_its_field() {
    let bytes = br#"{"metadata": {"na\u006de": "p", "\u006eamespace": "ns"}}"#;
    let (pod, _) = in_place::<Pod>(bytes, DecodeOptions::default()).unwrap();
    assert_eq!(pod.metadata.name.as_deref(), Some("p"));
    assert_eq!(pod.metadata.namespace.as_deref(), Some("ns"));
}

#[test]
fn an_object_that_does_not_decode_gives_k8s_openapi_s_own_error() {
    let cases = [
        json!({"kind": "Service"}),
        json!({"apiVersion": "v2"}),
        json!({"spec": {"containers": [null]}}),
        json!({"spec": {"containers": {"name": "a"}}}),
        json!({"metadata": {"name": 5}}),
        json!({"spec": {"activeDeadlineSeconds": "soon"}}),
        json!({"status": {"startTime": "yesterday"}}),
        json!([1, 2]),
    ];
    for case in cases {
        let bytes = serde_json::to_vec(&case).unwrap();
        for options in BOTH {
            assert!(in_place::<Pod>(&bytes, options).is_err(), "{case}");
            let ours =
                decode_slice::<Pod>(&bytes, lengths(&bytes, options), options, decoder_of::<Pod>())
                    .unwrap_err();
            let theirs = through_serde::<Pod>(&bytes, options).unwrap_err();
            assert_eq!(ours.to_string(), theirs.to_string(), "{case}");
            assert_eq!(ours.classify(), theirs.classify(), "{case}");
        }
    }
}

#[test]
fn bytes_that_are_not_utf8_give_the_error_naming_the_string() {
    let bytes = b"{\"metadata\": {\"name\": \"web-\xff\"}}";
    let options = DecodeOptions::default();
    assert!(in_place::<Pod>(bytes, options).is_err());
    let ours = decode_slice::<Pod>(bytes, lengths(bytes, options), options, decoder_of::<Pod>())
        .unwrap_err();
    let theirs = through_serde::<Pod>(bytes, options).unwrap_err();
    assert_eq!(ours.to_string(), theirs.to_string());
}

#[test]
fn managed_fields_are_left_out_when_asked() {
    let bytes = serde_json::to_vec(&seed::pod("prod", "web-0", 7)).unwrap();
    let (kept, _) = in_place::<Pod>(&bytes, BOTH[0]).unwrap();
    let (left_out, _) = in_place::<Pod>(&bytes, BOTH[1]).unwrap();
    assert!(kept.metadata.managed_fields.is_some());
    assert_eq!(left_out.metadata.managed_fields, None);
}

#[test]
fn a_fields_v1_decodes_as_k8s_openapi_decodes_it_the_first_time_and_every_time_after() {
    // From the second Pod on, its texts are this thread's recent ones (`fields_v1`).
    for index in 0..4 {
        assert_same::<Pod>(&seed::pod("prod", &format!("web-{index}"), index));
    }
    let texts =
        [json!(null), json!({}), json!("text"), json!(5), json!({"f:a": {"k:{\"x\":1}": {}}})];
    for fields in texts {
        let entry = json!({"manager": "m", "fieldsV1": fields});
        for _ in 0..3 {
            assert_same::<Pod>(&json!({"metadata": {"managedFields": [entry, entry]}}));
        }
    }
    // kube-apiserver writes no arrays in a `fieldsV1`: one with arrays decodes the same,
    // but its arrays are not visited (the hints after it are not used).
    let arrays = json!({"metadata": {"managedFields": [{"fieldsV1": {"f:a": [{"b": [1]}]}}]},
        "spec": {"containers": [{"name": "a"}]}});
    let bytes = serde_json::to_vec(&arrays).unwrap();
    for _ in 0..3 {
        let (ours, _) = in_place::<Pod>(&bytes, DecodeOptions::default()).unwrap();
        assert_eq!(ours, through_serde::<Pod>(&bytes, DecodeOptions::default()).unwrap());
    }
}

#[test]
fn a_fields_v1_that_does_not_decode_gives_k8s_openapi_s_own_error() {
    let bytes = br#"{"metadata": {"managedFields": [{"fieldsV1": {"f:a": tru}}]}}"#;
    let options = DecodeOptions::default();
    for _ in 0..3 {
        assert!(in_place::<Pod>(bytes, options).is_err());
        let ours =
            decode_slice::<Pod>(bytes, lengths(bytes, options), options, decoder_of::<Pod>())
                .unwrap_err();
        assert_eq!(ours.to_string(), through_serde::<Pod>(bytes, options).unwrap_err().to_string());
    }
}

#[test]
fn only_built_in_kinds_of_the_latest_version_have_a_decoder() {
    assert!(decoder_of::<Pod>().is_some());
    assert!(decoder_of::<Deployment>().is_some());
    assert!(decoder_of::<Value>().is_none());
    assert!(decoder_of::<kube::api::DynamicObject>().is_none());
}
