use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::Api;
use kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use serde_json::json;

use crate::{api_code, config_map, create_cm, server_with_cms};

#[tokio::test]
async fn create_sets_server_fields_and_rejects_duplicates() {
    let (server, api) = server_with_cms().await;
    let before = server.resource_version();
    let created = create_cm(&api, "a", &[("app", "web")]).await;
    let meta = &created.metadata;
    assert!(meta.uid.as_deref().is_some_and(|u| u.len() == 36));
    assert!(meta.creation_timestamp.is_some());
    assert_eq!(meta.generation, Some(1));
    let rv: u64 = meta.resource_version.as_deref().expect("rv").parse().expect("numeric rv");
    assert!(rv > before);
    assert_eq!(meta.namespace.as_deref(), Some("default"));

    let (code, reason) = api_code(api.create(&PostParams::default(), &config_map("a", &[])).await);
    assert_eq!((code, reason.as_str()), (409, "AlreadyExists"));

    let fetched = api.get("a").await.expect("get");
    assert_eq!(fetched.data, created.data);
    let (code, reason) = api_code(api.get("missing").await);
    assert_eq!((code, reason.as_str()), (404, "NotFound"));
    server.shutdown().await;
}

#[tokio::test]
async fn generate_name_and_invalid_names() {
    let (server, api) = server_with_cms().await;
    let mut cm = ConfigMap::default();
    cm.metadata.generate_name = Some("gen-".into());
    let created = api.create(&PostParams::default(), &cm).await.expect("create");
    let name = created.metadata.name.expect("name");
    assert!(name.starts_with("gen-") && name.len() == 9, "{name}");
    let (code, reason) =
        api_code(api.create(&PostParams::default(), &config_map("Not_Valid", &[])).await);
    assert_eq!((code, reason.as_str()), (422, "Invalid"));
    server.shutdown().await;
}

#[tokio::test]
async fn update_is_optimistic() {
    let (server, api) = server_with_cms().await;
    let created = create_cm(&api, "a", &[]).await;
    let mut first = created.clone();
    first.data = Some([("key".to_string(), "one".to_string())].into());
    let updated = api.replace("a", &PostParams::default(), &first).await.expect("update");
    assert_ne!(updated.metadata.resource_version, created.metadata.resource_version);
    assert_eq!(updated.metadata.uid, created.metadata.uid);

    // A second writer still holding the old RV loses.
    let mut stale = created.clone();
    stale.data = Some([("key".to_string(), "two".to_string())].into());
    let (code, reason) = api_code(api.replace("a", &PostParams::default(), &stale).await);
    assert_eq!((code, reason.as_str()), (409, "Conflict"));

    // Without an RV the update is unconditional.
    stale.metadata.resource_version = None;
    let forced =
        api.replace("a", &PostParams::default(), &stale).await.expect("unconditional update");
    assert_eq!(forced.data.and_then(|d| d.get("key").cloned()).as_deref(), Some("two"));

    let (code, _) =
        api_code(api.replace("missing", &PostParams::default(), &config_map("missing", &[])).await);
    assert_eq!(code, 404);
    server.shutdown().await;
}

#[tokio::test]
async fn merge_strategic_and_json_patches() {
    let (server, api) = server_with_cms().await;
    create_cm(&api, "a", &[("app", "web")]).await;
    let merged = api
        .patch(
            "a",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"tier": "db"}}, "data": {"x": "1"}})),
        )
        .await
        .expect("merge patch");
    let labels = merged.metadata.labels.clone().expect("labels");
    assert_eq!(labels.get("app").map(String::as_str), Some("web"));
    assert_eq!(labels.get("tier").map(String::as_str), Some("db"));

    let strategic = api
        .patch("a", &PatchParams::default(), &Patch::Strategic(json!({"data": {"y": "2"}})))
        .await
        .expect("strategic patch (treated as merge)");
    assert_eq!(strategic.data.as_ref().and_then(|d| d.get("y")).map(String::as_str), Some("2"));

    let ops: json_patch::Patch = serde_json::from_value(json!([
        {"op": "replace", "path": "/data/x", "value": "10"},
        {"op": "remove", "path": "/metadata/labels/app"},
    ]))
    .expect("ops");
    let patched =
        api.patch("a", &PatchParams::default(), &Patch::<()>::Json(ops)).await.expect("json patch");
    assert_eq!(patched.data.as_ref().and_then(|d| d.get("x")).map(String::as_str), Some("10"));
    assert!(!patched.metadata.labels.clone().unwrap_or_default().contains_key("app"));

    // A patch carrying a stale resourceVersion is a precondition and conflicts.
    let (code, _) = api_code(
        api.patch(
            "a",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"resourceVersion": "1"}})),
        )
        .await,
    );
    assert_eq!(code, 409);
    let bad_ops: json_patch::Patch =
        serde_json::from_value(json!([{"op": "test", "path": "/data/x", "value": "nope"}]))
            .expect("ops");
    let (code, _) =
        api_code(api.patch("a", &PatchParams::default(), &Patch::<()>::Json(bad_ops)).await);
    assert_eq!(code, 422);
    server.shutdown().await;
}

#[tokio::test]
async fn server_side_apply_upserts() {
    let (server, api) = server_with_cms().await;
    let params = PatchParams::apply("testkit-test");
    let applied = api
        .patch(
            "applied",
            &params,
            &Patch::Apply(json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "applied"}, "data": {"a": "1"}})),
        )
        .await
        .expect("apply creates");
    assert_eq!(applied.data.as_ref().and_then(|d| d.get("a")).map(String::as_str), Some("1"));
    let again = api
        .patch(
            "applied",
            &params,
            &Patch::Apply(json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "applied"}, "data": {"a": "2"}})),
        )
        .await
        .expect("apply updates");
    assert_eq!(again.data.as_ref().and_then(|d| d.get("a")).map(String::as_str), Some("2"));
    server.shutdown().await;
}

#[tokio::test]
async fn delete_honours_finalizers() {
    let (server, api) = server_with_cms().await;
    let mut cm = config_map("guarded", &[]);
    cm.metadata.finalizers = Some(vec!["example.com/guard".into()]);
    api.create(&PostParams::default(), &cm).await.expect("create");
    let deleting = api.delete("guarded", &DeleteParams::default()).await.expect("delete");
    let still_there = deleting.left().expect("object returned while finalizers remain");
    assert!(still_there.metadata.deletion_timestamp.is_some());
    assert!(api.get("guarded").await.expect("still stored").metadata.deletion_timestamp.is_some());

    api.patch(
        "guarded",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": null}})),
    )
    .await
    .expect("clear finalizers");
    let (code, _) = api_code(api.get("guarded").await);
    assert_eq!(code, 404, "object is removed once its finalizers are gone");

    create_cm(&api, "plain", &[]).await;
    api.delete("plain", &DeleteParams::default()).await.expect("delete");
    assert_eq!(api_code(api.get("plain").await).0, 404);
    assert_eq!(api_code(api.delete("plain", &DeleteParams::default()).await).0, 404);
    server.shutdown().await;
}

#[tokio::test]
async fn delete_preconditions_and_collection() {
    let (server, api) = server_with_cms().await;
    let a = create_cm(&api, "a", &[("app", "x")]).await;
    create_cm(&api, "b", &[("app", "x")]).await;
    create_cm(&api, "c", &[("app", "y")]).await;
    let stale = DeleteParams {
        preconditions: Some(kube::api::Preconditions {
            resource_version: Some("1".into()),
            uid: None,
        }),
        ..DeleteParams::default()
    };
    assert_eq!(api_code(api.delete("a", &stale).await).0, 409);
    let fresh = DeleteParams {
        preconditions: Some(kube::api::Preconditions {
            resource_version: a.metadata.resource_version.clone(),
            uid: a.metadata.uid.clone(),
        }),
        ..DeleteParams::default()
    };
    api.delete("a", &fresh).await.expect("delete with matching preconditions");

    let lp = kube::api::ListParams::default().labels("app=x");
    api.delete_collection(&DeleteParams::default(), &lp).await.expect("deletecollection");
    let left: Vec<String> = api
        .list(&Default::default())
        .await
        .expect("list")
        .items
        .into_iter()
        .filter_map(|c| c.metadata.name)
        .collect();
    assert_eq!(left, ["c"]);
    server.shutdown().await;
}

#[tokio::test]
async fn status_subresource_is_separate_from_spec() {
    let (server, _) = server_with_cms().await;
    let pods: Api<Pod> = Api::namespaced(server.client().expect("client"), "default");
    let pod: Pod = serde_json::from_value(json!({"metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}, "status": {"phase": "Pending"}}))
    .expect("pod");
    pods.create(&PostParams::default(), &pod).await.expect("create");
    let ignored = pods
        .patch("p", &PatchParams::default(), &Patch::Merge(json!({"status": {"phase": "Running"}})))
        .await
        .expect("main patch");
    assert_eq!(
        ignored.status.and_then(|s| s.phase).as_deref(),
        Some("Pending"),
        "status changes on the main resource are ignored"
    );
    let running = pods
        .patch_status(
            "p",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"phase": "Running"}})),
        )
        .await
        .expect("status patch");
    assert_eq!(running.status.and_then(|s| s.phase).as_deref(), Some("Running"));
    assert_eq!(running.metadata.generation, Some(1), "status changes do not bump generation");
    let spec_change = pods
        .patch(
            "p",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"activeDeadlineSeconds": 5}})),
        )
        .await
        .expect("spec patch");
    assert_eq!(spec_change.metadata.generation, Some(2));
    server.shutdown().await;
}
