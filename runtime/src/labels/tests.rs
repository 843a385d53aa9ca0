//! The lexer, parser and validation cases of apimachinery's `selector_test.go`.

use super::lex::{TokenKind, lex};
use super::parser::{Context, Parser};
use super::validate::is_dns1123_subdomain;

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
        ("== != (), = notin", &[DoubleEquals, NotEquals, OpenPar, ClosedPar, Comma, Equals, NotIn]),
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
