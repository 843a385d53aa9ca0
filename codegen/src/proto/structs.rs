//! The structs of one k8s-openapi Kubernetes version module (`src/v1_37/`): each struct's
//! path, its fields, whether each is an `Option`, and each field's JSON name as its
//! `Deserialize` impl spells it (`"hostIP" => Field::Key_host_ip`).
//!
//! A plain line scan: k8s-openapi's generator writes one field per line and closes every
//! top-level item with a `}` in column 0, and reading lines is many times faster than
//! parsing the 850 files (codegen runs in debug in `make test`).

use std::collections::BTreeMap;
use std::path::Path;

use super::error::{Error, Result};

/// One named field of a struct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructField {
    /// The Rust identifier, such as `host_ip` or `type_`.
    pub ident: String,
    /// The type as written, such as `Option<std::string::String>`.
    pub ty: String,
    /// The JSON key its `Deserialize` impl maps to it; `None` when no key does.
    pub json: Option<String>,
}

impl StructField {
    /// Whether the field is an `Option` (its type's outer segment).
    pub fn is_option(&self) -> bool {
        self.ty.starts_with("Option<")
    }
}

/// One struct of the version module.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Struct {
    /// A tuple struct (`pub struct Time(pub Timestamp);`): no named fields to assign.
    pub tuple: bool,
    /// It implements `Default` (derived or by hand), which decoding starts from.
    pub default: bool,
    /// The named fields, in declaration order.
    pub fields: Vec<StructField>,
    /// It implements `crate::Resource`: its `Deserialize` impl checks `apiVersion` and
    /// `kind` against the type's.
    pub resource: bool,
    /// It implements `crate::ListableResource`: it is what a list holds.
    pub listable: bool,
}

impl Struct {
    /// The field its `Deserialize` impl fills from the JSON key `json`.
    pub fn field_for_json(&self, json: &str) -> Option<&StructField> {
        self.fields.iter().find(|f| f.json.as_deref() == Some(json))
    }
}

/// The structs of a version module by path below it, such as `api::core::v1::Pod`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Structs {
    /// Every non-generic struct, by `::`-separated path.
    pub by_path: BTreeMap<String, Struct>,
}

impl Structs {
    /// The struct at `path` (below the version module), if any.
    pub fn get(&self, path: &str) -> Option<&Struct> {
        self.by_path.get(path)
    }
}

/// Scans every `.rs` file under `dir` (such as `src/v1_37`).
pub fn scan_version_dir(dir: &Path) -> Result<Structs> {
    let mut structs = Structs::default();
    let mut pending = vec![(dir.to_owned(), String::new())];
    while let Some((current, module)) = pending.pop() {
        let entries = std::fs::read_dir(&current)
            .map_err(|source| Error::Io { path: current.clone(), source })?;
        for entry in entries {
            let path = entry.map_err(|source| Error::Io { path: current.clone(), source })?.path();
            let Some(name) = path.file_name().and_then(|n| n.to_str()).map(str::to_owned) else {
                continue;
            };
            if path.is_dir() {
                pending.push((path, format!("{module}{name}::")));
            } else if name.ends_with(".rs") {
                let text = std::fs::read_to_string(&path)
                    .map_err(|source| Error::Io { path: path.clone(), source })?;
                for (ident, found) in scan_source(&text) {
                    structs.by_path.insert(format!("{module}{ident}"), found);
                }
            }
        }
    }
    Ok(structs)
}

/// The non-generic structs one source file declares, by name, with the JSON names of
/// their fields.
pub fn scan_source(source: &str) -> Vec<(String, Struct)> {
    let mut structs: Vec<(String, Struct)> = Vec::new();
    let mut arms: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut by_hand_default = Vec::new();
    let mut resources = Vec::new();
    let mut listables = Vec::new();
    let mut derives_default = false;
    let mut lines = source.lines();
    while let Some(line) = lines.next() {
        if let Some(derives) = line.strip_prefix("#[derive(") {
            derives_default = derives.split([',', ')']).any(|d| d.trim() == "Default");
        } else if let Some(rest) = line.strip_prefix("pub struct ") {
            let name = leading_ident(rest);
            let default = std::mem::take(&mut derives_default);
            match rest[name.len()..].trim_start().chars().next() {
                Some('{') => {
                    let fields = if rest.trim_end().ends_with('}') {
                        Vec::new()
                    } else {
                        lines.by_ref().take_while(|l| *l != "}").filter_map(field_line).collect()
                    };
                    structs.push((
                        name.to_owned(),
                        Struct { tuple: false, default, fields, resource: false, listable: false },
                    ));
                }
                Some('(') => structs.push((
                    name.to_owned(),
                    Struct {
                        tuple: true,
                        default,
                        fields: vec![],
                        resource: false,
                        listable: false,
                    },
                )),
                _ => {} // generic (`List<T>`) or unexpected: not a message's struct
            }
        } else if let Some(ty) = ["impl Default for ", "impl std::default::Default for "]
            .iter()
            .find_map(|prefix| line.strip_prefix(prefix))
        {
            by_hand_default.push(leading_ident(ty).to_owned());
        } else if let Some(ty) = line.strip_prefix("impl crate::Resource for ") {
            resources.push(leading_ident(ty).to_owned());
        } else if let Some(ty) = line.strip_prefix("impl crate::ListableResource for ") {
            listables.push(leading_ident(ty).to_owned());
        } else if let Some(ty) = line
            .strip_prefix("impl<'de> crate::serde::Deserialize<'de> for ")
            .and_then(|rest| rest.strip_suffix(" {"))
        {
            let found = lines.by_ref().take_while(|l| *l != "}").filter_map(visit_str_arm);
            arms.entry(ty.to_owned()).or_default().extend(found);
        } else if !line.is_empty() && !line.starts_with([' ', '#', '/']) {
            derives_default = false; // another item: the derive was not a struct's
        }
    }
    for (name, found) in &mut structs {
        found.default |= by_hand_default.contains(name);
        found.resource = resources.contains(name);
        found.listable = listables.contains(name);
        for (json, ident) in arms.remove(name.as_str()).unwrap_or_default() {
            if let Some(field) =
                found.fields.iter_mut().find(|f| f.ident == ident && f.json.is_none())
            {
                field.json = Some(json);
            }
        }
    }
    structs
}

/// `    pub ident: Type,` -> the field, without its JSON name yet.
fn field_line(line: &str) -> Option<StructField> {
    let rest = line.trim_start().strip_prefix("pub ")?;
    let ident = leading_ident(rest);
    let ty = rest[ident.len()..].strip_prefix(": ")?.trim_end().strip_suffix(',')?;
    if ident.is_empty() || ty.is_empty() {
        return None;
    }
    Some(StructField { ident: ident.to_owned(), ty: ty.to_owned(), json: None })
}

/// `"hostIP" => Field::Key_host_ip,` -> `("hostIP", "host_ip")`.
fn visit_str_arm(line: &str) -> Option<(String, String)> {
    let rest = line.trim_start().strip_prefix('"')?;
    let (json, rest) = rest.split_once('"')?;
    let ident = rest.strip_prefix(" => Field::Key_")?.trim_end().strip_suffix(',')?;
    if json.contains('\\') || ident.is_empty() || leading_ident(ident) != ident {
        return None;
    }
    Some((json.to_owned(), ident.to_owned()))
}

/// The identifier `text` starts with (raw identifiers included).
fn leading_ident(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '#'))
        .unwrap_or(text.len());
    &text[..end]
}
