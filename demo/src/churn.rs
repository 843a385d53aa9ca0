//! A churn generator: creates, updates and deletes a few Pods per second over HTTP, so the
//! live view has events to show.

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use k8s_openapi::api::core::v1::{Container, Pod, PodSpec};
use kube::Client;
use kube::api::{Api, DeleteParams, ObjectMeta, PostParams};
use tokio::sync::watch;

/// How many churn Pods live at once; older ones are deleted.
const LIVE_PODS: usize = 20;

fn churn_pod(namespace: &str, index: u64, generation: u64) -> Pod {
    Pod {
        metadata: ObjectMeta {
            name: Some(format!("churn-{index}")),
            namespace: Some(namespace.to_string()),
            labels: Some(BTreeMap::from([
                ("app".to_string(), "churn".to_string()),
                ("generation".to_string(), generation.to_string()),
            ])),
            ..ObjectMeta::default()
        },
        spec: Some(PodSpec {
            containers: vec![Container {
                name: "main".into(),
                image: Some("registry.k8s.io/pause:3.10".into()),
                ..Container::default()
            }],
            ..PodSpec::default()
        }),
        ..Pod::default()
    }
}

/// Every `interval` creates one Pod, updates the previous one and deletes the oldest beyond
/// [`LIVE_PODS`], until `stop` changes. Errors (the server restarting, say) are skipped.
pub(crate) async fn run(
    client: Client,
    namespace: String,
    interval: Duration,
    mut stop: watch::Receiver<bool>,
) {
    let api: Api<Pod> = Api::namespaced(client, &namespace);
    let mut live = VecDeque::new();
    let mut ticker = tokio::time::interval(interval);
    for index in 0u64.. {
        tokio::select! {
            _ = ticker.tick() => {}
            _ = stop.changed() => return,
        }
        if api.create(&PostParams::default(), &churn_pod(&namespace, index, 0)).await.is_ok() {
            live.push_back(index);
        }
        if let Some(previous) = index.checked_sub(1).filter(|p| live.contains(p)) {
            let name = format!("churn-{previous}");
            if let Ok(mut pod) = api.get(&name).await {
                pod.metadata
                    .labels
                    .get_or_insert_with(BTreeMap::new)
                    .insert("generation".into(), "1".into());
                let _ = api.replace(&name, &PostParams::default(), &pod).await;
            }
        }
        while live.len() > LIVE_PODS {
            if let Some(oldest) = live.pop_front() {
                let _ = api.delete(&format!("churn-{oldest}"), &DeleteParams::default()).await;
            }
        }
    }
}
