//! `labels::parse`: kubectl selector syntax into `kube::core::Selector`.

use std::collections::BTreeSet;

use kube::core::{Expression, Selector};
use kube_informers_runtime::labels::{self, ParseError};

fn set(values: &[&str]) -> BTreeSet<String> {
    values.iter().map(|v| (*v).to_owned()).collect()
}

fn selector(expressions: Vec<Expression>) -> Selector {
    expressions.into_iter().collect()
}

fn exists(key: &str) -> Expression {
    Expression::Exists(key.into())
}

fn is_in(key: &str, values: &[&str]) -> Expression {
    Expression::In(key.into(), set(values))
}

fn not_in(key: &str, values: &[&str]) -> Expression {
    Expression::NotIn(key.into(), set(values))
}

fn equal(key: &str, value: &str) -> Expression {
    Expression::Equal(key.into(), value.into())
}

fn not_equal(key: &str, value: &str) -> Expression {
    Expression::NotEqual(key.into(), value.into())
}

// apimachinery: selector_test.go TestSelectorParse (good strings round-trip without blanks;
// `x>1` and `x>1,z<5` are apimachinery-only numeric operators, refused here)
#[test]
fn selector_parse_round_trips() {
    let good = ["x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x"];
    for input in good {
        let parsed = labels::parse(input).unwrap_or_else(|e| panic!("{input:?}: {e}"));
        assert_eq!(parsed.to_string(), input.replace(' ', ""), "{input:?}");
    }
    let bad = ["x=a||y=b", "x==a==b", "!x=a", "x<a", "x>1", "x>1,z<5"];
    for input in bad {
        assert!(labels::parse(input).is_err(), "{input:?} must not parse");
    }
}

#[test]
fn double_equals_means_equals() {
    assert_eq!(labels::parse("x==a").unwrap(), selector(vec![equal("x", "a")]));
    assert_eq!(labels::parse("x == a").unwrap().to_string(), "x=a");
}

#[test]
fn empty_and_blank_selectors_select_everything() {
    for input in ["", "   ", "\t\r\n"] {
        let parsed = labels::parse(input).unwrap();
        assert!(parsed.selects_all(), "{input:?}");
        assert_eq!(parsed, Selector::default());
    }
}

// apimachinery: selector_test.go TestSetSelectorParser (valid inputs and their
// requirements; requirements come out sorted by key)
#[test]
fn set_selector_parser_valid() {
    let cases: Vec<(&str, Vec<Expression>)> = vec![
        ("\rx", vec![exists("x")]),
        (
            "this-is-a-dns.domain.com/key-with-dash",
            vec![exists("this-is-a-dns.domain.com/key-with-dash")],
        ),
        (
            "this-is-another-dns.domain.com/key-with-dash in (so,what)",
            vec![is_in("this-is-another-dns.domain.com/key-with-dash", &["so", "what"])],
        ),
        (
            "0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
            vec![not_in("0.1.2.domain/99", &["10.10.100.1", "tick.tack.clock"])],
        ),
        ("foo  in\t (abc)", vec![is_in("foo", &["abc"])]),
        ("x notin\n (abc)", vec![not_in("x", &["abc"])]),
        ("x  notin\t\t\t(abc,def)", vec![not_in("x", &["abc", "def"])]),
        ("x in (abc,def)", vec![is_in("x", &["abc", "def"])]),
        ("x in (abc,)", vec![is_in("x", &["abc", ""])]),
        ("x in (abc,abc)", vec![is_in("x", &["abc"])]),
        ("x in ()", vec![is_in("x", &[""])]),
        ("x in (a,,)", vec![is_in("x", &["a", ""])]),
        ("x in (a,,,)", vec![is_in("x", &["a", ""])]),
        ("x in (a,,,,,,)", vec![is_in("x", &["a", ""])]),
        ("x in (a,,a,,a,,a,,)", vec![is_in("x", &["a", ""])]),
        (
            "x notin (abc,,def),bar,z in (),w",
            vec![exists("bar"), exists("w"), not_in("x", &["abc", "", "def"]), is_in("z", &[""])],
        ),
        ("x,y in (a)", vec![exists("x"), is_in("y", &["a"])]),
        ("x=a", vec![equal("x", "a")]),
        ("x=a,y!=b", vec![equal("x", "a"), not_equal("y", "b")]),
        (
            "x=a,y!=b,z in (h,i,j)",
            vec![equal("x", "a"), not_equal("y", "b"), is_in("z", &["h", "i", "j"])],
        ),
        ("x notin ( )", vec![not_in("x", &[""])]),
        ("x notin (, a)", vec![not_in("x", &["", "a"])]),
        ("a ", vec![exists("a")]),
        // `in` and `notin` are plain values inside a value list.
        ("a in (x,y,notin, z,in)", vec![is_in("a", &["in", "notin", "x", "y", "z"])]),
        // ...and as exact-match keys and values (apimachinery TestSelectorMatches).
        ("notin=in", vec![equal("notin", "in")]),
    ];
    for (input, expected) in cases {
        let parsed = labels::parse(input).unwrap_or_else(|e| panic!("{input:?}: {e}"));
        assert_eq!(parsed, selector(expected), "{input:?}");
    }
}

// apimachinery: selector_test.go TestSetSelectorParser (invalid inputs)
#[test]
fn set_selector_parser_invalid() {
    for input in [
        "x=a||y=b",
        "x,,y",
        ",x,y",
        "x nott in (y)",
        "a in (xyz),",
        "a in (xyz)b notin ()",
        "a in (xyz abc)",
        "a notin(",
        "a (",
        "(",
    ] {
        assert!(labels::parse(input).is_err(), "{input:?} must not parse");
    }
}

fn unexpected(position: usize, found: &str, expected: &str) -> ParseError {
    ParseError::UnexpectedToken {
        position,
        found: found.to_owned(),
        expected: match expected {
            "sep" => "',' or end of string",
            "after-comma" => "'!' or identifier after ','",
            "start" => "'!', identifier or end of string",
            "identifier" => "identifier",
            "operator" => "one of 'in', 'notin', '=', '==', '!='",
            "open" => "'('",
            "close" => "')'",
            "list" => "',' or ')'",
            "first-value" => "',', ')' or identifier",
            other => panic!("unknown expectation {other}"),
        },
    }
}

#[test]
fn errors_name_the_token_and_its_position() {
    let cases = [
        ("x==a==b", unexpected(4, "'=='", "sep")),
        ("!x=a", unexpected(2, "'='", "sep")),
        ("x,,y", unexpected(2, "','", "after-comma")),
        (",x,y", unexpected(0, "','", "start")),
        ("a in (xyz),", unexpected(11, "end of string", "after-comma")),
        ("a in (xyz)b notin ()", unexpected(10, "'b'", "sep")),
        ("a in (xyz abc)", unexpected(10, "'abc'", "list")),
        ("a notin(", unexpected(8, "end of string", "first-value")),
        ("a (", unexpected(2, "'('", "operator")),
        ("(", unexpected(0, "'('", "start")),
        ("x nott in (y)", unexpected(2, "'nott'", "operator")),
        ("x in a", unexpected(5, "'a'", "open")),
        ("x in (a", unexpected(7, "end of string", "list")),
        ("x=(", unexpected(2, "'('", "identifier")),
        ("!", unexpected(1, "end of string", "identifier")),
        ("x,!!y", unexpected(3, "'!'", "identifier")),
    ];
    for (input, expected) in cases {
        assert_eq!(labels::parse(input).unwrap_err(), expected, "{input:?}");
    }
    // `|` is no operator: `a||y` is one (invalid) value, as in apimachinery.
    assert!(matches!(
        labels::parse("x=a||y=b"),
        Err(ParseError::InvalidValue { position: 2, ref value, .. }) if value == "a||y"
    ));
    assert_eq!(
        labels::parse("app=web tier=a").unwrap_err().to_string(),
        "found 'tier' at position 8, expected ',' or end of string"
    );
}

#[test]
fn numeric_operators_are_refused_by_name() {
    assert_eq!(
        labels::parse("x=a, y>1").unwrap_err(),
        ParseError::UnsupportedOperator { position: 6, operator: ">" }
    );
    assert_eq!(
        labels::parse("y<1").unwrap_err(),
        ParseError::UnsupportedOperator { position: 1, operator: "<" }
    );
}

// apimachinery: selector_test.go TestRequirementConstructor (key and value validation; the
// operator/value-count cases cannot arise from the grammar)
#[test]
fn keys_and_values_are_validated_like_kubernetes() {
    let long = "a".repeat(254);
    let key_err = |input: &str| match labels::parse(input) {
        Err(ParseError::InvalidKey { key, .. }) => key,
        other => panic!("{input:?}: expected an invalid key, got {other:?}"),
    };
    let value_err = |input: &str| match labels::parse(input) {
        Err(ParseError::InvalidValue { key, value, .. }) => (key, value),
        other => panic!("{input:?}: expected an invalid value, got {other:?}"),
    };

    // x16 / the 254-character key of TestRequirementConstructor.
    assert_eq!(key_err(&long), long);
    assert_eq!(value_err(&format!("x16={long}")), ("x16".to_owned(), long.clone()));
    assert_eq!(value_err(&format!("x16 in (a,{long})")), ("x16".to_owned(), long.clone()));

    // Name part: at most 63 characters, alphanumeric at both ends.
    assert!(labels::parse(&"a".repeat(63)).is_ok());
    assert_eq!(key_err(&"a".repeat(64)), "a".repeat(64));
    for bad in ["-x", "x-", "_x", "x.", "x/y/z", "/x", "x/", "UPPER.com/x", "a..b/x", "ké"] {
        assert_eq!(key_err(bad), bad);
    }
    for good in ["x", "X", "x-y_z.w", "0", "example.com/x", "a-b.c/X_y", "k8s.io/app"] {
        assert!(labels::parse(good).is_ok(), "{good:?}");
    }
    // Prefix: a DNS subdomain of at most 253 characters.
    let prefix = format!("{}.com", "a".repeat(249));
    assert!(labels::parse(&format!("{prefix}/x")).is_ok());
    let too_long = format!("{}.com", "a".repeat(250));
    assert!(matches!(labels::parse(&format!("{too_long}/x")), Err(ParseError::InvalidKey { .. })));

    // Values: empty allowed, at most 63, alphanumeric at both ends.
    assert!(labels::parse(&format!("x={}", "v".repeat(63))).is_ok());
    assert_eq!(value_err(&format!("x={}", "v".repeat(64))).1, "v".repeat(64));
    for bad in ["-v", "v-", ".v", "v_", "a~b", "ü"] {
        assert_eq!(value_err(&format!("x={bad}")).1, bad);
        assert_eq!(value_err(&format!("x notin ({bad})")).1, bad);
    }
}

#[test]
fn error_positions_point_at_the_offending_key_or_value() {
    assert_eq!(
        labels::parse("app=web, -bad").unwrap_err(),
        ParseError::InvalidKey {
            position: 9,
            key: "-bad".into(),
            reason: "the name part must consist of alphanumerics, '-', '_' or '.', and start \
                     and end with an alphanumeric",
        }
    );
    let err = labels::parse("tier in (a, b-)").unwrap_err();
    assert!(matches!(err, ParseError::InvalidValue { position: 12, .. }), "{err:?}");
    assert!(
        err.to_string().starts_with("invalid value \"b-\" for label key \"tier\" at position 12")
    );
}
