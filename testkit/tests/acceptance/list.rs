use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{DeleteParams, ListParams, VersionMatch};
use kube::{Api, ResourceExt};

use crate::{api_code, create_cm, server_with_cms};

fn names(list: &kube::api::ObjectList<ConfigMap>) -> Vec<String> {
    list.items.iter().map(|c| c.name_any()).collect()
}

#[tokio::test]
async fn pagination_is_a_consistent_snapshot() {
    let (server, api) = server_with_cms().await;
    server.seed().config_maps("default", 2_600).expect("seed");
    let mut params = ListParams::default().limit(500);
    let first = api.list(&params).await.expect("first page");
    assert_eq!(first.items.len(), 500);
    let snapshot = first.metadata.resource_version.clone().expect("list rv");

    // Changes made while paging must not show up in later pages.
    create_cm(&api, "zzz-added-later", &[]).await;
    let last_name = format!("config-{}", 2_599);
    api.delete(&last_name, &DeleteParams::default()).await.expect("delete");

    let mut seen = names(&first);
    let mut pages = 1;
    let mut token = first.metadata.continue_.clone();
    while let Some(next) = token {
        params.continue_token = Some(next);
        let page = api.list(&params).await.expect("page");
        assert_eq!(
            page.metadata.resource_version.as_deref(),
            Some(snapshot.as_str()),
            "every page has the snapshot RV"
        );
        pages += 1;
        seen.extend(names(&page));
        token = page.metadata.continue_;
    }
    assert_eq!(pages, 6);
    assert_eq!(seen.len(), 2_600);
    assert!(seen.contains(&last_name), "deleted object is still in the snapshot");
    assert!(!seen.iter().any(|n| n == "zzz-added-later"));
    let unique: std::collections::BTreeSet<_> = seen.iter().collect();
    assert_eq!(unique.len(), 2_600, "no duplicates across pages");
    server.shutdown().await;
}

#[tokio::test]
async fn continue_token_expires_after_compaction() {
    let (server, api) = server_with_cms().await;
    server.seed().config_maps("default", 30).expect("seed");
    let first = api.list(&ListParams::default().limit(10)).await.expect("page");
    let token = first.metadata.continue_.clone().expect("continue");
    create_cm(&api, "newer", &[]).await;
    server.compact();
    let (code, reason) =
        api_code(api.list(&ListParams::default().limit(10).continue_token(&token)).await);
    assert_eq!((code, reason.as_str()), (410, "Expired"));
    // A fresh list works.
    assert_eq!(api.list(&ListParams::default()).await.expect("relist").items.len(), 31);
    server.shutdown().await;
}

#[tokio::test]
async fn resource_version_semantics() {
    let (server, api) = server_with_cms().await;
    create_cm(&api, "a", &[]).await;
    let after_a = api.list(&ListParams::default()).await.expect("list");
    let rv_a = after_a.metadata.resource_version.clone().expect("rv");
    create_cm(&api, "b", &[]).await;

    let exact = api
        .list(&ListParams::default().at(&rv_a).matching(VersionMatch::Exact))
        .await
        .expect("exact");
    assert_eq!(names(&exact), ["a"]);
    assert_eq!(exact.metadata.resource_version.as_deref(), Some(rv_a.as_str()));
    let not_older = api
        .list(&ListParams::default().at(&rv_a).matching(VersionMatch::NotOlderThan))
        .await
        .expect("not older");
    assert_eq!(names(&not_older), ["a", "b"]);
    let any = api.list(&ListParams::default().match_any()).await.expect("any");
    assert_eq!(names(&any), ["a", "b"]);

    let future = (server.resource_version() + 100).to_string();
    let no_retry: Api<ConfigMap> =
        Api::namespaced(server.client_without_retry().expect("client"), "default");
    assert_eq!(
        api_code(
            no_retry
                .list(&ListParams::default().at(&future).matching(VersionMatch::NotOlderThan))
                .await
        )
        .0,
        504
    );
    server.compact();
    assert_eq!(
        api_code(api.list(&ListParams::default().at(&rv_a).matching(VersionMatch::Exact)).await).0,
        410
    );
    server.shutdown().await;
}

#[tokio::test]
async fn label_and_field_selectors() {
    let (server, api) = server_with_cms().await;
    create_cm(&api, "web-1", &[("app", "web"), ("tier", "front")]).await;
    create_cm(&api, "web-2", &[("app", "web"), ("tier", "back")]).await;
    create_cm(&api, "db-1", &[("app", "db")]).await;
    create_cm(&api, "bare", &[]).await;
    let select = |labels: &str| ListParams::default().labels(labels);
    assert_eq!(names(&api.list(&select("app=web")).await.expect("eq")), ["web-1", "web-2"]);
    assert_eq!(
        names(&api.list(&select("app in (db,web),tier!=back")).await.expect("set")),
        ["db-1", "web-1"]
    );
    assert_eq!(names(&api.list(&select("!app")).await.expect("absent")), ["bare"]);
    assert_eq!(
        names(&api.list(&select("app,tier notin (front)")).await.expect("exists")),
        ["db-1", "web-2"]
    );
    assert_eq!(api_code(api.list(&select("app in web")).await).0, 400);

    let fields = |f: &str| ListParams::default().fields(f);
    assert_eq!(names(&api.list(&fields("metadata.name=db-1")).await.expect("name")), ["db-1"]);
    assert_eq!(
        names(
            &api.list(&fields("metadata.name!=db-1,metadata.namespace==default"))
                .await
                .expect("ne")
        )
        .len(),
        3
    );
    assert_eq!(api_code(api.list(&fields("spec.nodeName=x")).await).0, 400);

    let all: Api<ConfigMap> = Api::all(server.client().expect("client"));
    assert_eq!(
        names(&all.list(&fields("metadata.namespace=kube-system")).await.expect("ns")).len(),
        0
    );
    assert_eq!(all.list(&select("app=web")).await.expect("all namespaces").items.len(), 2);
    server.shutdown().await;
}

#[tokio::test]
async fn list_kind_and_api_version() {
    let (server, _) = server_with_cms().await;
    let client = server.client().expect("client");
    let request = http::Request::get("/apis/apps/v1/namespaces/default/deployments")
        .body(Vec::new())
        .expect("request");
    let list: serde_json::Value = client.request(request).await.expect("list");
    assert_eq!(list["kind"], "DeploymentList");
    assert_eq!(list["apiVersion"], "apps/v1");
    assert!(
        list["metadata"]["resourceVersion"].as_str().is_some_and(|rv| rv.parse::<u64>().is_ok())
    );
    server.shutdown().await;
}
