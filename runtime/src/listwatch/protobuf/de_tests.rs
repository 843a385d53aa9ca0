//! Hand-built messages decoded through the schema, compared with the same objects decoded
//! from the JSON Go writes for them.

use k8s_openapi::api::{
    apps::v1::Deployment,
    certificates::v1::CertificateSigningRequest,
    core::v1::{ConfigMap, Pod, Service},
    events::v1::Event,
};
use serde_json::json;

use crate::listwatch::item::DecodeOptions;

use super::super::{
    direct::{decode_object, decoder_of},
    error::Category,
    generated::schema,
    testing::{Enc, meta, time},
};
use super::*;

fn json_meta(name: &str, namespace: Option<&str>) -> serde_json::Value {
    let mut meta = json!({
        "name": name, "uid": "uid-1", "resourceVersion": "42",
        "creationTimestamp": "2023-11-14T22:13:20Z", "labels": {"app": "web"},
        "managedFields": [{"manager": "kubectl", "operation": "Update", "apiVersion": "v1",
            "time": "2023-11-14T22:13:20Z", "fieldsType": "FieldsV1",
            "fieldsV1": {"f:data": {".": {}}}}]
    });
    if let Some(namespace) = namespace {
        meta["namespace"] = json!(namespace);
    }
    meta
}

/// Decodes through the schema and, when `T` has a generated decoder, straight into `T`
/// too: both routes must give the same object, or fail alike.
fn decode<T: de::DeserializeOwned + PartialEq + std::fmt::Debug + 'static>(
    bytes: &Enc,
    message: &'static Message,
) -> Result<T> {
    let by_serde = from_message(&bytes.0, message, None);
    if let Some(direct) = decoder_of::<T>() {
        let options = DecodeOptions::default();
        let directly = decode_object::<T>(&bytes.0, message, None, options, Some(direct));
        match (&by_serde, &directly) {
            (Ok(serde), Ok(direct)) => assert_eq!(direct, serde),
            (Err(serde), Err(direct)) => {
                assert_eq!(direct.category(), serde.category(), "{direct} / {serde}")
            }
            _ => panic!("the routes disagree: {directly:?} directly, {by_serde:?} by serde"),
        }
    }
    by_serde
}

#[test]
fn a_config_map_equals_its_json_with_zero_fields_left_out() {
    let bytes = Enc::new()
        .msg(1, meta("cm", "default"))
        .entry(2, "k", "v")
        .msg(3, Enc::new().str(1, "bin").bytes(2, &[0, 1, 2]))
        // A field this schema does not know is skipped.
        .str(999, "from a newer server");
    let decoded: ConfigMap = decode(&bytes, &schema::API_CORE_V1_CONFIGMAP).unwrap();
    let json: ConfigMap = serde_json::from_value(json!({
        "metadata": json_meta("cm", Some("default")),
        "data": {"k": "v"}, "binaryData": {"bin": "AAEC"}
    }))
    .unwrap();
    assert_eq!(decoded, json);
    // `generateName: ""` and `generation: 0` (omitempty, not pointers) are absent.
    assert_eq!(decoded.metadata.generate_name, None);
    assert_eq!(decoded.metadata.generation, None);
}

#[test]
fn pointer_fields_keep_their_zero_and_inline_structs_flatten() {
    // Deployment.spec.replicas is `*int32`: 0 stays Some(0).
    let bytes = Enc::new()
        .msg(1, meta("web", "prod"))
        .msg(2, Enc::new().varint(1, 0).msg(2, Enc::new()).msg(3, Enc::new().msg(2, Enc::new())));
    let decoded: Deployment = decode(&bytes, &schema::API_APPS_V1_DEPLOYMENT).unwrap();
    assert_eq!(decoded.spec.replicas, Some(0));

    // Volume inlines VolumeSource (field 2), whose configMap is field 19; a Probe inlines
    // ProbeHandler; IntOrString is a number or a string; packed and unpacked int64s.
    let volume = Enc::new().str(1, "config").msg(
        2,
        Enc::new().msg(19, Enc::new().msg(1, Enc::new().str(1, "settings")).varint(3, 420)),
    );
    let probe = Enc::new()
        .msg(
            1,
            Enc::new().msg(
                2,
                Enc::new().str(1, "/healthz").msg(2, Enc::new().varint(1, 1).str(3, "http")),
            ),
        )
        .varint(2, 3);
    let container = Enc::new().str(1, "app").str(2, "nginx").msg(10, probe);
    let security = Enc::new().varint(4, 1000).bytes(4, &[0xe9, 0x07, 0xea, 0x07]);
    let spec = Enc::new().msg(1, volume).msg(2, container).msg(14, security);
    let bytes = Enc::new().msg(1, meta("p", "prod")).msg(2, spec);
    let decoded: Pod = decode(&bytes, &schema::API_CORE_V1_POD).unwrap();
    let json: Pod = serde_json::from_value(json!({
        "metadata": json_meta("p", Some("prod")),
        "spec": {
            "volumes": [{"name": "config", "configMap": {"name": "settings", "defaultMode": 420}}],
            "containers": [{"name": "app", "image": "nginx",
                "livenessProbe": {"httpGet": {"path": "/healthz", "port": "http"}, "initialDelaySeconds": 3}}],
            "securityContext": {"supplementalGroups": [1000, 1001, 1002]}
        }
    }))
    .unwrap();
    assert_eq!(decoded, json);
}

#[test]
fn special_kinds_become_what_go_json_writes() {
    // Service: targetPort as an int; CSR: `extra` (map of ExtraValue); Event: MicroTime.
    let port = Enc::new()
        .str(1, "http")
        .str(2, "TCP")
        .varint(3, 80)
        .msg(4, Enc::new().varint(1, 0).varint(2, 8080));
    let bytes = Enc::new().msg(1, meta("svc", "prod")).msg(2, Enc::new().msg(1, port));
    let decoded: Service = decode(&bytes, &schema::API_CORE_V1_SERVICE).unwrap();
    let ports = decoded.spec.unwrap().ports.unwrap();
    assert_eq!(
        ports[0].target_port,
        Some(k8s_openapi::apimachinery::pkg::util::intstr::IntOrString::Int(8080))
    );

    let extra = Enc::new().str(1, "scopes").msg(2, Enc::new().str(1, "a").str(1, "b"));
    let spec = Enc::new()
        .bytes(1, b"CSR")
        .str(2, "alice")
        .msg(6, extra)
        .str(7, "kubernetes.io/kube-apiserver-client");
    let bytes = Enc::new().msg(1, meta("csr", "")).msg(2, spec);
    let decoded: CertificateSigningRequest =
        decode(&bytes, &schema::API_CERTIFICATES_V1_CERTIFICATESIGNINGREQUEST).unwrap();
    let json: CertificateSigningRequest = serde_json::from_value(json!({
        "metadata": json_meta("csr", None),
        "spec": {"request": "Q1NS", "username": "alice", "extra": {"scopes": ["a", "b"]},
            "signerName": "kubernetes.io/kube-apiserver-client"}
    }))
    .unwrap();
    assert_eq!(decoded, json);

    let bytes = Enc::new().msg(1, meta("ev", "prod")).msg(2, time(1_700_000_000, 123_456_789));
    let decoded: Event = decode(&bytes, &schema::API_EVENTS_V1_EVENT).unwrap();
    let event_time = serde_json::to_value(decoded.event_time).unwrap();
    assert_eq!(event_time, json!("2023-11-14T22:13:20.123456Z"));
}

#[test]
fn truncated_or_malformed_input_is_a_wire_error_never_a_panic() {
    let bytes = Enc::new().msg(1, meta("cm", "default")).entry(2, "k", "v").0;
    let mut errors = 0;
    let direct = decoder_of::<ConfigMap>();
    for len in 0..bytes.len() {
        let message = &schema::API_CORE_V1_CONFIGMAP;
        let by_serde = from_message::<ConfigMap>(&bytes[..len], message, None);
        let options = DecodeOptions::default();
        let directly = decode_object::<ConfigMap>(&bytes[..len], message, None, options, direct);
        assert_eq!(by_serde.is_err(), directly.is_err(), "{len}");
        if let (Err(err), Err(direct)) = (by_serde, directly) {
            assert_eq!(err.category(), Category::Wire, "{len}: {err}");
            assert_eq!(direct.category(), Category::Wire, "{len}: {direct}");
            errors += 1;
        }
    }
    assert!(errors > bytes.len() / 2, "{errors} of {}", bytes.len());
    // A string field that is not UTF-8, and a varint where a string is due.
    let bad = Enc::new().bytes(2, &Enc::new().bytes(1, b"k").bytes(2, &[0xff]).0);
    let err = decode::<ConfigMap>(&bad, &schema::API_CORE_V1_CONFIGMAP).unwrap_err();
    assert_eq!(err.category(), Category::Wire);
    let bad = Enc::new().msg(1, Enc::new().varint(1, 5));
    let err = decode::<ConfigMap>(&bad, &schema::API_CORE_V1_CONFIGMAP).unwrap_err();
    assert_eq!(err.category(), Category::Wire, "{err}");
}

#[test]
fn a_value_the_type_rejects_is_a_data_error() {
    #[derive(Debug, PartialEq, serde::Deserialize)]
    #[allow(dead_code)]
    struct Strict {
        data: std::collections::BTreeMap<String, u32>,
    }
    let bytes = Enc::new().msg(1, meta("cm", "default")).entry(2, "k", "not a number");
    let err = decode::<Strict>(&bytes, &schema::API_CORE_V1_CONFIGMAP).unwrap_err();
    assert_eq!(err.category(), Category::Data);
}

#[test]
fn managed_fields_are_skipped_when_asked() {
    let bytes = Enc::new().msg(1, meta("cm", "default"));
    let options = DecodeOptions { skip_managed_fields: true };
    let message = &schema::API_CORE_V1_CONFIGMAP;
    for direct in [None, decoder_of::<ConfigMap>()] {
        let decoded = decode_object::<ConfigMap>(&bytes.0, message, None, options, direct).unwrap();
        assert_eq!(decoded.metadata.managed_fields, None);
        assert_eq!(decoded.metadata.labels.unwrap()["app"], "web");
    }
}

#[test]
fn repeated_fields_decode_into_vecs_at_their_length() {
    // Three containers and three args: serde's Vec visitor would grow to capacity 4
    // without the entry count as a size hint.
    let container = |name: &str| {
        Enc::new().str(1, name).str(2, "nginx").str(4, "--a").str(4, "--b").str(4, "--c")
    };
    let spec = Enc::new().msg(2, container("a")).msg(2, container("b")).msg(2, container("c"));
    let bytes = Enc::new().msg(1, meta("p", "prod")).msg(2, spec);
    let decoded: Pod = decode(&bytes, &schema::API_CORE_V1_POD).unwrap();
    let containers = decoded.spec.unwrap().containers;
    assert_eq!((containers.len(), containers.capacity()), (3, 3));
    for container in &containers {
        let args = container.args.as_ref().unwrap();
        assert_eq!((args.len(), args.capacity()), (3, 3));
    }
}
