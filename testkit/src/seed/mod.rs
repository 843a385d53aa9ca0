//! Bulk seeding straight into storage, and generators of realistic objects.
//!
//! Seeding stores each object as a shared pre-serialized template plus its few distinct
//! values (name, namespace, uid, RV, timestamp, index-derived fields), rendered when the
//! object is served; so it inserts well over 100k objects/s in release builds and costs
//! little memory. Seeded objects are ordinary stored objects: they get RVs, appear in
//! lists, and open watches see them as ADDED.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::Value;

use crate::api::state::Shared;
use crate::api::target::Target;
use crate::api::verbs::create::create_object;
use crate::error::{Error, Result};
use crate::object::{Meta, ObjectBody, StoredObject, new_uid, now_rfc3339};
use crate::template::Template;

mod objects;

pub(crate) use objects::fill;
use objects::{APPS, config_map_template, deployment_template, pod_template};
pub use objects::{config_map, deployment, pod};

/// Which generator to seed with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeedKind {
    /// ~11 KB Pods as a real server returns them (managedFields, defaults, status).
    Pods,
    /// Small ConfigMaps (three data keys).
    ConfigMaps,
    /// Deployments with status and managedFields (~4 KB).
    Deployments,
}

impl SeedKind {
    /// Parses `pods`, `configmaps` or `deployments` (as the CLI's `--seed` takes them).
    pub fn parse(name: &str) -> Option<SeedKind> {
        match name {
            "pods" | "pod" | "po" => Some(SeedKind::Pods),
            "configmaps" | "configmap" | "cm" => Some(SeedKind::ConfigMaps),
            "deployments" | "deployment" | "deploy" => Some(SeedKind::Deployments),
            _ => None,
        }
    }

    pub(crate) fn plural(self) -> &'static str {
        match self {
            SeedKind::Pods => "pods",
            SeedKind::ConfigMaps => "configmaps",
            SeedKind::Deployments => "deployments",
        }
    }

    pub(crate) fn name_prefix(self) -> &'static str {
        match self {
            SeedKind::Pods => "pod",
            SeedKind::ConfigMaps => "config",
            SeedKind::Deployments => "deploy",
        }
    }

    pub(crate) fn template(self) -> Value {
        match self {
            SeedKind::Pods => pod_template(),
            SeedKind::ConfigMaps => config_map_template(),
            SeedKind::Deployments => deployment_template(),
        }
    }
}

/// What a seeding call stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedReport {
    /// Objects inserted.
    pub count: usize,
    /// Names of the first and last object (`None` if `count` is 0).
    pub names: Option<(String, String)>,
    /// resourceVersion after the last insert.
    pub resource_version: u64,
}

/// Bulk seeding handle, borrowed from a [`TestApiServer`](crate::TestApiServer).
///
/// ```no_run
/// # async fn demo() -> kube_informers_testkit::Result<()> {
/// use kube_informers_testkit::{SeedKind, TestApiServer};
/// let server = TestApiServer::start().await?;
/// let report = server.seed().objects(SeedKind::Pods, "default", 10_000)?;
/// assert_eq!(report.count, 10_000);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Seeder<'a> {
    pub(crate) shared: &'a Shared,
}

impl Seeder<'_> {
    /// Inserts `count` generated objects into `namespace`. Names are `pod-N`,
    /// `config-N` or `deploy-N`, with `N` unique per server across calls.
    pub fn objects(&self, kind: SeedKind, namespace: &str, count: usize) -> Result<SeedReport> {
        let info = self
            .shared
            .registry
            .find(kind.plural())
            .ok_or_else(|| Error::UnknownResource(kind.plural().into()))?;
        let template = Arc::new(Template::compile(&kind.template()));
        let gr = info.group_resource();
        let first = self.shared.seed_seq.fetch_add(count as u64, Ordering::Relaxed);
        let timestamp = now_rfc3339();
        let mut names = None;
        let mut store = self.shared.store.lock();
        for i in 0..count {
            let index = first + i as u64;
            let name = format!("{}-{index}", kind.name_prefix());
            if store.get(&gr, &(namespace.to_string(), name.clone())).is_some() {
                return Err(Error::Seed(format!(
                    "{} {namespace}/{name} already exists",
                    kind.plural()
                )));
            }
            let rv = store.next_rv();
            let uid = new_uid();
            let (rv_text, index_text) = (rv.to_string(), index.to_string());
            let app = format!("app-{}", index as usize % APPS);
            let values = [
                name.as_str(),
                namespace,
                uid.as_str(),
                rv_text.as_str(),
                timestamp.as_str(),
                index_text.as_str(),
                app.as_str(),
            ];
            let labels = template
                .labels
                .iter()
                .map(|(k, v)| (k.clone(), Template::substitute(v, &values)))
                .collect();
            let meta = Meta {
                namespace: namespace.to_string(),
                name: name.clone(),
                uid: uid.clone(),
                resource_version: rv,
                labels,
                has_finalizers: false,
                deleting: false,
            };
            let body = ObjectBody::Templated {
                template: template.clone(),
                values: Box::new(values.map(str::to_string)),
            };
            store.put(&gr, Arc::new(StoredObject { body, meta }));
            names = Some(match names.take() {
                None => (name.clone(), name),
                Some((first, _)) => (first, name),
            });
        }
        Ok(SeedReport { count, names, resource_version: store.current_rv() })
    }

    /// Shortcut for `objects(SeedKind::Pods, namespace, count)`.
    pub fn pods(&self, namespace: &str, count: usize) -> Result<SeedReport> {
        self.objects(SeedKind::Pods, namespace, count)
    }

    /// Shortcut for `objects(SeedKind::ConfigMaps, namespace, count)`.
    pub fn config_maps(&self, namespace: &str, count: usize) -> Result<SeedReport> {
        self.objects(SeedKind::ConfigMaps, namespace, count)
    }

    /// Shortcut for `objects(SeedKind::Deployments, namespace, count)`.
    pub fn deployments(&self, namespace: &str, count: usize) -> Result<SeedReport> {
        self.objects(SeedKind::Deployments, namespace, count)
    }

    /// Stores arbitrary objects of `resource` as `create` would (uid, RV, timestamps
    /// are set; a duplicate name is an error). Slower than [`objects`](Self::objects).
    pub fn values(
        &self,
        resource: &str,
        objects: impl IntoIterator<Item = Value>,
    ) -> Result<SeedReport> {
        let info = self
            .shared
            .registry
            .find(resource)
            .ok_or_else(|| Error::UnknownResource(resource.into()))?;
        let mut count = 0;
        let mut names: Option<(String, String)> = None;
        for object in objects {
            let namespace = match info.scope {
                crate::Scope::Namespaced => Some(
                    crate::object::meta_str(&object, "namespace")
                        .filter(|n| !n.is_empty())
                        .unwrap_or("default")
                        .to_string(),
                ),
                crate::Scope::Cluster => None,
            };
            let target = Target { info: info.clone(), namespace, name: None, subresource: None };
            let stored = create_object(self.shared, &target, object, false)
                .map_err(|e| Error::Seed(e.message))?;
            let name = stored.meta.name.clone();
            names = Some(match names.take() {
                None => (name.clone(), name),
                Some((first, _)) => (first, name),
            });
            count += 1;
        }
        let resource_version = self.shared.store.lock().current_rv();
        Ok(SeedReport { count, names, resource_version })
    }
}
