//! A typed informer's cache read as [`DynamicObject`]s, for the lister of an
//! [`ErasedInformer`](crate::ErasedInformer) (client-go's `GenericInformer.Lister()`).
//!
//! The cache keeps only the typed objects; each object read is converted on the way out, so
//! nothing is stored twice and callers who never list through the erased lister pay
//! nothing.

use std::sync::Arc;

use kube::Resource;
use kube::core::{DynamicObject, Selector, TypeMeta};
use serde::Serialize;
use serde_json::Value;
use tracing::warn;

use super::generic::ObjectView;
use super::typed::Lister;

/// The objects of a typed cache, converted to [`DynamicObject`] when read.
pub(crate) struct DynamicView<K> {
    lister: Lister<K>,
}

impl<K: Resource> DynamicView<K> {
    pub(crate) fn new(lister: Lister<K>) -> Self {
        Self { lister }
    }
}

impl<K> ObjectView<DynamicObject> for DynamicView<K>
where
    K: Resource + Serialize + Send + Sync + 'static,
{
    fn list(&self, namespace: &str, selector: &Selector) -> Vec<Arc<DynamicObject>> {
        // The selector runs on the typed objects, so only the matching ones are converted.
        let typed = self.lister.namespaced(namespace).list(selector);
        typed.iter().map(|obj| Arc::new(to_dynamic(obj.as_ref()))).collect()
    }

    fn get(&self, key: &str) -> Option<Arc<DynamicObject>> {
        self.lister.get(key).map(|obj| Arc::new(to_dynamic(obj.as_ref())))
    }
}

/// `obj` as a [`DynamicObject`]: its metadata cloned as it is, its `apiVersion` and `kind`
/// as the type, and every other serialized field as `data`.
///
/// Cloning the metadata rather than decoding it again from JSON keeps the conversion to one
/// serialization. A type whose serialization fails (no Kubernetes type does) shows its
/// metadata alone, with `data` null, and the failure is logged.
pub(crate) fn to_dynamic<K: Resource + Serialize>(obj: &K) -> DynamicObject {
    let (types, data) = match serde_json::to_value(obj) {
        Ok(Value::Object(mut fields)) => {
            fields.remove("metadata");
            let types = match (fields.remove("apiVersion"), fields.remove("kind")) {
                (Some(Value::String(api_version)), Some(Value::String(kind))) => {
                    Some(TypeMeta { api_version, kind })
                }
                _ => None,
            };
            (types, Value::Object(fields))
        }
        Ok(other) => (None, other),
        Err(error) => {
            warn!(%error, name = ?obj.meta().name, "cannot serialize a cached object");
            (None, Value::Null)
        }
    };
    DynamicObject { types, metadata: obj.meta().clone(), data }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::ObjectMeta;

    use super::*;
    use crate::store::{Indexer, namespace_indexers};

    fn config_map(namespace: &str, name: &str, app: &str) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some(namespace.into()),
                labels: Some([("app".to_string(), app.to_string())].into()),
                ..ObjectMeta::default()
            },
            data: Some([("k".to_string(), "v".to_string())].into()),
            ..ConfigMap::default()
        }
    }

    #[test]
    fn conversion_keeps_type_metadata_and_fields() {
        let dynamic = to_dynamic(&config_map("prod", "cfg", "web"));
        let types = dynamic.types.expect("apiVersion and kind");
        assert_eq!((types.api_version.as_str(), types.kind.as_str()), ("v1", "ConfigMap"));
        assert_eq!(dynamic.metadata.name.as_deref(), Some("cfg"));
        assert_eq!(dynamic.data, serde_json::json!({ "data": { "k": "v" } }));
    }

    #[test]
    fn view_lists_by_namespace_and_selector_and_gets_by_key() {
        let indexer = Indexer::new(namespace_indexers::<ConfigMap>());
        for (namespace, name, app) in
            [("prod", "a", "web"), ("prod", "b", "db"), ("dev", "c", "web")]
        {
            indexer.add(Arc::new(config_map(namespace, name, app))).unwrap();
        }
        let view = DynamicView::new(Lister::new(indexer));
        let web: Selector = [("app", "web")].into_iter().collect();
        assert_eq!(view.list("", &web).len(), 2);
        assert_eq!(view.list("prod", &web).len(), 1);
        assert_eq!(view.list("prod", &Selector::default()).len(), 2);
        assert_eq!(view.get("dev/c").unwrap().metadata.name.as_deref(), Some("c"));
        assert!(view.get("prod/c").is_none());
    }
}
