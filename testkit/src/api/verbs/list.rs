//! The list verb: selectors, resourceVersion semantics, consistent pagination with
//! continue tokens.

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;

use crate::api::state::Shared;
use crate::api::target::Target;
use crate::object::{ObjKey, StoredObject};
use crate::selector::{FieldSelector, LabelSelector};
use crate::status::{ApiError, ApiResult};

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

/// One page of a list as the list verb read it.
#[derive(Debug)]
pub(crate) struct ListPage {
    /// The stored objects of the page, in key order.
    pub(crate) items: Vec<Arc<StoredObject>>,
    /// The resourceVersion the page was read at.
    pub(crate) resource_version: u64,
    /// Where the next page starts, when more items match.
    pub(crate) continue_token: Option<String>,
    /// Injected malformed items, sent after the stored ones.
    pub(crate) malformed: Vec<Bytes>,
}

/// The list verb: the objects matching the query's selectors at the resourceVersion it
/// asks for, one page at a time when it sets a `limit`.
pub(crate) fn list(
    shared: &Shared,
    target: &Target,
    query: &HashMap<String, String>,
) -> ApiResult<ListPage> {
    let info = &target.info;
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
    Ok(ListPage { items, resource_version: snapshot, continue_token, malformed })
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
