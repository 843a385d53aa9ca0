//! The controller's reconcile: keep ConfigMap `<deployment>-info` (replicas and image of a
//! Deployment) in sync, and delete the ConfigMaps whose Deployment is gone. Shared by
//! `examples/controller.rs` and `tests/integration/controller_reconcile.rs`.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, ObjectMeta, PostParams};
use kube_informers::Indexer;
use kube_informers::generated::apps::v1::DeploymentLister;

/// The label naming the Deployment a ConfigMap belongs to.
pub(crate) const OWNER_LABEL: &str = "example.com/deployment";
/// The ConfigMap index by owning Deployment key (`namespace/name`).
pub(crate) const OWNER_INDEX: &str = "by-owner";

/// The owner index function: a ConfigMap with [`OWNER_LABEL`] maps to its Deployment's key.
pub(crate) fn owner_key(cm: &ConfigMap) -> Vec<String> {
    let owner = cm.metadata.labels.as_ref().and_then(|l| l.get(OWNER_LABEL));
    match (cm.metadata.namespace.as_deref(), owner) {
        (Some(ns), Some(owner)) => vec![format!("{ns}/{owner}")],
        _ => Vec::new(),
    }
}

/// What one reconcile did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The ConfigMap was created.
    Created,
    /// The ConfigMap was rewritten with new data.
    Updated,
    /// The ConfigMap already matched.
    Unchanged,
    /// This many orphaned ConfigMaps were deleted.
    Deleted(usize),
}

/// What reconcile reads (caches) and writes (the API server).
#[derive(Clone)]
pub(crate) struct Context {
    /// Writes go here.
    pub(crate) client: kube::Client,
    /// Deployments, from the informer cache.
    pub(crate) deployments: DeploymentLister,
    /// ConfigMaps, from the informer cache, with [`OWNER_INDEX`].
    pub(crate) config_maps: Indexer<ConfigMap>,
}

/// The data a Deployment's ConfigMap should hold.
pub(crate) fn desired_data(deployment: &Deployment) -> BTreeMap<String, String> {
    let image = deployment
        .spec
        .template
        .spec
        .as_ref()
        .and_then(|s| s.containers.first())
        .and_then(|c| c.image.clone())
        .unwrap_or_default();
    BTreeMap::from([
        ("replicas".to_string(), deployment.spec.replicas.unwrap_or(1).to_string()),
        ("image".to_string(), image),
    ])
}

/// Brings the ConfigMaps of the Deployment with key `namespace/name` in line with it.
pub(crate) async fn reconcile(ctx: &Context, key: &str) -> Result<Outcome, kube::Error> {
    let Some((namespace, name)) = key.split_once('/') else {
        return Ok(Outcome::Unchanged);
    };
    let api: Api<ConfigMap> = Api::namespaced(ctx.client.clone(), namespace);
    let wanted_name = format!("{name}-info");
    let owned = ctx.config_maps.by_index(OWNER_INDEX, key).unwrap_or_default();

    let Some(deployment) = ctx.deployments.deployments(namespace).get(name) else {
        let mut deleted = 0;
        for cm in owned {
            if let Some(cm_name) = cm.metadata.name.as_deref() {
                api.delete(cm_name, &DeleteParams::default()).await?;
                deleted += 1;
            }
        }
        return Ok(Outcome::Deleted(deleted));
    };

    let data = desired_data(&deployment);
    let current = owned.iter().find(|cm| cm.metadata.name.as_deref() == Some(wanted_name.as_str()));
    match current {
        Some(cm) if cm.data.as_ref() == Some(&data) => Ok(Outcome::Unchanged),
        Some(cm) => {
            let mut updated = (**cm).clone();
            updated.data = Some(data);
            api.replace(&wanted_name, &PostParams::default(), &updated).await?;
            Ok(Outcome::Updated)
        }
        None => {
            let cm = ConfigMap {
                metadata: ObjectMeta {
                    name: Some(wanted_name),
                    namespace: Some(namespace.to_string()),
                    labels: Some(BTreeMap::from([(OWNER_LABEL.to_string(), name.to_string())])),
                    ..ObjectMeta::default()
                },
                data: Some(data),
                ..ConfigMap::default()
            };
            api.create(&PostParams::default(), &cm).await?;
            Ok(Outcome::Created)
        }
    }
}
