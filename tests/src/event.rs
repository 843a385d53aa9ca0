//! What a [`Recorder`](crate::Recorder) records: [`Event`], and [`Seen`], the same by value,
//! so that two handlers' sequences compare.

use std::sync::Arc;

use kube::Resource;
use kube_informers_runtime::DeletedObject;

/// One callback a [`Recorder`](crate::Recorder) received.
#[derive(Debug)]
pub enum Event<K> {
    /// `on_add(object, is_in_initial_list)`.
    Add(Arc<K>, bool),
    /// `on_update(old, new)`.
    Update(Arc<K>, Arc<K>),
    /// `on_delete(object or tombstone)`.
    Delete(DeletedObject<K>),
}

impl<K: Resource> Event<K> {
    /// The `namespace/name` key of the event's (new) object.
    pub fn key(&self) -> String {
        let obj = match self {
            Event::Add(obj, _) | Event::Update(_, obj) => obj,
            Event::Delete(gone) => gone.object(),
        };
        key_of(obj.as_ref())
    }
}

/// The store key of an object.
pub fn key_of<K: Resource>(obj: &K) -> String {
    kube_informers_runtime::store::meta_namespace_key_func(obj)
        .expect("objects from the server have names")
}

/// One callback in a comparable form: the objects it carried, by value.
#[derive(Debug, Clone, PartialEq)]
pub enum Seen<K> {
    /// `on_add(object, is_in_initial_list)`.
    Add(K, bool),
    /// `on_update(old, new)`.
    Update(K, K),
    /// `on_delete`: the object, and the tombstone's key if it came as a
    /// `DeletedFinalStateUnknown`.
    Delete(K, Option<String>),
}

impl<K: Clone> Event<K> {
    /// The callback by value, to compare two handlers' sequences.
    pub fn seen(&self) -> Seen<K> {
        match self {
            Event::Add(obj, initial) => Seen::Add((**obj).clone(), *initial),
            Event::Update(old, new) => Seen::Update((**old).clone(), (**new).clone()),
            Event::Delete(gone) => {
                let key = match gone {
                    DeletedObject::DeletedFinalStateUnknown(t) => Some(t.key.clone()),
                    DeletedObject::Object(_) => None,
                };
                Seen::Delete((**gone.object()).clone(), key)
            }
        }
    }
}
