//! The router on top of the API: a request's path to discovery, the admin route or a
//! resource; for a resource, its [`Verb`], the fault rules, the checks every verb shares,
//! then the verb and the answer for its result.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::response::Response;
use bytes::Bytes;
use http::{Method, StatusCode, header};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::api::responses;
use crate::api::state::Shared;
use crate::api::target::{Target, Verb, parse_target, query_params};
use crate::api::verbs::{create, delete, get, list, patch, update, watch};
use crate::faults::injected::Injected;
use crate::status::{ApiError, ApiResult};
use crate::table::IncludeObject;

/// Largest request body accepted.
const MAX_BODY: usize = 64 * 1024 * 1024;

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

/// Serves a request for a resource: counts it and applies the fault rules, then serves
/// its verb.
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
    let silent_mid_body = match shared.faults.take_failure(verb_name, &info) {
        Some(Injected::Status(failure)) => return Err(failure.to_api_error(verb_name, &info)),
        Some(Injected::Raw(raw)) => return Ok(responses::raw_failure(&raw)),
        Some(Injected::NoAnswer) => {
            tracing::debug!(
                verb = verb_name,
                resource = %info.plural,
                "leaving a request unanswered"
            );
            return std::future::pending().await;
        }
        Some(Injected::SilentMidBody) => true,
        None => false,
    };
    let response = serve_verb(shared, target, verb, request, query, watch_token).await?;
    if silent_mid_body {
        tracing::debug!(verb = verb_name, resource = %info.plural, "going silent mid-body");
        return Ok(responses::silent_mid_body(response));
    }
    Ok(response)
}

/// Serves a request once past the fault rules: the checks every verb shares, then the verb
/// and the answer for its result.
async fn serve_verb(
    shared: &Arc<Shared>,
    target: Target,
    verb: Verb,
    request: Request,
    query: HashMap<String, String>,
    watch_token: CancellationToken,
) -> ApiResult<Response> {
    let verb_name = verb.as_str();
    let info = target.info.clone();
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
    let gzip = responses::accepts_gzip(request.headers());
    let body = axum::body::to_bytes(request.into_body(), MAX_BODY)
        .await
        .map_err(|e| ApiError::bad_request(format!("cannot read the request body: {e}")))?;
    let name = target.name.clone().unwrap_or_default();
    match verb {
        Verb::Get => {
            representation.for_object(&info)?;
            let include = IncludeObject::from_query(&query)?;
            let object = get::get(shared, &target, &name)?;
            responses::get(&object, &representation, include)
        }
        Verb::List => {
            representation.for_list(&info)?;
            let include = IncludeObject::from_query(&query)?;
            let page = list::list(shared, &target, &query)?;
            let (response, compressed) =
                responses::list(&info, &page, &representation, include, gzip)?;
            if compressed {
                shared.faults.count_compressed(verb_name, &info);
            }
            Ok(response)
        }
        Verb::Watch => {
            let watched = watch::watch(shared, &target, &query, &representation, watch_token)?;
            Ok(responses::watch(watched))
        }
        Verb::Create => {
            let stored = create::create(shared, &target, parse_body(&body)?, dry_run)?;
            Ok(responses::object(StatusCode::CREATED, stored.json()))
        }
        Verb::Update => {
            let stored = update::update(shared, &target, &name, parse_body(&body)?, dry_run)?;
            Ok(responses::object(StatusCode::OK, stored.json()))
        }
        Verb::Patch => {
            let patched = patch::patch(shared, &target, &name, &content_type, &body, dry_run)?;
            Ok(responses::patched(patched))
        }
        Verb::Delete => {
            let options = if body.is_empty() { Value::Null } else { parse_body(&body)? };
            let deleted = delete::delete(shared, &target, &name, &options, dry_run)?;
            Ok(responses::deleted(&info, &name, deleted))
        }
        Verb::DeleteCollection => {
            let page = delete::delete_collection(shared, &target, &query, dry_run)?;
            Ok(responses::deleted_collection(&info, &page))
        }
    }
}

/// A request body that must be a JSON object (create, update, delete options).
fn parse_body(body: &Bytes) -> ApiResult<Value> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        ApiError::bad_request(format!("the body of the request was in an unknown format: {e}"))
    })?;
    if !value.is_object() {
        return Err(ApiError::bad_request("the body of the request must be a JSON object"));
    }
    Ok(value)
}
