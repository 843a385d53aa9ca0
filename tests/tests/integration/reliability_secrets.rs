//! Secrets never reach the logs: a Secret informer runs through sync, updates, deletes, a
//! decode error and a relist with every event up to `debug` captured, and the captured text
//! contains none of the data values, in plain or base64 form.

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kube_informers_runtime::TypedInformerFactory;
use kube_informers_runtime::reflector::{BackoffConfig, ReflectorConfig};
use kube_informers_testkit::{Malformed, TestApiServer};
use kube_informers_tests::{Recorder, eventually};
use parking_lot::Mutex;

/// A `MakeWriter` appending everything to a shared buffer.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = Captured;
    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

fn base64(bytes: &[u8]) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(TABLE[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn secret(name: &str, value: &str) -> Secret {
    let mut s = Secret::default();
    s.metadata.name = Some(name.into());
    s.data = Some([("password".to_string(), ByteString(value.as_bytes().to_vec()))].into());
    s
}

// Current-thread runtime: `set_default` applies to this thread, so every event of the
// informer's tasks is captured (listener threads run no tracing of object contents either,
// but their events would go to the global subscriber; handlers here log nothing).
#[tokio::test(flavor = "current_thread")]
async fn secret_data_never_reaches_the_logs() {
    kube_informers_testkit::scoped_subscribers_see_every_callsite();
    let captured = Captured::default();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_writer(captured.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let values: Vec<String> = (0..4).map(|i| format!("s3cr3t-value-{i}-Zq9")).collect();
    let server = TestApiServer::builder()
        .bookmark_interval(Duration::from_millis(50))
        .start()
        .await
        .unwrap();
    let client = server.client().unwrap();
    let api = Api::<Secret>::namespaced(client.clone(), "vault");
    api.create(&PostParams::default(), &secret("initial", &values[0])).await.unwrap();

    let config = ReflectorConfig {
        backoff: BackoffConfig {
            initial: Duration::from_millis(5),
            max: Duration::from_millis(50),
            ..Default::default()
        },
        ..Default::default()
    };
    let factory = TypedInformerFactory::builder(client.clone()).reflector_config(config).build();
    let informer = factory.informer_for::<Secret>();
    let (recorder, _events) = Recorder::new();
    informer.add_event_handler(recorder).unwrap();
    let errors = Arc::new(Mutex::new(0usize));
    let seen = Arc::clone(&errors);
    informer.set_watch_error_handler(move |_| *seen.lock() += 1).unwrap();
    factory.start();
    assert!(
        factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await.values().all(|ok| *ok)
    );

    // Add, update, delete.
    api.create(&PostParams::default(), &secret("second", &values[1])).await.unwrap();
    let patch = serde_json::json!({"data": {"password": base64(values[2].as_bytes())}});
    api.patch("second", &PatchParams::default(), &Patch::Merge(&patch)).await.unwrap();
    api.delete("initial", &DeleteParams::default()).await.unwrap();
    eventually(Duration::from_secs(10), "updates applied", || {
        let done = informer.get_indexer().get_by_key("vault/initial").is_none()
            && informer.get_indexer().get_by_key("vault/second").is_some_and(|s| {
                s.data.as_ref().and_then(|d| d.get("password")).map(|b| b.0.clone())
                    == Some(values[2].as_bytes().to_vec())
            });
        async move { done }
    })
    .await;

    // A decode error in the watch, then a relist (compaction + dropped watch).
    eventually(Duration::from_secs(10), "watch open", || {
        let sent = server.faults().malformed_in_watch("secrets", Malformed::WrongType) > 0;
        async move { sent }
    })
    .await;
    eventually(Duration::from_secs(10), "decode error reported", || {
        let n = *errors.lock();
        async move { n > 0 }
    })
    .await;
    api.create(&PostParams::default(), &secret("third", &values[3])).await.unwrap();
    server.compact();
    server.faults().drop_watches();
    eventually(Duration::from_secs(20), "relisted", || {
        let done = informer.get_indexer().len() == 2;
        async move { done }
    })
    .await;
    factory.shutdown().await;
    server.shutdown().await;

    let logs = String::from_utf8_lossy(&captured.0.lock()).into_owned();
    assert!(
        logs.contains("DEBUG") || logs.contains("INFO") || logs.contains("WARN"),
        "logs were captured"
    );
    for value in &values {
        assert!(!logs.contains(value.as_str()), "secret value {value} leaked into the logs");
        assert!(
            !logs.contains(&base64(value.as_bytes())),
            "base64 of {value} leaked into the logs"
        );
    }
}
