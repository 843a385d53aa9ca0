//! Generated code: the in-place decoders (`decoders.rs`, from `codegen`, which reads
//! k8s-openapi's structs; `make generate` rewrites it, `make check-generated` fails when it
//! is stale).

#[rustfmt::skip]
mod decoders;

pub(crate) use decoders::decoder;
