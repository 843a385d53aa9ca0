//! Our observer's side of the format: a handler that writes each callback as a line, and
//! a factory's cache line.

use std::io::Write;
use std::sync::{Arc, Mutex};

use kube::Resource;
use kube_informers_runtime::{DeletedObject, ResourceEventHandler};
use serde::Serialize;

use super::format::{CacheLine, Callback};

/// Writes JSON lines from every handler task into one file, a whole line at a time.
#[derive(Clone)]
pub struct LineWriter {
    file: Arc<Mutex<std::fs::File>>,
}

impl LineWriter {
    /// Creates (truncates) `path`.
    pub fn create(path: &str) -> std::io::Result<Self> {
        Ok(Self { file: Arc::new(Mutex::new(std::fs::File::create(path)?)) })
    }

    /// Writes `value` as one line. A write failure ends the process: the observer's output
    /// would be incomplete.
    pub fn line(&self, value: &impl Serialize) {
        let mut line = serde_json::to_vec(value).expect("callbacks serialise");
        line.push(b'\n');
        let mut file = self.file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Err(error) = file.write_all(&line) {
            eprintln!("conformance_observer: write: {error}");
            std::process::exit(1);
        }
    }
}

/// A handler that writes each callback it receives as a [`Callback`] line.
pub struct CallbackWriter {
    writer: LineWriter,
    factory: String,
    handler: String,
}

impl CallbackWriter {
    /// A handler named `handler` of the informer of `factory`.
    pub fn new(writer: LineWriter, factory: &str, handler: &str) -> Self {
        Self { writer, factory: factory.into(), handler: handler.into() }
    }

    fn write<K: Resource>(&self, kind: &str, obj: &K, extra: impl FnOnce(&mut Callback)) {
        let mut callback = Callback {
            factory: self.factory.clone(),
            handler: self.handler.clone(),
            kind: kind.into(),
            key: crate::key_of(obj),
            rv: resource_version(obj),
            initial: None,
            old_rv: None,
            tombstone: None,
        };
        extra(&mut callback);
        self.writer.line(&callback);
    }
}

fn resource_version<K: Resource>(obj: &K) -> String {
    obj.meta().resource_version.clone().unwrap_or_default()
}

impl<K: Resource + Send + Sync + 'static> ResourceEventHandler<K> for CallbackWriter {
    fn on_add(&self, obj: &Arc<K>, is_in_initial_list: bool) {
        self.write("add", obj.as_ref(), |c| c.initial = Some(is_in_initial_list));
    }
    fn on_update(&self, old: &Arc<K>, new: &Arc<K>) {
        self.write("update", new.as_ref(), |c| c.old_rv = Some(resource_version(old.as_ref())));
    }
    fn on_delete(&self, obj: &DeletedObject<K>) {
        let tombstone = obj.is_tombstone();
        self.write("delete", obj.object().as_ref(), |c| c.tombstone = Some(tombstone));
    }
}

/// The cache line of one factory's informer.
pub fn cache_line<K: Resource>(factory: &str, objects: &[Arc<K>]) -> CacheLine {
    CacheLine { factory: factory.into(), cache: crate::cache_model(objects) }
}
