//! The generic listers (client-go `listers.go` `ListAll`/`ListAllByNamespace` and the
//! generated namespace listers).

use std::sync::Arc;

use k8s_openapi::api::core::v1::{Namespace, Pod};
use kube::api::ObjectMeta;
use kube::core::{DynamicObject, Expression, Selector};
use kube_informers_runtime::lister::Lister;
use kube_informers_runtime::store::{Indexer, Indexers, namespace_indexers};

fn pod(ns: &str, name: &str, labels: &[(&str, &str)]) -> Arc<Pod> {
    Arc::new(Pod {
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: Some(ns.into()),
            labels: (!labels.is_empty())
                .then(|| labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()),
            ..Default::default()
        },
        ..Default::default()
    })
}

fn names(objs: Vec<Arc<Pod>>) -> Vec<String> {
    let mut out: Vec<String> = objs
        .iter()
        .map(|o| {
            format!(
                "{}/{}",
                o.metadata.namespace.as_deref().unwrap_or(""),
                o.metadata.name.as_deref().unwrap_or("")
            )
        })
        .collect();
    out.sort();
    out
}

fn fill(indexer: &Indexer<Pod>) {
    for p in [
        pod("prod", "web-1", &[("app", "web"), ("tier", "a")]),
        pod("prod", "web-2", &[("app", "web"), ("tier", "b")]),
        pod("prod", "db", &[("app", "db")]),
        pod("dev", "web-1", &[("app", "web"), ("tier", "a")]),
        pod("dev", "bare", &[]),
    ] {
        indexer.add(p).unwrap();
    }
}

fn web() -> Selector {
    [("app", "web")].into_iter().collect()
}

// client-go: listers.go ListAll (empty selector matches everything)
#[test]
fn list_all_with_selectors() {
    let indexer = Indexer::new(namespace_indexers());
    fill(&indexer);
    let lister = Lister::new(indexer);
    assert_eq!(lister.list(&Selector::default()).len(), 5);
    assert_eq!(names(lister.list(&web())), ["dev/web-1", "prod/web-1", "prod/web-2"]);
    let mut set_based = Selector::default();
    set_based.extend([
        Expression::In("tier".into(), ["b".to_string()].into()),
        Expression::Exists("app".into()),
    ]);
    assert_eq!(names(lister.list(&set_based)), ["prod/web-2"]);
    let mut no_app = Selector::default();
    no_app.extend(Expression::DoesNotExist("app".into()));
    // An object without labels matches "!app".
    assert_eq!(names(lister.list(&no_app)), ["dev/bare"]);
}

// client-go: listers.go ListAllByNamespace, through the namespace index
#[test]
fn namespace_lister_uses_the_namespace_index() {
    let indexer = Indexer::new(namespace_indexers());
    fill(&indexer);
    let lister = Lister::new(indexer);
    let prod = lister.namespaced("prod");
    assert_eq!(prod.namespace(), "prod");
    assert_eq!(names(prod.list(&Selector::default())), ["prod/db", "prod/web-1", "prod/web-2"]);
    assert_eq!(names(prod.list(&web())), ["prod/web-1", "prod/web-2"]);
    assert!(lister.namespaced("nowhere").list(&Selector::default()).is_empty());
    // "" is NamespaceAll.
    assert_eq!(lister.namespaced("").list(&web()).len(), 3);
}

// client-go: listers.go ListAllByNamespace falls back to a scan without the index
#[test]
fn namespace_lister_scans_without_the_namespace_index() {
    let indexer = Indexer::new(Indexers::new());
    fill(&indexer);
    let lister = Lister::new(indexer);
    assert_eq!(
        names(lister.namespaced("dev").list(&Selector::default())),
        ["dev/bare", "dev/web-1"]
    );
    assert_eq!(names(lister.namespaced("dev").list(&web())), ["dev/web-1"]);
}

#[test]
fn get_by_name_in_namespace_and_cluster_scope() {
    let indexer = Indexer::new(namespace_indexers());
    fill(&indexer);
    let lister = Lister::new(indexer.clone());
    let got = lister.namespaced("prod").get("db").unwrap();
    assert!(Arc::ptr_eq(&got, &indexer.get_by_key("prod/db").unwrap()));
    assert!(lister.namespaced("dev").get("db").is_none());

    let namespaces = Indexer::<Namespace>::default();
    namespaces
        .add(Arc::new(Namespace {
            metadata: ObjectMeta { name: Some("prod".into()), ..Default::default() },
            ..Default::default()
        }))
        .unwrap();
    let ns_lister = Lister::new(namespaces);
    assert!(ns_lister.get("prod").is_some());
    assert!(ns_lister.get("dev").is_none());
}

#[test]
fn works_for_dynamic_objects() {
    let indexer = Indexer::new(namespace_indexers::<DynamicObject>());
    let foo: DynamicObject = serde_json::from_value(serde_json::json!({
        "apiVersion": "example.com/v1", "kind": "Foo",
        "metadata": {"name": "f", "namespace": "team", "labels": {"app": "web"}}
    }))
    .unwrap();
    indexer.add(Arc::new(foo)).unwrap();
    let lister = Lister::new(indexer);
    assert_eq!(lister.namespaced("team").list(&web()).len(), 1);
    assert!(lister.namespaced("team").get("f").is_some());
    assert!(lister.list(&[("app", "db")].into_iter().collect()).is_empty());
}
