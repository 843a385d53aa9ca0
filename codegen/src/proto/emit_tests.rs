//! Selection and emission over a small model: a schema table and k8s-openapi-like structs.

use super::emit::render;
use super::schema::{Field, Kind, parse_schema};
use super::select::{Skip, select};
use super::structs::{StructField, Structs, scan_source};
use super::{arms, schema::Schema};
use crate::model::KubeVersion;

/// A schema table with every shape the emitter writes, one field unsupported by a
/// k8s-openapi field (`Broken.extra`) and two messages that need it (`Gadget`, `Holder`).
const SCHEMA: &str = r#"
pub(crate) static APIMACHINERY_PKG_APIS_META_V1_OBJECTMETA: Message = Message {
    name: "k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta",
    fields: &[
        Field { number: 1, json: "name", kind: Kind::String, flags: OMIT_ZERO },
        Field { number: 17, json: "managedFields", kind: Kind::Message(&APIMACHINERY_PKG_APIS_META_V1_MANAGEDFIELDSENTRY), flags: REPEATED },
    ],
};
pub(crate) static APIMACHINERY_PKG_APIS_META_V1_MANAGEDFIELDSENTRY: Message = Message {
    name: "k8s.io/apimachinery/pkg/apis/meta/v1.ManagedFieldsEntry",
    fields: &[
        Field { number: 7, json: "fieldsV1", kind: Kind::RawJson, flags: 0 },
    ],
};
pub(crate) static API_TEST_V1_WIDGET: Message = Message {
    name: "k8s.io/api/test/v1.Widget",
    fields: &[
        Field { number: 1, json: "metadata", kind: Kind::Message(&APIMACHINERY_PKG_APIS_META_V1_OBJECTMETA), flags: 0 },
        Field { number: 2, json: "name", kind: Kind::String, flags: OMIT_ZERO },
        Field { number: 3, json: "replicas", kind: Kind::Int, flags: 0 },
        Field { number: 4, json: "parts", kind: Kind::Message(&API_TEST_V1_PART), flags: REPEATED },
        Field { number: 5, json: "labels", kind: Kind::Map(&Kind::String), flags: 0 },
        Field { number: 6, json: "", kind: Kind::Inline(&API_TEST_V1_COMMON), flags: 0 },
        Field { number: 7, json: "since", kind: Kind::Time, flags: 0 },
        Field { number: 8, json: "podIPs", kind: Kind::String, flags: REPEATED },
        Field { number: 9, json: "type", kind: Kind::String, flags: 0 },
        Field { number: 10, json: "notInRust", kind: Kind::StringList, flags: 0 },
    ],
};
pub(crate) static API_TEST_V1_PART: Message = Message {
    name: "k8s.io/api/test/v1.Part",
    fields: &[
        Field { number: 1, json: "size", kind: Kind::Quantity, flags: 0 },
    ],
};
pub(crate) static API_TEST_V1_COMMON: Message = Message {
    name: "k8s.io/api/test/v1.Common",
    fields: &[
        Field { number: 1, json: "tag", kind: Kind::String, flags: OMIT_ZERO },
        Field { number: 2, json: "", kind: Kind::Inline(&API_TEST_V1_DEEPER), flags: 0 },
        Field { number: 3, json: "", kind: Kind::Inline(&API_TEST_V1_UNUSED), flags: 0 },
    ],
};
pub(crate) static API_TEST_V1_DEEPER: Message = Message {
    name: "k8s.io/api/test/v1.Deeper",
    fields: &[
        Field { number: 1, json: "depth", kind: Kind::Int, flags: 0 },
    ],
};
pub(crate) static API_TEST_V1_UNUSED: Message = Message {
    name: "k8s.io/api/test/v1.Unused",
    fields: &[
        Field { number: 1, json: "nowhere", kind: Kind::Int, flags: 0 },
    ],
};
pub(crate) static API_TEST_V1_BROKEN: Message = Message {
    name: "k8s.io/api/test/v1.Broken",
    fields: &[
        Field { number: 1, json: "extra", kind: Kind::StringList, flags: 0 },
    ],
};
pub(crate) static API_TEST_V1_GADGET: Message = Message {
    name: "k8s.io/api/test/v1.Gadget",
    fields: &[
        Field { number: 1, json: "widget", kind: Kind::Message(&API_TEST_V1_WIDGET), flags: 0 },
        Field { number: 2, json: "broken", kind: Kind::Message(&API_TEST_V1_BROKEN), flags: 0 },
    ],
};
pub(crate) static API_TEST_V1_HOLDER: Message = Message {
    name: "k8s.io/api/test/v1.Holder",
    fields: &[
        Field { number: 1, json: "gadgets", kind: Kind::Map(&Kind::Message(&API_TEST_V1_GADGET)), flags: 0 },
    ],
};
pub(crate) static RESOURCES: &[(&str, &str, &str, &Message)] = &[
    ("test.k8s.io", "v1", "Gadget", &API_TEST_V1_GADGET),
    ("test.k8s.io", "v1", "Widget", &API_TEST_V1_WIDGET),
];
"#;

/// A struct as k8s-openapi writes it: `fields` are `(JSON name, ident, type)`.
fn k8s_struct(name: &str, default: bool, fields: &[(&str, &str, &str)]) -> String {
    let derive = if default { "Clone, Debug, Default, PartialEq" } else { "Clone, Debug" };
    let mut out = format!("#[derive({derive})]\npub struct {name} {{\n");
    for (_, ident, ty) in fields {
        out.push_str(&format!("    /// Docs.\n    pub {ident}: {ty},\n\n"));
    }
    out.push_str(&format!("}}\n\nimpl<'de> crate::serde::Deserialize<'de> for {name} {{\n"));
    for (json, ident, _) in fields {
        out.push_str(&format!("                            \"{json}\" => Field::Key_{ident},\n"));
    }
    out.push_str("}\n");
    out
}

/// The module of `metav1` in k8s-openapi.
const META: &str = "crate::apimachinery::pkg::apis::meta::v1";

/// The k8s-openapi structs of [`SCHEMA`]'s messages (but the inline ones).
fn structs() -> Structs {
    let object_meta = format!("{META}::ObjectMeta");
    let entries = format!("Option<std::vec::Vec<{META}::ManagedFieldsEntry>>");
    let time = format!("{META}::Time");
    let files = [
        (
            "apimachinery::pkg::apis::meta::v1::",
            k8s_struct(
                "ObjectMeta",
                true,
                &[
                    ("managedFields", "managed_fields", &entries),
                    ("name", "name", "Option<std::string::String>"),
                ],
            ),
        ),
        (
            "apimachinery::pkg::apis::meta::v1::",
            k8s_struct(
                "ManagedFieldsEntry",
                true,
                &[("fieldsV1", "fields_v1", &format!("Option<{META}::FieldsV1>"))],
            ),
        ),
        (
            "api::test::v1::",
            k8s_struct(
                "Widget",
                true,
                &[
                    ("apiVersion", "api_version", "std::string::String"),
                    ("depth", "depth", "Option<i64>"),
                    (
                        "labels",
                        "labels",
                        "Option<std::collections::BTreeMap<std::string::String, std::string::String>>",
                    ),
                    ("metadata", "metadata", &object_meta),
                    ("name", "name", "Option<std::string::String>"),
                    ("parts", "parts", "std::vec::Vec<crate::api::test::v1::Part>"),
                    ("podIPs", "pod_ips", "Option<std::vec::Vec<std::string::String>>"),
                    ("replicas", "replicas", "i32"),
                    ("since", "since", &time),
                    ("tag", "tag", "Option<std::string::String>"),
                    ("type", "type_", "std::string::String"),
                ],
            ),
        ),
        ("api::test::v1::", k8s_struct("Part", true, &[("size", "size", "Option<Quantity>")])),
        (
            "api::test::v1::",
            k8s_struct("Broken", true, &[("extra", "extra", "Option<std::vec::Vec<String>>")]),
        ),
        (
            "api::test::v1::",
            k8s_struct(
                "Gadget",
                true,
                &[
                    ("broken", "broken", "Option<crate::api::test::v1::Broken>"),
                    ("widget", "widget", "Option<crate::api::test::v1::Widget>"),
                ],
            ),
        ),
        (
            "api::test::v1::",
            k8s_struct(
                "Holder",
                true,
                &[(
                    "gadgets",
                    "gadgets",
                    "std::collections::BTreeMap<std::string::String, crate::api::test::v1::Gadget>",
                )],
            ),
        ),
    ];
    let mut structs = Structs::default();
    for (module, source) in files {
        for (name, found) in scan_source(&source) {
            structs.by_path.insert(format!("{module}{name}"), found);
        }
    }
    structs
}

/// [`SCHEMA`], parsed.
fn schema() -> Schema {
    parse_schema(SCHEMA).unwrap()
}

#[test]
fn skips_unsupported_fields_and_cascades_to_the_messages_that_need_them() {
    let selection = select(&schema(), &structs());
    let emitted: Vec<&str> = selection.emitted.keys().map(String::as_str).collect();
    assert_eq!(
        emitted,
        [
            "APIMACHINERY_PKG_APIS_META_V1_MANAGEDFIELDSENTRY",
            "APIMACHINERY_PKG_APIS_META_V1_OBJECTMETA",
            "API_TEST_V1_PART",
            "API_TEST_V1_WIDGET",
        ]
    );
    let skipped = |ident: &str| selection.skipped.get(ident).cloned();
    assert_eq!(
        skipped("API_TEST_V1_BROKEN"),
        Some(Skip::Unsupported { json: "extra".into(), problem: "a single StringList".into() })
    );
    assert_eq!(
        skipped("API_TEST_V1_GADGET"),
        Some(Skip::Needs("k8s.io/api/test/v1.Broken".into()))
    );
    assert_eq!(
        skipped("API_TEST_V1_HOLDER"),
        Some(Skip::Needs("k8s.io/api/test/v1.Gadget".into()))
    );
    // Inline messages need no struct of their own.
    assert_eq!(skipped("API_TEST_V1_COMMON"), Some(Skip::NoStruct("api::test::v1::Common".into())));
}

#[test]
fn a_struct_without_default_or_with_a_foreign_field_type_is_skipped() {
    let mut structs = structs();
    let part = structs.by_path.get_mut("api::test::v1::Part").unwrap();
    part.default = false;
    let selection = select(&schema(), &structs);
    assert_eq!(
        selection.skipped.get("API_TEST_V1_PART"),
        Some(&Skip::NoDefault("api::test::v1::Part".into()))
    );
    assert!(matches!(selection.skipped.get("API_TEST_V1_WIDGET"), Some(Skip::Needs(_))));

    let mut structs = self::structs();
    let widget = structs.by_path.get_mut("api::test::v1::Widget").unwrap();
    let parts = widget.fields.iter_mut().find(|f| f.ident == "parts").unwrap();
    parts.ty = "std::vec::Vec<crate::api::test::v1::Other>".into();
    let selection = select(&schema(), &structs);
    let Some(Skip::Unsupported { json, problem }) = selection.skipped.get("API_TEST_V1_WIDGET")
    else {
        panic!("{:?}", selection.skipped.get("API_TEST_V1_WIDGET"))
    };
    assert_eq!(json, "parts");
    assert!(problem.contains("api::test::v1::Part"), "{problem}");
}

#[test]
fn emits_one_arm_per_field_the_struct_has() {
    let schema = schema();
    let structs = structs();
    let file =
        render(&schema, &structs, &select(&schema, &structs), KubeVersion { minor: 37 }).unwrap();
    let widget = file
        .split("impl Fields for k8s_openapi::api::test::v1::Widget {\n")
        .nth(1)
        .and_then(|rest| rest.split("\n}\n").next())
        .unwrap();
    let expected = "    fn field(&mut self, number: u32, wire: u8, reader: &mut Reader<'_>, cx: Cx) -> Result<()> {
        match number {
            1 => message_over(&mut self.metadata, wire, reader, cx)?,
            2 => if is_zero(reader, wire)? { reader.skip(wire)? } else { self.name = Some(string(wire, reader)?) },
            3 => self.replicas = int(wire, reader)?,
            4 => messages(&mut self.parts, number, wire, reader, cx)?,
            5 => string_entry(self.labels.get_or_insert_with(Default::default), wire, reader)?,
            6 => inline(wire, reader, |number, wire, reader| {
                match number {
                    1 => if is_zero(reader, wire)? { reader.skip(wire)? } else { self.tag = Some(string(wire, reader)?) },
                    2 => inline(wire, reader, |number, wire, reader| {
                        match number {
                            1 => self.depth = Some(int(wire, reader)?),
                            _ => reader.skip(wire)?,
                        }
                        Ok(())
                    })?,
                    _ => reader.skip(wire)?,
                }
                Ok(())
            })?,
            7 => self.since = required(time(wire, reader)?)?,
            8 => strings(self.pod_ips.get_or_insert_with(Vec::new), number, wire, reader)?,
            9 => self.type_ = string(wire, reader)?,
            _ => reader.skip(wire)?,
        }
        Ok(())
    }";
    assert_eq!(widget, expected);
}

#[test]
fn object_meta_skips_managed_fields_when_asked_and_the_file_is_gated() {
    let schema = schema();
    let structs = structs();
    let file =
        render(&schema, &structs, &select(&schema, &structs), KubeVersion { minor: 37 }).unwrap();
    assert!(file.contains(
        "            17 if cx.skip_managed_fields => reader.skip(wire)?,\n            \
         17 => messages(self.managed_fields.get_or_insert_with(Vec::new), number, wire, reader, cx)?,\n"
    ));
    assert!(file.contains("7 => self.fields_v1 = raw_json(wire, reader)?,\n"));
    assert!(file.starts_with("// @generated by codegen from the protobuf schema table"));
    assert!(file.contains("k8s-openapi 0.29's\n// v1_37 structs;"));
    assert!(file.contains(
        "\nk8s_openapi::k8s_if_1_37! {\nuse crate::listwatch::protobuf::direct::prelude::*;\n"
    ));
    assert!(
        file.contains(
            "\nk8s_openapi::k8s_if_le_1_36! {\npub(crate) fn decoder(_: core::any::TypeId)"
        )
    );
    // The decoder lookup lists only the kinds with a decoder: Widget, not Gadget.
    let widget = "k8s_openapi::api::test::v1::Widget";
    assert!(file.contains(&format!(
        "    if id == TypeId::of::<{widget}>() {{ return Some(decode_into::<{widget}>); }}\n    None\n}}\n}}\n"
    )));
    assert!(!file.contains("TypeId::of::<k8s_openapi::api::test::v1::Gadget>"));
    assert!(!file.contains("v1::Gadget {"));
    // The whole file is Rust, and so are the items inside its version gates.
    for item in syn::parse_file(&file).unwrap().items {
        let syn::Item::Macro(gate) = item else { panic!("an item outside the version gates") };
        gate.mac.parse_body::<syn::File>().unwrap();
    }
}

/// A struct field `ident: ty`.
fn target(ident: &str, ty: &str) -> StructField {
    StructField { ident: ident.into(), ty: ty.into(), json: None }
}

/// A single (not repeated) field of `kind`.
fn single(kind: Kind) -> Field {
    Field { number: 1, json: "x".into(), kind, repeated: false, omit_zero: false }
}

#[test]
fn raw_json_times_and_maps_fit_their_struct_field() {
    let raw = single(Kind::RawJson);
    assert_eq!(
        arms::statement(&raw, &target("data", "crate::apimachinery::pkg::runtime::RawExtension")),
        Ok("self.data = raw_json(wire, reader)?.unwrap_or_default()".into())
    );
    let at = single(Kind::MicroTime);
    assert_eq!(
        arms::statement(&at, &target("at", "Option<MicroTime>")),
        Ok("self.at = micro_time(wire, reader)?".into())
    );
    let map = single(Kind::Map(Box::new(Kind::Message("M".into()))));
    assert_eq!(
        arms::statement(&map, &target("m", "std::collections::BTreeMap<String, M>")),
        Ok("message_entry(&mut self.m, wire, reader, cx)?".into())
    );
    let map_of_ints = single(Kind::Map(Box::new(Kind::Int)));
    assert!(
        arms::statement(
            &map_of_ints,
            &target("m", "Option<std::collections::BTreeMap<String, i32>>")
        )
        .is_err()
    );
    let repeated_time = Field { repeated: true, ..single(Kind::Time) };
    assert!(arms::statement(&repeated_time, &target("t", "Option<std::vec::Vec<Time>>")).is_err());
    // A repeated field whose Rust type is not a Vec, and a single one whose type is.
    let repeated = Field { repeated: true, ..single(Kind::String) };
    assert!(arms::statement(&repeated, &target("s", "Option<std::string::String>")).is_err());
    assert!(arms::statement(&single(Kind::String), &target("s", "std::vec::Vec<String>")).is_err());
    assert_eq!(
        arms::named_type("Option<std::vec::Vec<crate::api::core::v1::Container>>"),
        "api::core::v1::Container"
    );
}
