//! Differential conformance with client-go: client-go's observer (`conformance/cmd/observer`,
//! path in `KUBE_INFORMERS_CONFORMANCE_GO`, built by `make client-go`) and our
//! twin (`conformance_observer`) watch one real kube-apiserver while this test drives one
//! scripted scenario through the admin client. Their callbacks are compared per
//! (factory, handler, key), and their final caches per factory; every difference is named,
//! and only those listed in docs/coming-from-client-go.md ("Differences the conformance
//! test allows") may remain.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret};
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube_informers_testkit::real::RealApiServer;
use kube_informers_tests::conformance::{
    Difference, FACTORIES, Observation, SCOPED_NAMESPACE, allowed_differences, compare,
};

/// The section of docs/coming-from-client-go.md that names the differences allowed here.
const ALLOWED_SECTION: &str = "Differences the conformance test allows";

/// Differences that are deliberate improvements of ours, by name, read from the docs.
fn allowed() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/coming-from-client-go.md");
    let doc = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    allowed_differences(&doc, ALLOWED_SECTION)
}

const NAMESPACES: [&str; 2] = [SCOPED_NAMESPACE, "conf-b"];
const SEED: usize = 50;
const DEADLINE: Duration = Duration::from_secs(120);

/// One observer process: its stdin, its stdout lines, and the file it writes.
struct Observer {
    name: &'static str,
    child: Child,
    stdin: ChildStdin,
    stdout: mpsc::Receiver<String>,
    out: PathBuf,
    stderr: PathBuf,
}

impl Observer {
    fn spawn(name: &'static str, bin: &Path, kubeconfig: &Path, dir: &Path) -> Self {
        let out = dir.join(format!("{name}.jsonl"));
        let stderr = dir.join(format!("{name}.stderr"));
        let mut child = Command::new(bin)
            .arg("--kubeconfig")
            .arg(kubeconfig)
            .arg("--out")
            .arg(&out)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start the {name} observer {}: {e}", bin.display()));
        let stdin = child.stdin.take().unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap());
        let (tx, stdout) = mpsc::channel();
        std::thread::spawn(move || {
            for line in lines.lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Self { name, child, stdin, stdout, out, stderr }
    }

    /// Waits (on a blocking thread) for the next stdout line to be `want`.
    async fn expect(&mut self, want: &str) {
        let got = tokio::task::block_in_place(|| self.stdout.recv_timeout(DEADLINE));
        match got {
            Ok(line) if line == want => {}
            other => panic!(
                "{} observer: expected {want:?}, got {other:?}; stderr:\n{}",
                self.name,
                self.stderr_tail()
            ),
        }
    }

    async fn command(&mut self, command: &str) {
        writeln!(self.stdin, "{command}").unwrap();
        self.stdin.flush().unwrap();
        self.expect("ok").await;
    }

    fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        assert!(status.success(), "kill -{signal} {} observer", self.name);
    }

    fn observation(&self) -> Observation {
        let text = std::fs::read_to_string(&self.out).unwrap_or_default();
        Observation::parse(&text).unwrap_or_else(|e| panic!("{} observer output: {e}", self.name))
    }

    fn stderr_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.stderr).unwrap_or_default();
        let lines: Vec<_> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }
}

impl Drop for Observer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn go_observer() -> PathBuf {
    let path = std::env::var_os("KUBE_INFORMERS_CONFORMANCE_GO").map(PathBuf::from).expect(
        "KUBE_INFORMERS_CONFORMANCE_GO is unset: run `make client-go` (make test \
         does) or set it to a binary built from conformance/cmd/observer",
    );
    assert!(
        path.is_file(),
        "KUBE_INFORMERS_CONFORMANCE_GO={} does not exist: run `make client-go`",
        path.display()
    );
    path
}

fn config_map(name: &str, tier: &str) -> ConfigMap {
    serde_json::from_value(serde_json::json!({
        "metadata": {"name": name, "labels": {"tier": tier}},
        "data": {"v": "0"},
    }))
    .unwrap()
}

/// The tier label of seeded ConfigMap `i`: every third is `web`.
fn tier(i: usize) -> &'static str {
    if i.is_multiple_of(3) { "web" } else { "api" }
}

fn seeded(i: usize) -> (&'static str, String) {
    (NAMESPACES[i % 2], format!("cm-{i:02}"))
}

/// The admin client's view of the scenario's ConfigMaps.
struct Driver {
    client: kube::Client,
}

impl Driver {
    fn api(&self, ns: &str) -> Api<ConfigMap> {
        Api::namespaced(self.client.clone(), ns)
    }
    async fn create(&self, ns: &str, name: &str, tier: &str) {
        self.api(ns).create(&PostParams::default(), &config_map(name, tier)).await.unwrap();
    }
    async fn update(&self, i: usize, value: &str) {
        let (ns, name) = seeded(i);
        let patch = serde_json::json!({"data": {"v": value}});
        self.api(ns).patch(&name, &PatchParams::default(), &Patch::Merge(&patch)).await.unwrap();
    }
    async fn relabel(&self, i: usize, tier: &str) {
        let (ns, name) = seeded(i);
        let patch = serde_json::json!({"metadata": {"labels": {"tier": tier}}});
        self.api(ns).patch(&name, &PatchParams::default(), &Patch::Merge(&patch)).await.unwrap();
    }
    async fn delete(&self, i: usize) {
        let (ns, name) = seeded(i);
        self.api(ns).delete(&name, &DeleteParams::default()).await.unwrap();
    }

    /// Creates a Secret: the store's resourceVersion moves on with no ConfigMap event.
    async fn bump_resource_version(&self) {
        let secret: Secret = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "conformance-bump"},
            "stringData": {"k": "v"},
        }))
        .unwrap();
        Api::<Secret>::namespaced(self.client.clone(), NAMESPACES[0])
            .create(&PostParams::default(), &secret)
            .await
            .unwrap();
    }

    /// factory -> key -> resourceVersion the server holds, as each factory should see it.
    async fn expected(&self) -> BTreeMap<&'static str, BTreeMap<String, String>> {
        let all = Api::<ConfigMap>::all(self.client.clone())
            .list(&ListParams::default())
            .await
            .unwrap()
            .items;
        let mut out: BTreeMap<&'static str, BTreeMap<String, String>> = BTreeMap::new();
        for cm in all {
            let ns = cm.metadata.namespace.clone().unwrap_or_default();
            let key = format!("{ns}/{}", cm.metadata.name.clone().unwrap_or_default());
            let rv = cm.metadata.resource_version.clone().unwrap_or_default();
            let web = cm.metadata.labels.as_ref().and_then(|l| l.get("tier")).map(String::as_str)
                == Some("web");
            for factory in FACTORIES {
                let visible = match factory {
                    "conf-a" => ns == SCOPED_NAMESPACE,
                    "web" => web,
                    _ => true,
                };
                if visible {
                    out.entry(factory).or_default().insert(key.clone(), rv.clone());
                }
            }
        }
        for factory in FACTORIES {
            out.entry(factory).or_default();
        }
        out
    }
}

/// Polls until every observer's handlers have rebuilt, from their callbacks, what the
/// server holds.
async fn converge(driver: &Driver, observers: &[&Observer], late_handler: bool, step: &str) {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let expected = driver.expected().await;
        let mut lagging = Vec::new();
        for observer in observers {
            let obs = observer.observation();
            for (factory, want) in &expected {
                let handlers: &[&str] =
                    if late_handler && *factory == "all" { &["h1", "h2"] } else { &["h1"] };
                for handler in handlers {
                    let got = obs.model(factory, handler);
                    if &got != want {
                        let missing = want.iter().filter(|(k, v)| got.get(*k) != Some(v)).count();
                        let extra = got.keys().filter(|k| !want.contains_key(*k)).count();
                        lagging.push(format!(
                            "{} {factory}/{handler}: {missing} missing or stale, {extra} extra",
                            observer.name
                        ));
                    }
                }
            }
        }
        if lagging.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "{step}: observers did not converge: {lagging:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_server_client_go_and_kube_informers_make_the_same_callbacks() {
    let started = Instant::now();
    let go_bin = go_observer();
    let rust_bin = PathBuf::from(env!("CARGO_BIN_EXE_conformance_observer"));
    let server = RealApiServer::start().await.unwrap();
    let driver = Driver { client: server.client() };
    let dir =
        std::env::temp_dir().join(format!("kube-informers-conformance-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    // Step 1: the initial list.
    for ns in NAMESPACES {
        let namespace: Namespace =
            serde_json::from_value(serde_json::json!({"metadata": {"name": ns}})).unwrap();
        Api::<Namespace>::all(driver.client.clone())
            .create(&PostParams::default(), &namespace)
            .await
            .unwrap();
    }
    for i in 0..SEED {
        let (ns, name) = seeded(i);
        driver.create(ns, &name, tier(i)).await;
    }
    let mut go = Observer::spawn("client-go", &go_bin, &server.kubeconfig(), &dir);
    let mut ours = Observer::spawn("kube-informers", &rust_bin, &server.kubeconfig(), &dir);
    go.expect("synced").await;
    ours.expect("synced").await;
    converge(&driver, &[&go, &ours], false, "initial list").await;

    // Step 2: creates, updates, deletes across namespaces; labels moving objects out of
    // (cm-15, cm-18) and into (cm-16, cm-17) the tier=web selector.
    for i in 0..4 {
        driver.create(NAMESPACES[i % 2], &format!("new-{i}"), tier(i)).await;
    }
    for i in 0..10 {
        driver.update(i, "1").await;
    }
    driver.update(0, "2").await;
    for i in 10..15 {
        driver.delete(i).await;
    }
    driver.relabel(15, "api").await;
    driver.relabel(18, "api").await;
    driver.relabel(16, "web").await;
    driver.relabel(17, "web").await;
    driver.update(17, "1").await;
    driver.relabel(17, "api").await;
    converge(&driver, &[&go, &ours], false, "live changes").await;

    // Step 3: a handler added late replays the cache as initial adds, then sees changes.
    go.command("add-late-handler").await;
    ours.command("add-late-handler").await;
    driver.update(20, "1").await;
    driver.delete(21).await;
    driver.create(NAMESPACES[1], "new-late", "web").await;
    converge(&driver, &[&go, &ours], true, "late handler").await;

    // Step 4: etcd compacted under live watches, then deletes and updates: the watch cache
    // still serves them.
    server.compact_etcd().await.unwrap();
    driver.delete(30).await;
    driver.delete(31).await;
    driver.update(32, "1").await;
    converge(&driver, &[&go, &ours], true, "after compaction").await;

    // Step 5: a relist for every factory. Both observers are paused (SIGSTOP). Objects
    // change while their watches are still open (the events wait in the paused processes'
    // socket buffers, so both see them on SIGCONT); a Secret is created so the store's
    // resourceVersion moves past every ConfigMap event; etcd is compacted and the apiserver
    // killed -9 and restarted: a fresh watch cache that starts after every resourceVersion a
    // factory has seen, so every resumed watch gets 410. More objects change before SIGCONT;
    // each factory must then relist and find them: tombstones for the deletes, updates and
    // adds for the rest, and (client-go only) an update for every unchanged object.
    go.signal("STOP");
    ours.signal("STOP");
    driver.delete(22).await;
    driver.update(26, "1").await;
    driver.relabel(27, "api").await;
    driver.bump_resource_version().await;
    server.compact_etcd().await.unwrap();
    server.kill_apiserver().await;
    server.start_apiserver().await.unwrap();
    driver.delete(24).await;
    driver.delete(25).await;
    driver.relabel(28, "web").await;
    driver.create(NAMESPACES[0], "new-away-0", "web").await;
    driver.create(NAMESPACES[1], "new-away-1", "api").await;
    go.signal("CONT");
    ours.signal("CONT");
    converge(&driver, &[&go, &ours], true, "relist").await;

    // Step 6: changes right after the relist, then a marker every factory sees, so every
    // callback of the relist has been written when the marker's add has.
    driver.update(29, "1").await;
    driver.delete(33).await;
    converge(&driver, &[&go, &ours], true, "after relist").await;
    driver.create(NAMESPACES[0], "zz-marker", "web").await;
    converge(&driver, &[&go, &ours], true, "marker").await;

    go.command("dump").await;
    ours.command("dump").await;
    let (theirs, mine) = (go.observation(), ours.observation());
    let differences = compare(&theirs, &mine);
    let allowed = allowed();
    let unexpected: Vec<&Difference> =
        differences.iter().filter(|d| !allowed.iter().any(|name| name == d.name)).collect();

    println!(
        "conformance with client-go: 1 scenario (seed {SEED}, live changes, late handler, compaction, kill -9 + restart relist)"
    );
    println!(
        "  callbacks compared: client-go {}, kube-informers {}, in {} (factory, handler, key) sequences; caches compared: {}",
        theirs.callbacks.len(),
        mine.callbacks.len(),
        theirs
            .sequences()
            .keys()
            .chain(mine.sequences().keys())
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        theirs.caches.len()
    );
    println!(
        "  differences: {} ({} allowed)",
        differences.len(),
        differences.len() - unexpected.len()
    );
    let mut by_name: BTreeMap<&str, Vec<&Difference>> = BTreeMap::new();
    for difference in &differences {
        by_name.entry(difference.name).or_default().push(difference);
    }
    for (name, list) in &by_name {
        let verdict = if allowed.iter().any(|a| a == name) { "allowed" } else { "NOT allowed" };
        println!("    {name}: {} ({verdict}), e.g.", list.len());
        for difference in list.iter().take(if verdict == "allowed" { 3 } else { usize::MAX }) {
            println!("      {difference}");
        }
    }
    println!("  took {:.1?}", started.elapsed());
    drop((go, ours));
    server.shutdown().await;
    assert_eq!(theirs.caches.len(), FACTORIES.len(), "client-go dumped every cache");
    assert!(unexpected.is_empty(), "{} differences from client-go", unexpected.len());
    let _ = std::fs::remove_dir_all(&dir);
}
