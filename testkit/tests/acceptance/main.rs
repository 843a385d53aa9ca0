//! Acceptance tests: drive the test server through `kube::Api`, kube-runtime and kubectl.

mod bulk;
mod crd;
mod crud;
mod discovery;
mod faults;
mod fidelity;
mod kubectl;
mod list;
mod real_server;
mod runtime;
mod seed;
mod watch;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::Api;
use kube::api::PostParams;
use kube_informers_testkit::TestApiServer;

/// A ConfigMap with labels.
pub(crate) fn config_map(name: &str, labels: &[(&str, &str)]) -> ConfigMap {
    let mut cm = ConfigMap::default();
    cm.metadata.name = Some(name.to_string());
    cm.metadata.labels = Some(labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect());
    cm.data = Some([("key".to_string(), name.to_string())].into());
    cm
}

/// Creates a ConfigMap through the API.
pub(crate) async fn create_cm(
    api: &Api<ConfigMap>,
    name: &str,
    labels: &[(&str, &str)],
) -> ConfigMap {
    api.create(&PostParams::default(), &config_map(name, labels)).await.expect("create configmap")
}

/// Starts a server and returns it with a ConfigMap API on `default`.
pub(crate) async fn server_with_cms() -> (TestApiServer, Api<ConfigMap>) {
    let server = TestApiServer::builder()
        .bookmark_interval(std::time::Duration::from_millis(50))
        .start()
        .await
        .expect("start server");
    let api = Api::namespaced(server.client().expect("client"), "default");
    (server, api)
}

/// The status code of a kube API error.
pub(crate) fn api_code<T: std::fmt::Debug>(result: kube::Result<T>) -> (u16, String) {
    match result {
        Err(kube::Error::Api(status)) => (status.code, status.reason.clone()),
        other => panic!("expected an API error, got {other:?}"),
    }
}
