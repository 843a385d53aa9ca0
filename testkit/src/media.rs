//! `Accept` negotiation for reads: full objects, metadata only (`as=PartialObjectMetadata`,
//! `as=PartialObjectMetadataList`) or a `Table`, as kube-apiserver serves them.

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

    /// Checks the representation fits a single object (get, and each watch event).
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
            std::slice::from_ref(&std::sync::Arc::new(object.clone())),
            include_object,
        )?,
    };
    Ok(Bytes::from(serde_json::to_vec(&value).unwrap_or_default()))
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
