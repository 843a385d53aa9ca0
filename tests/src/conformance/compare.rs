//! Comparing client-go's observation with ours: every difference, named, and the names a
//! Markdown document allows.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::format::Callback;
use super::observation::Observation;

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
