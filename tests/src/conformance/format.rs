//! The lines both observers write: one per handler callback, one per factory's final
//! cache, and the factories they name.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// The factories both observers run, by name: all namespaces, `WithNamespace("conf-a")`,
/// and the label selector `tier=web`.
pub const FACTORIES: [&str; 3] = ["all", "conf-a", "web"];

/// The namespace the namespace-scoped factory watches.
pub const SCOPED_NAMESPACE: &str = "conf-a";

/// The label selector of the `web` factory.
pub const WEB_SELECTOR: &str = "tier=web";

/// One handler callback.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Callback {
    /// The factory whose informer called the handler.
    pub factory: String,
    /// The handler: `h1` from the start, `h2` added late to the `all` informer.
    pub handler: String,
    /// `add`, `update` or `delete`.
    pub kind: String,
    /// `namespace/name`.
    pub key: String,
    /// The resourceVersion of the (new) object, or of the tombstone's last known state.
    pub rv: String,
    /// `is_in_initial_list`, on adds only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial: Option<bool>,
    /// The old object's resourceVersion, on updates only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_rv: Option<String>,
    /// Whether the delete was a `DeletedFinalStateUnknown`, on deletes only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tombstone: Option<bool>,
}

impl fmt::Display for Callback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} rv={}", self.kind, self.rv)?;
        if let Some(initial) = self.initial {
            write!(f, " initial={initial}")?;
        }
        if let Some(old) = &self.old_rv {
            write!(f, " old_rv={old}")?;
        }
        if let Some(tombstone) = self.tombstone {
            write!(f, " tombstone={tombstone}")?;
        }
        Ok(())
    }
}

/// One factory's cache at the end: key -> resourceVersion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheLine {
    /// The factory.
    pub factory: String,
    /// key -> resourceVersion.
    pub cache: BTreeMap<String, String>,
}
