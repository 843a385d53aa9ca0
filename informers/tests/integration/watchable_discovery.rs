//! Cross-check of codegen's list of listable-but-not-watchable kinds (`codegen::watchable`)
//! against the verbs testkit's discovery documents serve: a typed informer exists exactly
//! for the resources that can be listed and watched.

use std::collections::{BTreeSet, HashSet};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResourceList;
use kube_informers::GroupVersionResource;
use kube_informers::generated::generic::typed_resources;
use kube_informers_testkit::TestApiServer;

async fn discovery(client: &kube::Client, group: &str, version: &str) -> Option<APIResourceList> {
    let path = if group.is_empty() {
        format!("/api/{version}")
    } else {
        format!("/apis/{group}/{version}")
    };
    let request = http::Request::get(path).body(Vec::new()).unwrap();
    // A group/version testkit does not serve is simply not compared.
    client.request::<APIResourceList>(request).await.ok()
}

#[tokio::test]
async fn typed_informers_exist_exactly_for_listable_and_watchable_resources() {
    let server = TestApiServer::start().await.unwrap();
    let client = server.client().unwrap();
    let typed: HashSet<GroupVersionResource> = typed_resources().into_iter().collect();
    let group_versions: BTreeSet<(String, String)> =
        typed.iter().map(|gvr| (gvr.group.clone(), gvr.version.clone())).collect();

    let mut compared = Vec::new();
    for (group, version) in &group_versions {
        let Some(list) = discovery(&client, group, version).await else { continue };
        for resource in list.resources.iter().filter(|r| !r.name.contains('/')) {
            let gvr = GroupVersionResource::gvr(group, version, &resource.name);
            let verbs: HashSet<&str> = resource.verbs.iter().map(String::as_str).collect();
            let watchable = verbs.contains("list") && verbs.contains("watch");
            assert_eq!(typed.contains(&gvr), watchable, "{gvr:?} serves verbs {verbs:?}");
            compared.push(gvr);
        }
    }
    // The core group alone has a dozen resources; the cross-check must have compared them.
    assert!(compared.len() >= 20, "compared only {compared:?}");
    let component_statuses = GroupVersionResource::gvr("", "v1", "componentstatuses");
    assert!(compared.contains(&component_statuses), "testkit serves componentstatuses");
    assert!(!typed.contains(&component_statuses));
    server.shutdown().await;
}
