//! Stored objects: the serialized JSON plus the parsed metadata the server needs for
//! keys, selectors and finalizers (so lists and watches never re-parse objects).

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;
use serde_json::Value;

use crate::status::{ApiError, ApiResult};
use crate::template::Template;

/// Storage key of an object: `(namespace, name)`, namespace `""` for cluster scope. The
/// order matches etcd's `/registry/<resource>/<namespace>/<name>` key order.
pub(crate) type ObjKey = (String, String);

/// Metadata parsed once when an object is stored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Meta {
    pub(crate) namespace: String,
    pub(crate) name: String,
    pub(crate) uid: String,
    pub(crate) resource_version: u64,
    pub(crate) labels: BTreeMap<String, String>,
    pub(crate) has_finalizers: bool,
    pub(crate) deleting: bool,
}

impl Meta {
    /// Reads the metadata the server indexes from an object.
    pub(crate) fn from_value(object: &Value) -> ApiResult<Meta> {
        let metadata = object
            .get("metadata")
            .and_then(Value::as_object)
            .ok_or_else(|| ApiError::bad_request("object has no metadata"))?;
        let text =
            |key: &str| metadata.get(key).and_then(Value::as_str).unwrap_or_default().to_string();
        let labels = match metadata.get("labels") {
            None | Some(Value::Null) => BTreeMap::new(),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => Ok((k.clone(), s.clone())),
                    _ => Err(ApiError::bad_request(format!("label {k:?} is not a string"))),
                })
                .collect::<ApiResult<_>>()?,
            Some(_) => {
                return Err(ApiError::bad_request("metadata.labels must be a map of strings"));
            }
        };
        let has_finalizers =
            metadata.get("finalizers").and_then(Value::as_array).is_some_and(|f| !f.is_empty());
        Ok(Meta {
            namespace: text("namespace"),
            name: text("name"),
            uid: text("uid"),
            resource_version: text("resourceVersion").parse().unwrap_or(0),
            labels,
            has_finalizers,
            deleting: metadata.get("deletionTimestamp").is_some_and(|v| !v.is_null()),
        })
    }

    /// The storage key.
    pub(crate) fn key(&self) -> ObjKey {
        (self.namespace.clone(), self.name.clone())
    }
}

/// How an object's JSON is held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ObjectBody {
    /// The serialized object.
    Raw(Bytes),
    /// A shared template and this object's values (bulk-seeded objects).
    Templated { template: Arc<Template>, values: Box<[String; 7]> },
}

/// One stored object version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StoredObject {
    /// The object exactly as served.
    pub(crate) body: ObjectBody,
    pub(crate) meta: Meta,
}

impl StoredObject {
    /// Serializes an object whose metadata is complete.
    pub(crate) fn from_value(object: &Value) -> ApiResult<StoredObject> {
        let meta = Meta::from_value(object)?;
        let json = serde_json::to_vec(object).map_err(|e| {
            ApiError::new(500, "InternalError", format!("cannot serialize object: {e}"))
        })?;
        Ok(StoredObject { body: ObjectBody::Raw(Bytes::from(json)), meta })
    }

    /// The object's JSON.
    pub(crate) fn json(&self) -> Bytes {
        match &self.body {
            ObjectBody::Raw(bytes) => bytes.clone(),
            ObjectBody::Templated { .. } => {
                let mut out = Vec::new();
                self.write_json(&mut out);
                Bytes::from(out)
            }
        }
    }

    /// Appends the object's JSON to `out`.
    pub(crate) fn write_json(&self, out: &mut Vec<u8>) {
        match &self.body {
            ObjectBody::Raw(bytes) => out.extend_from_slice(bytes),
            ObjectBody::Templated { template, values } => {
                let values: [&str; 7] = std::array::from_fn(|i| values[i].as_str());
                template.render_into(&values, out);
            }
        }
    }

    /// Parses the stored JSON back into a value (for updates and patches).
    pub(crate) fn to_value(&self) -> ApiResult<Value> {
        serde_json::from_slice(&self.json()).map_err(|e| {
            ApiError::new(500, "InternalError", format!("stored object is not valid JSON: {e}"))
        })
    }
}

/// Sets `metadata.<key>` on an object that has a metadata map.
pub(crate) fn set_meta(object: &mut Value, key: &str, value: Value) {
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.insert(key.to_string(), value);
    }
}

/// Reads `metadata.<key>` as a string.
pub(crate) fn meta_str<'a>(object: &'a Value, key: &str) -> Option<&'a str> {
    object.get("metadata")?.get(key)?.as_str()
}

/// RFC 3339 UTC timestamp with second precision, as Kubernetes serializes `metav1.Time`.
pub(crate) fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    rfc3339(secs)
}

/// Formats seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ`.
pub(crate) fn rfc3339(secs: u64) -> String {
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days as i64);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, (rem % 3600) / 60, rem % 60)
}

/// Howard Hinnant's days-to-civil algorithm.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// A random RFC 4122 version-4 UUID string.
pub(crate) fn new_uid() -> String {
    let v: u128 = rand::random();
    let v = (v & !(0xf000u128 << 64)) | (0x4000u128 << 64);
    let v = (v & !(0xc000u128 << 48)) | (0x8000u128 << 48);
    let h = format!("{v:032x}");
    format!("{}-{}-{}-{}-{}", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn timestamps_are_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn uid_shape() {
        let uid = new_uid();
        assert_eq!(uid.len(), 36);
        assert_eq!(&uid[14..15], "4");
        assert_ne!(uid, new_uid());
    }

    #[test]
    fn meta_rejects_non_string_labels() {
        assert!(Meta::from_value(&json!({"metadata": {"name": "a", "labels": "x"}})).is_err());
        let m = Meta::from_value(
            &json!({"metadata": {"name": "a", "namespace": "n", "resourceVersion": "7",
            "finalizers": ["f"], "labels": {"k": "v"}}}),
        )
        .expect("valid");
        assert_eq!(m.key(), ("n".to_string(), "a".to_string()));
        assert_eq!(m.resource_version, 7);
        assert!(m.has_finalizers);
    }
}
