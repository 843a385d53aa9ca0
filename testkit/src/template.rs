//! Pre-serialized object templates with placeholders, rendered per object. Seeded
//! objects are stored as a shared template plus their few distinct values, so seeding
//! costs no per-object serialization and little memory; they are rendered when served.

use serde_json::Value;

/// Placeholders in templates; values substituted in are JSON-string safe.
pub(crate) const NAME: &str = "@@NAME@@";
pub(crate) const NAMESPACE: &str = "@@NS@@";
pub(crate) const UID: &str = "@@UID@@";
pub(crate) const RV: &str = "@@RV@@";
pub(crate) const TIMESTAMP: &str = "@@TS@@";
pub(crate) const INDEX: &str = "@@IDX@@";
pub(crate) const APP: &str = "@@APP@@";
const PLACEHOLDERS: &[&str] = &[NAME, NAMESPACE, UID, RV, TIMESTAMP, INDEX, APP];

/// A template split at its placeholders.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Template {
    /// Literal segments; between consecutive ones sits `holes[i]`.
    segments: Vec<Vec<u8>>,
    holes: Vec<usize>,
    pub(crate) labels: Vec<(String, String)>,
}

impl Template {
    pub(crate) fn compile(value: &Value) -> Template {
        let text = serde_json::to_string(value).unwrap_or_default();
        let mut segments = Vec::new();
        let mut holes = Vec::new();
        let mut rest = text.as_str();
        loop {
            let next = PLACEHOLDERS
                .iter()
                .enumerate()
                .filter_map(|(i, p)| rest.find(p).map(|at| (at, i)))
                .min();
            match next {
                Some((at, hole)) => {
                    segments.push(rest.as_bytes()[..at].to_vec());
                    holes.push(hole);
                    rest = &rest[at + PLACEHOLDERS[hole].len()..];
                }
                None => {
                    segments.push(rest.as_bytes().to_vec());
                    break;
                }
            }
        }
        let labels = value
            .pointer("/metadata/labels")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect()
            })
            .unwrap_or_default();
        Template { segments, holes, labels }
    }

    /// Length of the rendered object.
    pub(crate) fn rendered_len(&self, values: &[&str; 7]) -> usize {
        self.segments.iter().map(Vec::len).sum::<usize>()
            + self.holes.iter().map(|&h| values[h].len()).sum::<usize>()
    }

    /// Appends the rendered object to `out`.
    pub(crate) fn render_into(&self, values: &[&str; 7], out: &mut Vec<u8>) {
        out.reserve(self.rendered_len(values));
        for (i, segment) in self.segments.iter().enumerate() {
            out.extend_from_slice(segment);
            if let Some(&hole) = self.holes.get(i) {
                out.extend_from_slice(values[hole].as_bytes());
            }
        }
    }

    /// The rendered object.
    pub(crate) fn render(&self, values: &[&str; 7]) -> Vec<u8> {
        let mut out = Vec::new();
        self.render_into(values, &mut out);
        out
    }

    pub(crate) fn substitute(text: &str, values: &[&str; 7]) -> String {
        let mut text = text.to_string();
        for (p, v) in PLACEHOLDERS.iter().zip(values) {
            if text.contains(p) {
                text = text.replace(p, v);
            }
        }
        text
    }
}
