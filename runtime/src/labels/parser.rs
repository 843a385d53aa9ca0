//! The recursive-descent parser over the tokens (apimachinery's `Parser`).

use std::collections::BTreeSet;

use kube::core::Expression;

use super::error::{ParseError, Result};
use super::lex::{Token, TokenKind, lex};
use super::validate::{validate_key, validate_value};

/// Whether a token is read as an operator or as a value: `in` and `notin` are plain values
/// where a value may stand (`x in (in,notin)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Context {
    KeyAndOperator,
    Values,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Operator {
    Exists,
    DoesNotExist,
    Equals,
    NotEquals,
    In,
    NotIn,
}

/// A recursive-descent parser over the token list (apimachinery's `Parser`).
pub(super) struct Parser<'a> {
    tokens: Vec<Token<'a>>,
    position: usize,
}

impl<'a> Parser<'a> {
    pub(super) fn new(input: &'a str) -> Self {
        Self { tokens: lex(input), position: 0 }
    }

    pub(super) fn lookahead(&self, context: Context) -> Token<'a> {
        // `lex` always ends with EndOfString, and nothing consumes past it.
        let index = self.position.min(self.tokens.len() - 1);
        Self::in_context(self.tokens[index], context)
    }

    pub(super) fn consume(&mut self, context: Context) -> Token<'a> {
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

    pub(super) fn parse(&mut self) -> Result<Vec<Expression>> {
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
