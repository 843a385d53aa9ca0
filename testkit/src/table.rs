//! `meta.k8s.io/v1` `Table` output (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`),
//! with the columns kube-apiserver prints for a custom resource without printer columns:
//! `Name` and `Age`.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::object::StoredObject;
use crate::status::{ApiError, ApiResult};

const NAME_DESCRIPTION: &str = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const AGE_DESCRIPTION: &str = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/// `includeObject`: what each row carries besides its cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum IncludeObject {
    /// No object.
    None,
    /// The object's metadata as a `PartialObjectMetadata` (the default).
    #[default]
    Metadata,
    /// The whole object.
    Object,
}

impl IncludeObject {
    /// Reads `includeObject` from the query (400 for an unknown value).
    pub(crate) fn from_query(query: &HashMap<String, String>) -> ApiResult<IncludeObject> {
        match query.get("includeObject").map(String::as_str) {
            None | Some("") | Some("Metadata") => Ok(IncludeObject::Metadata),
            Some("None") => Ok(IncludeObject::None),
            Some("Object") => Ok(IncludeObject::Object),
            Some(other) => Err(ApiError::bad_request(format!(
                "includeObject: Unsupported value: {other:?}: supported values: \"Metadata\", \"None\", \"Object\""
            ))),
        }
    }
}

/// A `Table` of `objects`; `rv` and `continue_token` go into its list metadata.
pub(crate) fn table(
    version: &str,
    rv: &str,
    continue_token: Option<&str>,
    objects: &[Arc<StoredObject>],
    include: IncludeObject,
) -> ApiResult<Value> {
    let now = now_secs();
    let rows = objects
        .iter()
        .map(|object| {
            let mut value = object.to_value()?;
            let created = value
                .pointer("/metadata/creationTimestamp")
                .and_then(Value::as_str)
                .and_then(parse_rfc3339);
            let age = created.map_or_else(|| "<unknown>".to_string(), |t| human_age(now, t));
            let mut row = json!({"cells": [object.meta.name, age]});
            match include {
                IncludeObject::None => {}
                IncludeObject::Metadata => {
                    row["object"] = json!({
                        "kind": "PartialObjectMetadata",
                        "apiVersion": format!("meta.k8s.io/{version}"),
                        "metadata": value.get_mut("metadata").map(Value::take).unwrap_or(json!({})),
                    });
                }
                IncludeObject::Object => row["object"] = value,
            }
            Ok(row)
        })
        .collect::<ApiResult<Vec<Value>>>()?;
    let mut metadata = json!({"resourceVersion": rv});
    if let Some(token) = continue_token {
        metadata["continue"] = json!(token);
    }
    Ok(json!({
        "kind": "Table",
        "apiVersion": format!("meta.k8s.io/{version}"),
        "metadata": metadata,
        "columnDefinitions": [
            {"name": "Name", "type": "string", "format": "name", "description": NAME_DESCRIPTION, "priority": 0},
            {"name": "Age", "type": "date", "format": "", "description": AGE_DESCRIPTION, "priority": 0},
        ],
        "rows": rows,
    }))
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Parses `YYYY-MM-DDTHH:MM:SSZ` (what the server writes) into seconds since the epoch.
fn parse_rfc3339(text: &str) -> Option<u64> {
    let (date, time) = text.strip_suffix('Z')?.split_once('T')?;
    let mut d = date.split('-').map(str::parse::<i64>);
    let (y, m, day) = (d.next()?.ok()?, d.next()?.ok()?, d.next()?.ok()?);
    let mut t = time.split(':').map(|p| p.split('.').next().unwrap_or(p).parse::<i64>());
    let (h, min, s) = (t.next()?.ok()?, t.next()?.ok()?, t.next()?.ok()?);
    // Howard Hinnant's days-from-civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400 + h * 3600 + min * 60 + s).ok()
}

/// apimachinery's `duration.HumanDuration`: `45s`, `3m20s`, `59m`, `3h5m`, `23h`, `3d5h`,
/// `300d`, `2y100d`, `9y`.
fn human_age(now: u64, created: u64) -> String {
    let secs = now.saturating_sub(created);
    let (min, hours, days) = (secs / 60, secs / 3600, secs / 86_400);
    match secs {
        s if s < 120 => format!("{s}s"),
        _ if min < 10 => match secs % 60 {
            0 => format!("{min}m"),
            s => format!("{min}m{s}s"),
        },
        _ if min < 180 => format!("{min}m"),
        _ if hours < 8 => match min % 60 {
            0 => format!("{hours}h"),
            m => format!("{hours}h{m}m"),
        },
        _ if hours < 48 => format!("{hours}h"),
        _ if hours < 192 => match hours % 24 {
            0 => format!("{days}d"),
            h => format!("{days}d{h}h"),
        },
        _ if days < 365 * 2 => format!("{days}d"),
        _ if days < 365 * 8 => match days % 365 {
            0 => format!("{}y", days / 365),
            d => format!("{}y{d}d", days / 365),
        },
        _ => format!("{}y", days / 365),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_like_kubectl() {
        assert_eq!(human_age(100, 100), "0s");
        assert_eq!(human_age(203, 0), "3m23s");
        assert_eq!(human_age(3600, 0), "60m");
        assert_eq!(human_age(3 * 3600 + 300, 0), "3h5m");
        assert_eq!(human_age(30 * 3600, 0), "30h");
        assert_eq!(human_age(3 * 86_400 + 5 * 3600, 0), "3d5h");
        assert_eq!(parse_rfc3339("2023-11-14T22:13:20Z"), Some(1_700_000_000));
        assert_eq!(parse_rfc3339("2000-02-29T00:00:00Z"), Some(951_782_400));
        assert_eq!(parse_rfc3339("garbage"), None);
    }
}
