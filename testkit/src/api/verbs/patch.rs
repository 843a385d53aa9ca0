//! The patch verb: JSON patch, merge patch and server-side apply (read as a merge patch)
//! of an existing object; an apply to a missing object creates it.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::api::state::Shared;
use crate::api::target::Target;
use crate::api::verbs::body::check_name_matches;
use crate::api::verbs::crd;
use crate::api::verbs::create::create_object;
use crate::api::verbs::update::commit_update;
use crate::object::{StoredObject, meta_str, set_meta};
use crate::status::{ApiError, ApiResult};

/// What a PATCH did.
#[derive(Debug)]
pub(crate) enum Patched {
    /// An apply created the missing object.
    Created(Arc<StoredObject>),
    /// The object was patched (or the patch changed nothing).
    Updated(Arc<StoredObject>),
}

/// The patch verb: `patch` is a document of the media type `content_type` names (JSON
/// patch, merge patch, strategic merge patch read as a merge patch, or apply, which
/// creates a missing object).
pub(crate) fn patch(
    shared: &Shared,
    target: &Target,
    name: &str,
    content_type: &str,
    patch: &[u8],
    dry_run: bool,
) -> ApiResult<Patched> {
    let info = &target.info;
    let media = content_type.split(';').next().unwrap_or_default().trim();
    let built_in = crate::resources::is_built_in(&info.group, &info.plural);
    if !built_in && media == "application/strategic-merge-patch+json" {
        // Custom resources have no Go struct tags to merge lists by: kube-apiserver refuses.
        return Err(unsupported_patch_type(false));
    }
    let is_apply = media == "application/apply-patch+yaml";
    let patch = parse_patch(patch)?;
    let gr = info.group_resource();
    let mut store = shared.store.lock();
    let Some(old) = store.get(&gr, &target.key(name)) else {
        if is_apply {
            drop(store);
            let mut object = patch;
            set_meta_if_missing(&mut object, name);
            return Ok(Patched::Created(create_object(shared, target, object, dry_run)?));
        }
        return Err(ApiError::not_found(&info.group, &info.plural, name));
    };
    let mut value = old.to_value()?;
    match media {
        "application/json-patch+json" => {
            let ops: json_patch::Patch = serde_json::from_value(patch)
                .map_err(|e| ApiError::bad_request(format!("invalid JSON patch: {e}")))?;
            json_patch::patch(&mut value, &ops).map_err(|e| {
                ApiError::invalid(
                    &info.group,
                    &info.plural,
                    name,
                    format!("the JSON patch could not be applied: {e}"),
                )
            })?;
        }
        "application/merge-patch+json"
        | "application/strategic-merge-patch+json"
        | "application/apply-patch+yaml" => {
            if !patch.is_object() {
                return Err(ApiError::bad_request("a merge patch must be a JSON object"));
            }
            json_patch::merge(&mut value, &patch);
        }
        _ => return Err(unsupported_patch_type(built_in)),
    }
    check_name_matches(&value, name)?;
    if meta_str(&value, "resourceVersion")
        .is_some_and(|rv| rv != old.meta.resource_version.to_string())
    {
        return Err(ApiError::conflict(&info.group, &info.plural, name));
    }
    let stored =
        commit_update(&mut store, info, &old, value, target.subresource.as_deref(), dry_run)?;
    drop(store);
    if crd::is_crd(info) && !dry_run {
        crd::reregister(shared, &stored)?;
    }
    Ok(Patched::Updated(stored))
}

/// kube-apiserver's 415 for a patch type it does not take: built-ins answer the generic
/// handler's text, custom resources list the types they accept.
fn unsupported_patch_type(built_in: bool) -> ApiError {
    let message = if built_in {
        "415: Unsupported Media Type"
    } else {
        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
    };
    ApiError::new(415, "UnsupportedMediaType", message)
}

/// Server-side apply bodies are YAML; clients such as kube send JSON, which is all we read.
fn parse_patch(patch: &[u8]) -> ApiResult<Value> {
    serde_json::from_slice(patch).map_err(|e| {
        ApiError::bad_request(format!("the patch body is not JSON (YAML is not supported): {e}"))
    })
}

fn set_meta_if_missing(object: &mut Value, name: &str) {
    if !object.get("metadata").is_some_and(Value::is_object) {
        object["metadata"] = json!({});
    }
    if meta_str(object, "name").is_none_or(str::is_empty) {
        set_meta(object, "name", json!(name));
    }
}
