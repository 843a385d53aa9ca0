//! Request routing and the CRUD verbs (list and watch live in their own modules).

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::response::Response;
use bytes::Bytes;
use http::{Method, StatusCode, header};
use serde_json::{Value, json};

use crate::api::Shared;
use crate::api::Target;
use crate::api::responses;
use crate::api::target::{Verb, parse_target, query_params};
use crate::faults::Injected;
use crate::object::{StoredObject, meta_str, new_uid, now_rfc3339, set_meta};
use crate::resources::{ResourceInfo, Scope};
use crate::status::{ApiError, ApiResult};
use crate::store::StoreInner;

/// Largest request body accepted.
const MAX_BODY: usize = 64 * 1024 * 1024;

/// The namespaces every cluster starts with.
const DEFAULT_NAMESPACES: &[&str] = &["default", "kube-system", "kube-public", "kube-node-lease"];

/// Creates the namespaces a fresh cluster has.
pub(crate) fn create_default_namespaces(shared: &Shared) -> ApiResult<()> {
    let info = shared
        .registry
        .get("", "v1", "namespaces")
        .ok_or_else(|| ApiError::new(500, "InternalError", "namespaces are not registered"))?;
    for name in DEFAULT_NAMESPACES {
        let target = Target { info: info.clone(), namespace: None, name: None, subresource: None };
        create(
            shared,
            &target,
            json!({"metadata": {"name": name}, "spec": {"finalizers": ["kubernetes"]},
            "status": {"phase": "Active"}}),
        )?;
    }
    Ok(())
}

/// The single entry point of the HTTP server.
pub(crate) async fn handle(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    if let Some(token) = &shared.token {
        let expected = format!("Bearer {token}");
        let given = request.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok());
        if given != Some(expected.as_str()) {
            return responses::error(ApiError::unauthorized());
        }
    }
    if let Some(latency) = shared.faults.latency() {
        tokio::time::sleep(latency).await;
    }
    match route(&shared, request).await {
        Ok(response) => response,
        Err(err) => responses::error(err),
    }
}

async fn route(shared: &Arc<Shared>, request: Request) -> ApiResult<Response> {
    let path = request.uri().path().to_string();
    let query = query_params(request.uri().query());
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    match segments.as_slice() {
        ["version"] => Ok(responses::json(StatusCode::OK, &crate::discovery::version())),
        ["healthz" | "livez" | "readyz", ..] => Ok(responses::text("ok")),
        ["testkit", "bulk-update"] => {
            if request.method() != Method::POST {
                return Err(ApiError::method_not_allowed("use POST /testkit/bulk-update"));
            }
            Ok(responses::json(StatusCode::OK, &crate::bulk::admin_update(shared, &query)?))
        }
        ["api"] => Ok(responses::json(
            StatusCode::OK,
            &crate::discovery::core_versions(&shared.addr.lock().to_string()),
        )),
        ["apis"] => {
            Ok(responses::json(StatusCode::OK, &crate::discovery::group_list(&shared.registry)))
        }
        ["api", "v1"] => Ok(responses::json(
            StatusCode::OK,
            &crate::discovery::resource_list(&shared.registry, "", "v1"),
        )),
        ["apis", group, version] if shared.registry.has_group_version(group, version) => {
            Ok(responses::json(
                StatusCode::OK,
                &crate::discovery::resource_list(&shared.registry, group, version),
            ))
        }
        ["apis", group] => crate::discovery::group(&shared.registry, group)
            .map(|doc| responses::json(StatusCode::OK, &doc))
            .ok_or_else(ApiError::not_served),
        ["api", "v1", rest @ ..] => {
            let target = parse_target(&shared.registry, "", "v1", rest)?;
            serve_resource(shared, target, request, query).await
        }
        ["apis", group, version, rest @ ..] if !rest.is_empty() => {
            let target = parse_target(&shared.registry, group, version, rest)?;
            serve_resource(shared, target, request, query).await
        }
        _ => Err(ApiError::not_served()),
    }
}

async fn serve_resource(
    shared: &Arc<Shared>,
    target: Target,
    request: Request,
    query: HashMap<String, String>,
) -> ApiResult<Response> {
    let verb = Verb::of(request.method(), &target, &query)?;
    let verb_name = verb.as_str();
    let info = target.info.clone();
    // Taken before the fault rules are read: a watch that gets past rules set just after
    // this point still holds the token the drop_watches that follows them cancels.
    let watch_token = shared.faults.watch_token();
    shared.faults.count(verb_name, &info);
    if shared.faults.is_denied(&info) {
        return Err(ApiError::forbidden(verb_name, &info.group, &info.plural));
    }
    match shared.faults.take_failure(verb_name, &info) {
        Some(Injected::Status(failure)) => return Err(failure.to_api_error(verb_name, &info)),
        Some(Injected::Raw(raw)) => return Ok(responses::raw_failure(&raw)),
        Some(Injected::NoAnswer) => {
            tracing::debug!(verb = verb_name, resource = %info.plural, "leaving a request unanswered");
            return std::future::pending().await;
        }
        None => {}
    }
    if !info.supports(verb_name) {
        return Err(ApiError::method_not_allowed(format!(
            "the server does not allow this method on the requested resource ({verb_name} {})",
            info.plural
        )));
    }
    match target.subresource.as_deref() {
        None => {}
        Some("status")
            if info.has_status && matches!(verb, Verb::Get | Verb::Update | Verb::Patch) => {}
        Some(_) => return Err(ApiError::not_served()),
    }
    let (representation, dry_run) = if verb.reads() {
        (crate::media::Representation::from_headers(request.headers())?, false)
    } else {
        (crate::media::Representation::Full, crate::dry_run::from_query(&query, verb_name)?)
    };
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/json")
        .to_string();
    let body = axum::body::to_bytes(request.into_body(), MAX_BODY)
        .await
        .map_err(|e| ApiError::bad_request(format!("cannot read the request body: {e}")))?;
    let name = target.name.clone().unwrap_or_default();
    match verb {
        Verb::Get => {
            representation.for_object(&info)?;
            let include = crate::table::IncludeObject::from_query(&query)?;
            let object = shared
                .store
                .lock()
                .get(&info.group_resource(), &target.key(&name))
                .ok_or_else(|| ApiError::not_found(&info.group, &info.plural, &name))?;
            let body = crate::media::render_object(&representation, &object, include)?;
            Ok(responses::object(StatusCode::OK, body))
        }
        Verb::List => crate::list::list(shared, &target, &query, &representation),
        Verb::Watch => crate::watch::watch(shared, &target, &query, &representation, watch_token),
        Verb::Create => {
            let object = parse_body(&body)?;
            if meta_str(&object, "resourceVersion").is_some_and(|rv| !rv.is_empty() && rv != "0") {
                // kube-apiserver's create strategy refuses it with a reasonless 500.
                return Err(ApiError::new(
                    500,
                    "",
                    "resourceVersion should not be set on objects to be created",
                ));
            }
            let stored = create_object(shared, &target, object, dry_run)?;
            Ok(responses::object(StatusCode::CREATED, stored.json()))
        }
        Verb::Update => {
            let object = parse_body(&body)?;
            let stored = update(shared, &target, &name, object, dry_run)?;
            Ok(responses::object(StatusCode::OK, stored.json()))
        }
        Verb::Patch => {
            let (code, stored) = patch(shared, &target, &name, &content_type, &body, dry_run)?;
            Ok(responses::object(code, stored.json()))
        }
        Verb::Delete => {
            let options = if body.is_empty() { Value::Null } else { parse_body(&body)? };
            match delete(shared, &target, &name, &options, dry_run)? {
                Deleted::Removed(gone) => Ok(responses::json(
                    StatusCode::OK,
                    &crate::status::delete_success(
                        &info.group,
                        &info.plural,
                        &name,
                        &gone.meta.uid,
                    ),
                )),
                Deleted::Terminating(object) => {
                    Ok(responses::object(StatusCode::OK, object.json()))
                }
            }
        }
        Verb::DeleteCollection => crate::list::delete_collection(shared, &target, &query, dry_run),
    }
}

fn parse_body(body: &Bytes) -> ApiResult<Value> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        ApiError::bad_request(format!("the body of the request was in an unknown format: {e}"))
    })?;
    if !value.is_object() {
        return Err(ApiError::bad_request("the body of the request must be a JSON object"));
    }
    Ok(value)
}

/// Whether `name` is a valid DNS-1123 subdomain (what most resources require).
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name.chars().all(|c| {
            c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.' || c == ':'
        })
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.ends_with(|c: char| c.is_ascii_alphanumeric())
}

fn generate_suffix() -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    (0..5).map(|_| ALPHABET[rand::random_range(0..ALPHABET.len())] as char).collect()
}

/// Fills and checks `apiVersion`, `kind` and the namespace of a body.
fn normalize_type_and_namespace(
    info: &ResourceInfo,
    target: &Target,
    object: &mut Value,
) -> ApiResult<()> {
    let api_version = info.api_version();
    match object.get("kind").and_then(Value::as_str) {
        None | Some("") => object["kind"] = json!(info.kind),
        Some(kind) if kind == info.kind => {}
        Some(kind) => {
            return Err(ApiError::bad_request(format!(
                "the kind of the object ({kind}) does not match the resource ({})",
                info.kind
            )));
        }
    }
    if object.get("apiVersion").and_then(Value::as_str).is_none_or(str::is_empty) {
        object["apiVersion"] = json!(api_version);
    }
    if !object.get("metadata").is_some_and(Value::is_object) {
        object["metadata"] = json!({});
    }
    match info.scope {
        Scope::Namespaced => {
            let namespace = target
                .namespace
                .clone()
                .or_else(|| meta_str(object, "namespace").map(str::to_string))
                .filter(|ns| !ns.is_empty())
                .ok_or_else(|| ApiError::bad_request("the namespace of the object is required"))?;
            if let Some(given) = meta_str(object, "namespace")
                && !given.is_empty()
                && given != namespace
            {
                return Err(ApiError::bad_request(
                    "the namespace of the provided object does not match the namespace sent on the request",
                ));
            }
            set_meta(object, "namespace", json!(namespace));
        }
        Scope::Cluster => {
            if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
                metadata.remove("namespace");
            }
        }
    }
    Ok(())
}

/// Creates an object (also used by seeding helpers and default namespaces).
pub(crate) fn create(
    shared: &Shared,
    target: &Target,
    object: Value,
) -> ApiResult<Arc<StoredObject>> {
    create_object(shared, target, object, false)
}

/// Creates an object, or with `dry_run` checks and fills it as a create would (name, uid,
/// creationTimestamp; no resourceVersion) without storing it.
fn create_object(
    shared: &Shared,
    target: &Target,
    mut object: Value,
    dry_run: bool,
) -> ApiResult<Arc<StoredObject>> {
    let info = &target.info;
    normalize_type_and_namespace(info, target, &mut object)?;
    let mut name = meta_str(&object, "name").unwrap_or_default().to_string();
    if name.is_empty()
        && let Some(prefix) = meta_str(&object, "generateName").filter(|p| !p.is_empty())
    {
        name = format!("{prefix}{}", generate_suffix());
        set_meta(&mut object, "name", json!(name));
    }
    if name.is_empty() {
        return Err(ApiError::invalid(
            &info.group,
            &info.plural,
            "",
            "metadata.name: Required value: name or generateName is required",
        ));
    }
    if !valid_name(&name) {
        return Err(ApiError::invalid(
            &info.group,
            &info.plural,
            &name,
            format!(
                "metadata.name: Invalid value: {name:?}: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'"
            ),
        ));
    }
    set_meta(&mut object, "uid", json!(new_uid()));
    set_meta(&mut object, "creationTimestamp", json!(now_rfc3339()));
    set_meta(&mut object, "generation", json!(1));
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("deletionTimestamp");
        metadata.remove("deletionGracePeriodSeconds");
    }
    let is_crd = is_crd(info);
    if is_crd {
        mark_crd_established(&mut object);
    }
    let key = target.key(&name);
    let gr = info.group_resource();
    let mut store = shared.store.lock();
    if store.get(&gr, &key).is_some() {
        return Err(ApiError::already_exists(&info.group, &info.plural, &name));
    }
    if is_crd && crate::resources::from_crd(&object).is_none() {
        return Err(ApiError::invalid(
            &info.group,
            &info.plural,
            &name,
            "spec: the CRD needs spec.group, spec.names and spec.versions",
        ));
    }
    if dry_run {
        if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
            metadata.remove("resourceVersion");
        }
        return StoredObject::from_value(&object).map(Arc::new);
    }
    if is_crd {
        let infos = crate::resources::from_crd(&object).ok_or_else(|| {
            ApiError::invalid(
                &info.group,
                &info.plural,
                &name,
                "spec: the CRD needs spec.group, spec.names and spec.versions",
            )
        })?;
        for resource in infos {
            shared.registry.register(resource);
        }
    }
    let rv = store.next_rv();
    set_meta(&mut object, "resourceVersion", json!(rv.to_string()));
    let stored = Arc::new(StoredObject::from_value(&object)?);
    store.put(&gr, stored.clone());
    tracing::debug!(resource = %info.plural, namespace = %key.0, name = %key.1, rv, "created");
    Ok(stored)
}

fn is_crd(info: &ResourceInfo) -> bool {
    info.group == "apiextensions.k8s.io" && info.plural == "customresourcedefinitions"
}

/// Sets the status conditions clients wait for (`NamesAccepted`, `Established`).
fn mark_crd_established(crd: &mut Value) {
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

/// Commits a new version of an existing object: keeps server-owned metadata, bumps
/// generation on spec changes, and removes a terminating object whose finalizers are gone.
pub(crate) fn commit_update(
    store: &mut StoreInner,
    info: &ResourceInfo,
    old: &StoredObject,
    mut new: Value,
    subresource: Option<&str>,
    dry_run: bool,
) -> ApiResult<Arc<StoredObject>> {
    let old_value = old.to_value()?;
    if subresource == Some("status") {
        let status = new.get("status").cloned();
        new = old_value.clone();
        match status {
            Some(status) => new["status"] = status,
            None => {
                if let Some(map) = new.as_object_mut() {
                    map.remove("status");
                }
            }
        }
    } else if info.has_status
        && let Some(map) = new.as_object_mut()
    {
        match old_value.get("status") {
            Some(status) => {
                map.insert("status".into(), status.clone());
            }
            None => {
                map.remove("status");
            }
        }
    }
    for key in [
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "namespace",
        "name",
    ] {
        match old_value.get("metadata").and_then(|m| m.get(key)) {
            Some(value) => set_meta(&mut new, key, value.clone()),
            None => {
                if let Some(metadata) = new.get_mut("metadata").and_then(Value::as_object_mut) {
                    metadata.remove(key);
                }
            }
        }
    }
    let old_generation =
        old_value.pointer("/metadata/generation").and_then(Value::as_i64).unwrap_or(1);
    let spec_changed = without_meta_and_status(&old_value) != without_meta_and_status(&new);
    set_meta(&mut new, "generation", json!(old_generation + i64::from(spec_changed)));
    set_meta(&mut new, "resourceVersion", json!(old.meta.resource_version.to_string()));
    if new == old_value {
        // A no-op update does not produce a new resourceVersion (like etcd3's guaranteed update).
        return Ok(Arc::new(old.clone()));
    }
    if dry_run {
        // Answered as the update would be stored, with the old resourceVersion.
        return StoredObject::from_value(&new).map(Arc::new);
    }
    let rv = store.next_rv();
    set_meta(&mut new, "resourceVersion", json!(rv.to_string()));
    let stored = Arc::new(StoredObject::from_value(&new)?);
    let gr = info.group_resource();
    if stored.meta.deleting && !stored.meta.has_finalizers {
        store.remove(&gr, stored.clone());
    } else {
        store.put(&gr, stored.clone());
    }
    Ok(stored)
}

fn without_meta_and_status(value: &Value) -> Value {
    let mut value = value.clone();
    if let Some(map) = value.as_object_mut() {
        map.remove("metadata");
        map.remove("status");
    }
    value
}

fn check_name_matches(object: &Value, name: &str) -> ApiResult<()> {
    match meta_str(object, "name") {
        Some(given) if !given.is_empty() && given != name => Err(ApiError::bad_request(format!(
            "the name of the object ({given}) does not match the name on the URL ({name})"
        ))),
        _ => Ok(()),
    }
}

fn update(
    shared: &Shared,
    target: &Target,
    name: &str,
    mut object: Value,
    dry_run: bool,
) -> ApiResult<Arc<StoredObject>> {
    let info = &target.info;
    normalize_type_and_namespace(info, target, &mut object)?;
    check_name_matches(&object, name)?;
    let gr = info.group_resource();
    let mut store = shared.store.lock();
    let old = store
        .get(&gr, &target.key(name))
        .ok_or_else(|| ApiError::not_found(&info.group, &info.plural, name))?;
    if let Some(rv) = meta_str(&object, "resourceVersion").filter(|rv| !rv.is_empty())
        && rv != old.meta.resource_version.to_string()
    {
        return Err(ApiError::conflict(&info.group, &info.plural, name));
    }
    let stored =
        commit_update(&mut store, info, &old, object, target.subresource.as_deref(), dry_run)?;
    if is_crd(info) && !dry_run {
        reregister_crd(shared, &stored)?;
    }
    Ok(stored)
}

fn reregister_crd(shared: &Shared, crd: &StoredObject) -> ApiResult<()> {
    if let Some(infos) = crate::resources::from_crd(&crd.to_value()?) {
        for info in infos {
            shared.registry.register(info);
        }
    }
    Ok(())
}

fn patch(
    shared: &Shared,
    target: &Target,
    name: &str,
    content_type: &str,
    body: &Bytes,
    dry_run: bool,
) -> ApiResult<(StatusCode, Arc<StoredObject>)> {
    let info = &target.info;
    let media = content_type.split(';').next().unwrap_or_default().trim();
    let built_in = crate::resources::is_built_in(&info.group, &info.plural);
    if !built_in && media == "application/strategic-merge-patch+json" {
        // Custom resources have no Go struct tags to merge lists by: kube-apiserver refuses.
        return Err(unsupported_patch_type(false));
    }
    let is_apply = media == "application/apply-patch+yaml";
    let patch = parse_body_any(body)?;
    let gr = info.group_resource();
    let mut store = shared.store.lock();
    let Some(old) = store.get(&gr, &target.key(name)) else {
        if is_apply {
            drop(store);
            let mut object = patch;
            set_meta_if_missing(&mut object, name);
            return Ok((StatusCode::CREATED, create_object(shared, target, object, dry_run)?));
        }
        return Err(ApiError::not_found(&info.group, &info.plural, name));
    };
    let mut value = old.to_value()?;
    match media {
        "application/json-patch+json" => {
            let ops: json_patch::Patch = serde_json::from_value(patch)
                .map_err(|e| ApiError::bad_request(format!("invalid JSON patch: {e}")))?;
            json_patch::patch(&mut value, &ops).map_err(|e| {
                ApiError::invalid(
                    &info.group,
                    &info.plural,
                    name,
                    format!("the JSON patch could not be applied: {e}"),
                )
            })?;
        }
        "application/merge-patch+json"
        | "application/strategic-merge-patch+json"
        | "application/apply-patch+yaml" => {
            if !patch.is_object() {
                return Err(ApiError::bad_request("a merge patch must be a JSON object"));
            }
            json_patch::merge(&mut value, &patch);
        }
        _ => return Err(unsupported_patch_type(built_in)),
    }
    check_name_matches(&value, name)?;
    if meta_str(&value, "resourceVersion")
        .is_some_and(|rv| rv != old.meta.resource_version.to_string())
    {
        return Err(ApiError::conflict(&info.group, &info.plural, name));
    }
    let stored =
        commit_update(&mut store, info, &old, value, target.subresource.as_deref(), dry_run)?;
    drop(store);
    if is_crd(info) && !dry_run {
        reregister_crd(shared, &stored)?;
    }
    Ok((StatusCode::OK, stored))
}

/// kube-apiserver's 415 for a patch type it does not take: built-ins answer the generic
/// handler's text, custom resources list the types they accept.
fn unsupported_patch_type(built_in: bool) -> ApiError {
    let message = if built_in {
        "415: Unsupported Media Type"
    } else {
        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
    };
    ApiError::new(415, "UnsupportedMediaType", message)
}

/// Server-side apply bodies are YAML; clients such as kube send JSON, which is all we read.
fn parse_body_any(body: &Bytes) -> ApiResult<Value> {
    serde_json::from_slice(body).map_err(|e| {
        ApiError::bad_request(format!("the patch body is not JSON (YAML is not supported): {e}"))
    })
}

fn set_meta_if_missing(object: &mut Value, name: &str) {
    if !object.get("metadata").is_some_and(Value::is_object) {
        object["metadata"] = json!({});
    }
    if meta_str(object, "name").is_none_or(str::is_empty) {
        set_meta(object, "name", json!(name));
    }
}

/// What a DELETE did.
#[derive(Debug)]
pub(crate) enum Deleted {
    /// The object is gone (this is its final state, as the DELETED event carries it).
    Removed(Arc<StoredObject>),
    /// The object has finalizers: it only got a deletionTimestamp.
    Terminating(Arc<StoredObject>),
}

/// Deletes one object honouring finalizers and `DeleteOptions.preconditions`; with
/// `dry_run` answers the same without changing anything.
pub(crate) fn delete(
    shared: &Shared,
    target: &Target,
    name: &str,
    options: &Value,
    dry_run: bool,
) -> ApiResult<Deleted> {
    let info = &target.info;
    let gr = info.group_resource();
    let mut store = shared.store.lock();
    let old = store
        .get(&gr, &target.key(name))
        .ok_or_else(|| ApiError::not_found(&info.group, &info.plural, name))?;
    if let Some(uid) = options.pointer("/preconditions/uid").and_then(Value::as_str)
        && uid != old.meta.uid
    {
        return Err(ApiError::conflict(&info.group, &info.plural, name));
    }
    if let Some(rv) = options.pointer("/preconditions/resourceVersion").and_then(Value::as_str)
        && rv != old.meta.resource_version.to_string()
    {
        return Err(ApiError::conflict(&info.group, &info.plural, name));
    }
    let mut value = old.to_value()?;
    if old.meta.has_finalizers {
        if old.meta.deleting {
            return Ok(Deleted::Terminating(old));
        }
        set_meta(&mut value, "deletionTimestamp", json!(now_rfc3339()));
        set_meta(&mut value, "deletionGracePeriodSeconds", json!(0));
        if dry_run {
            return Ok(Deleted::Terminating(Arc::new(StoredObject::from_value(&value)?)));
        }
        let rv = store.next_rv();
        set_meta(&mut value, "resourceVersion", json!(rv.to_string()));
        let stored = Arc::new(StoredObject::from_value(&value)?);
        store.put(&gr, stored.clone());
        return Ok(Deleted::Terminating(stored));
    }
    if dry_run {
        return Ok(Deleted::Removed(old));
    }
    let rv = store.next_rv();
    set_meta(&mut value, "resourceVersion", json!(rv.to_string()));
    let stored = Arc::new(StoredObject::from_value(&value)?);
    store.remove(&gr, stored.clone());
    if is_crd(info)
        && let Some(infos) = crate::resources::from_crd(&value)
        && let Some(first) = infos.first()
    {
        store.drop_resource(&first.group_resource())?;
        shared.registry.unregister(&first.group, &first.plural);
    }
    tracing::debug!(resource = %info.plural, name, rv, "deleted");
    Ok(Deleted::Removed(stored))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_dns_subdomain_rules() {
        assert!(valid_name("web-1.example"));
        assert!(!valid_name("Web"));
        assert!(!valid_name("-a"));
        assert!(!valid_name(""));
        assert_eq!(generate_suffix().len(), 5);
    }
}
