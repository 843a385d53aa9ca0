//! Generated code: the schema table (`schema.rs`, from `conformance/cmd/protoschema`;
//! `make generate` rewrites it, `make check-generated` fails when it is stale).

#[rustfmt::skip]
pub(crate) mod schema;
