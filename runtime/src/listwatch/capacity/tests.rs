use k8s_openapi::api::{apps::v1::Deployment, core::v1::Pod};
use kube_informers_testkit::seed;
use serde_json::json;

use super::*;
use crate::listwatch::decode::decode_event;

fn lengths_of(json: &str, mute: &[&str]) -> Option<(Vec<u32>, usize)> {
    scan(json.as_bytes(), mute).map(|scanned| (scanned.lengths, scanned.end))
}

#[test]
fn scan_counts_every_array_in_document_order_and_finds_the_end() {
    let json = r#"{"a": [1, [2, 3], [], [ ]], "b": {"c": ["x", "y", {"d": [true]}]}} trailing"#;
    let end = json.find(" trailing").unwrap();
    assert_eq!(lengths_of(json, &[]), Some((vec![4, 2, 0, 0, 3, 1], end)));
}

#[test]
fn scan_is_not_fooled_by_brackets_commas_and_escaped_quotes_in_strings() {
    let json = r#"{"k:{\"name\":\"a,b\"}": ["[", "]", ",", "\\", "\"],["], "e": "\u005b"}"#;
    assert_eq!(lengths_of(json, &[]), Some((vec![5], json.len())));
}

#[test]
fn scan_of_a_cut_value_or_a_scalar_is_none() {
    let json = r#"{"a": [1, 2], "b": "text"}"#;
    for cut in 0..json.len() {
        assert_eq!(lengths_of(&json[..cut], &[]), None, "cut at {cut}");
    }
    assert_eq!(lengths_of("42", &[]), None);
    assert_eq!(lengths_of(r#""[1]""#, &[]), None);
}

#[test]
fn scan_leaves_out_the_arrays_of_the_muted_value_only() {
    let json = r#"{"spec": {"managedFields": [[1]]}, "metadata": {"labels": {"managedFields": [9]}, "managedFields": [{"a": [1, 2]}], "finalizers": ["f"]}}"#;
    assert_eq!(lengths_of(json, MANAGED_FIELDS).unwrap().0, vec![1, 1, 1, 1]);
    assert_eq!(lengths_of(json, &[]).unwrap().0, vec![1, 1, 1, 1, 2, 1]);
}

/// Every `Vec` in a realistic Pod, with its capacity and length.
fn pod_vecs(pod: &Pod) -> Vec<(&'static str, usize, usize)> {
    let mut vecs = Vec::new();
    let mut note = |name, capacity, len| vecs.push((name, capacity, len));
    let meta = &pod.metadata;
    if let Some(v) = &meta.managed_fields {
        note("managedFields", v.capacity(), v.len());
    }
    if let Some(v) = &meta.owner_references {
        note("ownerReferences", v.capacity(), v.len());
    }
    let spec = pod.spec.as_ref().unwrap();
    note("containers", spec.containers.capacity(), spec.containers.len());
    for container in &spec.containers {
        if let Some(v) = &container.env {
            note("env", v.capacity(), v.len());
        }
        if let Some(v) = &container.ports {
            note("ports", v.capacity(), v.len());
        }
        if let Some(v) = &container.volume_mounts {
            note("volumeMounts", v.capacity(), v.len());
        }
        if let Some(v) = &container.args {
            note("args", v.capacity(), v.len());
        }
    }
    if let Some(v) = &spec.volumes {
        note("volumes", v.capacity(), v.len());
    }
    if let Some(v) = &spec.tolerations {
        note("tolerations", v.capacity(), v.len());
    }
    if let Some(status) = &pod.status {
        if let Some(v) = &status.conditions {
            note("conditions", v.capacity(), v.len());
        }
        if let Some(v) = &status.container_statuses {
            note("containerStatuses", v.capacity(), v.len());
        }
    }
    vecs
}

fn assert_exact(pod: &Pod) {
    let vecs = pod_vecs(pod);
    assert!(vecs.len() >= 8, "the test Pod has too few arrays to test: {vecs:?}");
    for (name, capacity, len) in vecs {
        assert_eq!(capacity, len, "{name}: capacity {capacity} for {len} elements");
    }
}

#[test]
fn a_realistic_pod_decodes_equal_to_serde_json_with_every_vec_at_its_length() {
    let bytes = serde_json::to_vec(&seed::pod("prod", "web-0", 7)).unwrap();
    let plain: Pod = serde_json::from_slice(&bytes).unwrap();
    // serde_json alone leaves slack: the case this module exists for.
    assert!(pod_vecs(&plain).iter().any(|(_, capacity, len)| capacity > len));

    let Scanned { lengths, end } = scan(&bytes, &[]).unwrap();
    assert_eq!(end, bytes.len());
    let lengths = Lengths::new(lengths);
    let mut deserializer = serde_json::Deserializer::from_slice(&bytes);
    let hinted: Pod = decode_object(&mut deserializer, DecodeOptions::default(), &lengths).unwrap();
    assert!(lengths.in_step(), "every array used its length");
    assert_eq!(hinted, plain);
    assert_exact(&hinted);
}

#[test]
fn without_managed_fields_the_other_arrays_stay_in_step() {
    let bytes = serde_json::to_vec(&seed::pod("prod", "web-0", 7)).unwrap();
    let options = DecodeOptions { skip_managed_fields: true };
    let Scanned { lengths, .. } = scan(&bytes, object_mute(options)).unwrap();
    let lengths = Lengths::new(lengths);
    let mut deserializer = serde_json::Deserializer::from_slice(&bytes);
    let hinted: Pod = decode_object(&mut deserializer, options, &lengths).unwrap();
    assert!(lengths.in_step());
    let mut expected: Pod = serde_json::from_slice(&bytes).unwrap();
    expected.metadata.managed_fields = None;
    assert_eq!(hinted, expected);
    assert_exact(&hinted);
}

#[test]
fn unknown_fields_holding_arrays_use_up_their_lengths() {
    let mut pod = seed::pod("prod", "web-0", 7);
    pod["spec"]["futureField"] = json!([[1, 2, 3], {"nested": ["a"]}]);
    pod["futureTopLevel"] = json!(["x", "y"]);
    let bytes = serde_json::to_vec(&pod).unwrap();
    let Scanned { lengths, .. } = scan(&bytes, &[]).unwrap();
    let lengths = Lengths::new(lengths);
    let mut deserializer = serde_json::Deserializer::from_slice(&bytes);
    let hinted: Pod = decode_object(&mut deserializer, DecodeOptions::default(), &lengths).unwrap();
    assert!(lengths.in_step());
    assert_eq!(hinted, serde_json::from_slice::<Pod>(&bytes).unwrap());
    assert_exact(&hinted);
}

#[test]
fn hints_out_of_step_stop_but_the_value_is_unchanged() {
    let bytes = serde_json::to_vec(&seed::deployment("prod", "web", 3)).unwrap();
    // Wrong lengths, as if the scan had seen other arrays: the decoded value is the same.
    let lengths = Lengths::new(vec![5, 0, 7]);
    let mut deserializer = serde_json::Deserializer::from_slice(&bytes);
    let hinted: Deployment =
        decode_object(&mut deserializer, DecodeOptions::default(), &lengths).unwrap();
    assert!(!lengths.in_step());
    assert_eq!(hinted, serde_json::from_slice::<Deployment>(&bytes).unwrap());
}

#[test]
fn a_watch_event_object_decodes_with_every_vec_at_its_length() {
    let line =
        serde_json::to_vec(&json!({"type": "MODIFIED", "object": seed::pod("p", "a", 1)})).unwrap();
    for options in [DecodeOptions::default(), DecodeOptions { skip_managed_fields: true }] {
        let kube::core::WatchEvent::Modified(pod) =
            decode_event::<Pod>(&line, options, None).unwrap()
        else {
            panic!("not a MODIFIED event");
        };
        assert_eq!(pod.metadata.managed_fields.is_none(), options.skip_managed_fields);
        assert_exact(&pod);
    }
}
