//! Label selectors in kubectl syntax: [`parse`] turns `app=web,tier in (a,b),!canary` into a
//! [`kube::core::Selector`] (apimachinery's `labels.Parse`).
//!
//! The grammar, as apimachinery's:
//!
//! ```text
//! <selector>    ::= "" | <requirement> | <requirement> "," <selector>
//! <requirement> ::= [!] KEY [ <set-based> | <exact-match> ]
//! <set-based>   ::= ("in" | "notin") "(" VALUE { "," VALUE } ")"
//! <exact-match> ::= ("=" | "==" | "!=") VALUE
//! ```
//!
//! KEY is a qualified name: an optional DNS-subdomain prefix and `/`, then a name of at most
//! 63 characters from `[-_.A-Za-z0-9]` that starts and ends with an alphanumeric. VALUE is
//! empty or follows the name rule. Whitespace (space, tab, CR, LF) around tokens is ignored.
//! `in`/`notin` sets may hold empty values (`x in (a,)`). The numeric operators `>` and `<`
//! that apimachinery also accepts have no [`Expression`] counterpart and are refused.
//!
//! Requirements come out sorted by key, as apimachinery sorts them.

mod error;
mod lex;
mod parser;
#[cfg(test)]
mod tests;
mod validate;

use kube::core::{Expression, Selector};

pub use error::{ParseError, Result};
use parser::Parser;

/// Parses a label selector in kubectl syntax; the empty string selects everything.
///
/// ```
/// use std::collections::BTreeMap;
/// use kube::core::SelectorExt;
/// use kube_informers_runtime::labels;
///
/// let selector = labels::parse("app=web, tier in (a,b), !canary")?;
/// let labels = BTreeMap::from([
///     ("app".to_owned(), "web".to_owned()),
///     ("tier".to_owned(), "b".to_owned()),
/// ]);
/// assert!(selector.matches(&labels));
/// assert_eq!(selector.to_string(), "app=web,!canary,tier in (a,b)");
///
/// let error = labels::parse("app=web tier=a").unwrap_err();
/// assert_eq!(error.to_string(), "found 'tier' at position 8, expected ',' or end of string");
/// # Ok::<(), labels::ParseError>(())
/// ```
pub fn parse(selector: &str) -> Result<Selector> {
    let mut requirements = Parser::new(selector).parse()?;
    requirements.sort_by(|a, b| expression_key(a).cmp(expression_key(b)));
    Ok(requirements.into_iter().collect())
}

fn expression_key(expression: &Expression) -> &str {
    match expression {
        Expression::In(key, _)
        | Expression::NotIn(key, _)
        | Expression::Equal(key, _)
        | Expression::NotEqual(key, _)
        | Expression::Exists(key)
        | Expression::DoesNotExist(key) => key,
    }
}
