//! What a request names: the resource, namespace, name and subresource its path points
//! at ([`Target`]), and the verb its method and query make of them ([`Verb`]).

use std::collections::HashMap;
use std::sync::Arc;

use http::Method;

use crate::object::ObjKey;
use crate::resources::{Registry, ResourceInfo, Scope};
use crate::status::{ApiError, ApiResult};

/// Which object(s) a request addresses.
#[derive(Debug)]
pub(crate) struct Target {
    pub(crate) info: Arc<ResourceInfo>,
    pub(crate) namespace: Option<String>,
    pub(crate) name: Option<String>,
    pub(crate) subresource: Option<String>,
}

impl Target {
    /// The store key of the object `name` in the target's namespace.
    pub(crate) fn key(&self, name: &str) -> ObjKey {
        (self.namespace.clone().unwrap_or_default(), name.to_string())
    }
}

/// What a request does to its target, as kube-apiserver's authorizer names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verb {
    Get,
    List,
    Watch,
    Create,
    Update,
    Patch,
    Delete,
    DeleteCollection,
}

impl Verb {
    /// The verb of a request: its method, whether its path names one object, and for a
    /// GET of a collection its `watch` query parameter. Any other method is a 405.
    pub(crate) fn of(
        method: &Method,
        target: &Target,
        query: &HashMap<String, String>,
    ) -> ApiResult<Verb> {
        Ok(match (method, target.name.is_some()) {
            (&Method::GET, true) => Verb::Get,
            (&Method::GET, false) if is_true(query, "watch") => Verb::Watch,
            (&Method::GET, false) => Verb::List,
            (&Method::POST, false) => Verb::Create,
            (&Method::PUT, true) => Verb::Update,
            (&Method::PATCH, true) => Verb::Patch,
            (&Method::DELETE, true) => Verb::Delete,
            (&Method::DELETE, false) => Verb::DeleteCollection,
            _ => {
                return Err(ApiError::method_not_allowed(format!(
                    "the server does not allow this method on the requested resource: {method}"
                )));
            }
        })
    }

    /// The verb's name in RBAC rules, discovery and the fault rules (`get`, `list`, ...).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Verb::Get => "get",
            Verb::List => "list",
            Verb::Watch => "watch",
            Verb::Create => "create",
            Verb::Update => "update",
            Verb::Patch => "patch",
            Verb::Delete => "delete",
            Verb::DeleteCollection => "deletecollection",
        }
    }

    /// Whether the verb reads: its answer follows the `Accept` header.
    pub(crate) fn reads(self) -> bool {
        matches!(self, Verb::Get | Verb::List | Verb::Watch)
    }
}

fn is_true(query: &HashMap<String, String>, key: &str) -> bool {
    query.get(key).is_some_and(|v| v == "true" || v == "1")
}

/// The decoded parameters of a query string (a repeated key keeps its last value).
pub(crate) fn query_params(query: Option<&str>) -> HashMap<String, String> {
    let Some(query) = query else { return HashMap::new() };
    axum::extract::Query::<Vec<(String, String)>>::try_from_uri(
        &format!("/?{query}").parse().unwrap_or_else(|_| http::Uri::from_static("/")),
    )
    .map(|q| q.0)
    .unwrap_or_default()
    .into_iter()
    .collect()
}

/// The target of a resource path: `rest` is what follows `/api/v1` or
/// `/apis/{group}/{version}`. A path the resource table does not serve is a 404.
pub(crate) fn parse_target(
    registry: &Registry,
    group: &str,
    version: &str,
    rest: &[&str],
) -> ApiResult<Target> {
    if let ["namespaces", namespace, resource, tail @ ..] = rest
        && let Some(info) =
            registry.get(group, version, resource).filter(|i| i.scope == Scope::Namespaced)
    {
        let namespace = Some(namespace.to_string());
        return match tail {
            [] => Ok(Target { info, namespace, name: None, subresource: None }),
            [name] => {
                Ok(Target { info, namespace, name: Some(name.to_string()), subresource: None })
            }
            [name, sub] => Ok(Target {
                info,
                namespace,
                name: Some(name.to_string()),
                subresource: Some(sub.to_string()),
            }),
            _ => Err(ApiError::not_served()),
        };
    }
    let (resource, name, sub) = match rest {
        [resource] => (*resource, None, None),
        [resource, name] => (*resource, Some(*name), None),
        [resource, name, sub] => (*resource, Some(*name), Some(*sub)),
        _ => return Err(ApiError::not_served()),
    };
    let info = registry.get(group, version, resource).ok_or_else(ApiError::not_served)?;
    if info.scope == Scope::Namespaced && name.is_some() {
        return Err(ApiError::not_served());
    }
    Ok(Target {
        info,
        namespace: None,
        name: name.map(str::to_string),
        subresource: sub.map(str::to_string),
    })
}
