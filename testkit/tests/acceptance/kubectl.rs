//! kubectl against the server: `get -A`, `get -w`, `create -f`, `delete`.
//!
//! Runs against the CLI binary when it was built (`--features cli`), otherwise against an
//! in-process server; skipped with a message when kubectl is missing or unusable.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use kube_informers_testkit::TestApiServer;

/// Runs kubectl with a kubeconfig; `None` when kubectl cannot be started.
fn kubectl(kubeconfig: &Path, args: &[&str]) -> Option<Output> {
    Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .ok()
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Kills a child process when dropped.
struct ChildGuard(Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Streams a child's stdout lines into a channel.
fn lines_of(child: &mut Child) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    if let Some(stdout) = child.stdout.take() {
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
    }
    rx
}

fn wait_for_line(rx: &mpsc::Receiver<String>, needle: &str) -> Option<String> {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(line) if line.contains(needle) => return Some(line),
            Ok(_) => {}
            Err(_) => return None,
        }
    }
    None
}

/// The CLI binary, if it was built with this test. Cargo names the path even when the `cli`
/// feature is off and the binary was never built, so the file must exist too.
fn cli_binary() -> Option<PathBuf> {
    option_env!("CARGO_BIN_EXE_kube-informers-testkit").map(PathBuf::from).filter(|p| p.exists())
}

/// Starts the CLI; returns the guard, the kubeconfig path and the URL.
///
/// kubectl (client-go) does not send a bearer token over plain HTTP, so the kubectl test
/// runs the CLI with `--no-auth`.
fn start_cli(binary: &Path, dir: &Path, auth: bool) -> (ChildGuard, PathBuf, String) {
    let kubeconfig = dir.join("kubeconfig");
    let mut child = Command::new(binary)
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--seed",
            "pods=20",
            "--seed",
            "configmaps=3",
            "--kubeconfig",
        ])
        .arg(&kubeconfig)
        .args(["--bookmark-interval-ms", "200"])
        .args(if auth { &[][..] } else { &["--no-auth"][..] })
        .stdout(Stdio::piped())
        .stdin(Stdio::null())
        .spawn()
        .expect("start the CLI");
    let lines = lines_of(&mut child);
    let guard = ChildGuard(child);
    let url = wait_for_line(&lines, "listening on").expect("the CLI prints its address");
    let url = url.trim_start_matches("listening on ").trim().to_string();
    if auth {
        wait_for_line(&lines, "token:").expect("the CLI prints its token");
    }
    (guard, kubeconfig, url)
}

#[test]
fn cli_requires_the_bearer_token() {
    let Some(binary) = cli_binary() else {
        eprintln!("SKIP: the CLI binary is not built (run with --features cli)");
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let (_guard, kubeconfig, url) = start_cli(&binary, dir.path(), true);
    let config = std::fs::read_to_string(&kubeconfig).expect("kubeconfig written");
    assert!(config.contains(&url) && config.contains("token:"));
    let runtime =
        tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    runtime.block_on(async {
        let anonymous =
            kube::Client::try_from(kube::Config::new(url.parse().expect("uri"))).expect("client");
        let pods: kube::Api<k8s_openapi::api::core::v1::Pod> = kube::Api::all(anonymous);
        match pods.list(&Default::default()).await {
            Err(kube::Error::Api(status)) => assert_eq!(status.code, 401),
            other => panic!("expected 401, got {other:?}"),
        }
        let options = kube::config::KubeConfigOptions::default();
        let kc = kube::config::Kubeconfig::read_from(&kubeconfig).expect("parse kubeconfig");
        let config = kube::Config::from_custom_kubeconfig(kc, &options).await.expect("config");
        let pods: kube::Api<k8s_openapi::api::core::v1::Pod> =
            kube::Api::all(kube::Client::try_from(config).expect("client"));
        assert_eq!(pods.list(&Default::default()).await.expect("authorized list").items.len(), 20);
    });
}

#[test]
fn kubectl_get_watch_create_delete() {
    let probe = Command::new("kubectl").args(["version", "--client"]).stdin(Stdio::null()).output();
    if !probe.as_ref().is_ok_and(|o| o.status.success()) {
        eprintln!("SKIP: kubectl is not on PATH or does not run");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    // Keep whichever server we use alive for the whole test.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let mut _cli = None;
    let mut _server = None;
    let kubeconfig = match cli_binary() {
        Some(binary) => {
            let (guard, kubeconfig, _) = start_cli(&binary, dir.path(), false);
            _cli = Some(guard);
            kubeconfig
        }
        None => {
            let server = runtime.block_on(TestApiServer::start()).expect("start server");
            server.seed().pods("default", 20).expect("seed");
            let path = server.kubeconfig().expect("kubeconfig");
            _server = Some(server);
            path
        }
    };

    let Some(get_all) = kubectl(&kubeconfig, &["get", "pods", "-A"]) else {
        eprintln!("SKIP: kubectl could not be started");
        return;
    };
    if !get_all.status.success() {
        eprintln!("SKIP: kubectl is not usable offline here: {}", text(&get_all));
        return;
    }
    let listing = String::from_utf8_lossy(&get_all.stdout).to_string();
    assert!(
        listing.contains("NAMESPACE") && listing.contains("pod-0") && listing.contains("pod-19"),
        "{listing}"
    );

    let api_resources = kubectl(&kubeconfig, &["api-resources"]).expect("kubectl");
    assert!(api_resources.status.success(), "{}", text(&api_resources));
    let resources = String::from_utf8_lossy(&api_resources.stdout).to_string();
    assert!(
        resources.contains("deployments") && resources.contains("customresourcedefinitions"),
        "{resources}"
    );

    let mut watch = Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .args(["get", "configmaps", "-w", "-n", "default"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .stdin(Stdio::null())
        .spawn()
        .expect("kubectl get -w");
    let watch_lines = lines_of(&mut watch);
    let _watch = ChildGuard(watch);

    let manifest = dir.path().join("cm.yaml");
    let mut file = std::fs::File::create(&manifest).expect("manifest");
    writeln!(file, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-kubectl\n  namespace: default\ndata:\n  k: v").expect("write");
    drop(file);
    let manifest_arg = manifest.to_string_lossy().to_string();
    let created = kubectl(&kubeconfig, &["create", "--validate=false", "-f", &manifest_arg])
        .expect("kubectl");
    assert!(created.status.success(), "{}", text(&created));
    assert!(
        wait_for_line(&watch_lines, "from-kubectl").is_some(),
        "get -w shows the new ConfigMap"
    );

    let fetched =
        kubectl(&kubeconfig, &["get", "configmap", "from-kubectl", "-o", "jsonpath={.data.k}"])
            .expect("kubectl");
    assert_eq!(String::from_utf8_lossy(&fetched.stdout), "v");
    let deleted = kubectl(&kubeconfig, &["delete", "configmap", "from-kubectl"]).expect("kubectl");
    assert!(deleted.status.success(), "{}", text(&deleted));
    let gone = kubectl(&kubeconfig, &["get", "configmap", "from-kubectl"]).expect("kubectl");
    assert!(!gone.status.success() && text(&gone).contains("NotFound"), "{}", text(&gone));
    drop(_server);
}
