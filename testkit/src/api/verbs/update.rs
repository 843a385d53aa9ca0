//! The update verb, and the commit every change of an existing object goes through
//! (update, patch): server-owned metadata kept, generation bumped on spec changes.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::api::state::Shared;
use crate::api::target::Target;
use crate::api::verbs::body::{check_name_matches, normalize_type_and_namespace};
use crate::api::verbs::crd;
use crate::object::{StoredObject, meta_str, set_meta};
use crate::resources::ResourceInfo;
use crate::status::{ApiError, ApiResult};
use crate::store::StoreInner;

/// The update verb: replaces the object named `name` with `object`, refusing a stale
/// resourceVersion.
pub(crate) fn update(
    shared: &Shared,
    target: &Target,
    name: &str,
    mut object: Value,
    dry_run: bool,
) -> ApiResult<Arc<StoredObject>> {
    let info = &target.info;
    normalize_type_and_namespace(info, target, &mut object)?;
    check_name_matches(&object, name)?;
    let gr = info.group_resource();
    let mut store = shared.store.lock();
    let old = store
        .get(&gr, &target.key(name))
        .ok_or_else(|| ApiError::not_found(&info.group, &info.plural, name))?;
    if let Some(rv) = meta_str(&object, "resourceVersion").filter(|rv| !rv.is_empty())
        && rv != old.meta.resource_version.to_string()
    {
        return Err(ApiError::conflict(&info.group, &info.plural, name));
    }
    let stored =
        commit_update(&mut store, info, &old, object, target.subresource.as_deref(), dry_run)?;
    if crd::is_crd(info) && !dry_run {
        crd::reregister(shared, &stored)?;
    }
    Ok(stored)
}

/// Commits a new version of an existing object: keeps server-owned metadata, bumps
/// generation on spec changes, and removes a terminating object whose finalizers are gone.
pub(crate) fn commit_update(
    store: &mut StoreInner,
    info: &ResourceInfo,
    old: &StoredObject,
    mut new: Value,
    subresource: Option<&str>,
    dry_run: bool,
) -> ApiResult<Arc<StoredObject>> {
    let old_value = old.to_value()?;
    if subresource == Some("status") {
        let status = new.get("status").cloned();
        new = old_value.clone();
        match status {
            Some(status) => new["status"] = status,
            None => {
                if let Some(map) = new.as_object_mut() {
                    map.remove("status");
                }
            }
        }
    } else if info.has_status
        && let Some(map) = new.as_object_mut()
    {
        match old_value.get("status") {
            Some(status) => {
                map.insert("status".into(), status.clone());
            }
            None => {
                map.remove("status");
            }
        }
    }
    for key in [
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "namespace",
        "name",
    ] {
        match old_value.get("metadata").and_then(|m| m.get(key)) {
            Some(value) => set_meta(&mut new, key, value.clone()),
            None => {
                if let Some(metadata) = new.get_mut("metadata").and_then(Value::as_object_mut) {
                    metadata.remove(key);
                }
            }
        }
    }
    let old_generation =
        old_value.pointer("/metadata/generation").and_then(Value::as_i64).unwrap_or(1);
    let spec_changed = without_meta_and_status(&old_value) != without_meta_and_status(&new);
    set_meta(&mut new, "generation", json!(old_generation + i64::from(spec_changed)));
    set_meta(&mut new, "resourceVersion", json!(old.meta.resource_version.to_string()));
    if new == old_value {
        // A no-op update does not produce a new resourceVersion (like etcd3's guaranteed update).
        return Ok(Arc::new(old.clone()));
    }
    if dry_run {
        // Answered as the update would be stored, with the old resourceVersion.
        return StoredObject::from_value(&new).map(Arc::new);
    }
    let rv = store.next_rv();
    set_meta(&mut new, "resourceVersion", json!(rv.to_string()));
    let stored = Arc::new(StoredObject::from_value(&new)?);
    let gr = info.group_resource();
    if stored.meta.deleting && !stored.meta.has_finalizers {
        store.remove(&gr, stored.clone());
    } else {
        store.put(&gr, stored.clone());
    }
    Ok(stored)
}

fn without_meta_and_status(value: &Value) -> Value {
    let mut value = value.clone();
    if let Some(map) = value.as_object_mut() {
        map.remove("metadata");
        map.remove("status");
    }
    value
}
