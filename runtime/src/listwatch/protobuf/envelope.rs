//! The envelope of every protobuf body: the magic `k8s\0`, then a `runtime.Unknown`
//! message (`typeMeta = 1` with `apiVersion = 1`, `kind = 2`; `raw = 2`, the object's own
//! message; `contentEncoding = 3`; `contentType = 4`). A watched object (the `raw` of a
//! watch event's `object`) is wrapped the same way.

use kube::core::Status;

use super::{
    de::{TypeMeta, from_message},
    error::{Error, Result},
    generated::schema,
    reader::{Scalar, for_each_field},
};

/// The four bytes every protobuf body starts with.
pub(crate) const MAGIC: &[u8; 4] = b"k8s\0";

/// What an envelope holds.
pub(crate) struct Unknown<'de> {
    pub(crate) type_meta: TypeMeta<'de>,
    pub(crate) raw: &'de [u8],
}

/// Opens the envelope of a whole body.
pub(crate) fn unwrap(bytes: &[u8]) -> Result<Unknown<'_>> {
    let body = bytes.strip_prefix(MAGIC).ok_or_else(|| Error::wire("no k8s protobuf magic"))?;
    let mut unknown = Unknown { type_meta: TypeMeta { api_version: "", kind: "" }, raw: &[] };
    for_each_field(body, |number, value| {
        match (number, value) {
            (1, Scalar::Bytes(type_meta)) => unknown.type_meta = type_meta_of(type_meta)?,
            (2, Scalar::Bytes(raw)) => unknown.raw = raw,
            (3, Scalar::Bytes(encoding)) => check_encoding(encoding)?,
            _ => {}
        }
        Ok(())
    })?;
    Ok(unknown)
}

/// `runtime.TypeMeta`: `{apiVersion = 1, kind = 2}`.
pub(crate) fn type_meta_of(bytes: &[u8]) -> Result<TypeMeta<'_>> {
    let mut type_meta = TypeMeta { api_version: "", kind: "" };
    for_each_field(bytes, |number, value| {
        let text =
            |bytes| std::str::from_utf8(bytes).map_err(|_| Error::wire("TypeMeta not UTF-8"));
        match (number, value) {
            (1, Scalar::Bytes(bytes)) => type_meta.api_version = text(bytes)?,
            (2, Scalar::Bytes(bytes)) => type_meta.kind = text(bytes)?,
            _ => {}
        }
        Ok(())
    })?;
    Ok(type_meta)
}

/// The envelope's `contentEncoding`: the API server writes none; anything else is refused.
pub(crate) fn check_encoding(encoding: &[u8]) -> Result<()> {
    if encoding.is_empty() {
        Ok(())
    } else {
        Err(Error::wire("a content encoding inside the protobuf envelope"))
    }
}

/// The `Status` of a protobuf error response, if it is one.
pub(crate) fn decode_status(body: &[u8]) -> Option<Status> {
    let unknown = unwrap(body).ok()?;
    if unknown.type_meta.kind != "Status" {
        return None;
    }
    from_message(unknown.raw, schema::STATUS, None).ok()
}
