//! Discovery documents: `/version`, `/api`, `/apis`, `/apis/{g}`, `/api/v1`, `/apis/{g}/{v}`.

use serde_json::{Value, json};

use crate::resources::Registry;

/// The Kubernetes version the server claims to be.
pub(crate) fn version() -> Value {
    json!({
        "major": "1",
        "minor": "33",
        "gitVersion": "v1.33.0-testkit",
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2025-01-01T00:00:00Z",
        "goVersion": "go1.24.0",
        "compiler": "gc",
        "platform": "linux/amd64",
    })
}

/// `/api`.
pub(crate) fn core_versions(addr: &str) -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": addr}],
    })
}

fn group_entry(name: &str, versions: &[String]) -> Value {
    let entries: Vec<Value> = versions
        .iter()
        .map(|v| json!({"groupVersion": format!("{name}/{v}"), "version": v}))
        .collect();
    // Prefer the highest stable-looking version: the last registered v1/v2 wins over betas.
    let preferred = versions
        .iter()
        .rev()
        .find(|v| !v.contains("alpha") && !v.contains("beta"))
        .or(versions.last())
        .cloned()
        .unwrap_or_default();
    json!({
        "name": name,
        "versions": entries,
        "preferredVersion": {"groupVersion": format!("{name}/{preferred}"), "version": preferred},
    })
}

/// `/apis`.
pub(crate) fn group_list(registry: &Registry) -> Value {
    let groups: Vec<Value> = registry.groups().iter().map(|(g, vs)| group_entry(g, vs)).collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `/apis/{group}`, if the group is served.
pub(crate) fn group(registry: &Registry, name: &str) -> Option<Value> {
    let groups = registry.groups();
    let (_, versions) = groups.iter().find(|(g, _)| g == name)?;
    let mut doc = group_entry(name, versions);
    doc["kind"] = json!("APIGroup");
    doc["apiVersion"] = json!("v1");
    Some(doc)
}

/// `/api/v1` or `/apis/{group}/{version}`.
pub(crate) fn resource_list(registry: &Registry, group: &str, version: &str) -> Value {
    let group_version =
        if group.is_empty() { version.to_string() } else { format!("{group}/{version}") };
    let resources: Vec<Value> =
        registry.resources(group, version).iter().flat_map(|r| r.discovery_entries()).collect();
    json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": resources})
}
