//! The format of the differential conformance test against client-go, and its comparison.
//!
//! Two observers, client-go's (`conformance/cmd/observer`) and ours (the
//! `conformance_observer` binary), write one JSON line per handler callback and, at the
//! end, one line per factory with its cache. Fields that don't apply to a callback's kind
//! are omitted: `initial` only on adds, `old_rv` only on updates, `tombstone` only on
//! deletes. The test (`tests/integration/conformance_client_go.rs`) reads both files with
//! [`Observation::parse`] and compares them with [`compare`].

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io::Write;
use std::sync::{Arc, Mutex};

use kube::Resource;
use kube_informers_runtime::{DeletedObject, ResourceEventHandler};
use serde::{Deserialize, Serialize};

/// The factories both observers run, by name: all namespaces, `WithNamespace("conf-a")`,
/// and the label selector `tier=web`.
pub const FACTORIES: [&str; 3] = ["all", "conf-a", "web"];

/// The namespace the namespace-scoped factory watches.
pub const SCOPED_NAMESPACE: &str = "conf-a";

/// The label selector of the `web` factory.
pub const WEB_SELECTOR: &str = "tier=web";

/// One handler callback.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Callback {
    /// The factory whose informer called the handler.
    pub factory: String,
    /// The handler: `h1` from the start, `h2` added late to the `all` informer.
    pub handler: String,
    /// `add`, `update` or `delete`.
    pub kind: String,
    /// `namespace/name`.
    pub key: String,
    /// The resourceVersion of the (new) object, or of the tombstone's last known state.
    pub rv: String,
    /// `is_in_initial_list`, on adds only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial: Option<bool>,
    /// The old object's resourceVersion, on updates only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_rv: Option<String>,
    /// Whether the delete was a `DeletedFinalStateUnknown`, on deletes only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tombstone: Option<bool>,
}

impl fmt::Display for Callback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} rv={}", self.kind, self.rv)?;
        if let Some(initial) = self.initial {
            write!(f, " initial={initial}")?;
        }
        if let Some(old) = &self.old_rv {
            write!(f, " old_rv={old}")?;
        }
        if let Some(tombstone) = self.tombstone {
            write!(f, " tombstone={tombstone}")?;
        }
        Ok(())
    }
}

/// One factory's cache at the end: key -> resourceVersion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheLine {
    /// The factory.
    pub factory: String,
    /// key -> resourceVersion.
    pub cache: BTreeMap<String, String>,
}

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

/// What one observer wrote.
#[derive(Debug, Default, Clone)]
pub struct Observation {
    /// Every callback, in the order written.
    pub callbacks: Vec<Callback>,
    /// factory -> its final cache, once `dump` ran.
    pub caches: BTreeMap<String, BTreeMap<String, String>>,
}

impl Observation {
    /// Parses an observer's output; a torn last line (still being written) is ignored.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut out = Self::default();
        let complete = match text.rfind('\n') {
            Some(end) => &text[..end],
            None => "",
        };
        for (n, line) in complete.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let value: serde_json::Value =
                serde_json::from_str(line).map_err(|e| format!("line {}: {e}: {line}", n + 1))?;
            if value.get("cache").is_some() {
                let cache: CacheLine = serde_json::from_value(value)
                    .map_err(|e| format!("line {}: {e}: {line}", n + 1))?;
                out.caches.insert(cache.factory, cache.cache);
            } else {
                let callback: Callback = serde_json::from_value(value)
                    .map_err(|e| format!("line {}: {e}: {line}", n + 1))?;
                out.callbacks.push(callback);
            }
        }
        Ok(out)
    }

    /// The cache a handler would rebuild from its callbacks: key -> resourceVersion.
    pub fn model(&self, factory: &str, handler: &str) -> BTreeMap<String, String> {
        let mut model = BTreeMap::new();
        for c in self.callbacks.iter().filter(|c| c.factory == factory && c.handler == handler) {
            if c.kind == "delete" {
                model.remove(&c.key);
            } else {
                model.insert(c.key.clone(), c.rv.clone());
            }
        }
        model
    }

    /// The callbacks of each (factory, handler, key), in order.
    pub fn sequences(&self) -> BTreeMap<(String, String, String), Vec<Callback>> {
        let mut out: BTreeMap<_, Vec<_>> = BTreeMap::new();
        for c in &self.callbacks {
            out.entry((c.factory.clone(), c.handler.clone(), c.key.clone()))
                .or_default()
                .push(c.clone());
        }
        out
    }
}

/// One way our observer's output differs from client-go's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// The kind of difference, the name the test allows it by.
    pub name: &'static str,
    /// `factory/handler key`, or `factory key` for a cache.
    pub at: String,
    /// What each side did.
    pub detail: String,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}: {}", self.name, self.at, self.detail)
    }
}

/// The name of a difference in the callbacks of one key.
pub const CALLBACKS_DIFFER: &str = "callbacks-differ";
/// The name of the one difference in the callbacks of a key where client-go alone made
/// updates whose old and new resourceVersion are equal (a relist that found the object
/// unchanged): we deliver those only to handlers due for a resync.
pub const RELIST_UNCHANGED_UPDATE: &str = "relist-unchanged-update";
/// The name of a difference in one factory's final cache.
pub const CACHE_DIFFERS: &str = "cache-differs";

/// Compares client-go's observation (`go`) with ours, per (factory, handler, key)
/// sequence of callbacks and per factory's final cache. Cross-key order is not compared:
/// it legitimately differs.
pub fn compare(go: &Observation, ours: &Observation) -> Vec<Difference> {
    let mut differences = Vec::new();
    let (go_seq, our_seq) = (go.sequences(), ours.sequences());
    let keys: BTreeSet<_> = go_seq.keys().chain(our_seq.keys()).collect();
    for id in keys {
        let (theirs, mine) = (go_seq.get(id), our_seq.get(id));
        if theirs == mine {
            continue;
        }
        let name = if without_unchanged_updates(theirs) == without_unchanged_updates(mine)
            && unchanged_updates(mine) == 0
        {
            RELIST_UNCHANGED_UPDATE
        } else {
            CALLBACKS_DIFFER
        };
        differences.push(Difference {
            name,
            at: format!("{}/{} {}", id.0, id.1, id.2),
            detail: format!("client-go [{}], ours [{}]", list(theirs), list(mine)),
        });
    }
    let factories: BTreeSet<_> = go.caches.keys().chain(ours.caches.keys()).collect();
    let empty = BTreeMap::new();
    for factory in factories {
        let theirs = go.caches.get(factory).unwrap_or(&empty);
        let mine = ours.caches.get(factory).unwrap_or(&empty);
        let keys: BTreeSet<_> = theirs.keys().chain(mine.keys()).collect();
        for key in keys {
            if theirs.get(key) != mine.get(key) {
                differences.push(Difference {
                    name: CACHE_DIFFERS,
                    at: format!("{factory} {key}"),
                    detail: format!(
                        "client-go {}, ours {}",
                        theirs.get(key).map_or("absent", String::as_str),
                        mine.get(key).map_or("absent", String::as_str)
                    ),
                });
            }
        }
    }
    differences
}

fn is_unchanged_update(c: &Callback) -> bool {
    c.kind == "update" && c.old_rv.as_deref() == Some(c.rv.as_str())
}

fn unchanged_updates(callbacks: Option<&Vec<Callback>>) -> usize {
    callbacks.map_or(0, |cs| cs.iter().filter(|c| is_unchanged_update(c)).count())
}

fn without_unchanged_updates(callbacks: Option<&Vec<Callback>>) -> Vec<&Callback> {
    callbacks.into_iter().flatten().filter(|c| !is_unchanged_update(c)).collect()
}

/// The names of the differences a section of a Markdown document allows: every list item
/// of the form ``- **`name`** ...`` under the heading `heading`, up to the next heading of
/// the same or a higher level.
pub fn allowed_differences(markdown: &str, heading: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut inside = false;
    for line in markdown.lines() {
        if line.starts_with('#') {
            inside = line.trim_start_matches('#').trim() == heading;
            continue;
        }
        if inside
            && let Some(rest) = line.strip_prefix("- **`")
            && let Some(end) = rest.find("`**")
        {
            names.push(rest[..end].to_string());
        }
    }
    names
}

fn list(callbacks: Option<&Vec<Callback>>) -> String {
    callbacks
        .map(|cs| cs.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(key: &str, rv: &str) -> Callback {
        Callback {
            factory: "all".into(),
            handler: "h1".into(),
            kind: "add".into(),
            key: key.into(),
            rv: rv.into(),
            initial: Some(true),
            old_rv: None,
            tombstone: None,
        }
    }

    #[test]
    fn parse_reads_callbacks_and_caches_and_ignores_a_torn_line() {
        let text = "{\"factory\":\"all\",\"handler\":\"h1\",\"kind\":\"add\",\"key\":\"a/x\",\"rv\":\"5\",\"initial\":true}\n\
                    {\"factory\":\"all\",\"cache\":{\"a/x\":\"5\"}}\n{\"fac";
        let obs = Observation::parse(text).unwrap();
        assert_eq!(obs.callbacks, vec![add("a/x", "5")]);
        assert_eq!(obs.caches["all"]["a/x"], "5");
        assert_eq!(obs.model("all", "h1")["a/x"], "5");
    }

    #[test]
    fn compare_ignores_cross_key_order_and_names_per_key_differences() {
        let go =
            Observation { callbacks: vec![add("a/x", "5"), add("a/y", "6")], ..Default::default() };
        let same =
            Observation { callbacks: vec![add("a/y", "6"), add("a/x", "5")], ..Default::default() };
        assert!(compare(&go, &same).is_empty());
        let other = Observation { callbacks: vec![add("a/x", "5")], ..Default::default() };
        let diffs = compare(&go, &other);
        assert_eq!(diffs.len(), 1);
        assert_eq!(diffs[0].name, CALLBACKS_DIFFER);
        assert_eq!(diffs[0].at, "all/h1 a/y");
    }

    fn update(key: &str, old: &str, rv: &str) -> Callback {
        Callback {
            kind: "update".into(),
            rv: rv.into(),
            initial: None,
            old_rv: Some(old.into()),
            ..add(key, rv)
        }
    }

    #[test]
    fn compare_names_updates_only_client_go_made_for_unchanged_objects() {
        let ours = Observation {
            callbacks: vec![add("a/x", "5"), update("a/x", "5", "7")],
            ..Default::default()
        };
        let go = Observation {
            callbacks: vec![add("a/x", "5"), update("a/x", "5", "5"), update("a/x", "5", "7")],
            ..Default::default()
        };
        let diffs = compare(&go, &ours);
        assert_eq!(diffs.len(), 1);
        assert_eq!(diffs[0].name, RELIST_UNCHANGED_UPDATE);
        // The other way round (we made one client-go did not) is not that difference.
        assert_eq!(compare(&ours, &go)[0].name, CALLBACKS_DIFFER);
        // Nor is an unchanged update beside a real difference.
        let lost = Observation { callbacks: vec![add("a/x", "5")], ..Default::default() };
        assert_eq!(compare(&go, &lost)[0].name, CALLBACKS_DIFFER);
    }

    #[test]
    fn allowed_differences_reads_the_names_of_one_section() {
        let doc = "# T\n## Other\n- **`not-this`** no\n## Allowed\n- **`one`** text\n  more\n\
                   - **`two`** text\n- plain item\n### Sub\n- **`nested`** x\n## Next\n- **`after`**";
        assert_eq!(allowed_differences(doc, "Allowed"), ["one", "two"]);
    }
}
