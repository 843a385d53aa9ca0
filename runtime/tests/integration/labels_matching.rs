//! Selectors from `labels::parse` select the label sets Kubernetes would.

use std::collections::BTreeMap;

use kube::core::SelectorExt;
use kube_informers_runtime::labels;

fn labels_of(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
}

fn matches(selector: &str, pairs: &[(&str, &str)]) -> bool {
    labels::parse(selector)
        .unwrap_or_else(|e| panic!("{selector:?}: {e}"))
        .matches(&labels_of(pairs))
}

// apimachinery: selector_test.go TestSelectorMatches (the `>`/`<` cases have no
// counterpart here)
#[test]
fn selector_matches() {
    assert!(matches("", &[("x", "y")]));
    assert!(matches("x=y", &[("x", "y")]));
    assert!(matches("x=y,z=w", &[("x", "y"), ("z", "w")]));
    assert!(matches("x!=y,z!=w", &[("x", "z"), ("z", "a")]));
    assert!(matches("notin=in", &[("notin", "in")]));
    assert!(matches("x", &[("x", "z")]));
    assert!(matches("!x", &[("y", "z")]));
    assert!(!matches("x=z", &[]));
    assert!(!matches("x=y", &[("x", "z")]));
    assert!(!matches("x=y,z=w", &[("x", "w"), ("z", "w")]));
    assert!(!matches("x!=y,z!=w", &[("x", "z"), ("z", "w")]));
    assert!(!matches("x", &[("y", "z")]));
    assert!(!matches("!x", &[("x", "z")]));

    let set = [("foo", "bar"), ("baz", "blah")];
    assert!(matches("foo=bar", &set));
    assert!(matches("baz=blah", &set));
    assert!(matches("foo=bar,baz=blah", &set));
    assert!(!matches("foo=blah", &set));
    assert!(!matches("baz=bar", &set));
    assert!(!matches("foo=bar,foobar=bar,baz=blah", &set));
}

// apimachinery: selector_test.go TestRequirementSelectorMatching, written as selector strings
#[test]
fn requirement_selector_matching() {
    let xy = [("x", "foo"), ("y", "baz")];
    assert!(matches("x in (foo),y notin (alpha)", &xy));
    assert!(!matches("x in (foo),y in (alpha)", &xy));
    assert!(matches("x notin (),y", &[("y", "")]));
    assert!(matches("!x,y", &[("y", "")]));
    assert!(!matches("x notin (),!y", &[("y", "")]));
    assert!(!matches("x in ()", &[("y", "baz")]));
}

#[test]
fn set_based_requirements() {
    let labels = [("app", "web"), ("tier", "b"), ("empty", "")];
    assert!(matches("app=web,tier in (a,b)", &labels));
    assert!(!matches("app=web,tier in (a,c)", &labels));
    assert!(matches("tier notin (a,c)", &labels));
    assert!(!matches("tier notin (b)", &labels));
    assert!(matches("missing notin (b)", &labels), "notin matches an absent key");
    assert!(!matches("missing in (b)", &labels));
    assert!(matches("missing!=b", &labels), "!= matches an absent key");
    assert!(matches("empty=", &labels));
    assert!(matches("empty in (,x)", &labels));
    assert!(!matches("missing=", &labels), "= with an empty value needs the key");
    assert!(matches("app, !canary", &labels));
    assert!(!matches("app, !tier", &labels));
}
