//! `for_resource` (client-go: `informers/generic.go` `ForResource`) over every generated
//! resource, against a client that is never connected: nothing here starts an informer.

use std::collections::HashSet;

use k8s_openapi::api::apps::v1::Deployment;
use kube_informers::generated::generic::typed_resources;
use kube_informers::{GroupVersionResource, SharedInformerFactory, UnknownResourceError};

fn factory() -> SharedInformerFactory {
    let config = kube::Config::new("http://127.0.0.1:9".parse().unwrap());
    let client = kube::Client::try_from(config).unwrap();
    SharedInformerFactory::new(client, std::time::Duration::ZERO)
}

#[tokio::test]
async fn every_typed_resource_maps_to_its_shared_informer() {
    let factory = factory();
    let resources = typed_resources();
    // k8s-openapi `latest` (1.37): 92 watchable resources.
    assert_eq!(resources.len(), 92);
    assert_eq!(resources.iter().collect::<HashSet<_>>().len(), resources.len(), "duplicates");
    for gvr in &resources {
        let informer = factory.for_resource(gvr).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(informer.gvr(), gvr);
    }
    // The factory made one informer per resource, and each was made for the type whose
    // group, version and plural the generator paired with that GroupVersionResource.
    let made: HashSet<GroupVersionResource> =
        factory.informers().iter().map(|i| i.gvr().clone()).collect();
    assert_eq!(made, resources.iter().cloned().collect::<HashSet<_>>());
}

#[tokio::test]
async fn for_resource_shares_the_typed_accessors_informer() {
    let factory = factory();
    let gvr = GroupVersionResource::gvr("apps", "v1", "deployments");
    let erased = factory.for_resource(&gvr).unwrap();
    assert!(erased.downcast::<Deployment>().is_some());
    let _typed = factory.apps().v1().deployments().informer();
    assert_eq!(factory.informers().len(), 1, "one shared informer per type");
}

#[tokio::test]
async fn an_unknown_resource_is_an_error_naming_it() {
    let factory = factory();
    for gvr in [
        GroupVersionResource::gvr("example.com", "v1", "widgets"),
        // Listable but not watchable: no informer.
        GroupVersionResource::gvr("", "v1", "componentstatuses"),
        // Right resource, wrong version.
        GroupVersionResource::gvr("apps", "v1beta1", "deployments"),
    ] {
        let err = factory.for_resource(&gvr).unwrap_err();
        assert_eq!(err, UnknownResourceError::new(&gvr));
        assert!(err.to_string().contains(&format!("{:?}", gvr.resource)), "{err}");
    }
    assert!(factory.informers().is_empty());
}

#[tokio::test]
async fn listers_read_the_shared_cache() {
    let factory = factory();
    let deployments = factory.apps().v1().deployments();
    let lister = deployments.lister();
    assert!(lister.list(&kube_informers::Selector::default()).is_empty());
    assert!(lister.deployments("prod").get("web").is_none());
    let nodes = factory.core().v1().nodes().lister();
    assert!(nodes.get("node-1").is_none());
}
