//! The create verb: names (given or generated), uid, timestamps and the first
//! resourceVersion of a new object; a created CRD is served at once. Also the
//! namespaces every cluster starts with.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::api::state::Shared;
use crate::api::target::Target;
use crate::api::verbs::body::normalize_type_and_namespace;
use crate::api::verbs::crd;
use crate::object::{StoredObject, meta_str, new_uid, now_rfc3339, set_meta};
use crate::status::{ApiError, ApiResult};

/// The namespaces every cluster starts with.
const DEFAULT_NAMESPACES: &[&str] = &["default", "kube-system", "kube-public", "kube-node-lease"];

/// Creates the namespaces a fresh cluster has.
pub(crate) fn create_default_namespaces(shared: &Shared) -> ApiResult<()> {
    let info = shared
        .registry
        .get("", "v1", "namespaces")
        .ok_or_else(|| ApiError::new(500, "InternalError", "namespaces are not registered"))?;
    for name in DEFAULT_NAMESPACES {
        let target = Target { info: info.clone(), namespace: None, name: None, subresource: None };
        create_object(
            shared,
            &target,
            json!({"metadata": {"name": name}, "spec": {"finalizers": ["kubernetes"]},
            "status": {"phase": "Active"}}),
            false,
        )?;
    }
    Ok(())
}

/// The create verb: a body that carries a resourceVersion is refused, like
/// kube-apiserver's create strategy does; anything else is [`create_object`].
pub(crate) fn create(
    shared: &Shared,
    target: &Target,
    object: Value,
    dry_run: bool,
) -> ApiResult<Arc<StoredObject>> {
    if meta_str(&object, "resourceVersion").is_some_and(|rv| !rv.is_empty() && rv != "0") {
        // kube-apiserver's create strategy refuses it with a reasonless 500.
        return Err(ApiError::new(
            500,
            "",
            "resourceVersion should not be set on objects to be created",
        ));
    }
    create_object(shared, target, object, dry_run)
}

/// Creates an object: what the create verb, an apply to a missing object, seeding and
/// the default namespaces do. With `dry_run` it checks and fills the object as a create
/// would (name, uid, creationTimestamp; no resourceVersion) without storing it.
pub(crate) fn create_object(
    shared: &Shared,
    target: &Target,
    mut object: Value,
    dry_run: bool,
) -> ApiResult<Arc<StoredObject>> {
    let info = &target.info;
    normalize_type_and_namespace(info, target, &mut object)?;
    let mut name = meta_str(&object, "name").unwrap_or_default().to_string();
    if name.is_empty()
        && let Some(prefix) = meta_str(&object, "generateName").filter(|p| !p.is_empty())
    {
        name = format!("{prefix}{}", generate_suffix());
        set_meta(&mut object, "name", json!(name));
    }
    if name.is_empty() {
        return Err(ApiError::invalid(
            &info.group,
            &info.plural,
            "",
            "metadata.name: Required value: name or generateName is required",
        ));
    }
    if !valid_name(&name) {
        return Err(ApiError::invalid(
            &info.group,
            &info.plural,
            &name,
            format!(
                "metadata.name: Invalid value: {name:?}: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'"
            ),
        ));
    }
    set_meta(&mut object, "uid", json!(new_uid()));
    set_meta(&mut object, "creationTimestamp", json!(now_rfc3339()));
    set_meta(&mut object, "generation", json!(1));
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("deletionTimestamp");
        metadata.remove("deletionGracePeriodSeconds");
    }
    let is_crd = crd::is_crd(info);
    if is_crd {
        crd::mark_established(&mut object);
    }
    let key = target.key(&name);
    let gr = info.group_resource();
    let mut store = shared.store.lock();
    if store.get(&gr, &key).is_some() {
        return Err(ApiError::already_exists(&info.group, &info.plural, &name));
    }
    if is_crd && crate::resources::from_crd(&object).is_none() {
        return Err(ApiError::invalid(
            &info.group,
            &info.plural,
            &name,
            "spec: the CRD needs spec.group, spec.names and spec.versions",
        ));
    }
    if dry_run {
        if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
            metadata.remove("resourceVersion");
        }
        return StoredObject::from_value(&object).map(Arc::new);
    }
    if is_crd {
        let infos = crate::resources::from_crd(&object).ok_or_else(|| {
            ApiError::invalid(
                &info.group,
                &info.plural,
                &name,
                "spec: the CRD needs spec.group, spec.names and spec.versions",
            )
        })?;
        for resource in infos {
            shared.registry.register(resource);
        }
    }
    let rv = store.next_rv();
    set_meta(&mut object, "resourceVersion", json!(rv.to_string()));
    let stored = Arc::new(StoredObject::from_value(&object)?);
    store.put(&gr, stored.clone());
    tracing::debug!(resource = %info.plural, namespace = %key.0, name = %key.1, rv, "created");
    Ok(stored)
}

/// Whether `name` is a valid DNS-1123 subdomain (what most resources require).
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name.chars().all(|c| {
            c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.' || c == ':'
        })
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.ends_with(|c: char| c.is_ascii_alphanumeric())
}

fn generate_suffix() -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    (0..5).map(|_| ALPHABET[rand::random_range(0..ALPHABET.len())] as char).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_dns_subdomain_rules() {
        assert!(valid_name("web-1.example"));
        assert!(!valid_name("Web"));
        assert!(!valid_name("-a"));
        assert!(!valid_name(""));
        assert_eq!(generate_suffix().len(), 5);
    }
}
