//! Splitting a selector string into tokens (apimachinery's `Lexer`).

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TokenKind {
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
pub(super) struct Token<'a> {
    pub(super) kind: TokenKind,
    pub(super) text: &'a str,
    pub(super) position: usize,
}

impl fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            TokenKind::EndOfString => f.write_str("end of string"),
            _ => write!(f, "'{}'", self.text),
        }
    }
}

pub(super) fn is_whitespace(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_special_symbol(byte: u8) -> bool {
    matches!(byte, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
}

/// Splits a selector into tokens, ending with one `EndOfString` (apimachinery's `Lexer`).
/// Operators take the longest match (`!=` over `!`); any run of other non-blank bytes is an
/// identifier, or the keyword `in`/`notin`.
pub(super) fn lex(input: &str) -> Vec<Token<'_>> {
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
