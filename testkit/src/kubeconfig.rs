//! Writing a kubeconfig that points kubectl (or any client) at the server.

use std::path::Path;

use crate::error::{Error, Result};

/// The kubeconfig text for a server URL and an optional bearer token.
pub(crate) fn render(url: &str, token: Option<&str>) -> String {
    let user = match token {
        Some(token) => format!("    token: \"{token}\"\n"),
        None => "    {}\n".to_string(),
    };
    let user = format!("  user:\n{user}");
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: testkit\n  cluster:\n    server: \"{url}\"\n\
         contexts:\n- name: testkit\n  context:\n    cluster: testkit\n    user: testkit\n    namespace: default\n\
         current-context: testkit\npreferences: {{}}\nusers:\n- name: testkit\n{user}"
    )
}

/// The kubeconfig of a [`RealApiServer`](crate::real::RealApiServer): one cluster trusting
/// the certificate file `ca`, contexts `admin` (current) and `unprivileged`.
pub(crate) fn render_tls(url: &str, ca: &Path, admin_token: &str, user_token: &str) -> String {
    let ca = ca.display();
    let context = |name: &str| {
        format!(
            "- name: {name}\n  context:\n    cluster: real\n    user: {name}\n    namespace: default\n"
        )
    };
    let user =
        |name: &str, token: &str| format!("- name: {name}\n  user:\n    token: \"{token}\"\n");
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: real\n  cluster:\n    server: \"{url}\"\n    certificate-authority: \"{ca}\"\n\
         contexts:\n{}{}current-context: admin\npreferences: {{}}\nusers:\n{}{}",
        context("admin"),
        context("unprivileged"),
        user("admin", admin_token),
        user("unprivileged", user_token),
    )
}

/// Writes the kubeconfig to `path` (creating parent directories).
pub(crate) fn write(path: &Path, url: &str, token: Option<&str>) -> Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(Error::Kubeconfig)?;
    }
    std::fs::write(path, render(url, token)).map_err(Error::Kubeconfig)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubeconfig_parses_with_kube() {
        let text = render("http://127.0.0.1:1234", Some("secret"));
        let parsed = kube::config::Kubeconfig::from_yaml(&text).expect("valid kubeconfig");
        assert_eq!(parsed.current_context.as_deref(), Some("testkit"));
        let cluster = parsed.clusters[0].cluster.as_ref().expect("cluster");
        assert_eq!(cluster.server.as_deref(), Some("http://127.0.0.1:1234"));
        assert!(parsed.auth_infos[0].auth_info.as_ref().expect("user").token.is_some());
        let anonymous =
            kube::config::Kubeconfig::from_yaml(&render("http://x", None)).expect("valid");
        assert!(anonymous.auth_infos[0].auth_info.as_ref().is_none_or(|a| a.token.is_none()));
    }

    #[test]
    fn tls_kubeconfig_has_both_users() {
        let text = render_tls("https://127.0.0.1:6443", Path::new("/tmp/ca.crt"), "a", "u");
        let parsed = kube::config::Kubeconfig::from_yaml(&text).expect("valid kubeconfig");
        assert_eq!(parsed.current_context.as_deref(), Some("admin"));
        let cluster = parsed.clusters[0].cluster.as_ref().expect("cluster");
        assert_eq!(cluster.certificate_authority.as_deref(), Some("/tmp/ca.crt"));
        let names: Vec<_> = parsed.contexts.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["admin", "unprivileged"]);
        assert_eq!(parsed.auth_infos.len(), 2);
    }
}
