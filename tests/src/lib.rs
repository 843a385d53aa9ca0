//! Helpers shared by the integration tests: a handler that records what it receives, and
//! a way to wait for a condition without sleeping blindly.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use kube::Resource;
use kube_informers_runtime::{DeletedObject, ResourceEventHandler};
use tokio::sync::mpsc;

pub mod conformance;
mod event;
pub mod tee;

pub use event::{Event, Seen, key_of};

/// A handler that forwards every callback to a channel.
pub struct Recorder<K> {
    tx: mpsc::UnboundedSender<Event<K>>,
}

impl<K> Recorder<K> {
    /// The handler and the receiving end of its events.
    pub fn new() -> (Self, mpsc::UnboundedReceiver<Event<K>>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Self { tx }, rx)
    }
}

impl<K: Send + Sync + 'static> ResourceEventHandler<K> for Recorder<K> {
    fn on_add(&self, obj: &Arc<K>, is_in_initial_list: bool) {
        let _ = self.tx.send(Event::Add(Arc::clone(obj), is_in_initial_list));
    }
    fn on_update(&self, old: &Arc<K>, new: &Arc<K>) {
        let _ = self.tx.send(Event::Update(Arc::clone(old), Arc::clone(new)));
    }
    fn on_delete(&self, obj: &DeletedObject<K>) {
        let _ = self.tx.send(Event::Delete(obj.clone()));
    }
}

/// The next event, failing the test if none arrives within 10 seconds.
pub async fn next_event<K>(rx: &mut mpsc::UnboundedReceiver<Event<K>>) -> Event<K> {
    tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("no event within 10 s")
        .expect("the handler was dropped")
}

/// Polls `check` every 20 ms until it holds, failing the test after `within`.
pub async fn eventually<F, Fut>(within: Duration, what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if check().await {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "timed out waiting for: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A model of the cache rebuilt only from handler callbacks: key -> resourceVersion.
///
/// Applying an event checks the callback is consistent with the model (an add for a key
/// the model lacks, an update whose old object is the one the model holds, a delete of a
/// key the model has).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct CallbackModel {
    /// key -> resourceVersion.
    pub objects: BTreeMap<String, String>,
    /// How many tombstones were received, by key.
    pub tombstones: BTreeMap<String, usize>,
}

impl CallbackModel {
    /// Applies one event; panics with a description if it is inconsistent with the model.
    pub fn apply<K: Resource>(&mut self, event: &Event<K>) {
        let key = event.key();
        match event {
            Event::Add(obj, _) => {
                let rv = obj.meta().resource_version.clone().unwrap_or_default();
                assert!(
                    self.objects.insert(key.clone(), rv).is_none(),
                    "on_add for {key}, which the handler already had"
                );
            }
            Event::Update(old, new) => {
                let old_rv = old.meta().resource_version.clone().unwrap_or_default();
                let held =
                    self.objects.get(&key).unwrap_or_else(|| panic!("on_update for unknown {key}"));
                assert_eq!(
                    held, &old_rv,
                    "on_update for {key}: old is not the object the handler had"
                );
                self.objects.insert(key, new.meta().resource_version.clone().unwrap_or_default());
            }
            Event::Delete(gone) => {
                assert!(self.objects.remove(&key).is_some(), "on_delete for unknown {key}");
                if gone.is_tombstone() {
                    *self.tombstones.entry(key).or_default() += 1;
                }
            }
        }
    }
}

/// key -> resourceVersion of every object in a cache.
pub fn cache_model<K: Resource>(objects: &[Arc<K>]) -> BTreeMap<String, String> {
    objects
        .iter()
        .map(|obj| (key_of(obj.as_ref()), obj.meta().resource_version.clone().unwrap_or_default()))
        .collect()
}

/// A Pod the real apiserver accepts: a name and one container (testkit would take less).
pub fn valid_pod(name: &str) -> k8s_openapi::api::core::v1::Pod {
    serde_json::from_value(serde_json::json!({
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10"}]},
    }))
    .expect("a valid Pod")
}

/// Installs a test log subscriber once (honours `RUST_LOG`).
pub fn init_tracing() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_test_writer()
        .try_init();
}

/// Creates the CRD (JSON, e.g. from [`crd_json`]) through the API, as a user would. The real
/// server serves it only once it is Established, so there
/// [`Cluster::register_crd`](kube_informers_testkit::Cluster::register_crd) (which also
/// creates it through the API) waits for that.
pub async fn create_crd(server: &kube_informers_testkit::Cluster, crd: serde_json::Value) {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    if server.real().is_some() {
        server.register_crd(&crd).await.expect("create crd");
        return;
    }
    let crd: CustomResourceDefinition = serde_json::from_value(crd).expect("crd");
    kube::Api::<CustomResourceDefinition>::all(server.client().unwrap())
        .create(&kube::api::PostParams::default(), &crd)
        .await
        .expect("create crd");
}

/// A `CustomResourceDefinition` (JSON) serving `plural.group/v1` with a schema that keeps
/// every field; `namespaced` picks the scope. For dynamic-informer tests.
pub fn crd_json(group: &str, kind: &str, plural: &str, namespaced: bool) -> serde_json::Value {
    let singular = kind.to_lowercase();
    serde_json::json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{group}")},
        "spec": {
            "group": group,
            "scope": if namespaced { "Namespaced" } else { "Cluster" },
            "names": {"kind": kind, "plural": plural, "singular": singular, "listKind": format!("{kind}List")},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}],
        },
    })
}

/// The process's peak resident set size in KiB (`VmHWM` in `/proc/self/status`), if known.
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Defines a test that runs its body once against each server: the generated module `$name`
/// holds `testkit` and `real_server`, so `cargo test real_server` selects the real-server half
/// and `--skip real_server` the rest. The body gets `$cluster: kube_informers_testkit::Cluster`.
///
/// ```ignore
/// on_both_servers! {
///     /// Docs of the test.
///     async fn syncs_pods(cluster) {
///         cluster.seed(SeedKind::Pods, "ns-a", 10).await.unwrap();
///         // ...
///     }
/// }
/// ```
#[macro_export]
macro_rules! on_both_servers {
    ($(#[$meta:meta])* async fn $name:ident($cluster:ident) $body:block) => {
        $(#[$meta])*
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            async fn body($cluster: ::kube_informers_testkit::Cluster) $body

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn testkit() {
                $crate::init_tracing();
                body($crate::start_cluster(::kube_informers_testkit::ServerKind::Testkit).await).await
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn real_server() {
                $crate::init_tracing();
                body($crate::start_cluster(::kube_informers_testkit::ServerKind::Real).await).await
            }
        }
    };
}

/// A link between informers and a server that a test can break, to make the informers miss
/// changes: on testkit every watch fails and open ones are dropped; on the real server a
/// [`FaultProxy`](kube_informers_testkit::real::FaultProxy) between them is cut (both
/// directions, like a network partition). Admin clients of the cluster are not affected.
pub struct Outage {
    proxy: Option<kube_informers_testkit::real::FaultProxy>,
}

impl Outage {
    /// Prepares the link (starts the proxy on the real server).
    pub async fn prepare(cluster: &kube_informers_testkit::Cluster) -> Outage {
        let proxy = match cluster.real() {
            Some(real) => Some(real.fault_proxy().await.expect("the fault proxy starts")),
            None => None,
        };
        Outage { proxy }
    }

    /// The client informers must use for the outage to reach them.
    pub fn client(&self, cluster: &kube_informers_testkit::Cluster) -> kube::Client {
        match &self.proxy {
            Some(proxy) => proxy.client().expect("a proxy client"),
            None => cluster.client().expect("a client"),
        }
    }

    /// Breaks the link until [`end`](Self::end); when it returns, no change can reach the
    /// informers.
    pub fn begin(&self, cluster: &kube_informers_testkit::Cluster) {
        if let Some(proxy) = &self.proxy {
            proxy.cut();
        }
        if let Some(testkit) = cluster.testkit() {
            let failure = kube_informers_testkit::InjectedFailure::internal_error();
            testkit.fail_next("watch", "*", 1_000_000, failure);
            testkit.faults().drop_watches();
        }
    }

    /// Restores the link.
    pub fn end(&self, cluster: &kube_informers_testkit::Cluster) {
        if let Some(proxy) = &self.proxy {
            proxy.heal();
        }
        if let Some(testkit) = cluster.testkit() {
            testkit.faults().clear_failures();
        }
    }

    /// Ends the informers' watches and answers the next one with 410 `Expired`, as a server
    /// does whose history has moved past the informer's resourceVersion: the informer must
    /// relist with a consistent (paginated) list. testkit answers the watch request with a
    /// 410; the real server's proxy with the ERROR event kube-apiserver's watch cache sends.
    pub fn expire_next_watch(&self, cluster: &kube_informers_testkit::Cluster) {
        if let Some(proxy) = &self.proxy {
            proxy.expire_next_watches(1);
            proxy.cut();
            proxy.heal();
        }
        if let Some(testkit) = cluster.testkit() {
            testkit.fail_next("watch", "*", 1, 410);
            testkit.faults().drop_watches();
        }
    }

    /// Answers the next plain LIST request with 410 `Expired`, as a server answers a list at
    /// a resourceVersion it cannot serve: testkit injects the failure, the real server's
    /// proxy answers in its place.
    pub fn expire_next_list(&self, cluster: &kube_informers_testkit::Cluster) {
        if let Some(proxy) = &self.proxy {
            proxy.expire_next_lists(1);
        }
        if let Some(testkit) = cluster.testkit() {
            testkit.fail_next("list", "*", 1, 410);
        }
    }

    /// How many plain LIST requests (no `watch`) for `resource` (a plural, e.g.
    /// `configmaps`) the informers made through this link so far: testkit's own request
    /// count, or the real server's proxy log.
    pub fn list_requests(&self, cluster: &kube_informers_testkit::Cluster, resource: &str) -> u64 {
        match (&self.proxy, cluster.testkit()) {
            (Some(_), _) => self.list_queries(cluster, resource).map_or(0, |q| q.len() as u64),
            (None, Some(testkit)) => testkit.request_count("list", resource),
            (None, None) => 0,
        }
    }

    /// The query strings of the plain LIST requests for `resource` through the real
    /// server's proxy, in order; `None` on testkit, which keeps counts only.
    pub fn list_queries(
        &self,
        _cluster: &kube_informers_testkit::Cluster,
        resource: &str,
    ) -> Option<Vec<String>> {
        let proxy = self.proxy.as_ref()?;
        let queries = proxy
            .requests()
            .iter()
            .filter_map(|line| {
                let target = line.strip_prefix("GET ")?;
                let (path, query) = target.split_once('?').unwrap_or((target, ""));
                let list = path.ends_with(&format!("/{resource}"))
                    && !query.split('&').any(|pair| pair.starts_with("watch="));
                list.then(|| query.to_owned())
            })
            .collect();
        Some(queries)
    }

    /// Stops the proxy, if any.
    pub async fn shutdown(self) {
        if let Some(proxy) = self.proxy {
            proxy.shutdown().await;
        }
    }
}

/// Threads of this process whose name starts like the informers' listener threads (Linux
/// truncates thread names to 15 bytes), not counting threads already exiting.
///
/// A joined thread can still be listed for a moment: the kernel wakes `pthread_join` when
/// it releases the thread's memory, early in `do_exit`, and removes the thread from
/// `/proc/self/task` only at its end. From the start of `do_exit` the thread carries
/// `PF_EXITING` in its flags (`stat`'s ninth field), so a thread with it runs no more code
/// of ours, and is not counted.
pub fn listener_threads() -> usize {
    const PF_EXITING: u64 = 0x4;
    let name = kube_informers_runtime::processor::LISTENER_THREAD_NAME;
    let prefix = &name[..name.len().min(15)];
    // `tid (comm) state ppid pgrp session tty_nr tpgid flags ...`; comm may hold spaces and
    // parentheses, so the fields are read after its last `)`.
    let live_listener = |stat: &str| {
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            return false;
        };
        let flags = stat[close + 1..].split_whitespace().nth(6).and_then(|f| f.parse::<u64>().ok());
        stat[open + 1..close].starts_with(prefix) && flags.is_some_and(|f| f & PF_EXITING == 0)
    };
    std::fs::read_dir("/proc/self/task")
        .map(|tasks| {
            tasks
                .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("stat")).ok())
                .filter(|stat| live_listener(stat))
                .count()
        })
        .unwrap_or(0)
}

/// Held by each test that counts [`listener_threads`]: under `cargo test` (one process, tests
/// in parallel) two of them would count each other's threads. nextest runs each alone anyway.
pub fn counting_threads_alone() -> std::sync::MutexGuard<'static, ()> {
    static COUNTING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    COUNTING.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Starts a server of `kind`, failing the test with the reason when it cannot.
pub async fn start_cluster(
    kind: kube_informers_testkit::ServerKind,
) -> kube_informers_testkit::Cluster {
    match kube_informers_testkit::Cluster::start(kind).await {
        Ok(cluster) => cluster,
        Err(err) => panic!("cannot start the {kind} server: {err}"),
    }
}
