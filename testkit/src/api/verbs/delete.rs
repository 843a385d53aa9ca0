//! The delete verbs: one object (finalizers and preconditions honoured; a deleted CRD
//! takes its resources with it), or every object a list would return.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::api::state::Shared;
use crate::api::target::Target;
use crate::api::verbs::crd;
use crate::api::verbs::list::{Filter, ListPage};
use crate::object::{StoredObject, now_rfc3339, set_meta};
use crate::status::{ApiError, ApiResult};

/// What a DELETE did.
#[derive(Debug)]
pub(crate) enum Deleted {
    /// The object is gone (this is its final state, as the DELETED event carries it).
    Removed(Arc<StoredObject>),
    /// The object has finalizers: it only got a deletionTimestamp.
    Terminating(Arc<StoredObject>),
}

/// Deletes one object honouring finalizers and `DeleteOptions.preconditions`; with
/// `dry_run` answers the same without changing anything.
pub(crate) fn delete(
    shared: &Shared,
    target: &Target,
    name: &str,
    options: &Value,
    dry_run: bool,
) -> ApiResult<Deleted> {
    let info = &target.info;
    let gr = info.group_resource();
    let mut store = shared.store.lock();
    let old = store
        .get(&gr, &target.key(name))
        .ok_or_else(|| ApiError::not_found(&info.group, &info.plural, name))?;
    if let Some(uid) = options.pointer("/preconditions/uid").and_then(Value::as_str)
        && uid != old.meta.uid
    {
        return Err(ApiError::conflict(&info.group, &info.plural, name));
    }
    if let Some(rv) = options.pointer("/preconditions/resourceVersion").and_then(Value::as_str)
        && rv != old.meta.resource_version.to_string()
    {
        return Err(ApiError::conflict(&info.group, &info.plural, name));
    }
    let mut value = old.to_value()?;
    if old.meta.has_finalizers {
        if old.meta.deleting {
            return Ok(Deleted::Terminating(old));
        }
        set_meta(&mut value, "deletionTimestamp", json!(now_rfc3339()));
        set_meta(&mut value, "deletionGracePeriodSeconds", json!(0));
        if dry_run {
            return Ok(Deleted::Terminating(Arc::new(StoredObject::from_value(&value)?)));
        }
        let rv = store.next_rv();
        set_meta(&mut value, "resourceVersion", json!(rv.to_string()));
        let stored = Arc::new(StoredObject::from_value(&value)?);
        store.put(&gr, stored.clone());
        return Ok(Deleted::Terminating(stored));
    }
    if dry_run {
        return Ok(Deleted::Removed(old));
    }
    let rv = store.next_rv();
    set_meta(&mut value, "resourceVersion", json!(rv.to_string()));
    let stored = Arc::new(StoredObject::from_value(&value)?);
    store.remove(&gr, stored.clone());
    if crd::is_crd(info)
        && let Some(infos) = crate::resources::from_crd(&value)
        && let Some(first) = infos.first()
    {
        store.drop_resource(&first.group_resource())?;
        shared.registry.unregister(&first.group, &first.plural);
    }
    tracing::debug!(resource = %info.plural, name, rv, "deleted");
    Ok(Deleted::Removed(stored))
}

/// The deletecollection verb: deletes every object a list with the same selectors would
/// return (finalizers honoured). The page holds them, gone or terminating, at the
/// resourceVersion after the last deletion.
pub(crate) fn delete_collection(
    shared: &Shared,
    target: &Target,
    query: &HashMap<String, String>,
    dry_run: bool,
) -> ApiResult<ListPage> {
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
        match delete(shared, &one, &victim.meta.name, &Value::Null, dry_run) {
            Ok(Deleted::Removed(object) | Deleted::Terminating(object)) => deleted.push(object),
            Err(err) if err.code == 404 => {}
            Err(err) => return Err(err),
        }
    }
    let resource_version = shared.store.lock().current_rv();
    Ok(ListPage { items: deleted, resource_version, continue_token: None, malformed: Vec::new() })
}
