use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{ApiResource, DeleteParams, DynamicObject, GroupVersionKind, PostParams};
use kube::discovery::Discovery;
use kube::{Api, ResourceExt};
use kube_informers_testkit::Scope;
use serde_json::json;

use crate::{api_code, server_with_cms};

fn crd() -> CustomResourceDefinition {
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "shortNames": ["wd"], "listKind": "WidgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
                "subresources": {"status": {}}}],
        },
    }))
    .expect("crd")
}

fn widget_resource() -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("example.com", "v1", "Widget"),
        "widgets",
    )
}

#[tokio::test]
async fn creating_a_crd_serves_its_resource_until_deleted() {
    let (server, _) = server_with_cms().await;
    let client = server.client().expect("client");
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let created = crds.create(&PostParams::default(), &crd()).await.expect("create crd");
    let established = created
        .status
        .and_then(|s| s.conditions)
        .unwrap_or_default()
        .iter()
        .any(|c| c.type_ == "Established" && c.status == "True");
    assert!(established, "CRD is reported established");

    let discovery = Discovery::new(client.clone()).run().await.expect("discovery");
    assert!(discovery.has_group("example.com"));

    let widgets: Api<DynamicObject> =
        Api::namespaced_with(client.clone(), "default", &widget_resource());
    let widget = DynamicObject::new("w1", &widget_resource()).data(json!({"spec": {"size": 3}}));
    let stored = widgets.create(&PostParams::default(), &widget).await.expect("create widget");
    assert_eq!(stored.data["spec"]["size"], 3);
    assert_eq!(widgets.list(&Default::default()).await.expect("list").items.len(), 1);

    crds.delete("widgets.example.com", &DeleteParams::default()).await.expect("delete crd");
    assert_eq!(
        api_code(widgets.list(&Default::default()).await).0,
        404,
        "resource is no longer served"
    );
    assert_eq!(server.object_count("widgets.example.com"), 0);
    server.shutdown().await;
}

#[tokio::test]
async fn api_resource_registration() {
    let (server, _) = server_with_cms().await;
    let gizmo = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("tools.example.com", "v1alpha1", "Gizmo"),
        "gizmos",
    );
    server.register_api_resource(&gizmo, Scope::Cluster);
    let gizmos: Api<DynamicObject> = Api::all_with(server.client().expect("client"), &gizmo);
    let created = gizmos
        .create(&PostParams::default(), &DynamicObject::new("g", &gizmo))
        .await
        .expect("create");
    assert_eq!(created.name_any(), "g");
    assert!(created.namespace().is_none());
    server.shutdown().await;
}
