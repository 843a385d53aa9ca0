//! The protobuf schema table (`runtime/src/listwatch/protobuf/generated/schema.rs`, written
//! by `conformance/cmd/protoschema`), read back with syn: every `static IDENT: Message`
//! and the `RESOURCES` table.

use std::collections::BTreeMap;

use super::error::{Error, Result};

/// How a field's protobuf value is decoded: the schema table's `Kind`, with messages named
/// by their static's identifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A signed varint.
    Int,
    /// An unsigned varint.
    Uint,
    /// A `bool`.
    Bool,
    /// A `float64`.
    Double,
    /// A `float32`.
    Float,
    /// A UTF-8 string.
    String,
    /// `[]byte`.
    Bytes,
    /// A nested message, by static identifier.
    Message(String),
    /// A message embedded with `json:",inline"`, by static identifier.
    Inline(String),
    /// A `map[string]V` with values of the boxed kind.
    Map(Box<Kind>),
    /// `metav1.Time`.
    Time,
    /// `metav1.MicroTime`.
    MicroTime,
    /// `resource.Quantity`.
    Quantity,
    /// `intstr.IntOrString`.
    IntOrString,
    /// `metav1.FieldsV1` and `runtime.RawExtension`.
    RawJson,
    /// A named `[]string` message (`ExtraValue`).
    StringList,
}

/// One field of a [`Message`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The protobuf field number.
    pub number: u32,
    /// The JSON key; empty for an inline field.
    pub json: String,
    /// How its value is decoded.
    pub kind: Kind,
    /// The `REPEATED` flag: a Go slice.
    pub repeated: bool,
    /// The `OMIT_ZERO` flag: a zero value is left out of the JSON.
    pub omit_zero: bool,
}

/// One message of the schema table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The identifier of its static, such as `API_CORE_V1_POD`.
    pub ident: String,
    /// The Go type, `<package path>.<Name>`.
    pub name: String,
    /// Its fields, in table order.
    pub fields: Vec<Field>,
}

/// One entry of the `RESOURCES` table: a listable built-in kind and its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// The API group, empty for the core group.
    pub group: String,
    /// The API version.
    pub version: String,
    /// The kind.
    pub kind: String,
    /// The identifier of its message's static.
    pub message: String,
}

/// The whole schema table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Schema {
    /// Every message, in table order.
    pub messages: Vec<Message>,
    /// The `RESOURCES` table, in table order.
    pub resources: Vec<Resource>,
    by_ident: BTreeMap<String, usize>,
}

impl Schema {
    /// The message whose static is `ident`.
    pub fn message(&self, ident: &str) -> Option<&Message> {
        self.by_ident.get(ident).and_then(|&index| self.messages.get(index))
    }
}

/// Parses the schema table's source, checking that every referenced message is defined.
pub fn parse_schema(source: &str) -> Result<Schema> {
    let file = syn::parse_file(source).map_err(Error::Parse)?;
    let mut schema = Schema::default();
    for item in &file.items {
        let syn::Item::Static(item) = item else { continue };
        let ident = item.ident.to_string();
        if ident == "RESOURCES" {
            schema.resources = parse_resources(&item.expr)?;
        } else if is_path(&item.ty, "Message") {
            schema.by_ident.insert(ident.clone(), schema.messages.len());
            schema.messages.push(parse_message(ident, &item.expr)?);
        }
    }
    for message in &schema.messages {
        for field in &message.fields {
            if let Some(referenced) = referenced(&field.kind)
                && schema.message(referenced).is_none()
            {
                return Err(Error::UnknownMessage {
                    item: format!("{}.{}", message.ident, field.json),
                    referenced: referenced.to_owned(),
                });
            }
        }
    }
    if let Some(resource) = schema.resources.iter().find(|r| schema.message(&r.message).is_none()) {
        return Err(Error::UnknownMessage {
            item: format!("RESOURCES {}", resource.kind),
            referenced: resource.message.clone(),
        });
    }
    Ok(schema)
}

/// The message a kind names directly or as its map value, if any.
pub fn referenced(kind: &Kind) -> Option<&str> {
    match kind {
        Kind::Message(ident) | Kind::Inline(ident) => Some(ident),
        Kind::Map(value) => referenced(value),
        _ => None,
    }
}

/// [`Error::Malformed`] for `item`.
fn malformed(item: &str, problem: impl Into<String>) -> Error {
    Error::Malformed { item: item.to_owned(), problem: problem.into() }
}

/// Whether `ty` is the bare path `name`.
fn is_path(ty: &syn::Type, name: &str) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident(name))
}

/// `Message { name: "...", fields: &[Field { .. }, ..] }`.
fn parse_message(ident: String, expr: &syn::Expr) -> Result<Message> {
    let mut fields = struct_fields(expr, &ident)?;
    let name = string(&take(&mut fields, "name", &ident)?, &ident)?;
    let mut parsed = Vec::new();
    for element in array(&take(&mut fields, "fields", &ident)?, &ident)? {
        parsed.push(parse_field(element, &ident)?);
    }
    Ok(Message { ident, name, fields: parsed })
}

/// `Field { number: N, json: "...", kind: Kind::X, flags: F }`.
fn parse_field(expr: &syn::Expr, message: &str) -> Result<Field> {
    let mut fields = struct_fields(expr, message)?;
    let json = string(&take(&mut fields, "json", message)?, message)?;
    let item = format!("{message}.{json}");
    let number = match take(&mut fields, "number", &item)? {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(n), .. }) => {
            n.base10_parse().map_err(|e| malformed(&item, format!("number: {e}")))?
        }
        _ => return Err(malformed(&item, "`number` is not an integer")),
    };
    let kind = parse_kind(&take(&mut fields, "kind", &item)?, &item)?;
    let flags = parse_flags(&take(&mut fields, "flags", &item)?, &item)?;
    Ok(Field {
        number,
        json,
        kind,
        repeated: flags.contains(&"REPEATED"),
        omit_zero: flags.contains(&"OMIT_ZERO"),
    })
}

/// `Kind::X`, `Kind::Message(&IDENT)`, `Kind::Inline(&IDENT)` or `Kind::Map(&<kind>)`.
fn parse_kind(expr: &syn::Expr, item: &str) -> Result<Kind> {
    let (variant, argument) = match expr {
        syn::Expr::Path(p) => (kind_variant(&p.path, item)?, None),
        syn::Expr::Call(call) => {
            let syn::Expr::Path(p) = call.func.as_ref() else {
                return Err(malformed(item, "`kind` is not `Kind::X(..)`"));
            };
            let [syn::Expr::Reference(argument)] = call.args.iter().collect::<Vec<_>>()[..] else {
                return Err(malformed(item, "a `Kind` takes one `&` argument"));
            };
            (kind_variant(&p.path, item)?, Some(argument.expr.as_ref()))
        }
        _ => return Err(malformed(item, "`kind` is not a `Kind`")),
    };
    let message_ident = |argument: Option<&syn::Expr>| match argument {
        Some(syn::Expr::Path(p)) => {
            p.path.get_ident().map(ToString::to_string).ok_or_else(|| malformed(item, "bad static"))
        }
        _ => Err(malformed(item, format!("`Kind::{variant}` takes `&STATIC`"))),
    };
    let kind = match (variant.as_str(), argument) {
        ("Message", _) => Kind::Message(message_ident(argument)?),
        ("Inline", _) => Kind::Inline(message_ident(argument)?),
        ("Map", Some(value)) => Kind::Map(Box::new(parse_kind(value, item)?)),
        (_, Some(_)) => return Err(malformed(item, format!("`Kind::{variant}` takes nothing"))),
        ("Int", None) => Kind::Int,
        ("Uint", None) => Kind::Uint,
        ("Bool", None) => Kind::Bool,
        ("Double", None) => Kind::Double,
        ("Float", None) => Kind::Float,
        ("String", None) => Kind::String,
        ("Bytes", None) => Kind::Bytes,
        ("Time", None) => Kind::Time,
        ("MicroTime", None) => Kind::MicroTime,
        ("Quantity", None) => Kind::Quantity,
        ("IntOrString", None) => Kind::IntOrString,
        ("RawJson", None) => Kind::RawJson,
        ("StringList", None) => Kind::StringList,
        (other, None) => return Err(malformed(item, format!("unknown kind `Kind::{other}`"))),
    };
    Ok(kind)
}

/// `X` of the path `Kind::X`.
fn kind_variant(path: &syn::Path, item: &str) -> Result<String> {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match segments.as_slice() {
        [kind, variant] if kind == "Kind" => Ok(variant.clone()),
        _ => Err(malformed(item, format!("`{}` is not `Kind::X`", segments.join("::")))),
    }
}

/// The flag constants of `0`, `OMIT_ZERO`, `REPEATED` or `A | B`.
fn parse_flags(expr: &syn::Expr, item: &str) -> Result<Vec<&'static str>> {
    match expr {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(n), .. }) if n.base10_digits() == "0" => {
            Ok(Vec::new())
        }
        syn::Expr::Path(p) if p.path.is_ident("REPEATED") => Ok(vec!["REPEATED"]),
        syn::Expr::Path(p) if p.path.is_ident("OMIT_ZERO") => Ok(vec!["OMIT_ZERO"]),
        syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::BitOr(_)) => {
            let mut flags = parse_flags(&b.left, item)?;
            flags.extend(parse_flags(&b.right, item)?);
            Ok(flags)
        }
        _ => Err(malformed(item, "`flags` is not `0`, `OMIT_ZERO`, `REPEATED` or their `|`")),
    }
}

/// `&[(group, version, kind, &IDENT), ..]`.
fn parse_resources(expr: &syn::Expr) -> Result<Vec<Resource>> {
    let mut resources = Vec::new();
    for element in array(expr, "RESOURCES")? {
        let syn::Expr::Tuple(tuple) = element else {
            return Err(malformed("RESOURCES", "an entry is not a tuple"));
        };
        let [group, version, kind, syn::Expr::Reference(message)] =
            tuple.elems.iter().collect::<Vec<_>>()[..]
        else {
            return Err(malformed("RESOURCES", "an entry is not `(group, version, kind, &M)`"));
        };
        let kind = string(kind, "RESOURCES")?;
        let syn::Expr::Path(message) = message.expr.as_ref() else {
            return Err(malformed("RESOURCES", format!("{kind}: the message is not `&STATIC`")));
        };
        let message = message.path.get_ident().map(ToString::to_string).ok_or_else(|| {
            malformed("RESOURCES", format!("{kind}: the message is not `&STATIC`"))
        })?;
        resources.push(Resource {
            group: string(group, "RESOURCES")?,
            version: string(version, "RESOURCES")?,
            kind,
            message,
        });
    }
    Ok(resources)
}

/// The named fields of a struct expression, by name.
fn struct_fields(expr: &syn::Expr, item: &str) -> Result<BTreeMap<String, syn::Expr>> {
    let syn::Expr::Struct(s) = expr else {
        return Err(malformed(item, "not a struct expression"));
    };
    let mut fields = BTreeMap::new();
    for field in &s.fields {
        let syn::Member::Named(name) = &field.member else {
            return Err(malformed(item, "a struct expression with unnamed fields"));
        };
        fields.insert(name.to_string(), field.expr.clone());
    }
    Ok(fields)
}

/// Removes the struct field `name` from `fields`; an error when there is none.
fn take(fields: &mut BTreeMap<String, syn::Expr>, name: &str, item: &str) -> Result<syn::Expr> {
    fields.remove(name).ok_or_else(|| malformed(item, format!("no `{name}`")))
}

/// The elements of `&[a, b, ..]`.
fn array<'a>(expr: &'a syn::Expr, item: &str) -> Result<impl Iterator<Item = &'a syn::Expr>> {
    match expr {
        syn::Expr::Reference(r) => match r.expr.as_ref() {
            syn::Expr::Array(a) => Ok(a.elems.iter()),
            _ => Err(malformed(item, "not `&[..]`")),
        },
        _ => Err(malformed(item, "not `&[..]`")),
    }
}

/// The value of a string literal.
fn string(expr: &syn::Expr, item: &str) -> Result<String> {
    match expr {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Ok(s.value()),
        _ => Err(malformed(item, "not a string literal")),
    }
}
