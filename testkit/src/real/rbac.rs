//! Granting and revoking the unprivileged user's read access, for 403 tests.

use serde_json::{Value, json};

use crate::error::{Error, Result};

use super::{RealApiServer, UNPRIVILEGED_USER};

impl RealApiServer {
    /// Lets [`UNPRIVILEGED_USER`] get, list and watch `resource` (`plural` or `plural.group`)
    /// in every namespace, through a ClusterRole and ClusterRoleBinding named after it.
    pub async fn grant_read(&self, resource: &str) -> Result<()> {
        let (plural, group) = resource.split_once('.').unwrap_or((resource, ""));
        let name = binding_name(resource);
        let role = json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": name},
            "rules": [{"apiGroups": [group], "resources": [plural], "verbs": ["get", "list", "watch"]}],
        });
        let binding = json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
            "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": UNPRIVILEGED_USER}],
        });
        self.apply_rbac("clusterroles", &role).await?;
        self.apply_rbac("clusterrolebindings", &binding).await
    }

    /// Takes back what [`grant_read`](Self::grant_read) gave; nothing granted is fine.
    pub async fn revoke_read(&self, resource: &str) -> Result<()> {
        let path = format!(
            "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/{}",
            binding_name(resource)
        );
        let request = http::Request::delete(path)
            .body(Vec::new())
            .map_err(|e| Error::Setup(e.to_string()))?;
        match self.client().request_text(request).await {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(status)) if status.code == 404 => Ok(()),
            Err(e) => Err(Error::Setup(format!("revoking {resource}: {e}"))),
        }
    }

    async fn apply_rbac(&self, plural: &str, object: &Value) -> Result<()> {
        let request = http::Request::post(format!("/apis/rbac.authorization.k8s.io/v1/{plural}"))
            .header(http::header::CONTENT_TYPE, "application/json")
            .body(object.to_string().into_bytes())
            .map_err(|e| Error::Setup(e.to_string()))?;
        match self.client().request_text(request).await {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(status)) if status.code == 409 => Ok(()),
            Err(e) => Err(Error::Setup(format!("creating {plural}: {e}"))),
        }
    }
}

fn binding_name(resource: &str) -> String {
    format!("kube-informers-test-read-{resource}")
}
