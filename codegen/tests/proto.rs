//! The protobuf decoders generated from the real schema table and k8s-openapi's latest
//! Kubernetes module.

mod common;

use std::sync::OnceLock;

use codegen::model::Model;
use codegen::proto::{self, Generated, select::Skip};
use common::{
    assert_committed, decoders_are_listable, impls_inside_gates, latest_version_dir, real_model,
    workspace_root,
};

/// The generated file and the model, built once for all tests of this file.
fn generated() -> &'static (Generated, Model) {
    static GENERATED: OnceLock<(Generated, Model)> = OnceLock::new();
    GENERATED.get_or_init(|| {
        let model = real_model();
        let latest = model.latest().unwrap();
        let version_dir = latest_version_dir(&model);
        let schema = workspace_root().join(proto::SCHEMA_PATH);
        (proto::generate(&schema, &version_dir, latest).unwrap(), model)
    })
}

#[test]
fn decodes_common_kinds_field_by_field() {
    let (generated, _) = generated();
    let file = &generated.contents;
    for kind in ["api::core::v1::Pod", "api::core::v1::ConfigMap", "api::apps::v1::Deployment"] {
        let ty = format!("k8s_openapi::{kind}");
        assert!(
            file.contains(&format!(
                "if id == TypeId::of::<{ty}>() {{ return Some(decode_into::<{ty}>); }}"
            )),
            "no decoder for {kind}"
        );
    }
    for arm in [
        // The spec's own example, ContainerPort; JSON names that are not the ident's camel case.
        "1 => if is_zero(reader, wire)? { reader.skip(wire)? } else { self.name = Some(string(wire, reader)?) },",
        "3 => self.container_port = int(wire, reader)?,",
        "12 => messages(self.pod_ips.get_or_insert_with(Vec::new), number, wire, reader, cx)?,",
        "17 if cx.skip_managed_fields => reader.skip(wire)?,",
    ] {
        assert!(file.contains(arm), "missing {arm}");
    }
    assert!(generated.decoded_resources() > 60, "{}", generated.summary());
}

#[test]
fn every_decoded_kind_is_a_k8s_openapi_resource_of_the_latest_version() {
    // `decode_into` needs `k8s_openapi::Resource`: every type in `decoder` must be one.
    let (generated, model) = generated();
    assert_eq!(decoders_are_listable(model, &generated.contents), generated.decoded_resources());
}

#[test]
fn structs_without_default_are_decoded_by_hand_and_what_needs_them_is_generated() {
    // `Fields: Default`; `metav1.Condition` and events/v1 `EventSeries` derive none, so the
    // runtime decodes them by hand, and Service (whose status holds Conditions) and
    // events/v1 Event (with its EventSeries) are generated.
    let (generated, _) = generated();
    let by_hand = &generated.selection.by_hand;
    assert!(by_hand.contains("APIMACHINERY_PKG_APIS_META_V1_CONDITION"), "{by_hand:?}");
    assert!(by_hand.contains("API_EVENTS_V1_EVENTSERIES"), "{by_hand:?}");
    assert!(!generated.contents.contains("apimachinery::pkg::apis::meta::v1::Condition {"));
    assert!(
        generated.contents.contains("impl Fields for k8s_openapi::api::core::v1::ServiceStatus {")
    );
    assert!(generated.contents.contains("impl Fields for k8s_openapi::api::events::v1::Event {"));
    let no_default =
        generated.selection.skipped.values().filter(|s| matches!(s, Skip::NoDefault(_))).count();
    assert_eq!(no_default, 0);
    // No field of a kept message is unsupported today.
    let unsupported: Vec<_> = generated
        .selection
        .skipped
        .values()
        .filter(|s| matches!(s, Skip::Unsupported { .. }))
        .collect();
    assert_eq!(unsupported, Vec::<&Skip>::new());
}

#[test]
fn the_committed_file_is_current() {
    let (generated, _) = generated();
    assert_committed(proto::OUTPUT_PATH, &generated.contents);
}

#[test]
fn the_items_inside_the_version_gates_are_rust() {
    let (generated, _) = generated();
    assert_eq!(impls_inside_gates(&generated.contents), generated.selection.emitted.len());
}
