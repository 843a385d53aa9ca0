//! List and deletecollection: selectors, resourceVersion semantics, consistent pagination.

use std::collections::HashMap;
use std::sync::Arc;

use axum::response::Response;
use bytes::Bytes;
use http::StatusCode;

use crate::api::Shared;
use crate::api::responses;
use crate::api::{Deleted, Target};
use crate::media::{Representation, partial_object_metadata};
use crate::object::{ObjKey, StoredObject};
use crate::resources::ResourceInfo;
use crate::selector::{FieldSelector, LabelSelector};
use crate::status::{ApiError, ApiResult};
use crate::table::IncludeObject;

/// Label and field selectors of a list or watch request.
#[derive(Debug, Clone, Default)]
pub(crate) struct Filter {
    labels: LabelSelector,
    fields: FieldSelector,
}

impl Filter {
    pub(crate) fn from_query(query: &HashMap<String, String>) -> ApiResult<Filter> {
        let labels = LabelSelector::parse(query.get("labelSelector").map_or("", String::as_str))
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        let fields = FieldSelector::parse(query.get("fieldSelector").map_or("", String::as_str))
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        Ok(Filter { labels, fields })
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.labels.is_empty() && self.fields.is_empty()
    }

    pub(crate) fn matches(&self, object: &StoredObject) -> bool {
        self.labels.matches(&object.meta.labels)
            && self.fields.matches(&object.meta.namespace, &object.meta.name)
    }
}

/// Encodes a continue token: the snapshot RV and the last key served, hex-encoded.
pub(crate) fn encode_continue(rv: u64, key: &ObjKey) -> String {
    let raw = format!("{rv}/{}/{}", key.0, key.1);
    raw.bytes().map(|b| format!("{b:02x}")).collect()
}

/// Decodes a continue token.
pub(crate) fn decode_continue(token: &str) -> Option<(u64, ObjKey)> {
    if !token.len().is_multiple_of(2) {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..token.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(token.get(i..i + 2)?, 16).ok())
        .collect();
    let raw = String::from_utf8(bytes?).ok()?;
    let mut parts = raw.splitn(3, '/');
    let rv = parts.next()?.parse().ok()?;
    let namespace = parts.next()?.to_string();
    let name = parts.next()?.to_string();
    Some((rv, (namespace, name)))
}

/// Parses a resourceVersion query value.
pub(crate) fn parse_rv(rv: &str) -> ApiResult<u64> {
    rv.parse().map_err(|_| ApiError::bad_request(format!("invalid resource version {rv:?}")))
}

/// The snapshot RV a list reads, from `resourceVersion` / `resourceVersionMatch` / `limit`.
fn snapshot_rv(current: u64, query: &HashMap<String, String>, limit: usize) -> ApiResult<u64> {
    let rv = query.get("resourceVersion").map_or("", String::as_str);
    let rv_match = query.get("resourceVersionMatch").map_or("", String::as_str);
    match (rv, rv_match) {
        ("", "") => Ok(current),
        ("", _) => Err(ApiError::new(
            422,
            "Invalid",
            "resourceVersionMatch is forbidden unless resourceVersion is provided",
        )),
        ("0", "" | "NotOlderThan") => Ok(current),
        (rv, "Exact") => {
            let rv = parse_rv(rv)?;
            if rv == 0 {
                return Err(ApiError::new(
                    422,
                    "Invalid",
                    "resourceVersionMatch \"Exact\" is forbidden for resourceVersion \"0\"",
                ));
            }
            Ok(rv)
        }
        (rv, "NotOlderThan") => not_older_than(current, parse_rv(rv)?),
        // Legacy semantics: a non-zero RV with a limit is exact, without one "not older than".
        (rv, "") if limit > 0 => parse_rv(rv),
        (rv, "") => not_older_than(current, parse_rv(rv)?),
        (_, other) => Err(ApiError::new(
            422,
            "Invalid",
            format!("unsupported resourceVersionMatch {other:?}"),
        )),
    }
}

/// Whether kube-apiserver answers this list from its watch cache without paginating:
/// `resourceVersion=0` (with or without `resourceVersionMatch=NotOlderThan`) and no
/// `continue`.
fn served_from_watch_cache(query: &HashMap<String, String>) -> bool {
    query.get("resourceVersion").is_some_and(|rv| rv == "0")
        && query.get("continue").is_none_or(String::is_empty)
}

fn not_older_than(current: u64, rv: u64) -> ApiResult<u64> {
    if rv > current { Err(ApiError::too_large_rv()) } else { Ok(current) }
}

fn expired_continue() -> ApiError {
    ApiError::expired(
        "The provided continue parameter is too old to display a consistent list result. \
         You can start a new list without the continue parameter.",
    )
}

/// Serves a list request.
pub(crate) fn list(
    shared: &Shared,
    target: &Target,
    query: &HashMap<String, String>,
    representation: &Representation,
) -> ApiResult<Response> {
    let info = &target.info;
    representation.for_list(info)?;
    let include = IncludeObject::from_query(query)?;
    let filter = Filter::from_query(query)?;
    let mut limit: usize = match query.get("limit").map(String::as_str) {
        None | Some("") => 0,
        Some(l) => l.parse().map_err(|_| ApiError::bad_request(format!("invalid limit {l:?}")))?,
    };
    if served_from_watch_cache(query) {
        // kube-apiserver serves `resourceVersion=0` from its watch cache, which ignores
        // `limit`: every matching item in one page, no `continue`.
        limit = 0;
    }
    let (items, snapshot, next) = {
        let store = shared.store.lock();
        let (at, after) = match query.get("continue").filter(|c| !c.is_empty()) {
            Some(token) => {
                let (rv, key) = decode_continue(token)
                    .ok_or_else(|| ApiError::bad_request("continue key is not valid"))?;
                if rv < store.compacted_rv() {
                    return Err(expired_continue());
                }
                (rv, Some(key))
            }
            None => (snapshot_rv(store.current_rv(), query, limit)?, None),
        };
        let (items, next) = store.list_page(
            &info.group_resource(),
            target.namespace.as_deref(),
            at,
            after.as_ref(),
            limit,
            &|o| filter.matches(o),
        )?;
        (items, at, next)
    };
    let malformed: Vec<Bytes> = shared
        .faults
        .take_malformed_list(info)
        .into_iter()
        .map(|m| m.object(info, snapshot, shared.faults.next_malformed_seq()))
        .collect();
    let continue_token = next.map(|key| encode_continue(snapshot, &key));
    let body = match representation {
        Representation::Full | Representation::Metadata { .. } => {
            render_list(info, snapshot, continue_token.as_deref(), &items, &malformed)
        }
        Representation::MetadataList { version } => {
            render_metadata_list(version, snapshot, continue_token.as_deref(), &items, &malformed)?
        }
        Representation::Table { version } => {
            let table = crate::table::table(
                version,
                &snapshot.to_string(),
                continue_token.as_deref(),
                &items,
                include,
            )?;
            Bytes::from(serde_json::to_vec(&table).unwrap_or_default())
        }
    };
    Ok(responses::object(StatusCode::OK, body))
}

/// A `PartialObjectMetadataList`: each item reduced to its metadata. Injected malformed
/// items are passed through as they are (a client must cope with them either way).
fn render_metadata_list(
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
fn render_list(
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

/// Deletes every object a list with the same selectors would return (finalizers honoured).
pub(crate) fn delete_collection(
    shared: &Shared,
    target: &Target,
    query: &HashMap<String, String>,
    dry_run: bool,
) -> ApiResult<Response> {
    let info = &target.info;
    let filter = Filter::from_query(query)?;
    let victims: Vec<Arc<StoredObject>> = {
        let store = shared.store.lock();
        let rv = store.current_rv();
        store
            .list_page(&info.group_resource(), target.namespace.as_deref(), rv, None, 0, &|o| {
                filter.matches(o)
            })?
            .0
    };
    let mut deleted = Vec::with_capacity(victims.len());
    for victim in victims {
        let one = Target {
            info: info.clone(),
            namespace: Some(victim.meta.namespace.clone()).filter(|ns| !ns.is_empty()),
            name: Some(victim.meta.name.clone()),
            subresource: None,
        };
        match crate::api::delete(shared, &one, &victim.meta.name, &serde_json::Value::Null, dry_run)
        {
            Ok(Deleted::Removed(object) | Deleted::Terminating(object)) => deleted.push(object),
            Err(err) if err.code == 404 => {}
            Err(err) => return Err(err),
        }
    }
    let rv = shared.store.lock().current_rv();
    Ok(responses::object(StatusCode::OK, render_list(info, rv, None, &deleted, &[])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continue_tokens_round_trip_and_reject_garbage() {
        let key = ("ns".to_string(), "pod-1".to_string());
        let token = encode_continue(42, &key);
        assert_eq!(decode_continue(&token), Some((42, key)));
        assert_eq!(decode_continue("zz"), None);
        assert_eq!(decode_continue("abc"), None);
    }

    #[test]
    fn resource_version_semantics() {
        let q = |pairs: &[(&str, &str)]| {
            pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
        };
        assert_eq!(snapshot_rv(10, &q(&[]), 0), Ok(10));
        assert_eq!(snapshot_rv(10, &q(&[("resourceVersion", "0")]), 0), Ok(10));
        assert_eq!(
            snapshot_rv(10, &q(&[("resourceVersion", "4"), ("resourceVersionMatch", "Exact")]), 0),
            Ok(4)
        );
        assert_eq!(
            snapshot_rv(
                10,
                &q(&[("resourceVersion", "4"), ("resourceVersionMatch", "NotOlderThan")]),
                0
            ),
            Ok(10)
        );
        assert_eq!(snapshot_rv(10, &q(&[("resourceVersion", "4")]), 5), Ok(4));
        assert_eq!(
            snapshot_rv(10, &q(&[("resourceVersion", "11")]), 0).map_err(|e| e.code),
            Err(504)
        );
        assert_eq!(
            snapshot_rv(10, &q(&[("resourceVersion", "x")]), 0).map_err(|e| e.code),
            Err(400)
        );
    }
}
