//! The labels a compact store keeps beside each object's encoded bytes, and the label
//! selector evaluated on them, so that a lister's `list(selector)` decodes only the objects
//! the selector selects (client-go, whose objects are always decoded, runs the selector on
//! each object; here that would mean decoding every object to reject most of them).

use std::collections::BTreeMap;

use kube::core::{Expression, Selector};

/// An object's labels in one allocation: each key and value preceded by its length
/// (LEB128), pairs in key order. `None` for no labels (absent or empty, which selectors
/// treat alike).
#[derive(Debug)]
pub(crate) struct StoredLabels(Option<Box<[u8]>>);

impl StoredLabels {
    pub(crate) fn of(labels: Option<&BTreeMap<String, String>>) -> Self {
        let Some(labels) = labels.filter(|labels| !labels.is_empty()) else {
            return Self(None);
        };
        let len = labels.iter().map(|(k, v)| k.len() + v.len() + 4).sum();
        let mut bytes = Vec::with_capacity(len);
        for (key, value) in labels {
            for text in [key, value] {
                write_len(&mut bytes, text.len());
                bytes.extend_from_slice(text.as_bytes());
            }
        }
        Self(Some(bytes.into_boxed_slice()))
    }

    /// The value of label `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        let mut rest = self.0.as_deref()?;
        while !rest.is_empty() {
            let (k, after) = read_text(rest)?;
            let (v, after) = read_text(after)?;
            if k == key.as_bytes() {
                return std::str::from_utf8(v).ok();
            }
            rest = after;
        }
        None
    }
}

fn write_len(out: &mut Vec<u8>, mut len: usize) {
    while len >= 0x80 {
        out.push((len as u8 & 0x7f) | 0x80);
        len >>= 7;
    }
    out.push(len as u8);
}

/// The text at the start of `bytes` and what follows it.
fn read_text(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let (mut len, mut shift, mut at) = (0usize, 0u32, 0usize);
    loop {
        let byte = *bytes.get(at)?;
        at += 1;
        len |= usize::from(byte & 0x7f).checked_shl(shift)?;
        if byte & 0x80 == 0 {
            break;
        }
        shift += 7;
    }
    let end = at.checked_add(len)?;
    Some((bytes.get(at..end)?, &bytes[end..]))
}

/// A label selector's expressions, evaluated on [`StoredLabels`] with the semantics of
/// kube's `SelectorExt::matches` (an absent label fails `in`, `=` and `exists`, and passes
/// `notin`, `!=` and `!`).
#[derive(Debug)]
pub(crate) struct LabelFilter(Vec<Expression>);

impl LabelFilter {
    /// The filter of `selector`; `None` when it selects everything.
    pub(crate) fn new(selector: &Selector) -> Option<Self> {
        (!selector.selects_all()).then(|| Self(selector.clone().into_iter().collect()))
    }

    pub(crate) fn admits(&self, labels: &StoredLabels) -> bool {
        self.0.iter().all(|expression| match expression {
            Expression::In(key, values) => labels.get(key).is_some_and(|v| values.contains(v)),
            Expression::NotIn(key, values) => labels.get(key).is_none_or(|v| !values.contains(v)),
            Expression::Equal(key, value) => labels.get(key) == Some(value.as_str()),
            Expression::NotEqual(key, value) => labels.get(key) != Some(value.as_str()),
            Expression::Exists(key) => labels.get(key).is_some(),
            Expression::DoesNotExist(key) => labels.get(key).is_none(),
        })
    }
}

#[cfg(test)]
mod tests {
    use kube::core::SelectorExt;

    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn stored_labels_give_back_every_value_including_long_and_odd_ones() {
        let long = "v".repeat(300);
        let labels = map(&[("a", ""), ("app.kubernetes.io/name", "web"), ("nul\0key", &long)]);
        let stored = StoredLabels::of(Some(&labels));
        for (key, value) in &labels {
            assert_eq!(stored.get(key), Some(value.as_str()));
        }
        assert_eq!(stored.get("app"), None);
        assert_eq!(StoredLabels::of(Some(&map(&[]))).get("a"), None);
        assert!(StoredLabels::of(Some(&map(&[]))).0.is_none());
        assert_eq!(StoredLabels::of(None).get("a"), None);
    }

    #[test]
    fn the_filter_agrees_with_kube_matches_on_every_expression_kind() {
        let set = |values: &[&str]| values.iter().map(|v| v.to_string()).collect();
        let expressions = [
            Expression::In("app".into(), set(&["a", "b"])),
            Expression::NotIn("app".into(), set(&["a", "b"])),
            Expression::Equal("app".into(), "a".into()),
            Expression::NotEqual("app".into(), "a".into()),
            Expression::Exists("app".into()),
            Expression::DoesNotExist("app".into()),
            Expression::Equal("app".into(), String::new()),
        ];
        let label_sets =
            [map(&[]), map(&[("app", "a")]), map(&[("app", "c"), ("x", "a")]), map(&[("app", "")])];
        for first in &expressions {
            for second in &expressions {
                let selector: Selector = [first.clone(), second.clone()].into_iter().collect();
                let filter = LabelFilter::new(&selector).expect("not empty");
                for labels in &label_sets {
                    assert_eq!(
                        filter.admits(&StoredLabels::of(Some(labels))),
                        selector.matches(labels),
                        "{selector} on {labels:?}"
                    );
                }
            }
        }
        assert!(LabelFilter::new(&Selector::default()).is_none());
    }
}
