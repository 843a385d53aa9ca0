//! Version gates: which k8s-openapi `k8s_if_*` macros keep an item only in the Kubernetes
//! versions that ship its resource.
//!
//! The emitter marks a gated item with a `#[k8s_gate(ge_1_34, le_1_36)]` attribute, formats
//! the file with prettyplease, then [`apply_gates`] replaces each marker by the nested
//! `k8s_openapi::k8s_if_*!` invocations around the already formatted item. Formatting first
//! keeps gated items as readable as the rest: prettyplease prints macro bodies as raw tokens.

use std::collections::BTreeSet;

use crate::model::KubeVersion;

/// The marker attribute's name.
pub const MARKER: &str = "k8s_gate";

/// One condition on the enabled Kubernetes version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Condition {
    /// This version or newer: `k8s_if_ge_1_NN`.
    AtLeast(KubeVersion),
    /// This version or older: `k8s_if_le_1_NN`.
    AtMost(KubeVersion),
    /// Exactly this version: `k8s_if_1_NN`.
    Exactly(KubeVersion),
}

impl Condition {
    /// The marker argument, an identifier such as `ge_1_34`, `le_1_36` or `eq_1_35`.
    pub fn marker_arg(&self) -> String {
        match self {
            Condition::AtLeast(v) => format!("ge_1_{}", v.minor),
            Condition::AtMost(v) => format!("le_1_{}", v.minor),
            Condition::Exactly(v) => format!("eq_1_{}", v.minor),
        }
    }
}

/// The k8s-openapi macro for a marker argument: `ge_1_34` -> `k8s_if_ge_1_34`,
/// `eq_1_35` -> `k8s_if_1_35`.
pub fn macro_name(marker_arg: &str) -> String {
    match marker_arg.strip_prefix("eq_") {
        Some(exact) => format!("k8s_if_{exact}"),
        None => format!("k8s_if_{marker_arg}"),
    }
}

/// How items present in some Kubernetes versions are gated inside an enclosing scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gating {
    /// Present whenever the enclosing scope is: no gate.
    Always,
    /// Emit the item once per alternative; all conditions of an alternative must hold.
    /// Alternatives are disjoint, so at most one copy is compiled.
    Alternatives(Vec<Vec<Condition>>),
}

/// The gating of items present in `present`, inside a scope already limited to `within`.
///
/// Conditions are only as strict as needed given `within`: a resource of Kubernetes
/// 1.35..=1.37 inside a group of 1.34..=1.37 needs only `ge_1_35`.
pub fn gating(present: &BTreeSet<KubeVersion>, within: &BTreeSet<KubeVersion>) -> Gating {
    let within: Vec<KubeVersion> = within.iter().copied().collect();
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for (index, version) in within.iter().enumerate() {
        if !present.contains(version) {
            continue;
        }
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == index => *end = index,
            _ => runs.push((index, index)),
        }
    }
    if runs == [(0, within.len().saturating_sub(1))] {
        return Gating::Always;
    }
    let last = within.len().saturating_sub(1);
    let alternatives = runs
        .into_iter()
        .map(|(start, end)| match (start > 0, end < last) {
            (true, true) if start == end => vec![Condition::Exactly(within[start])],
            (true, true) => vec![Condition::AtLeast(within[start]), Condition::AtMost(within[end])],
            (true, false) => vec![Condition::AtLeast(within[start])],
            (false, true) => vec![Condition::AtMost(within[end])],
            (false, false) => Vec::new(),
        })
        .collect();
    Gating::Alternatives(alternatives)
}

/// Errors of [`apply_gates`].
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A marker is not followed by a complete item.
    #[error("the item gated on line {line} never ends")]
    Unterminated {
        /// The marker's 1-based line.
        line: usize,
    },
}

/// Result of gate application.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Replaces every `#[k8s_gate(..)]` marker line of formatted code by nested
/// `k8s_openapi::k8s_if_*! { .. }` blocks around the item that follows it. Consecutive
/// items with the same marker share one block.
pub fn apply_gates(formatted: &str) -> Result<String> {
    let lines: Vec<&str> = formatted.lines().collect();
    let mut out = String::with_capacity(formatted.len() + formatted.len() / 8);
    rewrite(&lines, 0, &mut out)?;
    Ok(out)
}

fn rewrite(lines: &[&str], first_line_number: usize, out: &mut String) -> Result<()> {
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index];
        let Some((indent, args)) = parse_marker(line) else {
            out.push_str(line);
            out.push('\n');
            index += 1;
            continue;
        };
        let mut body: Vec<&str> = Vec::new();
        let mut next = index;
        // Take this item and any directly following items carrying the same marker.
        while next < lines.len() && parse_marker(lines[next]) == Some((indent, args.clone())) {
            let end = item_end(lines, next + 1)
                .ok_or(Error::Unterminated { line: first_line_number + next + 1 })?;
            body.extend_from_slice(&lines[next + 1..=end]);
            next = end + 1;
        }
        let mut inner = String::new();
        rewrite(&body, first_line_number + index + 1, &mut inner)?;
        let pad = " ".repeat(indent);
        for (depth, arg) in args.iter().enumerate() {
            out.push_str(&format!(
                "{pad}{}k8s_openapi::{}! {{\n",
                "    ".repeat(depth),
                macro_name(arg)
            ));
        }
        let extra = "    ".repeat(args.len());
        for inner_line in inner.lines() {
            if !inner_line.is_empty() {
                out.push_str(&extra);
                out.push_str(inner_line);
            }
            out.push('\n');
        }
        for depth in (0..args.len()).rev() {
            out.push_str(&format!("{pad}{}}}\n", "    ".repeat(depth)));
        }
        index = next;
    }
    Ok(())
}

/// For a line `    #[k8s_gate(ge_1_34, le_1_36)]`, returns the indent and the arguments.
fn parse_marker(line: &str) -> Option<(usize, Vec<String>)> {
    let trimmed = line.trim_start();
    let indent = line.len() - trimmed.len();
    let args =
        trimmed.strip_prefix("#[")?.strip_prefix(MARKER)?.strip_prefix('(')?.strip_suffix(")]")?;
    let args: Vec<String> = args.split(',').map(|a| a.trim().to_owned()).collect();
    if args.iter().any(|a| a.is_empty()) {
        return None;
    }
    Some((indent, args))
}

/// The index of the last line of the item starting at `start`: the first line after which
/// brackets balance and which ends with `;` or `}`. Comment lines and string literals are
/// skipped when counting brackets.
fn item_end(lines: &[&str], start: usize) -> Option<usize> {
    let mut depth: i64 = 0;
    for (index, line) in lines.iter().enumerate().skip(start) {
        let trimmed = line.trim();
        if trimmed.starts_with("//") {
            continue;
        }
        depth += bracket_balance(trimmed);
        if depth == 0 && (trimmed.ends_with(';') || trimmed.ends_with('}')) {
            return Some(index);
        }
    }
    None
}

fn bracket_balance(line: &str) -> i64 {
    let mut balance = 0;
    let mut in_string = false;
    let mut escaped = false;
    for c in line.chars() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '(' | '[' => balance += 1,
            '}' | ')' | ']' => balance -= 1,
            _ => {}
        }
    }
    balance
}

/// `items` for Kubernetes `latest` only, and `otherwise` for every older version: the
/// body of a generated file that holds code for k8s-openapi's latest module alone.
pub fn latest_only(latest: KubeVersion, items: &str, otherwise: &str) -> String {
    let minor = latest.minor;
    let previous = minor.saturating_sub(1);
    format!(
        "k8s_openapi::k8s_if_1_{minor}! {{\n{items}}}\nk8s_openapi::k8s_if_le_1_{previous}! {{\n{otherwise}\n}}\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn versions(minors: &[u32]) -> BTreeSet<KubeVersion> {
        minors.iter().map(|&minor| KubeVersion { minor }).collect()
    }

    fn v(minor: u32) -> KubeVersion {
        KubeVersion { minor }
    }

    #[test]
    fn present_everywhere_needs_no_gate() {
        let all = versions(&[33, 34, 35, 36, 37]);
        assert_eq!(gating(&all, &all), Gating::Always);
        // Relative to an already gated scope.
        assert_eq!(gating(&versions(&[35, 36, 37]), &versions(&[35, 36, 37])), Gating::Always);
    }

    #[test]
    fn ranges_use_the_loosest_macros() {
        let all = versions(&[33, 34, 35, 36, 37]);
        assert_eq!(
            gating(&versions(&[34, 35, 36, 37]), &all),
            Gating::Alternatives(vec![vec![Condition::AtLeast(v(34))]])
        );
        assert_eq!(
            gating(&versions(&[33, 34]), &all),
            Gating::Alternatives(vec![vec![Condition::AtMost(v(34))]])
        );
        assert_eq!(
            gating(&versions(&[34, 35]), &all),
            Gating::Alternatives(vec![vec![Condition::AtLeast(v(34)), Condition::AtMost(v(35))]])
        );
        assert_eq!(
            gating(&versions(&[35]), &all),
            Gating::Alternatives(vec![vec![Condition::Exactly(v(35))]])
        );
        // Inside a scope of 1.34+, a resource of 1.35+ needs only ge_1_35.
        assert_eq!(
            gating(&versions(&[35, 36, 37]), &versions(&[34, 35, 36, 37])),
            Gating::Alternatives(vec![vec![Condition::AtLeast(v(35))]])
        );
    }

    #[test]
    fn gaps_become_disjoint_alternatives() {
        let all = versions(&[33, 34, 35, 36, 37]);
        assert_eq!(
            gating(&versions(&[33, 36, 37]), &all),
            Gating::Alternatives(vec![
                vec![Condition::AtMost(v(33))],
                vec![Condition::AtLeast(v(36))]
            ])
        );
    }

    #[test]
    fn markers_become_nested_macros_around_the_item() {
        let formatted = "\
mod a;
#[k8s_gate(ge_1_34)]
mod b;
#[k8s_gate(ge_1_34)]
pub use b::{B, BLister};
impl Version {
    pub fn a(&self) {}
    #[k8s_gate(ge_1_34, le_1_36)]
    /// Doc with a brace { and \"quote }\".
    pub fn b(
        &self,
    ) -> B {
        let s = \"}}}\";
        B
    }
}
";
        let expected = "\
mod a;
k8s_openapi::k8s_if_ge_1_34! {
    mod b;
    pub use b::{B, BLister};
}
impl Version {
    pub fn a(&self) {}
    k8s_openapi::k8s_if_ge_1_34! {
        k8s_openapi::k8s_if_le_1_36! {
            /// Doc with a brace { and \"quote }\".
            pub fn b(
                &self,
            ) -> B {
                let s = \"}}}\";
                B
            }
        }
    }
}
";
        assert_eq!(apply_gates(formatted).unwrap(), expected);
    }

    #[test]
    fn exact_versions_use_the_unprefixed_macro() {
        assert_eq!(Condition::Exactly(v(35)).marker_arg(), "eq_1_35");
        assert_eq!(macro_name("eq_1_35"), "k8s_if_1_35");
        assert_eq!(macro_name("ge_1_34"), "k8s_if_ge_1_34");
        assert_eq!(
            apply_gates("#[k8s_gate(eq_1_35)]\nmod a;\n").unwrap(),
            "k8s_openapi::k8s_if_1_35! {\n    mod a;\n}\n"
        );
    }

    #[test]
    fn an_unterminated_item_is_an_error() {
        let err = apply_gates("fn a() {}\n#[k8s_gate(ge_1_34)]\nfn b() {\n").unwrap_err();
        assert!(matches!(err, Error::Unterminated { line: 2 }), "{err:?}");
    }
}
