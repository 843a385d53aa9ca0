//! Decoding watch events from bytes, optionally without `metadata.managedFields` (see
//! [`managed_fields`](super::managed_fields)); list bodies are decoded by
//! [`list_stream`](super::list_stream) with the same item decoding.

use std::{fmt, marker::PhantomData};

use kube::core::{Status, WatchEvent, watch::Bookmark};
use serde::{
    Deserialize as _,
    de::{self, DeserializeOwned, DeserializeSeed, Deserializer, IgnoredAny, MapAccess},
};

use super::{
    capacity::{Lengths, ObjectHinted, event_mute, scan},
    in_place,
    item::DecodeOptions,
    json_input::decode_all,
    skipped::SkippedObject,
    wire::WireError,
};

/// Decodes one line of a watch body (`{"type": ..., "object": ...}`). A line that is a
/// bare `Status` (some proxies send one instead of an `ERROR` event) becomes
/// `kube::Error::Api`; an object event whose object is valid JSON of the wrong shape becomes
/// [`WireError::UndecodableObject`] (in `kube::Error::ReadEvents`); anything else that does
/// not decode is `kube::Error::SerdeError`.
///
/// With `in_place` (`K`'s in-place decoder), an object event in the server's shape has
/// its object decoded in place, as list items are ([`in_place::object_event`]); any other
/// line, or an object that does not decode that way, is decoded here as before.
pub(crate) fn decode_event<K>(
    line: &[u8],
    options: DecodeOptions,
    in_place: Option<in_place::DecodeFn>,
) -> Result<WatchEvent<K>, kube::Error>
where
    K: DeserializeOwned + Clone + 'static,
{
    if let Some(decode) = in_place
        && let Some(event) = in_place::object_event(line, options, decode)
    {
        return Ok(event);
    }
    // The envelope holds no arrays, so the line's arrays are the object's.
    let lengths = scan(line, event_mute(options)).map(|scanned| scanned.lengths);
    let lengths = Lengths::new(lengths.unwrap_or_default());
    let decoded =
        decode_all(line, EventSeed::<K> { options, lengths: &lengths, _item: PhantomData });
    decoded.map_err(|err| match bare_status(line) {
        Some(status) => kube::Error::Api(Box::new(status)),
        None => match undecodable_object(line, &err) {
            Some(wire) => kube::Error::ReadEvents(std::io::Error::other(wire)),
            None => kube::Error::SerdeError(err),
        },
    })
}

/// The object event a line holds whose object failed to decode with `err`, a data error
/// (not a syntax error: the line is whole, valid JSON).
fn undecodable_object(line: &[u8], err: &serde_json::Error) -> Option<WireError> {
    #[derive(serde::Deserialize)]
    struct Event {
        #[serde(rename = "type")]
        event: String,
        object: serde_json::Value,
    }
    if err.classify() != serde_json::error::Category::Data {
        return None;
    }
    // A rare path: the object is decoded again, loosely, for its metadata.
    let event = serde_json::from_slice::<Event>(line).ok()?;
    matches!(event.event.as_str(), "ADDED" | "MODIFIED" | "DELETED").then(|| {
        WireError::UndecodableObject {
            object: SkippedObject::from_value(event.object, err),
            event: event.event,
        }
    })
}

/// The `Status` a line holds if it is one (`"kind": "Status"`), not a watch event.
fn bare_status(line: &[u8]) -> Option<Status> {
    #[derive(serde::Deserialize)]
    struct Kind {
        kind: Option<String>,
    }
    let kind = serde_json::from_slice::<Kind>(line).ok()?.kind?;
    if kind != "Status" {
        return None;
    }
    serde_json::from_slice(line).ok()
}

/// One watch event. The server sends `type` before `object`, so the object is decoded
/// in place; if it came first it is buffered as a `Value` until the type is known.
struct EventSeed<'c, K> {
    options: DecodeOptions,
    /// The lengths of the object's arrays (see [`capacity`](super::capacity)).
    lengths: &'c Lengths,
    _item: PhantomData<fn() -> K>,
}

impl<'de, K: DeserializeOwned + Clone> DeserializeSeed<'de> for EventSeed<'_, K> {
    type Value = WatchEvent<K>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

/// The `type` of a watch event.
#[derive(Clone, Copy)]
enum EventType {
    Added,
    Modified,
    Deleted,
    Bookmark,
    Error,
}

impl EventType {
    fn parse<E: de::Error>(value: &str) -> Result<Self, E> {
        Ok(match value {
            "ADDED" => EventType::Added,
            "MODIFIED" => EventType::Modified,
            "DELETED" => EventType::Deleted,
            "BOOKMARK" => EventType::Bookmark,
            "ERROR" => EventType::Error,
            other => {
                return Err(de::Error::unknown_variant(
                    other,
                    &["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"],
                ));
            }
        })
    }
}

/// The object of an event of a known type.
struct ObjectSeed<'c, K> {
    event_type: EventType,
    options: DecodeOptions,
    lengths: &'c Lengths,
    _item: PhantomData<fn() -> K>,
}

impl<'de, K: DeserializeOwned + Clone> DeserializeSeed<'de> for ObjectSeed<'_, K> {
    type Value = WatchEvent<K>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        let item = || ObjectHinted::<K> {
            options: self.options,
            lengths: self.lengths,
            _object: PhantomData,
        };
        Ok(match self.event_type {
            EventType::Added => WatchEvent::Added(item().deserialize(deserializer)?),
            EventType::Modified => WatchEvent::Modified(item().deserialize(deserializer)?),
            EventType::Deleted => WatchEvent::Deleted(item().deserialize(deserializer)?),
            EventType::Bookmark => WatchEvent::Bookmark(Bookmark::deserialize(deserializer)?),
            EventType::Error => WatchEvent::Error(Box::new(Status::deserialize(deserializer)?)),
        })
    }
}

impl<'de, K: DeserializeOwned + Clone> de::Visitor<'de> for EventSeed<'_, K> {
    type Value = WatchEvent<K>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a watch event")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut event_type = None;
        let mut event = None;
        let mut early_object: Option<serde_json::Value> = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "type" => {
                    let value = map.next_value::<std::borrow::Cow<'de, str>>()?;
                    event_type = Some(EventType::parse(&value)?);
                }
                "object" => match event_type {
                    Some(event_type) => {
                        event = Some(map.next_value_seed(ObjectSeed::<K> {
                            event_type,
                            options: self.options,
                            lengths: self.lengths,
                            _item: PhantomData,
                        })?);
                    }
                    None => early_object = Some(map.next_value()?),
                },
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if let Some(event) = event {
            return Ok(event);
        }
        let event_type = event_type.ok_or_else(|| de::Error::missing_field("type"))?;
        let object = early_object.ok_or_else(|| de::Error::missing_field("object"))?;
        ObjectSeed::<K> {
            event_type,
            options: self.options,
            lengths: self.lengths,
            _item: PhantomData,
        }
        .deserialize(object)
        .map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;
    use serde_json::json;

    use super::*;

    const SKIP: DecodeOptions = DecodeOptions { skip_managed_fields: true };

    /// Decodes `line` with and without `K`'s in-place decoder, which must agree.
    fn event<K>(line: &[u8], options: DecodeOptions) -> Result<WatchEvent<K>, kube::Error>
    where
        K: DeserializeOwned + Clone + fmt::Debug + 'static,
    {
        let with = decode_event::<K>(line, options, in_place::decoder_of::<K>());
        let without = decode_event::<K>(line, options, None);
        assert_eq!(format!("{with:?}"), format!("{without:?}"));
        with
    }

    fn config_map(name: &str) -> serde_json::Value {
        json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "resourceVersion": "3", "managedFields": [{"manager": "m"}]},
            "data": {"k": "v"}
        })
    }

    #[test]
    fn events_decode_with_and_without_managed_fields() {
        let line =
            serde_json::to_vec(&json!({"type": "MODIFIED", "object": config_map("a")})).unwrap();
        match event::<ConfigMap>(&line, DecodeOptions::default()).unwrap() {
            WatchEvent::Modified(cm) => assert!(cm.metadata.managed_fields.is_some()),
            other => panic!("unexpected {other:?}"),
        }
        match event::<ConfigMap>(&line, SKIP).unwrap() {
            WatchEvent::Modified(cm) => {
                assert_eq!(cm.metadata.managed_fields, None);
                assert_eq!(cm.data.unwrap()["k"], "v");
            }
            other => panic!("unexpected {other:?}"),
        }
        // The object before its type is decoded too.
        let line =
            serde_json::to_vec(&json!({"object": config_map("b"), "type": "DELETED"})).unwrap();
        match event::<ConfigMap>(&line, SKIP).unwrap() {
            WatchEvent::Deleted(cm) => {
                assert_eq!(cm.metadata.name.as_deref(), Some("b"));
                assert_eq!(cm.metadata.managed_fields, None);
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn bookmarks_and_error_events_decode() {
        let line = br#"{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"12","annotations":{"k8s.io/initial-events-end":"true"}}}}"#;
        match event::<ConfigMap>(line, SKIP).unwrap() {
            WatchEvent::Bookmark(b) => {
                assert_eq!(b.metadata.resource_version, "12");
                assert_eq!(b.metadata.annotations["k8s.io/initial-events-end"], "true");
            }
            other => panic!("unexpected {other:?}"),
        }
        let line = br#"{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old","reason":"Expired","code":410}}"#;
        match event::<ConfigMap>(line, SKIP).unwrap() {
            WatchEvent::Error(status) => {
                assert_eq!((status.code, status.reason.as_str()), (410, "Expired"))
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn a_wrongly_typed_object_is_undecodable_not_an_empty_status() {
        // kube's watch decoder turns this line into `Error::Api` with an empty Status.
        let line = br#"{"type":"ADDED","object":{"metadata":{"name":"a","labels":"flat"}}}"#;
        let err = event::<ConfigMap>(line, SKIP).unwrap_err();
        assert!(
            matches!(WireError::find_in(&err), Some(WireError::UndecodableObject { object, .. })
                if object.key == "a"),
            "{err:?}"
        );
        // A bookmark or an ERROR event of the wrong shape is not an object to skip.
        let bad_bookmark = br#"{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":5}}}"#;
        let err = event::<ConfigMap>(bad_bookmark, SKIP).unwrap_err();
        assert!(matches!(err, kube::Error::SerdeError(_)), "{err:?}");
        let err = event::<ConfigMap>(br#"{"type":"RENAMED","object":{}}"#, SKIP).unwrap_err();
        assert!(matches!(err, kube::Error::SerdeError(_)), "{err:?}");
        let err = event::<ConfigMap>(br#"{"type":"ADDED","object":{"#, SKIP).unwrap_err();
        assert!(matches!(err, kube::Error::SerdeError(_)), "{err:?}");
    }

    #[test]
    fn a_bare_status_line_is_an_api_error() {
        let line = br#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"gone","reason":"Gone","code":410}"#;
        match event::<ConfigMap>(line, SKIP).unwrap_err() {
            kube::Error::Api(status) => assert_eq!(status.code, 410),
            other => panic!("unexpected {other:?}"),
        }
    }
}
