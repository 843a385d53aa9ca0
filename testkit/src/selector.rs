//! Label selectors (full kubectl syntax) and field selectors (`metadata.name`,
//! `metadata.namespace`), as the apiserver evaluates them.

use std::collections::BTreeMap;

/// A parse failure; the server answers it with 400 BadRequest.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("invalid selector {selector:?}: {reason}")]
pub(crate) struct SelectorError {
    selector: String,
    reason: String,
}

fn err(selector: &str, reason: impl Into<String>) -> SelectorError {
    SelectorError { selector: selector.to_string(), reason: reason.into() }
}

/// One requirement of a label selector.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    DoesNotExist(String),
    GreaterThan(String, i64),
    LessThan(String, i64),
}

impl Requirement {
    fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        match self {
            Requirement::Equals(k, v) => labels.get(k) == Some(v),
            Requirement::NotEquals(k, v) => labels.get(k) != Some(v),
            Requirement::In(k, vs) => labels.get(k).is_some_and(|l| vs.contains(l)),
            Requirement::NotIn(k, vs) => labels.get(k).is_none_or(|l| !vs.contains(l)),
            Requirement::Exists(k) => labels.contains_key(k),
            Requirement::DoesNotExist(k) => !labels.contains_key(k),
            Requirement::GreaterThan(k, n) => {
                labels.get(k).and_then(|l| l.parse::<i64>().ok()).is_some_and(|l| l > *n)
            }
            Requirement::LessThan(k, n) => {
                labels.get(k).and_then(|l| l.parse::<i64>().ok()).is_some_and(|l| l < *n)
            }
        }
    }
}

/// A parsed label selector: every requirement must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LabelSelector(Vec<Requirement>);

impl LabelSelector {
    /// Parses kubectl syntax: `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`,
    /// `a>1`, `a<1`, separated by commas.
    pub(crate) fn parse(input: &str) -> Result<Self, SelectorError> {
        let mut reqs = Vec::new();
        for term in split_terms(input) {
            let term = term.trim();
            if term.is_empty() {
                if input.trim().is_empty() {
                    continue;
                }
                return Err(err(input, "empty requirement"));
            }
            reqs.push(parse_term(input, term)?);
        }
        Ok(LabelSelector(reqs))
    }

    /// Whether the selector selects nothing-in-particular (matches everything).
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `labels` satisfy every requirement.
    pub(crate) fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.0.iter().all(|r| r.matches(labels))
    }
}

/// Splits on commas that are not inside parentheses.
fn split_terms(input: &str) -> Vec<&str> {
    let mut terms = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in input.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                terms.push(&input[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    terms.push(&input[start..]);
    terms
}

fn valid_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= 317
        && key.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
}

fn valid_value(value: &str) -> bool {
    value.len() <= 63
        && value.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn parse_term(input: &str, term: &str) -> Result<Requirement, SelectorError> {
    if let Some(key) = term.strip_prefix('!') {
        let key = key.trim();
        return if valid_key(key) {
            Ok(Requirement::DoesNotExist(key.into()))
        } else {
            Err(err(input, format!("invalid label key {key:?}")))
        };
    }
    for (op, ctor) in [
        ("!=", Requirement::NotEquals as fn(String, String) -> Requirement),
        ("==", Requirement::Equals),
        ("=", Requirement::Equals),
    ] {
        if let Some((k, v)) = term.split_once(op) {
            let (k, v) = (k.trim(), v.trim());
            if !valid_key(k) || !valid_value(v) {
                return Err(err(input, format!("invalid requirement {term:?}")));
            }
            return Ok(ctor(k.into(), v.into()));
        }
    }
    for (op, gt) in [(">", true), ("<", false)] {
        if let Some((k, v)) = term.split_once(op) {
            let k = k.trim();
            let n: i64 =
                v.trim().parse().map_err(|_| err(input, format!("{v:?} is not an integer")))?;
            if !valid_key(k) {
                return Err(err(input, format!("invalid label key {k:?}")));
            }
            return Ok(if gt {
                Requirement::GreaterThan(k.into(), n)
            } else {
                Requirement::LessThan(k.into(), n)
            });
        }
    }
    let mut words = term.splitn(2, char::is_whitespace);
    let key = words.next().unwrap_or_default().trim();
    let rest = words.next().unwrap_or_default().trim();
    if !valid_key(key) {
        return Err(err(input, format!("invalid label key {key:?}")));
    }
    if rest.is_empty() {
        return Ok(Requirement::Exists(key.into()));
    }
    let (negate, list) = if let Some(l) = rest.strip_prefix("notin") {
        (true, l)
    } else if let Some(l) = rest.strip_prefix("in") {
        (false, l)
    } else {
        return Err(err(input, format!("unknown operator in {term:?}")));
    };
    let list = list.trim();
    let inner = list
        .strip_prefix('(')
        .and_then(|l| l.strip_suffix(')'))
        .ok_or_else(|| err(input, "set must be in parentheses"))?;
    let values: Vec<String> = inner.split(',').map(|v| v.trim().to_string()).collect();
    if values.iter().any(|v| !valid_value(v)) || (values.len() == 1 && values[0].is_empty()) {
        return Err(err(input, format!("invalid value set in {term:?}")));
    }
    Ok(if negate {
        Requirement::NotIn(key.into(), values)
    } else {
        Requirement::In(key.into(), values)
    })
}

/// One requirement of a field selector.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FieldRequirement {
    field: Field,
    value: String,
    equal: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Name,
    Namespace,
}

/// A parsed field selector over `metadata.name` / `metadata.namespace`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FieldSelector(Vec<FieldRequirement>);

impl FieldSelector {
    /// Parses `metadata.name=x,metadata.namespace!=y` (`=`, `==`, `!=`).
    pub(crate) fn parse(input: &str) -> Result<Self, SelectorError> {
        let mut reqs = Vec::new();
        for term in input.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let (field, value, equal) = if let Some((f, v)) = term.split_once("!=") {
                (f, v, false)
            } else if let Some((f, v)) = term.split_once("==") {
                (f, v, true)
            } else if let Some((f, v)) = term.split_once('=') {
                (f, v, true)
            } else {
                return Err(err(input, format!("invalid field selector term {term:?}")));
            };
            let field = match field.trim() {
                "metadata.name" => Field::Name,
                "metadata.namespace" => Field::Namespace,
                other => {
                    return Err(err(input, format!("field label not supported: {other}")));
                }
            };
            reqs.push(FieldRequirement { field, value: value.trim().to_string(), equal });
        }
        Ok(FieldSelector(reqs))
    }

    /// Whether the selector matches everything.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether an object with this namespace and name matches.
    pub(crate) fn matches(&self, namespace: &str, name: &str) -> bool {
        self.0.iter().all(|r| {
            let actual = match r.field {
                Field::Name => name,
                Field::Namespace => namespace,
            };
            (actual == r.value) == r.equal
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn parses_every_operator() {
        let s = LabelSelector::parse(
            "app=web, tier in (a,b),env!=prod,!legacy,team,size>2,x notin (y)",
        )
        .expect("valid");
        let ok =
            labels(&[("app", "web"), ("tier", "b"), ("env", "dev"), ("team", "t"), ("size", "3")]);
        assert!(s.matches(&ok));
        let mut bad = ok.clone();
        bad.insert("legacy".into(), "1".into());
        assert!(!s.matches(&bad));
        let mut small = ok.clone();
        small.insert("size".into(), "1".into());
        assert!(!s.matches(&small));
        let mut excluded = ok;
        excluded.insert("x".into(), "y".into());
        assert!(!s.matches(&excluded));
    }

    #[test]
    fn rejects_garbage() {
        assert!(LabelSelector::parse("a in b").is_err());
        assert!(LabelSelector::parse("a,,b").is_err());
        assert!(LabelSelector::parse("a=b=c").is_err());
        assert!(LabelSelector::parse("a>x").is_err());
        assert!(LabelSelector::parse("").expect("empty is valid").is_empty());
    }

    #[test]
    fn field_selector() {
        let f =
            FieldSelector::parse("metadata.name=a,metadata.namespace!=kube-system").expect("valid");
        assert!(f.matches("default", "a"));
        assert!(!f.matches("kube-system", "a"));
        assert!(!f.matches("default", "b"));
        assert!(FieldSelector::parse("spec.nodeName=x").is_err());
    }
}
