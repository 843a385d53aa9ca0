//! `Accept` negotiation for reads: full objects, metadata only (`as=PartialObjectMetadata`,
//! `as=PartialObjectMetadataList`) or a `Table`, as kube-apiserver serves them; and the
//! bodies of objects and lists in the representation picked.

use std::sync::Arc;

use bytes::Bytes;
use http::HeaderMap;
use serde_json::{Value, json};

use crate::object::StoredObject;
use crate::resources::ResourceInfo;
use crate::status::{ApiError, ApiResult};

/// What a read returns, from its `Accept` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Representation {
    /// The objects themselves (plain `application/json`, `*/*`, no header).
    Full,
    /// `as=PartialObjectMetadata`: one object's metadata (get and watch).
    Metadata { version: String },
    /// `as=PartialObjectMetadataList`: a list of metadata (list).
    MetadataList { version: String },
    /// `as=Table`: rows with a Name and an Age column.
    Table { version: String },
}

const ACCEPTED: &str = "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf";

impl Representation {
    /// Picks the first media range of `Accept` this server can produce, like the
    /// apiserver's negotiation: a range naming `as=` for another group, version or kind is
    /// skipped; if nothing is left but such ranges, the answer is 406.
    pub(crate) fn from_headers(headers: &HeaderMap) -> ApiResult<Representation> {
        let Some(accept) = headers.get(http::header::ACCEPT).and_then(|v| v.to_str().ok()) else {
            return Ok(Representation::Full);
        };
        let mut refused = false;
        for range in accept.split(',') {
            let mut parts = range.split(';').map(str::trim);
            let media = parts.next().unwrap_or_default();
            let params: Vec<(&str, &str)> = parts.filter_map(|p| p.split_once('=')).collect();
            let param = |key: &str| params.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
            if !matches!(media, "application/json" | "application/*" | "*/*") {
                // protobuf, yaml, …: not produced here; a later range may be.
                continue;
            }
            let Some(kind) = param("as") else { return Ok(Representation::Full) };
            let version = param("v").unwrap_or_default();
            if param("g") != Some("meta.k8s.io") || !matches!(version, "v1" | "v1beta1") {
                refused = true;
                continue;
            }
            let version = version.to_string();
            match kind {
                "PartialObjectMetadata" => return Ok(Representation::Metadata { version }),
                "PartialObjectMetadataList" => {
                    return Ok(Representation::MetadataList { version });
                }
                "Table" => return Ok(Representation::Table { version }),
                _ => refused = true,
            }
        }
        if refused {
            Err(ApiError::new(406, "NotAcceptable", ACCEPTED))
        } else {
            Ok(Representation::Full)
        }
    }

    /// Checks the representation fits a single object (get; a watch asking for a list
    /// type is not refused but ends at once).
    pub(crate) fn for_object(&self, info: &ResourceInfo) -> ApiResult<()> {
        match self {
            Representation::MetadataList { .. } => Err(ApiError::new(
                406,
                "NotAcceptable",
                format!(
                    "you requested PartialObjectMetadataList, but the requested object is not a list ({})",
                    go_type(info, false)
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Checks the representation fits a list.
    pub(crate) fn for_list(&self, info: &ResourceInfo) -> ApiResult<()> {
        match self {
            Representation::Metadata { .. } => Err(ApiError::new(
                406,
                "NotAcceptable",
                format!(
                    "you requested PartialObjectMetadata, but the requested object is a list ({})",
                    go_type(info, true)
                ),
            )),
            _ => Ok(()),
        }
    }
}

/// The Go type the apiserver names in its 406 messages: `*core.ConfigMap`,
/// `*apps.DeploymentList`, `*unstructured.Unstructured` for custom resources.
fn go_type(info: &ResourceInfo, list: bool) -> String {
    if !crate::resources::is_built_in(&info.group, &info.plural) {
        return if list { "*unstructured.UnstructuredList" } else { "*unstructured.Unstructured" }
            .to_string();
    }
    let package = match info.group.split('.').next().unwrap_or_default() {
        "" => "core",
        other => other,
    };
    let kind = if list { &info.list_kind } else { &info.kind };
    format!("*{package}.{kind}")
}

/// `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/<version>","metadata":{..}}`.
pub(crate) fn partial_object_metadata(object: &StoredObject, version: &str) -> ApiResult<Value> {
    let metadata = object.to_value()?.get_mut("metadata").map(Value::take).unwrap_or(json!({}));
    Ok(json!({
        "kind": "PartialObjectMetadata",
        "apiVersion": format!("meta.k8s.io/{version}"),
        "metadata": metadata,
    }))
}

/// One object in the requested representation (get, watch events).
pub(crate) fn render_object(
    representation: &Representation,
    object: &StoredObject,
    include_object: crate::table::IncludeObject,
) -> ApiResult<Bytes> {
    let value = match representation {
        Representation::Full | Representation::MetadataList { .. } => return Ok(object.json()),
        Representation::Metadata { version } => partial_object_metadata(object, version)?,
        Representation::Table { version } => crate::table::table(
            version,
            &object.meta.resource_version.to_string(),
            None,
            std::slice::from_ref(&Arc::new(object.clone())),
            include_object,
        )?,
    };
    Ok(Bytes::from(serde_json::to_vec(&value).unwrap_or_default()))
}

/// One list in the requested representation: `items` read at `rv`, then the `raw`
/// (injected) ones as they are (a `Table` leaves those out).
pub(crate) fn render_list(
    representation: &Representation,
    info: &ResourceInfo,
    rv: u64,
    continue_token: Option<&str>,
    items: &[Arc<StoredObject>],
    raw: &[Bytes],
    include_object: crate::table::IncludeObject,
) -> ApiResult<Bytes> {
    match representation {
        Representation::Full | Representation::Metadata { .. } => {
            Ok(full_list(info, rv, continue_token, items, raw))
        }
        Representation::MetadataList { version } => {
            metadata_list(version, rv, continue_token, items, raw)
        }
        Representation::Table { version } => {
            let table = crate::table::table(
                version,
                &rv.to_string(),
                continue_token,
                items,
                include_object,
            )?;
            Ok(Bytes::from(serde_json::to_vec(&table).unwrap_or_default()))
        }
    }
}

/// A `PartialObjectMetadataList`: each item reduced to its metadata. Injected malformed
/// items are passed through as they are (a client must cope with them either way).
fn metadata_list(
    version: &str,
    rv: u64,
    continue_token: Option<&str>,
    items: &[Arc<StoredObject>],
    raw: &[Bytes],
) -> ApiResult<Bytes> {
    let envelope = ListEnvelope {
        kind: "PartialObjectMetadataList",
        api_version: &format!("meta.k8s.io/{version}"),
        rv,
        continue_token,
    };
    envelope.render(items, raw, 512, |item, body| {
        let partial = partial_object_metadata(item, version)?;
        body.extend_from_slice(&serde_json::to_vec(&partial).unwrap_or_default());
        Ok(())
    })
}

/// `{"kind":"XxxList","apiVersion":..,"metadata":{..},"items":[..]}` from stored items
/// followed by raw (injected) ones.
pub(crate) fn full_list(
    info: &ResourceInfo,
    rv: u64,
    continue_token: Option<&str>,
    items: &[Arc<StoredObject>],
    raw: &[Bytes],
) -> Bytes {
    let envelope = ListEnvelope {
        kind: &info.list_kind,
        api_version: &info.api_version(),
        rv,
        continue_token,
    };
    let rendered = envelope.render(items, raw, 1024, |item, body| {
        item.write_json(body);
        Ok(())
    });
    rendered.unwrap_or_else(|_| unreachable!("writing stored objects cannot fail"))
}

/// What a list body says besides its items.
struct ListEnvelope<'a> {
    kind: &'a str,
    api_version: &'a str,
    rv: u64,
    continue_token: Option<&'a str>,
}

impl ListEnvelope<'_> {
    /// `{"kind":..,"apiVersion":..,"metadata":{"resourceVersion":..,"continue":..},"items":[..]}`:
    /// each of `items` written by `write_item` (about `item_size` bytes each), then the raw
    /// (injected) ones as they are.
    fn render(
        &self,
        items: &[Arc<StoredObject>],
        raw: &[Bytes],
        item_size: usize,
        mut write_item: impl FnMut(&StoredObject, &mut Vec<u8>) -> ApiResult<()>,
    ) -> ApiResult<Bytes> {
        let json = |value: &str| serde_json::to_vec(value).unwrap_or_default();
        let mut body = Vec::with_capacity(items.len() * item_size + 256);
        body.extend_from_slice(b"{\"kind\":");
        body.extend_from_slice(&json(self.kind));
        body.extend_from_slice(b",\"apiVersion\":");
        body.extend_from_slice(&json(self.api_version));
        body.extend_from_slice(
            format!(",\"metadata\":{{\"resourceVersion\":\"{}\"", self.rv).as_bytes(),
        );
        if let Some(token) = self.continue_token {
            body.extend_from_slice(b",\"continue\":");
            body.extend_from_slice(&json(token));
        }
        body.extend_from_slice(b"},\"items\":[");
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                body.push(b',');
            }
            write_item(item, &mut body)?;
        }
        for (i, item) in raw.iter().enumerate() {
            if i > 0 || !items.is_empty() {
                body.push(b',');
            }
            body.extend_from_slice(item);
        }
        body.extend_from_slice(b"]}");
        Ok(Bytes::from(body))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(accept: &str) -> ApiResult<Representation> {
        let mut headers = HeaderMap::new();
        headers.insert(http::header::ACCEPT, accept.parse().expect("header"));
        Representation::from_headers(&headers)
    }

    #[test]
    fn accept_picks_the_first_range_served() {
        let v1 = || "v1".to_string();
        assert_eq!(pick("application/json"), Ok(Representation::Full));
        assert_eq!(
            pick("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"),
            Ok(Representation::MetadataList { version: v1() })
        );
        assert_eq!(
            pick("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json"),
            Ok(Representation::Metadata { version: v1() })
        );
        assert_eq!(
            pick("application/json;as=Table;v=v1;g=meta.k8s.io,application/json"),
            Ok(Representation::Table { version: v1() })
        );
        assert_eq!(
            pick("application/json;as=Foo;g=meta.k8s.io;v=v1").map_err(|e| e.code),
            Err(406)
        );
        assert_eq!(
            pick("application/json;as=Foo;g=meta.k8s.io;v=v1, application/json"),
            Ok(Representation::Full)
        );
        assert_eq!(
            pick("application/vnd.kubernetes.protobuf, application/json"),
            Ok(Representation::Full)
        );
    }
}
