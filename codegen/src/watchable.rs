//! Listable resources that cannot be watched, so get no informer.
//!
//! k8s-openapi 0.29 no longer ships the per-operation functions that told which verbs a
//! resource supports, so this list is kept by hand from the API servers' discovery documents
//! (`kubectl api-resources -o wide`). `informers/tests/watchable_discovery.rs` cross-checks
//! the generated informers against the verbs testkit's discovery documents serve.

/// A listable resource without the `watch` verb.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotWatchable {
    /// The API group, `""` for core.
    pub group: &'static str,
    /// The kind.
    pub kind: &'static str,
    /// Why it cannot be watched.
    pub reason: &'static str,
}

/// Listable kinds the API server does not serve `watch` for.
pub const NOT_WATCHABLE: &[NotWatchable] = &[NotWatchable {
    group: "",
    kind: "ComponentStatus",
    reason: "componentstatuses (deprecated since 1.19) are computed on request: verbs get, list",
}];

/// Whether the resource `group`/`kind` serves `watch`, that is, can back an informer.
pub fn is_watchable(group: &str, kind: &str) -> bool {
    !NOT_WATCHABLE.iter().any(|n| n.group == group && n.kind == kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn component_status_is_listable_only() {
        assert!(!is_watchable("", "ComponentStatus"));
        assert!(is_watchable("", "Pod"));
        // The same kind in another group is a different resource.
        assert!(is_watchable("example.com", "ComponentStatus"));
    }
}
