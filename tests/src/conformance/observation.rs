//! Reading an observer's output back: its callbacks in order and its final caches.

use std::collections::BTreeMap;

use super::format::{CacheLine, Callback};

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
