//! `metav1.Status` error bodies, shaped like kube-apiserver's so `kube::Error::Api` parses them.

use std::time::Duration;

use serde_json::{Value, json};

/// An API error answered as a `Status` object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ApiError {
    pub(crate) code: u16,
    pub(crate) reason: &'static str,
    pub(crate) message: String,
    /// `(name, group, kind)` for `details`.
    pub(crate) details: Option<Box<(String, String, String)>>,
    pub(crate) retry_after: Option<Duration>,
}

/// Result of an API operation.
pub(crate) type ApiResult<T> = std::result::Result<T, ApiError>;

impl ApiError {
    pub(crate) fn new(code: u16, reason: &'static str, message: impl Into<String>) -> Self {
        ApiError { code, reason, message: message.into(), details: None, retry_after: None }
    }

    fn with_details(mut self, name: &str, group: &str, kind: &str) -> Self {
        self.details = Some(Box::new((name.into(), group.into(), kind.into())));
        self
    }

    pub(crate) fn not_found(group: &str, plural: &str, name: &str) -> Self {
        Self::new(404, "NotFound", format!("{} \"{name}\" not found", qualified(group, plural)))
            .with_details(name, group, plural)
    }

    pub(crate) fn already_exists(group: &str, plural: &str, name: &str) -> Self {
        Self::new(
            409,
            "AlreadyExists",
            format!("{} \"{name}\" already exists", qualified(group, plural)),
        )
        .with_details(name, group, plural)
    }

    pub(crate) fn conflict(group: &str, plural: &str, name: &str) -> Self {
        Self::new(
            409,
            "Conflict",
            format!(
                "Operation cannot be fulfilled on {} \"{name}\": the object has been modified; \
                 please apply your changes to the latest version and try again",
                qualified(group, plural)
            ),
        )
        .with_details(name, group, plural)
    }

    pub(crate) fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, "BadRequest", message)
    }

    pub(crate) fn invalid(
        group: &str,
        plural: &str,
        name: &str,
        message: impl Into<String>,
    ) -> Self {
        Self::new(422, "Invalid", message).with_details(name, group, plural)
    }

    /// kube-apiserver's 404 for a path it serves nothing at.
    pub(crate) fn not_served() -> Self {
        Self::new(404, "NotFound", "the server could not find the requested resource")
    }

    pub(crate) fn method_not_allowed(message: impl Into<String>) -> Self {
        Self::new(405, "MethodNotAllowed", message)
    }

    pub(crate) fn expired(message: impl Into<String>) -> Self {
        Self::new(410, "Expired", message)
    }

    pub(crate) fn too_large_rv() -> Self {
        Self::new(504, "Timeout", "Too large resource version")
    }

    pub(crate) fn unauthorized() -> Self {
        Self::new(401, "Unauthorized", "Unauthorized")
    }

    pub(crate) fn forbidden(verb: &str, group: &str, plural: &str) -> Self {
        Self::new(
            403,
            "Forbidden",
            format!(
                "{} is forbidden: User \"system:anonymous\" cannot {verb} resource \"{plural}\" in API group \"{group}\"",
                qualified(group, plural)
            ),
        )
        .with_details("", group, plural)
    }

    /// The `Status` object as JSON.
    pub(crate) fn to_status(&self) -> Value {
        let mut status = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        });
        if self.reason.is_empty() {
            // Some apiserver errors (e.g. a create carrying a resourceVersion) have none.
            if let Some(map) = status.as_object_mut() {
                map.remove("reason");
            }
        }
        let mut details = serde_json::Map::new();
        if let Some(details_box) = &self.details {
            let (name, group, kind) = details_box.as_ref();
            if !name.is_empty() {
                details.insert("name".into(), json!(name));
            }
            if !group.is_empty() {
                details.insert("group".into(), json!(group));
            }
            details.insert("kind".into(), json!(kind));
        }
        if let Some(after) = self.retry_after {
            details.insert("retryAfterSeconds".into(), json!(after.as_secs().max(1)));
        }
        if !details.is_empty() {
            status["details"] = Value::Object(details);
        }
        status
    }
}

/// The `Status` kube-apiserver answers a DELETE that removed the object at once.
pub(crate) fn delete_success(group: &str, plural: &str, name: &str, uid: &str) -> Value {
    let mut details = json!({"name": name, "kind": plural, "uid": uid});
    if !group.is_empty() {
        details["group"] = json!(group);
    }
    json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": details,
    })
}

/// `pods` or `deployments.apps`, as apiserver messages name resources.
fn qualified(group: &str, plural: &str) -> String {
    if group.is_empty() { plural.to_string() } else { format!("{plural}.{group}") }
}
