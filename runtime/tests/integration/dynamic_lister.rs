//! `GenericLister` keys and filters like client-go's `dynamiclister`.

use std::collections::BTreeMap;
use std::sync::Arc;

use kube::core::{ApiResource, DynamicObject, GroupVersionKind, GroupVersionResource, Selector};
use kube_informers_runtime::dynamic::GenericLister;
use kube_informers_runtime::labels;
use kube_informers_runtime::store::{Indexer, namespace_indexers};

fn resource() -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("group", "version", "TheKind"),
        "thekinds",
    )
}

fn gvr() -> GroupVersionResource {
    GroupVersionResource::gvr("group", "version", "thekinds")
}

fn object(namespace: Option<&str>, name: &str, labels: &[(&str, &str)]) -> Arc<DynamicObject> {
    let mut obj = DynamicObject::new(name, &resource());
    obj.metadata.namespace = namespace.map(str::to_owned);
    let labels: BTreeMap<String, String> =
        labels.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    obj.metadata.labels = Some(labels);
    Arc::new(obj)
}

fn lister(objects: &[Arc<DynamicObject>]) -> GenericLister {
    let indexer = Indexer::new(namespace_indexers::<DynamicObject>());
    for obj in objects {
        indexer.add(Arc::clone(obj)).expect("add");
    }
    GenericLister::new(indexer, gvr())
}

fn names(objects: &[Arc<DynamicObject>]) -> Vec<String> {
    let mut names: Vec<String> = objects
        .iter()
        .map(|o| {
            format!(
                "{}/{}",
                o.metadata.namespace.as_deref().unwrap_or(""),
                o.metadata.name.as_deref().unwrap_or("")
            )
        })
        .collect();
    names.sort();
    names
}

#[test]
fn get_takes_a_name_for_cluster_scoped_objects_and_a_key_for_namespaced_ones() {
    // client-go: dynamiclister/lister_test.go TestListerGetMethod
    let lister = lister(&[object(None, "name-foo", &[]), object(Some("ns-foo"), "name-foo1", &[])]);
    let cluster = lister.get("name-foo").expect("cluster-scoped object by name");
    assert_eq!(cluster.metadata.name.as_deref(), Some("name-foo"));
    assert!(cluster.metadata.namespace.is_none());
    let namespaced = lister.get("ns-foo/name-foo1").expect("namespaced object by key");
    assert_eq!(namespaced.metadata.namespace.as_deref(), Some("ns-foo"));
    // A bare name never finds a namespaced object, and a wrong namespace finds nothing.
    assert!(lister.get("name-foo1").is_none());
    assert!(lister.get("ns-bar/name-foo1").is_none());
    assert_eq!(lister.gvr(), &gvr());
}

#[test]
fn namespace_lister_gets_by_name_within_its_namespace() {
    // client-go: dynamiclister/lister_test.go TestNamespaceGetMethod
    let lister = lister(&[
        object(Some("ns-foo"), "name-foo", &[]),
        object(Some("ns-foo"), "name-foo1", &[]),
        object(Some("ns-bar"), "name-bar", &[]),
    ]);
    let ns = lister.by_namespace("ns-foo");
    assert_eq!(ns.namespace(), "ns-foo");
    assert!(ns.get("name-foo1").is_some());
    assert!(ns.get("name-bar").is_none(), "an object of another namespace is not found");
    assert!(lister.by_namespace("ns-bar").get("name-bar").is_some());
    assert!(lister.by_namespace("missing").get("name-foo").is_none());
}

#[test]
fn list_filters_by_label_selector_across_namespaces() {
    // client-go: dynamiclister/lister_test.go TestListerListMethod
    let lister = lister(&[
        object(Some("ns-foo"), "name-foo", &[("app", "web")]),
        object(Some("ns-bar"), "name-bar", &[("app", "web"), ("tier", "a")]),
        object(None, "cluster-one", &[("app", "db")]),
    ]);
    assert_eq!(lister.list(&Selector::default()).len(), 3);
    let web = labels::parse("app=web").expect("selector");
    assert_eq!(names(&lister.list(&web)), ["ns-bar/name-bar", "ns-foo/name-foo"]);
    let tiered = labels::parse("app=web,tier in (a,b)").expect("selector");
    assert_eq!(names(&lister.list(&tiered)), ["ns-bar/name-bar"]);
    let db = labels::parse("app!=web").expect("selector");
    assert_eq!(names(&lister.list(&db)), ["/cluster-one"]);
}

#[test]
fn namespace_lister_lists_only_its_namespace_with_the_selector() {
    // client-go: dynamiclister/lister_test.go TestNamespaceListMethod
    let lister = lister(&[
        object(Some("ns-foo"), "name-foo", &[("app", "web")]),
        object(Some("ns-foo"), "name-foo1", &[("app", "db")]),
        object(Some("ns-bar"), "name-bar", &[("app", "web")]),
    ]);
    let ns = lister.by_namespace("ns-foo");
    assert_eq!(names(&ns.list(&Selector::default())), ["ns-foo/name-foo", "ns-foo/name-foo1"]);
    let web = labels::parse("app=web").expect("selector");
    assert_eq!(names(&ns.list(&web)), ["ns-foo/name-foo"]);
    // "" is client-go's NamespaceAll.
    assert_eq!(names(&lister.by_namespace("").list(&web)), ["ns-bar/name-bar", "ns-foo/name-foo"]);
    assert!(lister.by_namespace("ns-none").list(&Selector::default()).is_empty());
}

#[test]
fn listers_read_the_live_cache() {
    let indexer = Indexer::new(namespace_indexers::<DynamicObject>());
    let lister = GenericLister::new(indexer.clone(), gvr());
    assert!(lister.get("ns/a").is_none());
    indexer.add(object(Some("ns"), "a", &[])).expect("add");
    assert!(lister.get("ns/a").is_some(), "a lister is a view, not a snapshot");
    assert!(lister.by_namespace("ns").get("a").is_some());
    indexer.delete(&object(Some("ns"), "a", &[])).expect("delete");
    assert!(lister.by_namespace("ns").list(&Selector::default()).is_empty());
}
