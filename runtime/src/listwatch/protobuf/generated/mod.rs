//! Generated code: the schema table (`schema.rs`, from `conformance/cmd/protoschema`;
//! `make generate` rewrites it, `make check-generated` fails when it is stale).

#[rustfmt::skip]
pub(crate) mod schema;

/// The decoders straight into k8s-openapi's structs (`direct.rs`, from `codegen`, which
/// reads `schema.rs` and k8s-openapi's structs; `make generate` rewrites it too).
#[rustfmt::skip]
#[allow(unused_imports, unused_variables)]
pub(crate) mod direct;
