//! Store keys: `namespace/name`, or `name` for cluster-scoped objects.

use kube::Resource;

use super::KeyError;
use crate::tombstone::DeletedObject;

/// The store key of an object: `namespace/name`, or `name` when the namespace is empty
/// (client-go `MetaNamespaceKeyFunc`).
///
/// An object without a name has no key and yields [`KeyError::MissingName`].
///
/// ```
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kube::api::ObjectMeta;
/// use kube_informers_runtime::store::meta_namespace_key_func;
///
/// let cm = ConfigMap {
///     metadata: ObjectMeta { name: Some("cfg".into()), namespace: Some("prod".into()), ..Default::default() },
///     ..Default::default()
/// };
/// assert_eq!(meta_namespace_key_func(&cm).unwrap(), "prod/cfg");
/// ```
pub fn meta_namespace_key_func<K: Resource>(obj: &K) -> Result<String, KeyError> {
    let meta = obj.meta();
    let namespace = meta.namespace.as_deref().filter(|ns| !ns.is_empty());
    let name = match meta.name.as_deref() {
        Some(name) if !name.is_empty() => name,
        _ => return Err(KeyError::MissingName { namespace: namespace.map(str::to_owned) }),
    };
    Ok(match namespace {
        Some(ns) => {
            let mut key = String::with_capacity(ns.len() + 1 + name.len());
            key.push_str(ns);
            key.push('/');
            key.push_str(name);
            key
        }
        None => name.to_owned(),
    })
}

/// The store key of a delete payload: a tombstone yields the key it carries, an object its
/// [`meta_namespace_key_func`] key (client-go `DeletionHandlingMetaNamespaceKeyFunc`).
pub fn deletion_handling_meta_namespace_key_func<K: Resource>(
    obj: &DeletedObject<K>,
) -> Result<String, KeyError> {
    match obj {
        DeletedObject::Object(o) => meta_namespace_key_func(o.as_ref()),
        DeletedObject::DeletedFinalStateUnknown(t) => Ok(t.key.clone()),
    }
}

/// Splits a store key into its namespace (`None` for cluster scope) and name (client-go
/// `SplitMetaNamespaceKey`). A key with more than one `/` is an error.
///
/// ```
/// use kube_informers_runtime::store::split_meta_namespace_key;
///
/// assert_eq!(split_meta_namespace_key("prod/web").unwrap(), (Some("prod"), "web"));
/// assert_eq!(split_meta_namespace_key("node-1").unwrap(), (None, "node-1"));
/// assert!(split_meta_namespace_key("a/b/c").is_err());
/// ```
pub fn split_meta_namespace_key(key: &str) -> Result<(Option<&str>, &str), KeyError> {
    let mut parts = key.split('/');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(name), None, None) => Ok((None, name)),
        (Some(ns), Some(name), None) => Ok((Some(ns), name)),
        _ => Err(KeyError::InvalidKey { key: key.to_owned() }),
    }
}
