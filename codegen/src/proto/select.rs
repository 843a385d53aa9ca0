//! Which messages get a decoder: those whose k8s-openapi struct exists in the latest
//! Kubernetes module (with named fields and `Default`), whose every field with a struct
//! field is supported, and whose every referenced message gets a decoder too (a fixed
//! point: skipping a message skips the messages that need it).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::arms::{named_type, statement};
use super::schema::{Kind, Message, Schema, referenced};
use super::structs::{Struct, Structs};

/// Inline messages nest at most this deep (one level in every Go type).
const MAX_INLINE_DEPTH: usize = 8;

/// The Go package prefixes k8s-openapi has modules for, and those modules.
const PACKAGES: [(&str, &str); 4] = [
    ("k8s.io/api/", "api"),
    ("k8s.io/apimachinery/", "apimachinery"),
    ("k8s.io/apiextensions-apiserver/", "apiextensions_apiserver"),
    ("k8s.io/kube-aggregator/", "kube_aggregator"),
];

/// The k8s-openapi path (below the version module) of a Go type:
/// `k8s.io/api/core/v1.Pod` -> `api::core::v1::Pod`.
pub fn rust_path(go_name: &str) -> Option<String> {
    let (package, name) = go_name.rsplit_once('.')?;
    let package = format!("{package}/");
    let (root, rest) =
        PACKAGES.iter().find_map(|(prefix, root)| Some((root, package.strip_prefix(prefix)?)))?;
    let rest = rest.trim_end_matches('/').replace('/', "::");
    Some(format!("{root}::{rest}::{name}"))
}

/// The Go types whose k8s-openapi structs have no `Default`, which the generated decoders
/// start from, and whose decoders the runtime writes by hand instead
/// (`runtime/src/listwatch/protobuf/direct/by_hand.rs`): a required time has no value until
/// its message comes, and its absence fails as it does in JSON. They count as decoded for
/// the messages that need them but get no generated impl.
pub const BY_HAND: [&str; 2] =
    ["k8s.io/apimachinery/pkg/apis/meta/v1.Condition", "k8s.io/api/events/v1.EventSeries"];

/// Why a message gets no decoder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skip {
    /// Its Go package has no k8s-openapi module.
    UnknownPackage,
    /// The latest k8s-openapi module has no struct at its path.
    NoStruct(String),
    /// The struct is a tuple struct (a JSON value), with no fields to assign.
    TupleStruct(String),
    /// The struct does not implement `Default`, which decoding starts from (`Fields:
    /// Default`), and is not one of [`BY_HAND`].
    NoDefault(String),
    /// A field with a struct field cannot be decoded into it.
    Unsupported {
        /// The field's JSON name.
        json: String,
        /// Why.
        problem: String,
    },
    /// A message it references is skipped.
    Needs(String),
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skip::UnknownPackage => write!(f, "its Go package has no k8s-openapi module"),
            Skip::NoStruct(path) => write!(f, "no struct {path}"),
            Skip::TupleStruct(path) => write!(f, "{path} is a tuple struct"),
            Skip::NoDefault(path) => write!(f, "{path} does not implement Default"),
            Skip::Unsupported { json, problem } => write!(f, "field {json:?}: {problem}"),
            Skip::Needs(go_name) => write!(f, "needs {go_name}, skipped"),
        }
    }
}

/// The outcome for every message of the schema table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// The messages that get a decoder: static identifier -> k8s-openapi path.
    pub emitted: BTreeMap<String, String>,
    /// The messages whose decoders are written by hand ([`BY_HAND`]): static identifiers.
    pub by_hand: BTreeSet<String>,
    /// The other messages: static identifier -> why.
    pub skipped: BTreeMap<String, Skip>,
}

/// Decides, for every message of `schema`, whether it gets a decoder.
pub fn select(schema: &Schema, structs: &Structs) -> Selection {
    let mut selection = Selection::default();
    let mut candidates: BTreeMap<&str, (String, BTreeSet<&str>)> = BTreeMap::new();
    for message in &schema.messages {
        let by_hand = BY_HAND.contains(&message.name.as_str());
        if let Some(path) = rust_path(&message.name).filter(|p| by_hand && structs.get(p).is_some())
        {
            selection.by_hand.insert(message.ident.clone());
            candidates.insert(&message.ident, (path, BTreeSet::new()));
            continue;
        }
        match check_message(schema, structs, message) {
            Ok(found) => {
                candidates.insert(&message.ident, found);
            }
            Err(skip) => {
                selection.skipped.insert(message.ident.clone(), skip);
            }
        }
    }
    loop {
        let dropped: Vec<(&str, &str)> = candidates
            .iter()
            .filter_map(|(&ident, (_, needs))| {
                needs.iter().find(|n| !candidates.contains_key(*n)).map(|&n| (ident, n))
            })
            .collect();
        if dropped.is_empty() {
            break;
        }
        for (ident, needed) in dropped {
            candidates.remove(ident);
            let go_name = schema.message(needed).map_or(needed, |m| m.name.as_str());
            selection.skipped.insert(ident.to_owned(), Skip::Needs(go_name.to_owned()));
        }
    }
    selection.emitted = candidates
        .into_iter()
        .filter(|(ident, _)| !selection.by_hand.contains(*ident))
        .map(|(ident, (path, _))| (ident.to_owned(), path))
        .collect();
    selection
}

/// The k8s-openapi path of `message` and the messages its decoder calls; or why it has none.
fn check_message<'a>(
    schema: &'a Schema,
    structs: &Structs,
    message: &'a Message,
) -> Result<(String, BTreeSet<&'a str>), Skip> {
    let path = rust_path(&message.name).ok_or(Skip::UnknownPackage)?;
    let Some(found) = structs.get(&path) else { return Err(Skip::NoStruct(path)) };
    if found.tuple {
        return Err(Skip::TupleStruct(path));
    }
    if !found.default {
        return Err(Skip::NoDefault(path));
    }
    let mut needs = BTreeSet::new();
    check_fields(schema, found, message, 0, &mut needs)?;
    Ok((path, needs))
}

/// Checks the fields of `message` (the struct's own, or inline ones at `depth`) against
/// the struct's fields, collecting the messages they need.
fn check_fields<'a>(
    schema: &'a Schema,
    found: &Struct,
    message: &'a Message,
    depth: usize,
    needs: &mut BTreeSet<&'a str>,
) -> Result<(), Skip> {
    for field in &message.fields {
        let unsupported = |problem: String| Skip::Unsupported { json: field.json.clone(), problem };
        if let Kind::Inline(inner) = &field.kind {
            let inner =
                schema.message(inner).ok_or_else(|| unsupported("unknown inline".into()))?;
            if field.repeated || depth >= MAX_INLINE_DEPTH {
                return Err(Skip::Unsupported {
                    json: inner.name.clone(),
                    problem: "a repeated or too deeply nested inline message".into(),
                });
            }
            check_fields(schema, found, inner, depth + 1, needs)?;
            continue;
        }
        let Some(target) = found.field_for_json(&field.json) else { continue };
        statement(field, target).map_err(unsupported)?;
        if let Some(ident) = referenced(&field.kind) {
            let expected = schema.message(ident).and_then(|m| rust_path(&m.name));
            let named = named_type(&target.ty);
            if expected.as_deref() != Some(named) {
                return Err(unsupported(format!(
                    "its Rust type `{}` is not the message's {}",
                    target.ty,
                    expected.unwrap_or_default()
                )));
            }
            needs.insert(ident);
        }
    }
    Ok(())
}
