//! Tests of decoding without `metadata.managedFields`.

use k8s_openapi::api::core::v1::Pod;
use kube::core::DynamicObject;
use serde::Deserialize;
use serde_json::json;

use super::*;

fn pod_json() -> serde_json::Value {
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "web-1",
            "namespace": "prod",
            "labels": {"app": "web"},
            "managedFields": [{
                "manager": "kubectl",
                "operation": "Apply",
                "apiVersion": "v1",
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:metadata": {"f:labels": {"f:app": {}}}}
            }],
            "resourceVersion": "7"
        },
        "spec": {"containers": [{"name": "app", "image": "nginx"}]},
        "status": {"phase": "Running"}
    })
}

fn without<K: serde::de::DeserializeOwned>(json: &serde_json::Value) -> K {
    let bytes = serde_json::to_vec(json).unwrap();
    let mut deserializer = serde_json::Deserializer::from_slice(&bytes);
    WithoutManagedFields::<K>::new().deserialize(&mut deserializer).unwrap()
}

#[test]
fn a_pod_decodes_without_managed_fields_and_otherwise_equal() {
    let json = pod_json();
    let plain: Pod = serde_json::from_value(json.clone()).unwrap();
    assert!(plain.metadata.managed_fields.is_some());

    let skipped: Pod = without(&json);
    assert_eq!(skipped.metadata.managed_fields, None);
    let mut expected = plain;
    expected.metadata.managed_fields = None;
    assert_eq!(skipped, expected);
}

#[test]
fn optional_metadata_is_intercepted_too() {
    // ConfigMap's `metadata` is an `Option<ObjectMeta>` in k8s-openapi.
    let json =
        json!({"metadata": {"name": "c", "managedFields": [{"manager": "m"}]}, "data": {"k": "v"}});
    let skipped: k8s_openapi::api::core::v1::ConfigMap = without(&json);
    assert_eq!(skipped.metadata.managed_fields, None);
    assert_eq!(skipped.metadata.name.as_deref(), Some("c"));
    assert_eq!(skipped.data.unwrap()["k"], "v");
}

#[test]
fn managed_fields_anywhere_in_metadata_order_is_skipped() {
    // `managedFields` first and last in `metadata`, `metadata` last in the object.
    let json = json!({
        "spec": {"containers": []},
        "kind": "Pod",
        "apiVersion": "v1",
        "metadata": {"managedFields": [{"manager": "a"}], "name": "x", "uid": "u", "managedFields2": 1}
    });
    let skipped: Pod = without(&json);
    assert_eq!(skipped.metadata.name.as_deref(), Some("x"));
    assert_eq!(skipped.metadata.uid.as_deref(), Some("u"));
    assert_eq!(skipped.metadata.managed_fields, None);
}

#[test]
fn malformed_managed_fields_are_skipped_but_a_malformed_document_still_fails() {
    // Only the value is skipped; it is still parsed as JSON.
    let skipped: Pod = without(&json!({"metadata": {"name": "x", "managedFields": "not-a-list"}}));
    assert_eq!(skipped.metadata.name.as_deref(), Some("x"));
    let broken = br#"{"metadata": {"name": "x", "managedFields": [}}"#;
    let mut deserializer = serde_json::Deserializer::from_slice(broken);
    assert!(WithoutManagedFields::<Pod>::new().deserialize(&mut deserializer).is_err());
    // A wrongly typed field elsewhere is still an error.
    let wrong = serde_json::to_vec(&json!({"metadata": {"name": "x", "labels": "flat"}})).unwrap();
    let mut deserializer = serde_json::Deserializer::from_slice(&wrong);
    assert!(WithoutManagedFields::<Pod>::new().deserialize(&mut deserializer).is_err());
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Crd {
    metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
    spec: CrdSpec,
    managed_fields: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
struct CrdSpec {
    managed_fields: Vec<String>,
    metadata: Nested,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Nested {
    managed_fields: Vec<String>,
}

#[test]
fn a_crd_keeps_its_own_managed_fields_fields() {
    let json = json!({
        "metadata": {"name": "c", "managedFields": [{"manager": "m"}]},
        "spec": {"managedFields": ["spec-level"], "metadata": {"managedFields": ["nested"]}},
        "managedFields": ["top-level"]
    });
    let skipped: Crd = without(&json);
    assert_eq!(skipped.metadata.managed_fields, None);
    assert_eq!(skipped.spec.managed_fields, ["spec-level"]);
    assert_eq!(skipped.spec.metadata.managed_fields, ["nested"]);
    assert_eq!(skipped.managed_fields, Some(vec!["top-level".to_owned()]));
}

#[test]
fn dynamic_objects_skip_managed_fields_and_keep_their_data() {
    let skipped: DynamicObject = without(&pod_json());
    assert_eq!(skipped.metadata.managed_fields, None);
    assert_eq!(skipped.metadata.labels.unwrap()["app"], "web");
    assert_eq!(skipped.data["spec"]["containers"][0]["image"], "nginx");
    assert_eq!(skipped.types.unwrap().kind, "Pod");
}
