//! The direct route beside the serde route. `de_tests` decodes each of its messages both
//! ways and compares; these are the cases only the direct route has.

use k8s_openapi::api::{
    apps::v1::Deployment,
    certificates::v1::CertificateSigningRequest,
    core::v1::{ConfigMap, Pod, Service},
    events::v1::Event,
};

use super::*;
use crate::listwatch::protobuf::{
    error::Category,
    generated::schema,
    testing::{Enc, meta},
};

fn both<K: DeserializeOwned + 'static>(
    bytes: &Enc,
    message: &'static Message,
    type_meta: Option<TypeMeta<'_>>,
) -> (Result<K>, Result<K>) {
    let options = DecodeOptions::default();
    let direct = decoder_of::<K>().expect("a generated decoder");
    (
        decode_object::<K>(&bytes.0, message, type_meta, options, None),
        decode_object::<K>(&bytes.0, message, type_meta, options, Some(direct)),
    )
}

#[test]
fn the_built_in_kinds_have_generated_decoders_and_other_types_none() {
    assert!(decoder_of::<Pod>().is_some());
    assert!(decoder_of::<ConfigMap>().is_some());
    assert!(decoder_of::<Deployment>().is_some());
    assert!(decoder_of::<Service>().is_some());
    assert!(decoder_of::<CertificateSigningRequest>().is_some());
    assert!(decoder_of::<Event>().is_some());
    assert!(decoder_of::<String>().is_none());
    assert!(decoder_of::<serde_json::Value>().is_none());
}

#[test]
fn a_watched_objects_api_version_and_kind_are_checked_as_json_checks_them() {
    let bytes = Enc::new().msg(1, meta("cm", "default"));
    let message = &schema::API_CORE_V1_CONFIGMAP;
    let right = TypeMeta { api_version: "v1", kind: "ConfigMap" };
    let (serde, direct) = both::<ConfigMap>(&bytes, message, Some(right));
    assert_eq!(direct.unwrap(), serde.unwrap());
    for wrong in [
        TypeMeta { api_version: "v1", kind: "Secret" },
        TypeMeta { api_version: "apps/v1", kind: "ConfigMap" },
    ] {
        let (serde, direct) = both::<ConfigMap>(&bytes, message, Some(wrong));
        assert_eq!(serde.unwrap_err().category(), Category::Data);
        assert_eq!(direct.unwrap_err().category(), Category::Data);
    }
}

#[test]
fn an_integer_out_of_its_fields_range_is_a_data_error_both_ways() {
    // Deployment.spec.replicas is an int32.
    let bytes = Enc::new().msg(1, meta("web", "prod")).msg(2, Enc::new().varint(1, 1 << 40));
    let (serde, direct) = both::<Deployment>(&bytes, &schema::API_APPS_V1_DEPLOYMENT, None);
    assert_eq!(serde.unwrap_err().category(), Category::Data);
    assert_eq!(direct.unwrap_err().category(), Category::Data);
}

#[test]
fn a_zero_time_is_null_and_a_time_past_year_9999_fails_both_ways() {
    use crate::listwatch::protobuf::testing::time;
    let zero = Enc::new().msg(1, Enc::new().str(1, "cm").msg(8, Enc::new()));
    let (serde, direct) = both::<ConfigMap>(&zero, &schema::API_CORE_V1_CONFIGMAP, None);
    assert_eq!(direct.unwrap().metadata.creation_timestamp, None);
    assert_eq!(serde.unwrap().metadata.creation_timestamp, None);
    let late = Enc::new().msg(1, Enc::new().str(1, "cm").msg(8, time(253_402_300_800, 0)));
    let (serde, direct) = both::<ConfigMap>(&late, &schema::API_CORE_V1_CONFIGMAP, None);
    assert_eq!(serde.unwrap_err().category(), Category::Data);
    assert_eq!(direct.unwrap_err().category(), Category::Data);
}

#[test]
fn repeated_fields_decode_directly_into_vecs_at_their_length() {
    let container = |name: &str| {
        Enc::new().str(1, name).str(2, "nginx").str(4, "--a").str(4, "--b").str(4, "--c")
    };
    let spec = Enc::new().msg(2, container("a")).msg(2, container("b")).msg(2, container("c"));
    let bytes = Enc::new().msg(1, meta("p", "prod")).msg(2, spec);
    let (serde, direct) = both::<Pod>(&bytes, &schema::API_CORE_V1_POD, None);
    let direct = direct.unwrap();
    assert_eq!(direct, serde.unwrap());
    let containers = direct.spec.unwrap().containers;
    assert_eq!((containers.len(), containers.capacity()), (3, 3));
    for container in &containers {
        let args = container.args.as_ref().unwrap();
        assert_eq!((args.len(), args.capacity()), (3, 3));
    }
}

#[test]
fn a_repeated_singular_message_replaces_the_first_as_a_repeated_json_key_does() {
    // Decoded in place, the second `metadata` (not an `Option`) and the second `spec` (an
    // `Option`) must not merge into the first: protobuf would merge, JSON replaces.
    let first_meta = meta("a", "prod").msg(11, Enc::new().str(1, "app").str(2, "web"));
    let first_spec = Enc::new().msg(2, Enc::new().str(1, "c").str(2, "nginx"));
    let bytes = Enc::new()
        .msg(1, first_meta)
        .msg(2, first_spec)
        .msg(1, Enc::new().str(1, "b"))
        .msg(2, Enc::new().str(10, "node-1"));
    let (serde, direct) = both::<Pod>(&bytes, &schema::API_CORE_V1_POD, None);
    let direct = direct.unwrap();
    assert_eq!(direct, serde.unwrap());
    assert_eq!(direct.metadata.name.as_deref(), Some("b"));
    assert_eq!((direct.metadata.namespace, direct.metadata.labels), (None, None));
    let spec = direct.spec.unwrap();
    assert_eq!((spec.node_name.as_deref(), spec.containers.len()), (Some("node-1"), 0));
}

#[test]
fn a_field_of_the_wrong_wire_type_is_a_wire_error() {
    // ConfigMap.immutable (4) is a bool: a string there is malformed.
    let bytes = Enc::new().msg(1, meta("cm", "default")).str(4, "yes");
    let (serde, direct) = both::<ConfigMap>(&bytes, &schema::API_CORE_V1_CONFIGMAP, None);
    assert_eq!(serde.unwrap_err().category(), Category::Wire);
    assert_eq!(direct.unwrap_err().category(), Category::Wire);
}

#[test]
fn conditions_without_their_time_fail_as_a_missing_field_both_ways() {
    use crate::listwatch::protobuf::testing::time;
    // Service.status.conditions are metav1.Conditions, decoded by hand (no `Default`).
    let condition = |at: Option<Enc>| {
        let condition = Enc::new().str(1, "Ready").str(2, "True").varint(3, 0);
        let condition = match at {
            Some(at) => condition.msg(4, at),
            None => condition,
        };
        condition.str(5, "Done").str(6, "")
    };
    let service = |condition: Enc| {
        Enc::new().msg(1, meta("svc", "prod")).msg(3, Enc::new().msg(2, condition))
    };
    let message = &schema::API_CORE_V1_SERVICE;
    let (serde, direct) =
        both::<Service>(&service(condition(Some(time(1_700_000_000, 5)))), message, None);
    let direct = direct.unwrap();
    assert_eq!(direct, serde.unwrap());
    let conditions = direct.status.unwrap().conditions.unwrap();
    assert_eq!((conditions[0].observed_generation, conditions[0].reason.as_str()), (None, "Done"));
    for at in [None, Some(Enc::new())] {
        let (serde, direct) = both::<Service>(&service(condition(at)), message, None);
        assert_eq!(serde.unwrap_err().category(), Category::Data);
        assert_eq!(direct.unwrap_err().category(), Category::Data);
    }
}

#[test]
fn a_repeated_fields_v1_decodes_as_the_serde_route_decodes_it_every_time() {
    // From the second decode on, the text is one of this thread's recent ones.
    let entry = |fields: &[u8]| {
        Enc::new().str(1, "kubectl").str(6, "FieldsV1").msg(7, Enc::new().bytes(1, fields))
    };
    let texts: [&[u8]; 4] =
        [br#"{"f:data":{".":{},"f:a":{}}}"#, br#"{"f:b":[1]}"#, b"null", br#"{"f:c":tru}"#];
    for text in texts {
        let bytes = Enc::new().msg(1, Enc::new().str(1, "cm").msg(17, entry(text)));
        for _ in 0..3 {
            let (serde, direct) = both::<ConfigMap>(&bytes, &schema::API_CORE_V1_CONFIGMAP, None);
            match (serde, direct) {
                (Ok(serde), Ok(direct)) => assert_eq!(direct, serde),
                (Err(serde), Err(direct)) => assert_eq!(direct.category(), serde.category()),
                other => panic!("the routes disagree on {text:?}: {other:?}"),
            }
        }
    }
}
