//! Server-side bulk updates: many MODIFIED events without one HTTP request per update,
//! for benchmarks. Reached through [`TestApiServer::bulk_touch`](crate::TestApiServer::bulk_touch)
//! or the admin route `POST /testkit/bulk-update`.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::api::state::Shared;
use crate::object::{ObjKey, StoredObject, set_meta};
use crate::resources::ResourceInfo;
use crate::status::{ApiError, ApiResult};

/// The annotation a bulk update bumps.
pub const TOUCH_ANNOTATION: &str = "testkit.kube-informers.io/touch";

/// Updates committed under one hold of the store lock, so that other requests and watches
/// are not starved during a long bulk update.
const BATCH: usize = 512;

/// What a bulk update did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BulkTouchReport {
    /// Updates committed (one MODIFIED event and one new resourceVersion each). Fewer than
    /// asked only when there are no objects to update.
    pub updated: u64,
    /// Distinct objects the updates went round (`0` when there were none).
    pub objects: u64,
    /// resourceVersion of the first update (`0` when nothing was updated).
    pub first_resource_version: u64,
    /// resourceVersion of the last update (`0` when nothing was updated).
    pub last_resource_version: u64,
}

/// Commits `count` updates, going round the objects of `info` (in `namespace`, or all) in
/// key order: each sets [`TOUCH_ANNOTATION`] to a fresh counter value.
pub(crate) fn bulk_touch(
    shared: &Shared,
    info: &ResourceInfo,
    namespace: Option<&str>,
    count: u64,
) -> ApiResult<BulkTouchReport> {
    let gr = info.group_resource();
    let keys: Vec<ObjKey> = {
        let store = shared.store.lock();
        let (items, _) = store.list_page(&gr, namespace, store.current_rv(), None, 0, &|_| true)?;
        items.iter().map(|o| o.meta.key()).collect()
    };
    let mut report = BulkTouchReport {
        updated: 0,
        objects: keys.len() as u64,
        first_resource_version: 0,
        last_resource_version: 0,
    };
    if keys.is_empty() {
        return Ok(report);
    }
    let mut next = keys.iter().cycle();
    let mut misses = 0;
    while report.updated < count {
        let mut store = shared.store.lock();
        for _ in 0..BATCH {
            if report.updated == count {
                break;
            }
            let Some(key) = next.next() else { break };
            // Deleted since the key snapshot: skip it (give up if every object is gone).
            let Some(old) = store.get(&gr, key) else {
                misses += 1;
                if misses >= keys.len() {
                    return Ok(report);
                }
                continue;
            };
            misses = 0;
            let mut value = old.to_value()?;
            let rv = store.next_rv();
            touch(&mut value, rv);
            set_meta(&mut value, "resourceVersion", json!(rv.to_string()));
            store.put(&gr, Arc::new(StoredObject::from_value(&value)?));
            if report.first_resource_version == 0 {
                report.first_resource_version = rv;
            }
            report.last_resource_version = rv;
            report.updated += 1;
        }
    }
    tracing::debug!(resource = %info.plural, namespace, updated = report.updated, "bulk update");
    Ok(report)
}

/// Sets the touch annotation (creating `metadata.annotations` if needed).
fn touch(value: &mut Value, rv: u64) {
    if !value.pointer("/metadata/annotations").is_some_and(Value::is_object) {
        set_meta(value, "annotations", json!({}));
    }
    if let Some(annotations) =
        value.pointer_mut("/metadata/annotations").and_then(Value::as_object_mut)
    {
        annotations.insert(TOUCH_ANNOTATION.to_string(), json!(rv.to_string()));
    }
}

/// The admin route `POST /testkit/bulk-update?resource=R&namespace=NS&count=N`
/// (`namespace` optional): the bulk update its query asks for, and the answer's body
/// `{"updated":..,"objects":..,"firstResourceVersion":"..","lastResourceVersion":".."}`.
pub(crate) fn admin_update(shared: &Shared, query: &HashMap<String, String>) -> ApiResult<Value> {
    let resource = query
        .get("resource")
        .filter(|r| !r.is_empty())
        .ok_or_else(|| ApiError::bad_request("the resource parameter is required"))?;
    let info = shared
        .registry
        .find(resource)
        .ok_or_else(|| ApiError::bad_request(format!("unknown resource {resource:?}")))?;
    let namespace = query.get("namespace").map(String::as_str).filter(|ns| !ns.is_empty());
    let count: u64 = query
        .get("count")
        .ok_or_else(|| ApiError::bad_request("the count parameter is required"))?
        .parse()
        .map_err(|_| ApiError::bad_request("count must be a non-negative integer"))?;
    let report = bulk_touch(shared, &info, namespace, count)?;
    Ok(json!({
        "updated": report.updated,
        "objects": report.objects,
        "firstResourceVersion": report.first_resource_version.to_string(),
        "lastResourceVersion": report.last_resource_version.to_string(),
    }))
}
