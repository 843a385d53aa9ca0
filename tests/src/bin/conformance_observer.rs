//! The kube-informers half of the differential conformance test: the Rust twin of
//! client-go's `conformance/cmd/observer`, with the same flags, stdin commands and output
//! (see [`kube_informers_tests::conformance`]).
//!
//! ```text
//! conformance_observer --kubeconfig PATH --out FILE
//! ```
//!
//! Runs three ConfigMap informer factories (`all`, `conf-a` by namespace, `web` by label
//! selector), each with handler `h1`; prints `synced` once all have synced. Commands on
//! stdin, one a line: `add-late-handler` adds handler `h2` to the `all` informer and waits
//! until it has synced; `dump` writes every factory's cache and exits. `ok` follows each.

use std::io::{BufRead, Write};
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube_informers::{SharedIndexInformer, SharedInformerFactory};
use kube_informers_tests::conformance::{
    CallbackWriter, FACTORIES, LineWriter, SCOPED_NAMESPACE, WEB_SELECTOR, cache_line,
};

type Error = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    if let Err(error) = run().await {
        eprintln!("conformance_observer: {error}");
        std::process::exit(1);
    }
}

fn args() -> Result<(String, String), Error> {
    let (mut kubeconfig, mut out) = (None, None);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--kubeconfig" => kubeconfig = Some(value),
            "--out" => out = Some(value),
            other => return Err(format!("unknown flag {other:?}").into()),
        }
    }
    match (kubeconfig, out) {
        (Some(k), Some(o)) => Ok((k, o)),
        _ => Err("--kubeconfig and --out are required".into()),
    }
}

async fn run() -> Result<(), Error> {
    let (kubeconfig, out) = args()?;
    let config = kube::Config::from_custom_kubeconfig(
        Kubeconfig::read_from(&kubeconfig)?,
        &KubeConfigOptions::default(),
    )
    .await?;
    let client = kube::Client::try_from(config)?;
    let writer = LineWriter::create(&out)?;

    let factories: Vec<SharedInformerFactory> = vec![
        SharedInformerFactory::builder(client.clone()).build(),
        SharedInformerFactory::builder(client.clone()).namespace(SCOPED_NAMESPACE).build(),
        SharedInformerFactory::builder(client)
            .tweak_list_params(|lp| lp.label_selector = Some(WEB_SELECTOR.into()))
            .build(),
    ];
    let mut informers: Vec<SharedIndexInformer<ConfigMap>> = Vec::new();
    for (name, factory) in FACTORIES.iter().zip(&factories) {
        let informer = factory.core().v1().config_maps().informer();
        informer.add_event_handler(CallbackWriter::new(writer.clone(), name, "h1"))?;
        factory.start();
        informers.push(informer);
    }
    for (name, factory) in FACTORIES.iter().zip(&factories) {
        if factory.wait_for_cache_sync().await.values().any(|synced| !synced) {
            return Err(format!("factory {name} did not sync").into());
        }
    }
    say("synced");

    let (tx, mut commands) = tokio::sync::mpsc::unbounded_channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    while let Some(command) = commands.recv().await {
        match command.as_str() {
            "add-late-handler" => {
                let registration = informers[0].add_event_handler(CallbackWriter::new(
                    writer.clone(),
                    FACTORIES[0],
                    "h2",
                ))?;
                while !registration.has_synced() {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            }
            "dump" => {
                for (name, informer) in FACTORIES.iter().zip(&informers) {
                    writer.line(&cache_line(name, &informer.get_indexer().list()));
                }
                say("ok");
                for factory in &factories {
                    factory.shutdown().await;
                }
                return Ok(());
            }
            other => return Err(format!("unknown command {other:?}").into()),
        }
        say("ok");
    }
    Ok(())
}

fn say(line: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{line}");
    let _ = stdout.flush();
}
