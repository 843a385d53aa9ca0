//! The in-place JSON decoders generated from k8s-openapi's latest Kubernetes module.

mod common;

use std::sync::OnceLock;

use codegen::in_place::{self, Generated};
use codegen::model::Model;
use common::{
    assert_committed, decoders_are_listable, impls_inside_gates, latest_version_dir, real_model,
};

/// The generated file and the model, built once for all tests of this file.
fn generated() -> &'static (Generated, Model) {
    static GENERATED: OnceLock<(Generated, Model)> = OnceLock::new();
    GENERATED.get_or_init(|| {
        let model = real_model();
        let latest = model.latest().unwrap();
        let version_dir = latest_version_dir(&model);
        (in_place::generate(&version_dir, latest).unwrap(), model)
    })
}

#[test]
fn the_pod_s_fields_get_the_seed_of_their_type() {
    let (generated, _) = generated();
    let file = &generated.contents;
    for line in [
        // A struct, an `Option` of one, a `Vec` of them, an `Option` of a `Vec` of them.
        "0 => map.next_value_seed(Obj(&mut self.metadata)),",
        "1 => map.next_value_seed(OptObj(&mut self.spec)),",
        "map.next_value_seed(Objs(&mut self.containers)),",
        "map.next_value_seed(OptObjs(&mut self.volumes)),",
        // Anything else: through its own `Deserialize`, `null` as the default or `None`.
        "map.next_value_seed(LeafOr(&mut self.name)),",
        "map.next_value_seed(Leaf(&mut self.node_selector)),",
        // A resource checks its type.
        "map.next_value_seed(Expect(<Self as k8s_openapi::Resource>::KIND)),",
        // JSON names that are not the ident's camel case.
        "\"hostIP\" => ",
    ] {
        assert!(file.contains(line), "missing {line}");
    }
}

#[test]
fn every_kind_with_a_decoder_is_a_listable_resource_of_the_latest_version() {
    let (generated, model) = generated();
    assert_eq!(decoders_are_listable(model, &generated.contents), generated.listable);
    assert!(generated.listable > 80, "{}", generated.listable);
}

#[test]
fn the_committed_file_is_current() {
    let (generated, _) = generated();
    assert_committed(in_place::OUTPUT_PATH, &generated.contents);
}

#[test]
fn the_items_inside_the_version_gates_are_rust() {
    let (generated, _) = generated();
    assert_eq!(impls_inside_gates(&generated.contents), generated.structs);
}
