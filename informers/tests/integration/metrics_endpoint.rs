//! The controller example's `/metrics` endpoint, over real HTTP: it serves the text
//! exposition of a factory's informers and a work queue, and nothing but `/metrics`.

#[path = "../../examples/controller/metrics.rs"]
mod metrics;

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use kube_informers::SharedInformerFactory;
use kube_informers::metrics::prometheus::prometheus_client::registry::Registry;
use kube_informers::metrics::prometheus::{WorkQueueMetricsProvider, register_factory};
use kube_informers::workqueue::{QueueConfig, WorkQueue};
use kube_informers_testkit::TestApiServer;

use metrics::{CONTENT_TYPE, MetricsServer};

/// The raw HTTP/1.1 response to `GET path`.
async fn get(addr: SocketAddr, path: &str) -> String {
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    tokio::task::spawn_blocking(move || {
        let mut stream = std::net::TcpStream::connect(addr)?;
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        stream.write_all(request.as_bytes())?;
        let mut response = String::new();
        stream.read_to_string(&mut response)?;
        Ok::<_, std::io::Error>(response)
    })
    .await
    .expect("request task")
    .expect("HTTP exchange")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_route_serves_the_text_exposition() {
    let server = TestApiServer::start().await.unwrap();
    server.seed().deployments("prod", 3).unwrap();
    let factory = SharedInformerFactory::new(server.client().unwrap(), Duration::ZERO);
    // Informers exist once asked for, and run from the next start().
    let deployments = factory.apps().v1().deployments().informer();

    let mut registry = Registry::default();
    register_factory(&mut registry, &factory);
    let provider = WorkQueueMetricsProvider::new(&mut registry);
    let queue: WorkQueue<String> = WorkQueue::with_config(
        QueueConfig::new().name("configmap-sync").metrics_provider(provider),
    );
    let metrics =
        MetricsServer::start("127.0.0.1:0".parse().unwrap(), Arc::new(registry)).await.unwrap();

    factory.start();
    assert!(deployments.wait_for_sync().await);
    queue.add("prod/deploy-0".to_string());

    let response = get(metrics.addr, "/metrics").await;
    let (head, body) = response.split_once("\r\n\r\n").expect("a complete response");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.to_ascii_lowercase().contains(&format!("content-type: {CONTENT_TYPE}")), "{head}");
    for line in [
        r#"informer_synced{resource="apps/v1/deployments"} 1"#,
        r#"informer_list_requests_total{resource="apps/v1/deployments"} 1"#,
        r#"workqueue_adds_total{name="configmap-sync"} 1"#,
        r#"workqueue_depth{name="configmap-sync"} 1"#,
    ] {
        assert!(body.lines().any(|l| l == line), "missing `{line}` in:\n{body}");
    }
    assert!(body.trim_end().ends_with("# EOF"), "an OpenMetrics document ends with # EOF");
    assert!(!body.contains("deploy-0"), "no object names in metrics:\n{body}");

    let missing = get(metrics.addr, "/other").await;
    assert!(missing.starts_with("HTTP/1.1 404"), "{missing}");

    metrics.shutdown().await.unwrap();
    factory.shutdown().await;
    server.shutdown().await;
}
