//! One protobuf watch event from its frame. A protobuf watch body is a run of frames, each
//! a 4-byte big-endian length and that many bytes (split by the wire's `LineReader`); a
//! frame is a bare `metav1.WatchEvent` message (`type = 1`; `object = 2`, a
//! `runtime.RawExtension` whose `raw = 1` is the object in its own `k8s\0` envelope).

use kube::core::{Status, WatchEvent, watch::Bookmark};
use serde::de::DeserializeOwned;

use super::{
    de::from_message,
    direct::{decode_object, decoder_of},
    envelope::unwrap,
    error::{Category, Error, Result},
    generated::schema,
    reader::{Scalar, for_each_field},
    types::Message,
};
use crate::listwatch::{item::DecodeOptions, skipped::SkippedObject, wire::WireError};

/// Decodes one frame of a protobuf watch of `message` objects. As the JSON decoder: an
/// object event whose object does not decode into `K` becomes
/// [`WireError::UndecodableObject`] (in `kube::Error::ReadEvents`); anything else that
/// does not decode is `kube::Error::SerdeError`.
pub(crate) fn decode_event<K>(
    frame: &[u8],
    message: &'static Message,
    options: DecodeOptions,
) -> std::result::Result<WatchEvent<K>, kube::Error>
where
    K: DeserializeOwned + Clone + 'static,
{
    let (event, object) = fields(frame).map_err(|err| kube::Error::SerdeError(err.into_json()))?;
    let decoded = object_event(event, object, message, options);
    decoded.map_err(|err| match (err.category(), event) {
        (Category::Data, "ADDED" | "MODIFIED" | "DELETED") => {
            let object = unwrap(object).map(|unknown| unknown.raw).unwrap_or_default();
            kube::Error::ReadEvents(std::io::Error::other(WireError::UndecodableObject {
                object: SkippedObject::from_protobuf(object, message),
                event: event.to_owned(),
            }))
        }
        _ => kube::Error::SerdeError(err.into_json()),
    })
}

/// The event's type and its object's enveloped bytes.
fn fields(frame: &[u8]) -> Result<(&str, &[u8])> {
    let (mut event, mut object) = (None, None);
    for_each_field(frame, |number, value| {
        match (number, value) {
            (1, Scalar::Bytes(bytes)) => {
                event = Some(
                    std::str::from_utf8(bytes).map_err(|_| Error::wire("event type not UTF-8"))?,
                );
            }
            (2, Scalar::Bytes(raw_extension)) => {
                for_each_field(raw_extension, |number, value| {
                    if let (1, Scalar::Bytes(raw)) = (number, value) {
                        object = Some(raw);
                    }
                    Ok(())
                })?;
            }
            _ => {}
        }
        Ok(())
    })?;
    match (event, object) {
        (Some(event), Some(object)) => Ok((event, object)),
        _ => Err(Error::wire("a watch event without its type or object")),
    }
}

fn object_event<K: DeserializeOwned + Clone + 'static>(
    event: &str,
    object: &[u8],
    message: &'static Message,
    options: DecodeOptions,
) -> Result<WatchEvent<K>> {
    let unknown = unwrap(object)?;
    let (raw, type_meta) = (unknown.raw, Some(unknown.type_meta));
    let item = || decode_object::<K>(raw, message, type_meta, options, decoder_of::<K>());
    Ok(match event {
        "ADDED" => WatchEvent::Added(item()?),
        "MODIFIED" => WatchEvent::Modified(item()?),
        "DELETED" => WatchEvent::Deleted(item()?),
        "BOOKMARK" => WatchEvent::Bookmark(from_message::<Bookmark>(raw, message, type_meta)?),
        "ERROR" => {
            WatchEvent::Error(Box::new(from_message::<Status>(raw, schema::STATUS, type_meta)?))
        }
        other => return Err(Error::wire(format_args!("unknown watch event type {other:?}"))),
    })
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;

    use super::super::testing::{Enc, envelope, meta};
    use super::*;

    fn frame(event: &str, object: Vec<u8>) -> Vec<u8> {
        Enc::new().str(1, event).msg(2, Enc::new().bytes(1, &object)).0
    }

    const PLAIN: DecodeOptions = DecodeOptions { skip_managed_fields: false };

    #[test]
    fn object_bookmark_and_error_events_decode() {
        let object = envelope("v1", "ConfigMap", &Enc::new().msg(1, meta("a", "default")));
        let message = &schema::API_CORE_V1_CONFIGMAP;
        match decode_event::<ConfigMap>(&frame("MODIFIED", object.clone()), message, PLAIN).unwrap()
        {
            WatchEvent::Modified(cm) => assert_eq!(cm.metadata.name.as_deref(), Some("a")),
            other => panic!("{other:?}"),
        }
        let skip = DecodeOptions { skip_managed_fields: true };
        match decode_event::<ConfigMap>(&frame("DELETED", object), message, skip).unwrap() {
            WatchEvent::Deleted(cm) => assert_eq!(cm.metadata.managed_fields, None),
            other => panic!("{other:?}"),
        }
        let bookmark_meta = Enc::new().str(6, "99").msg(8, Enc::new()).entry(
            12,
            "k8s.io/initial-events-end",
            "true",
        );
        let bookmark = envelope("v1", "ConfigMap", &Enc::new().msg(1, bookmark_meta));
        match decode_event::<ConfigMap>(&frame("BOOKMARK", bookmark), message, PLAIN).unwrap() {
            WatchEvent::Bookmark(b) => {
                assert_eq!(b.metadata.resource_version, "99");
                assert_eq!(b.metadata.annotations["k8s.io/initial-events-end"], "true");
                assert_eq!(b.types.kind, "ConfigMap");
            }
            other => panic!("{other:?}"),
        }
        let status = Enc::new()
            .msg(1, Enc::new())
            .str(2, "Failure")
            .str(3, "too old")
            .str(4, "Expired")
            .varint(6, 410);
        let error = envelope("v1", "Status", &status);
        match decode_event::<ConfigMap>(&frame("ERROR", error), message, PLAIN).unwrap() {
            WatchEvent::Error(status) => {
                assert_eq!((status.code, status.reason.as_str()), (410, "Expired"));
                assert!(status.is_failure());
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_undecodable_object_is_named_and_anything_else_is_a_serde_error() {
        #[derive(Clone, Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Strict {
            data: std::collections::BTreeMap<String, u32>,
        }
        let message = &schema::API_CORE_V1_CONFIGMAP;
        let object =
            envelope("v1", "ConfigMap", &Enc::new().msg(1, meta("a", "ns")).entry(2, "k", "x"));
        let err =
            decode_event::<Strict>(&frame("ADDED", object.clone()), message, PLAIN).unwrap_err();
        assert!(
            matches!(WireError::find_in(&err), Some(WireError::UndecodableObject { object, event })
                if object.key == "ns/a" && event == "ADDED"),
            "{err:?}"
        );
        for bad in
            [frame("RENAMED", object.clone()), frame("ADDED", b"json".to_vec()), vec![0x0a, 0x05]]
        {
            let err = decode_event::<ConfigMap>(&bad, message, PLAIN).unwrap_err();
            assert!(matches!(err, kube::Error::SerdeError(_)), "{err:?}");
        }
    }
}
