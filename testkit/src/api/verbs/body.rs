//! What the create and update verbs check and fill in the object they are given: its
//! `apiVersion`, `kind` and namespace; and what update and patch check of its name.

use serde_json::{Value, json};

use crate::api::target::Target;
use crate::object::{meta_str, set_meta};
use crate::resources::{ResourceInfo, Scope};
use crate::status::{ApiError, ApiResult};

/// Fills and checks `apiVersion`, `kind` and the namespace of a body.
pub(crate) fn normalize_type_and_namespace(
    info: &ResourceInfo,
    target: &Target,
    object: &mut Value,
) -> ApiResult<()> {
    let api_version = info.api_version();
    match object.get("kind").and_then(Value::as_str) {
        None | Some("") => object["kind"] = json!(info.kind),
        Some(kind) if kind == info.kind => {}
        Some(kind) => {
            return Err(ApiError::bad_request(format!(
                "the kind of the object ({kind}) does not match the resource ({})",
                info.kind
            )));
        }
    }
    if object.get("apiVersion").and_then(Value::as_str).is_none_or(str::is_empty) {
        object["apiVersion"] = json!(api_version);
    }
    if !object.get("metadata").is_some_and(Value::is_object) {
        object["metadata"] = json!({});
    }
    match info.scope {
        Scope::Namespaced => {
            let namespace = target
                .namespace
                .clone()
                .or_else(|| meta_str(object, "namespace").map(str::to_string))
                .filter(|ns| !ns.is_empty())
                .ok_or_else(|| ApiError::bad_request("the namespace of the object is required"))?;
            if let Some(given) = meta_str(object, "namespace")
                && !given.is_empty()
                && given != namespace
            {
                return Err(ApiError::bad_request(
                    "the namespace of the provided object does not match the namespace sent on the request",
                ));
            }
            set_meta(object, "namespace", json!(namespace));
        }
        Scope::Cluster => {
            if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
                metadata.remove("namespace");
            }
        }
    }
    Ok(())
}

/// A body naming another object than the URL is a 400.
pub(crate) fn check_name_matches(object: &Value, name: &str) -> ApiResult<()> {
    match meta_str(object, "name") {
        Some(given) if !given.is_empty() && given != name => Err(ApiError::bad_request(format!(
            "the name of the object ({given}) does not match the name on the URL ({name})"
        ))),
        _ => Ok(()),
    }
}
