//! Where the demo's objects come from: the cluster `KUBECONFIG` names when it answers,
//! otherwise the built-in test API server, seeded.

use std::time::Duration;

use kube::Client;
use kube_informers_testkit::TestApiServer;

use crate::args::Args;
use crate::error::BoxError;

/// Namespaces the built-in server is seeded with.
const NAMESPACES: [&str; 5] = ["ns-0", "ns-1", "ns-2", "ns-3", "ns-4"];

/// A connected client and what it talks to.
pub(crate) struct Source {
    /// The client the informers use.
    pub(crate) client: Client,
    /// The built-in server, when there is no cluster; shut down at exit.
    pub(crate) server: Option<TestApiServer>,
    /// One line saying where objects come from.
    pub(crate) description: String,
    /// Where the churn generator writes (only on the built-in server).
    pub(crate) churn_namespace: Option<String>,
    /// The namespace the lister and index queries ask about.
    pub(crate) query_namespace: String,
}

/// Uses `KUBECONFIG`'s cluster when it is set and answers within a few seconds; otherwise
/// starts and seeds the built-in server.
pub(crate) async fn connect(args: &Args) -> Result<Source, BoxError> {
    if std::env::var_os("KUBECONFIG").is_some() {
        if let Some(source) = try_cluster().await {
            return Ok(source);
        }
        eprintln!(
            "KUBECONFIG is set but its cluster does not answer; using the built-in test API server"
        );
    }
    let server = TestApiServer::start().await?;
    let per_ns = |total: usize, i: usize| {
        total / NAMESPACES.len() + usize::from(i < total % NAMESPACES.len())
    };
    for (i, namespace) in NAMESPACES.iter().enumerate() {
        server.seed().pods(namespace, per_ns(args.pods, i))?;
        server.seed().deployments(namespace, per_ns(args.deployments, i))?;
    }
    println!(
        "started the built-in test API server at {} with {} pods and {} deployments in {} namespaces",
        server.url(),
        args.pods,
        args.deployments,
        NAMESPACES.len()
    );
    Ok(Source {
        client: server.client()?,
        description: format!("built-in test API server {}", server.url()),
        server: Some(server),
        churn_namespace: Some(NAMESPACES[0].to_string()),
        query_namespace: NAMESPACES[1].to_string(),
    })
}

async fn try_cluster() -> Option<Source> {
    let attempt = async {
        let client = Client::try_default().await.ok()?;
        let version = client.apiserver_version().await.ok()?;
        Some((client, version))
    };
    let (client, version) = tokio::time::timeout(Duration::from_secs(3), attempt).await.ok()??;
    println!("using the cluster from KUBECONFIG (Kubernetes {})", version.git_version);
    Some(Source {
        client,
        server: None,
        description: format!("cluster {}", version.git_version),
        churn_namespace: None,
        query_namespace: "kube-system".to_string(),
    })
}
