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

use std::collections::BTreeSet;
use std::fmt;

use kube::core::{Expression, Selector};

/// A selector string that is not valid kubectl syntax. Positions are byte offsets into the
/// parsed string, starting at 0.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// A token where the grammar allows something else.
    #[error("found {found} at position {position}, expected {expected}")]
    UnexpectedToken {
        /// Where the token starts.
        position: usize,
        /// The token, quoted, or `end of string`.
        found: String,
        /// What the grammar allows there.
        expected: &'static str,
    },
    /// A label key that is not a qualified name.
    #[error("invalid label key {key:?} at position {position}: {reason}")]
    InvalidKey {
        /// Where the key starts.
        position: usize,
        /// The key.
        key: String,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// A label value that Kubernetes would not store.
    #[error("invalid value {value:?} for label key {key:?} at position {position}: {reason}")]
    InvalidValue {
        /// Where the value starts.
        position: usize,
        /// The key it is compared with.
        key: String,
        /// The value.
        value: String,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// `>` or `<`: apimachinery's numeric comparisons, which `kube::core::Expression` lacks.
    #[error(
        "operator '{operator}' at position {position} is not supported: \
         label selectors here have no numeric comparisons"
    )]
    UnsupportedOperator {
        /// Where the operator is.
        position: usize,
        /// The operator.
        operator: &'static str,
    },
}

/// The result of parsing a selector.
pub type Result<T, E = ParseError> = std::result::Result<T, E>;

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TokenKind {
    EndOfString,
    ClosedPar,
    Comma,
    DoesNotExist,
    DoubleEquals,
    Equals,
    GreaterThan,
    Identifier,
    In,
    LessThan,
    NotEquals,
    NotIn,
    OpenPar,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Token<'a> {
    kind: TokenKind,
    text: &'a str,
    position: usize,
}

impl fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            TokenKind::EndOfString => f.write_str("end of string"),
            _ => write!(f, "'{}'", self.text),
        }
    }
}

fn is_whitespace(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_special_symbol(byte: u8) -> bool {
    matches!(byte, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
}

/// Splits a selector into tokens, ending with one `EndOfString` (apimachinery's `Lexer`).
/// Operators take the longest match (`!=` over `!`); any run of other non-blank bytes is an
/// identifier, or the keyword `in`/`notin`.
fn lex(input: &str) -> Vec<Token<'_>> {
    let bytes = input.as_bytes();
    let mut tokens = Vec::new();
    let mut pos = 0;
    loop {
        while pos < bytes.len() && is_whitespace(bytes[pos]) {
            pos += 1;
        }
        let start = pos;
        let Some(&first) = bytes.get(pos) else {
            tokens.push(Token { kind: TokenKind::EndOfString, text: "", position: start });
            return tokens;
        };
        let kind = if is_special_symbol(first) {
            let two = bytes.get(pos + 1).copied();
            let (kind, len) = match (first, two) {
                (b'=', Some(b'=')) => (TokenKind::DoubleEquals, 2),
                (b'!', Some(b'=')) => (TokenKind::NotEquals, 2),
                (b'=', _) => (TokenKind::Equals, 1),
                (b'!', _) => (TokenKind::DoesNotExist, 1),
                (b'(', _) => (TokenKind::OpenPar, 1),
                (b')', _) => (TokenKind::ClosedPar, 1),
                (b',', _) => (TokenKind::Comma, 1),
                (b'>', _) => (TokenKind::GreaterThan, 1),
                _ => (TokenKind::LessThan, 1),
            };
            pos += len;
            kind
        } else {
            while pos < bytes.len() && !is_special_symbol(bytes[pos]) && !is_whitespace(bytes[pos])
            {
                pos += 1;
            }
            match &input[start..pos] {
                "in" => TokenKind::In,
                "notin" => TokenKind::NotIn,
                _ => TokenKind::Identifier,
            }
        };
        // Token boundaries are ASCII bytes, so slicing never splits a character.
        tokens.push(Token { kind, text: &input[start..pos], position: start });
    }
}

/// Whether a token is read as an operator or as a value: `in` and `notin` are plain values
/// where a value may stand (`x in (in,notin)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    KeyAndOperator,
    Values,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operator {
    Exists,
    DoesNotExist,
    Equals,
    NotEquals,
    In,
    NotIn,
}

/// A recursive-descent parser over the token list (apimachinery's `Parser`).
struct Parser<'a> {
    tokens: Vec<Token<'a>>,
    position: usize,
}

impl<'a> Parser<'a> {
    fn new(input: &'a str) -> Self {
        Self { tokens: lex(input), position: 0 }
    }

    fn lookahead(&self, context: Context) -> Token<'a> {
        // `lex` always ends with EndOfString, and nothing consumes past it.
        let index = self.position.min(self.tokens.len() - 1);
        Self::in_context(self.tokens[index], context)
    }

    fn consume(&mut self, context: Context) -> Token<'a> {
        let token = self.lookahead(context);
        if token.kind != TokenKind::EndOfString {
            self.position += 1;
        }
        token
    }

    fn in_context(mut token: Token<'a>, context: Context) -> Token<'a> {
        if context == Context::Values && matches!(token.kind, TokenKind::In | TokenKind::NotIn) {
            token.kind = TokenKind::Identifier;
        }
        token
    }

    fn parse(&mut self) -> Result<Vec<Expression>> {
        let mut requirements = Vec::new();
        loop {
            let token = self.lookahead(Context::Values);
            match token.kind {
                TokenKind::Identifier | TokenKind::DoesNotExist => {
                    requirements.push(self.parse_requirement()?);
                    let separator = self.consume(Context::Values);
                    match separator.kind {
                        TokenKind::EndOfString => return Ok(requirements),
                        TokenKind::Comma => {
                            let next = self.lookahead(Context::Values);
                            if !matches!(next.kind, TokenKind::Identifier | TokenKind::DoesNotExist)
                            {
                                return Err(unexpected(next, "'!' or identifier after ','"));
                            }
                        }
                        _ => return Err(unexpected(separator, "',' or end of string")),
                    }
                }
                TokenKind::EndOfString => return Ok(requirements),
                _ => return Err(unexpected(token, "'!', identifier or end of string")),
            }
        }
    }

    fn parse_requirement(&mut self) -> Result<Expression> {
        let (key, inferred) = self.parse_key_and_infer_operator()?;
        let operator = match inferred {
            Some(operator) => operator,
            None => self.parse_operator()?,
        };
        Ok(match operator {
            Operator::Exists => Expression::Exists(key),
            Operator::DoesNotExist => Expression::DoesNotExist(key),
            Operator::Equals => {
                let value = self.parse_exact_value(&key)?;
                Expression::Equal(key, value)
            }
            Operator::NotEquals => {
                let value = self.parse_exact_value(&key)?;
                Expression::NotEqual(key, value)
            }
            Operator::In => {
                let values = self.parse_values(&key)?;
                Expression::In(key, values)
            }
            Operator::NotIn => {
                let values = self.parse_values(&key)?;
                Expression::NotIn(key, values)
            }
        })
    }

    /// Reads `[!] KEY`; the operator is known already for `!KEY` and for a bare `KEY`.
    fn parse_key_and_infer_operator(&mut self) -> Result<(String, Option<Operator>)> {
        let mut token = self.consume(Context::Values);
        let negated = token.kind == TokenKind::DoesNotExist;
        if negated {
            token = self.consume(Context::Values);
        }
        if token.kind != TokenKind::Identifier {
            return Err(unexpected(token, "identifier"));
        }
        validate_key(token.text).map_err(|reason| ParseError::InvalidKey {
            position: token.position,
            key: token.text.to_owned(),
            reason,
        })?;
        let operator = if negated {
            // `!key` takes no operator; anything after it is reported by the caller.
            Some(Operator::DoesNotExist)
        } else if matches!(
            self.lookahead(Context::Values).kind,
            TokenKind::EndOfString | TokenKind::Comma
        ) {
            Some(Operator::Exists)
        } else {
            None
        };
        Ok((token.text.to_owned(), operator))
    }

    fn parse_operator(&mut self) -> Result<Operator> {
        let token = self.consume(Context::KeyAndOperator);
        match token.kind {
            TokenKind::In => Ok(Operator::In),
            TokenKind::NotIn => Ok(Operator::NotIn),
            TokenKind::Equals | TokenKind::DoubleEquals => Ok(Operator::Equals),
            TokenKind::NotEquals => Ok(Operator::NotEquals),
            TokenKind::GreaterThan => {
                Err(ParseError::UnsupportedOperator { position: token.position, operator: ">" })
            }
            TokenKind::LessThan => {
                Err(ParseError::UnsupportedOperator { position: token.position, operator: "<" })
            }
            _ => Err(unexpected(token, "one of 'in', 'notin', '=', '==', '!='")),
        }
    }

    /// Reads `( VALUE, ... )`. An empty slot between commas or parentheses is the empty
    /// value, so `()` and `(a,)` hold `""`.
    fn parse_values(&mut self, key: &str) -> Result<BTreeSet<String>> {
        let open = self.consume(Context::Values);
        if open.kind != TokenKind::OpenPar {
            return Err(unexpected(open, "'('"));
        }
        let mut values = BTreeSet::new();
        let first = self.lookahead(Context::Values);
        match first.kind {
            TokenKind::Identifier | TokenKind::Comma => {
                self.parse_identifiers_list(key, &mut values)?
            }
            TokenKind::ClosedPar => {
                values.insert(String::new());
            }
            _ => return Err(unexpected(first, "',', ')' or identifier")),
        }
        let close = self.consume(Context::Values);
        if close.kind != TokenKind::ClosedPar {
            return Err(unexpected(close, "')'"));
        }
        Ok(values)
    }

    /// Reads a comma-separated list of possibly empty values, up to (not including) `)`.
    fn parse_identifiers_list(&mut self, key: &str, values: &mut BTreeSet<String>) -> Result<()> {
        loop {
            let token = self.consume(Context::Values);
            match token.kind {
                TokenKind::Identifier => {
                    values.insert(validated_value(key, token)?);
                    let next = self.lookahead(Context::Values);
                    match next.kind {
                        TokenKind::Comma => {}
                        TokenKind::ClosedPar => return Ok(()),
                        _ => return Err(unexpected(next, "',' or ')'")),
                    }
                }
                TokenKind::Comma => {
                    // `(,`, `,,` and `,)` each leave an empty value.
                    if values.is_empty() {
                        values.insert(String::new());
                    }
                    match self.lookahead(Context::Values).kind {
                        TokenKind::ClosedPar => {
                            values.insert(String::new());
                            return Ok(());
                        }
                        TokenKind::Comma => {
                            values.insert(String::new());
                        }
                        _ => {}
                    }
                }
                _ => return Err(unexpected(token, "',' or identifier")),
            }
        }
    }

    /// Reads the single value after `=`, `==` or `!=`; nothing before `,` or the end is
    /// the empty value.
    fn parse_exact_value(&mut self, key: &str) -> Result<String> {
        if matches!(self.lookahead(Context::Values).kind, TokenKind::EndOfString | TokenKind::Comma)
        {
            return Ok(String::new());
        }
        let token = self.consume(Context::Values);
        if token.kind != TokenKind::Identifier {
            return Err(unexpected(token, "identifier"));
        }
        validated_value(key, token)
    }
}

fn unexpected(token: Token<'_>, expected: &'static str) -> ParseError {
    ParseError::UnexpectedToken { position: token.position, found: token.to_string(), expected }
}

fn validated_value(key: &str, token: Token<'_>) -> Result<String> {
    validate_value(token.text).map_err(|reason| ParseError::InvalidValue {
        position: token.position,
        key: key.to_owned(),
        value: token.text.to_owned(),
        reason,
    })?;
    Ok(token.text.to_owned())
}

const MAX_NAME_LENGTH: usize = 63;
const MAX_DNS_SUBDOMAIN_LENGTH: usize = 253;

/// A label key: a qualified name, `[prefix/]name` (apimachinery's `IsQualifiedName`).
fn validate_key(key: &str) -> std::result::Result<(), &'static str> {
    let (prefix, name) = match key.split_once('/') {
        None => (None, key),
        Some((_, name)) if name.contains('/') => {
            return Err("a qualified name has at most one '/', between a DNS subdomain prefix \
                        and a name");
        }
        Some((prefix, name)) => (Some(prefix), name),
    };
    if let Some(prefix) = prefix {
        if prefix.is_empty() {
            return Err("the prefix before '/' must be non-empty");
        }
        if prefix.len() > MAX_DNS_SUBDOMAIN_LENGTH {
            return Err("the prefix before '/' must be no more than 253 characters");
        }
        if !is_dns1123_subdomain(prefix) {
            return Err("the prefix before '/' must be a lowercase RFC 1123 subdomain: lowercase \
                        alphanumerics, '-' or '.', starting and ending each label with an \
                        alphanumeric");
        }
    }
    if name.is_empty() {
        return Err("the name part must be non-empty");
    }
    if name.len() > MAX_NAME_LENGTH {
        return Err("the name part must be no more than 63 characters");
    }
    if !is_name(name) {
        return Err("the name part must consist of alphanumerics, '-', '_' or '.', and start \
                    and end with an alphanumeric");
    }
    Ok(())
}

/// A label value: empty, or a name of at most 63 characters (apimachinery's
/// `IsValidLabelValue`).
fn validate_value(value: &str) -> std::result::Result<(), &'static str> {
    if value.len() > MAX_NAME_LENGTH {
        return Err("a label value must be no more than 63 characters");
    }
    if !value.is_empty() && !is_name(value) {
        return Err("a label value must be empty or consist of alphanumerics, '-', '_' or '.', \
                    and start and end with an alphanumeric");
    }
    Ok(())
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
fn is_name(s: &str) -> bool {
    let bytes = s.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`
fn is_dns1123_subdomain(s: &str) -> bool {
    let is_lower_alphanumeric = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    s.split('.').all(|label| {
        let bytes = label.as_bytes();
        match (bytes.first(), bytes.last()) {
            (Some(first), Some(last)) => {
                is_lower_alphanumeric(first)
                    && is_lower_alphanumeric(last)
                    && bytes.iter().all(|b| is_lower_alphanumeric(b) || *b == b'-')
            }
            _ => false,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(input: &str) -> Vec<TokenKind> {
        lex(input).into_iter().map(|t| t.kind).collect()
    }

    // apimachinery: selector_test.go TestLexer
    #[test]
    fn lexer_single_tokens() {
        use TokenKind::*;
        let cases = [
            ("", EndOfString),
            (",", Comma),
            ("notin", NotIn),
            ("in", In),
            ("=", Equals),
            ("==", DoubleEquals),
            (">", GreaterThan),
            ("<", LessThan),
            // The longest valid token wins.
            ("!", DoesNotExist),
            ("!=", NotEquals),
            ("(", OpenPar),
            (")", ClosedPar),
            // Non-special characters belong to identifiers.
            ("~", Identifier),
            ("||", Identifier),
        ];
        for (input, kind) in cases {
            let first = lex(input)[0];
            assert_eq!(first.kind, kind, "{input:?}");
            assert_eq!(first.text, input, "{input:?}");
            assert_eq!(first.position, 0, "{input:?}");
        }
    }

    // apimachinery: selector_test.go TestLexerSequence and TestParserLookahead
    #[test]
    fn lexer_sequences() {
        use TokenKind::*;
        let cases: &[(&str, &[TokenKind])] = &[
            ("key in ( value )", &[Identifier, In, OpenPar, Identifier, ClosedPar]),
            ("key notin ( value )", &[Identifier, NotIn, OpenPar, Identifier, ClosedPar]),
            (
                "key in ( value1, value2 )",
                &[Identifier, In, OpenPar, Identifier, Comma, Identifier, ClosedPar],
            ),
            ("key", &[Identifier]),
            ("!key", &[DoesNotExist, Identifier]),
            ("()", &[OpenPar, ClosedPar]),
            ("", &[]),
            ("x in (),y", &[Identifier, In, OpenPar, ClosedPar, Comma, Identifier]),
            (
                "== != (), = notin",
                &[DoubleEquals, NotEquals, OpenPar, ClosedPar, Comma, Equals, NotIn],
            ),
            ("key>2", &[Identifier, GreaterThan, Identifier]),
            ("key<1", &[Identifier, LessThan, Identifier]),
        ];
        for (input, expected) in cases {
            let mut expected = expected.to_vec();
            expected.push(EndOfString);
            assert_eq!(kinds(input), expected, "{input:?}");
        }
    }

    #[test]
    fn lexer_positions_are_byte_offsets() {
        let tokens = lex("  ab !=\tcd");
        let positions: Vec<_> = tokens.iter().map(|t| (t.text, t.position)).collect();
        assert_eq!(positions, [("ab", 2), ("!=", 5), ("cd", 8), ("", 10)]);
    }

    #[test]
    fn lexer_keeps_non_ascii_in_identifiers() {
        let tokens = lex("ké=v");
        assert_eq!(tokens[0].text, "ké");
        assert_eq!(tokens[1].position, 3);
    }

    // apimachinery: selector_test.go TestParserLookahead (lookahead never advances, consume
    // does, and neither moves past the end)
    #[test]
    fn lookahead_and_consume_agree() {
        let mut parser = Parser::new("key in ( value )");
        loop {
            let peeked = parser.lookahead(Context::KeyAndOperator);
            let consumed = parser.consume(Context::KeyAndOperator);
            assert_eq!(peeked, consumed);
            if consumed.kind == TokenKind::EndOfString {
                break;
            }
        }
        assert_eq!(parser.consume(Context::Values).kind, TokenKind::EndOfString);
        assert_eq!(Parser::new("in").lookahead(Context::Values).kind, TokenKind::Identifier);
        assert_eq!(Parser::new("in").lookahead(Context::KeyAndOperator).kind, TokenKind::In);
    }

    #[test]
    fn dns_subdomain_rule() {
        for good in ["a", "a.b", "0.1.2.domain", "this-is-a-dns.domain.com", "k8s.io"] {
            assert!(is_dns1123_subdomain(good), "{good}");
        }
        for bad in ["", "A.b", "a..b", ".a", "a.", "-a", "a-", "a_b"] {
            assert!(!is_dns1123_subdomain(bad), "{bad}");
        }
    }
}
