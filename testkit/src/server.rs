//! The server handle: start, client, kubeconfig, restart, shutdown.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use kube::core::ApiResource;
use parking_lot::Mutex;
use tokio::net::TcpListener;

use crate::api::state::Shared;
use crate::api::verbs::create::create_default_namespaces;
use crate::error::{Error, Result};
use crate::faults::handle::Faults;
use crate::faults::state::FaultState;
use crate::listener::{Serving, bind};
use crate::resources::{Registry, ResourceInfo, Scope};
use crate::seed::Seeder;
use crate::store::Store;

/// The default interval between periodic bookmarks: kube-apiserver's bookmark frequency.
const DEFAULT_BOOKMARK_INTERVAL: Duration = Duration::from_secs(60);

/// Configures a [`TestApiServer`] before it starts.
///
/// ```no_run
/// # async fn demo() -> kube_informers_testkit::Result<()> {
/// use std::time::Duration;
/// use kube_informers_testkit::TestApiServer;
/// let server = TestApiServer::builder()
///     .bookmark_interval(Duration::from_millis(50))
///     .history_len(1_000)
///     .start()
///     .await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct TestApiServerBuilder {
    addr: SocketAddr,
    bookmark_interval: Duration,
    history_len: usize,
    token: Option<String>,
}

impl Default for TestApiServerBuilder {
    fn default() -> Self {
        TestApiServerBuilder {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            bookmark_interval: DEFAULT_BOOKMARK_INTERVAL,
            history_len: 10_000,
            token: None,
        }
    }
}

impl TestApiServerBuilder {
    /// Address to bind (default `127.0.0.1:0`, an ephemeral port).
    pub fn addr(mut self, addr: SocketAddr) -> Self {
        self.addr = addr;
        self
    }

    /// Interval between periodic BOOKMARK events on watches that allow them (default
    /// 60 s, like kube-apiserver's watch cache, which sends them about once a minute or
    /// less often). Tests that want to see bookmarks quickly set a short interval here.
    pub fn bookmark_interval(mut self, interval: Duration) -> Self {
        self.bookmark_interval = interval.max(Duration::from_millis(1));
        self
    }

    /// How many events the history keeps for watch resume and paginated lists (default
    /// 10,000). Older RVs get 410 Expired.
    pub fn history_len(mut self, len: usize) -> Self {
        self.history_len = len;
        self
    }

    /// Requires `Authorization: Bearer <token>` on every request (401 otherwise).
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// Binds and starts serving.
    pub async fn start(self) -> Result<TestApiServer> {
        let shared = Arc::new(Shared {
            registry: Registry::with_built_ins(),
            store: Store::new(self.history_len),
            faults: FaultState::default(),
            bookmark_interval: self.bookmark_interval,
            token: self.token,
            addr: Mutex::new(self.addr),
            seed_seq: AtomicU64::new(0),
        });
        create_default_namespaces(&shared).map_err(|e| Error::Setup(e.message))?;
        let listener = bind(self.addr)?;
        let addr = listener.local_addr().map_err(Error::Bind)?;
        *shared.addr.lock() = addr;
        let server = TestApiServer {
            shared,
            addr,
            serving: Mutex::new(None),
            kubeconfig_dir: Mutex::new(None),
        };
        server.serve(listener);
        tracing::debug!(%addr, "testkit apiserver listening");
        Ok(server)
    }
}

/// An in-memory Kubernetes API server on loopback.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use kube_informers_testkit::TestApiServer;
/// let server = TestApiServer::start().await?;
/// let client = server.client()?;
/// let version = client.apiserver_version().await?;
/// assert_eq!(version.major, "1");
/// server.shutdown().await;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct TestApiServer {
    shared: Arc<Shared>,
    addr: SocketAddr,
    serving: Mutex<Option<Serving>>,
    kubeconfig_dir: Mutex<Option<tempfile::TempDir>>,
}

impl TestApiServer {
    /// Starts a server with default settings on `127.0.0.1:0`.
    pub async fn start() -> Result<TestApiServer> {
        TestApiServerBuilder::default().start().await
    }

    /// A builder for non-default settings.
    pub fn builder() -> TestApiServerBuilder {
        TestApiServerBuilder::default()
    }

    fn serve(&self, listener: TcpListener) {
        *self.serving.lock() = Some(Serving::start(self.shared.clone(), listener));
    }

    async fn stop_serving(&self) {
        let serving = self.serving.lock().take();
        if let Some(serving) = serving {
            serving.stop().await;
        }
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL, e.g. `http://127.0.0.1:40123`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The bearer token clients must send, if one is required.
    pub fn token(&self) -> Option<&str> {
        self.shared.token.as_deref()
    }

    /// A `kube::Config` for this server (default namespace `default`, bearer token set
    /// when required). Tweak it (e.g. `default_retry = false`) and build a client with
    /// `kube::Client::try_from(config)`.
    ///
    /// Note: kube's default client retries 429, 503 and 504 answers by itself (with
    /// backoff, honouring `Retry-After`); turn `default_retry` off to observe them.
    pub fn config(&self) -> Result<kube::Config> {
        let uri: http::Uri =
            self.url().parse().map_err(|e: http::uri::InvalidUri| Error::Client(e.to_string()))?;
        let mut config = kube::Config::new(uri);
        if let Some(token) = &self.shared.token {
            let value = http::HeaderValue::from_str(&format!("Bearer {token}"))
                .map_err(|e| Error::Client(e.to_string()))?;
            config.headers.push((http::header::AUTHORIZATION, value));
        }
        Ok(config)
    }

    /// A `kube::Client` for this server, built from [`config`](Self::config).
    pub fn client(&self) -> Result<kube::Client> {
        kube::Client::try_from(self.config()?).map_err(|e| Error::Client(e.to_string()))
    }

    /// A `kube::Client` that does not retry 429/503/504 answers, so tests see them.
    pub fn client_without_retry(&self) -> Result<kube::Client> {
        let mut config = self.config()?;
        config.default_retry = false;
        kube::Client::try_from(config).map_err(|e| Error::Client(e.to_string()))
    }

    /// Writes a kubeconfig for this server into a temporary directory (kept as long as
    /// the server) and returns its path.
    pub fn kubeconfig(&self) -> Result<PathBuf> {
        let mut dir = self.kubeconfig_dir.lock();
        if dir.is_none() {
            *dir = Some(tempfile::tempdir().map_err(Error::Kubeconfig)?);
        }
        let path = dir.as_ref().map(|d| d.path().join("kubeconfig")).unwrap_or_default();
        crate::kubeconfig::write(&path, &self.url(), self.token())?;
        Ok(path)
    }

    /// Writes a kubeconfig for this server to `path`.
    pub fn write_kubeconfig(&self, path: &std::path::Path) -> Result<()> {
        crate::kubeconfig::write(path, &self.url(), self.token())
    }

    /// Fault injection for this server.
    pub fn faults(&self) -> Faults<'_> {
        Faults { shared: &self.shared }
    }

    /// Bulk seeding straight into storage.
    pub fn seed(&self) -> Seeder<'_> {
        Seeder { shared: &self.shared }
    }

    /// Shortcut for [`Faults::compact`].
    pub fn compact(&self) {
        self.faults().compact();
    }

    /// Shortcut for [`Faults::request_count`].
    pub fn request_count(&self, verb: &str, resource: &str) -> u64 {
        self.faults().request_count(verb, resource)
    }

    /// Shortcut for [`Faults::compressed_count`].
    pub fn compressed_count(&self, verb: &str, resource: &str) -> u64 {
        self.faults().compressed_count(verb, resource)
    }

    /// Shortcut for [`Faults::deny`].
    pub fn deny(&self, resource: &str) {
        self.faults().deny(resource);
    }

    /// Shortcut for [`Faults::allow`].
    pub fn allow(&self, resource: &str) {
        self.faults().allow(resource);
    }

    /// Shortcut for [`Faults::fail_next`].
    pub fn fail_next(
        &self,
        verb: &str,
        resource: &str,
        n: u64,
        failure: impl Into<crate::InjectedFailure>,
    ) {
        self.faults().fail_next(verb, resource, n, failure);
    }

    /// Commits `count` updates of existing objects of `resource` (plural, `plural.group`,
    /// kind or short name) in `namespace` (`None`: all namespaces) straight into storage,
    /// as fast as the store takes them: each sets the annotation [`TOUCH_ANNOTATION`] to a
    /// new value, gets a new resourceVersion and sends one MODIFIED event to the watches.
    /// The updates go round the objects in key order, so `count` may exceed their number.
    ///
    /// For benchmarks whose event phase must not be limited by one HTTP request per
    /// update. A server run by the CLI offers the same over HTTP:
    /// `POST /testkit/bulk-update?resource=pods&namespace=default&count=N` (bearer token
    /// required like every request; `namespace` optional), answering
    /// `{"updated":N,"objects":M,"firstResourceVersion":"..","lastResourceVersion":".."}`.
    ///
    /// ```no_run
    /// # async fn demo() -> kube_informers_testkit::Result<()> {
    /// use kube_informers_testkit::TestApiServer;
    /// let server = TestApiServer::start().await?;
    /// server.seed().pods("default", 1_000)?;
    /// let report = server.bulk_touch("pods", Some("default"), 10_000)?;
    /// assert_eq!(report.updated, 10_000);
    /// # Ok(()) }
    /// ```
    ///
    /// [`TOUCH_ANNOTATION`]: crate::TOUCH_ANNOTATION
    pub fn bulk_touch(
        &self,
        resource: &str,
        namespace: Option<&str>,
        count: u64,
    ) -> Result<crate::BulkTouchReport> {
        let info = self
            .shared
            .registry
            .find(resource)
            .ok_or_else(|| Error::UnknownResource(resource.to_string()))?;
        crate::bulk::bulk_touch(&self.shared, &info, namespace, count)
            .map_err(|e| Error::Bulk(e.message))
    }

    /// The latest resourceVersion.
    pub fn resource_version(&self) -> u64 {
        self.shared.store.lock().current_rv()
    }

    /// Changes how many events the history keeps (trimming it now if shorter).
    pub fn set_history_len(&self, len: usize) {
        self.shared.store.lock().set_history_len(len);
    }

    /// Number of stored objects of `resource` (plural, `plural.group`, kind or short name).
    pub fn object_count(&self, resource: &str) -> usize {
        self.shared
            .registry
            .find(resource)
            .map_or(0, |info| self.shared.store.lock().count(&info.group_resource()))
    }

    /// Serves a custom resource described by a kube [`ApiResource`], as if its CRD had
    /// been created.
    pub fn register_api_resource(&self, resource: &ApiResource, scope: Scope) {
        self.shared.registry.register(crate::resources::from_api_resource(resource, scope));
    }

    /// Serves every served version of a CRD object (JSON of a
    /// `CustomResourceDefinition`) without storing the CRD itself. Creating the CRD
    /// through the API registers it too.
    pub fn register_crd(&self, crd: &serde_json::Value) -> Result<Vec<ResourceInfo>> {
        let infos = crate::resources::from_crd(crd).ok_or(Error::InvalidCrd)?;
        for info in &infos {
            self.shared.registry.register(info.clone());
        }
        Ok(infos)
    }

    /// Drops every connection (open watches included) and listens again on the same
    /// port. Storage is kept and the resourceVersion continues, but like a restarted
    /// kube-apiserver the watch cache starts afresh: a watch resumed from an RV older than
    /// the restart gets an ERROR event with `410 Expired` (lists and continue tokens at
    /// older RVs still work, as they are read from etcd).
    pub async fn restart(&self) -> Result<()> {
        tracing::debug!(addr = %self.addr, "testkit apiserver restarting");
        self.shared.store.lock().restart_watch_cache();
        self.shared.faults.drop_watches();
        self.stop_serving().await;
        let listener = bind(self.addr)?;
        self.serve(listener);
        tracing::debug!(addr = %self.addr, "testkit apiserver restarted");
        Ok(())
    }

    /// Stops serving; every task of the server has ended when this returns.
    pub async fn shutdown(self) {
        self.shared.faults.drop_watches();
        self.stop_serving().await;
    }
}

impl Drop for TestApiServer {
    fn drop(&mut self) {
        if let Some(serving) = self.serving.lock().take() {
            serving.cancel();
        }
    }
}
