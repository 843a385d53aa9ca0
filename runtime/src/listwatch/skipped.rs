//! [`SkippedObject`]: an object in a list or a watch event that does not decode into the
//! resource type, and what is known about it without its contents.

use std::fmt;

use serde::Deserialize;

/// An object skipped because it does not decode into the resource type: a custom resource
/// whose schema keeps unknown fields (`x-kubernetes-preserve-unknown-fields`) can hold a
/// value the Rust type rejects, such as a string where the struct has a `u32`.
///
/// client-go has no such case: one such object fails every list of its informer, which
/// never syncs again (controller-runtime #2591). A list skips it and keeps every other
/// object; a watch event carrying it is skipped and the watch goes on.
///
/// It carries no object contents: only the object's key and resource version, read from
/// its metadata, and where the decoder stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedObject {
    /// `namespace/name`, or `name` for a cluster-scoped object; empty when the metadata
    /// itself does not decode.
    pub key: String,
    /// The object's `metadata.resourceVersion`, when it could be read.
    pub resource_version: Option<String>,
    /// Why it did not decode, without the offending value (serde's messages quote it).
    pub reason: String,
}

/// The part of an object a [`SkippedObject`] reads.
#[derive(Deserialize)]
struct Object {
    metadata: Meta,
}

#[derive(Deserialize)]
struct Meta {
    name: Option<String>,
    namespace: Option<String>,
    #[serde(rename = "resourceVersion")]
    resource_version: Option<String>,
}

impl SkippedObject {
    /// What can be read of the object whose JSON is `object`, which failed to decode with
    /// `err`.
    pub(crate) fn from_json(object: &[u8], err: &serde_json::Error) -> Self {
        Self::read(serde_json::from_slice::<Object>(object).ok(), redacted(err))
    }

    /// As [`from_json`](Self::from_json), for an object already parsed into a `Value`.
    pub(crate) fn from_value(object: serde_json::Value, err: &serde_json::Error) -> Self {
        Self::read(serde_json::from_value::<Object>(object).ok(), redacted(err))
    }

    /// What can be read of the object whose protobuf message (of the `message` schema) is
    /// `object`, which failed to decode. serde's messages quote the offending value, so the
    /// reason names none.
    pub(crate) fn from_protobuf(
        object: &[u8],
        message: &'static super::protobuf::types::Message,
    ) -> Self {
        let read = super::protobuf::de::decode_with::<Object>(object, message);
        Self::read(read, "its protobuf message does not decode into the type".to_owned())
    }

    fn read(object: Option<Object>, reason: String) -> Self {
        let meta = object.map(|object| object.metadata);
        let key = match meta.as_ref() {
            Some(Meta { name: Some(name), namespace: Some(namespace), .. })
                if !namespace.is_empty() =>
            {
                format!("{namespace}/{name}")
            }
            Some(Meta { name: Some(name), .. }) => name.clone(),
            _ => String::new(),
        };
        SkippedObject { key, resource_version: meta.and_then(|meta| meta.resource_version), reason }
    }
}

impl fmt::Display for SkippedObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = if self.key.is_empty() { "an object without a readable name" } else { &self.key };
        write!(f, "{key}")?;
        if let Some(resource_version) = &self.resource_version {
            write!(f, " at resourceVersion {resource_version}")?;
        }
        write!(f, ": {}", self.reason)
    }
}

/// A JSON error described by its category and position only.
fn redacted(err: &serde_json::Error) -> String {
    format!("invalid {:?} data at line {} column {}", err.classify(), err.line(), err.column())
        .replace("Data data", "data")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Typed {
        spec: Spec,
    }
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Spec {
        replicas: u32,
    }

    #[test]
    fn a_skipped_object_names_its_key_and_version_but_not_its_contents() {
        let json = br#"{"metadata":{"name":"web","namespace":"prod","resourceVersion":"7"},
            "spec":{"replicas":"top-secret-value"}}"#;
        let err = serde_json::from_slice::<Typed>(json).unwrap_err();
        assert!(err.to_string().contains("top-secret-value"));
        let skipped = SkippedObject::from_json(json, &err);
        assert_eq!(skipped.key, "prod/web");
        assert_eq!(skipped.resource_version.as_deref(), Some("7"));
        let shown = skipped.to_string();
        assert!(!shown.contains("top-secret-value"), "{shown}");
        assert!(
            shown.starts_with("prod/web at resourceVersion 7: invalid data at line 2"),
            "{shown}"
        );
    }

    #[test]
    fn an_object_without_readable_metadata_has_an_empty_key() {
        let json = br#"{"metadata":{"name":5}}"#;
        let err = serde_json::from_slice::<Typed>(json).unwrap_err();
        let skipped = SkippedObject::from_json(json, &err);
        assert_eq!((skipped.key.as_str(), skipped.resource_version), ("", None));
        let cluster = br#"{"metadata":{"name":"node-1"},"spec":{"replicas":-1}}"#;
        let err = serde_json::from_slice::<Typed>(cluster).unwrap_err();
        assert_eq!(SkippedObject::from_json(cluster, &err).key, "node-1");
    }
}
