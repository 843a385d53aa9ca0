//! CustomResourceDefinitions as the verbs treat them: a created CRD is established at
//! once and its resources served, an updated one is served anew.

use serde_json::{Value, json};

use crate::api::state::Shared;
use crate::object::{StoredObject, now_rfc3339};
use crate::resources::ResourceInfo;
use crate::status::ApiResult;

/// Whether `info` is the CustomResourceDefinition resource itself.
pub(crate) fn is_crd(info: &ResourceInfo) -> bool {
    info.group == "apiextensions.k8s.io" && info.plural == "customresourcedefinitions"
}

/// Sets the status conditions clients wait for (`NamesAccepted`, `Established`).
pub(crate) fn mark_established(crd: &mut Value) {
    let now = now_rfc3339();
    let names = crd.pointer("/spec/names").cloned().unwrap_or(Value::Null);
    let stored: Vec<Value> = crd
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .map(|vs| {
            vs.iter()
                .filter(|v| v.get("storage").and_then(Value::as_bool).unwrap_or(false))
                .filter_map(|v| v.get("name").cloned())
                .collect()
        })
        .unwrap_or_default();
    crd["status"] = json!({
        "acceptedNames": names,
        "storedVersions": stored,
        "conditions": [
            {"type": "NamesAccepted", "status": "True", "reason": "NoConflicts", "message": "no conflicts found", "lastTransitionTime": now},
            {"type": "Established", "status": "True", "reason": "InitialNamesAccepted", "message": "the initial names have been accepted", "lastTransitionTime": now},
        ],
    });
}

/// Serves the versions of an updated CRD as it now describes them.
pub(crate) fn reregister(shared: &Shared, crd: &StoredObject) -> ApiResult<()> {
    if let Some(infos) = crate::resources::from_crd(&crd.to_value()?) {
        for info in infos {
            shared.registry.register(info);
        }
    }
    Ok(())
}
