use quote::ToTokens;
use syn::{DeriveInput, parse_quote};

use super::*;

fn validated(node: &DeriveInput) -> syn::Result<Resource> {
    let mut errors = Errors::default();
    let input = Input::from_syn(node, &mut errors);
    validate(&input, errors)
}

fn valid(node: DeriveInput) -> Resource {
    validated(&node).unwrap_or_else(|e| panic!("unexpected errors: {e}"))
}

fn messages(node: DeriveInput) -> Vec<String> {
    match validated(&node) {
        Ok(_) => Vec::new(),
        Err(error) => error.into_iter().map(|e| e.to_string()).collect(),
    }
}

fn accessor(resource: &Resource) -> Option<String> {
    match &resource.scope {
        Scope::Namespaced { accessor } => Some(accessor.to_string()),
        Scope::Cluster => None,
    }
}

#[test]
fn a_custom_resource_is_named_after_its_kind_with_kubes_plural() {
    let resource = valid(parse_quote! {
        #[kube(group = "example.com", version = "v1", kind = "CronTab", namespaced)]
        pub struct CronTabSpec { schedule: String }
    });
    assert_eq!(resource.root, "CronTab");
    assert_eq!(resource.plural, "crontabs");
    assert_eq!(resource.api_version(), "example.com/v1");
    assert_eq!(accessor(&resource).as_deref(), Some("cron_tabs"));
    assert_eq!(resource.vis.to_token_stream().to_string(), "pub");
}

#[test]
fn kubes_singular_and_plural_decide_the_plural() {
    let from_singular = valid(parse_quote! {
        #[kube(group = "example.com", version = "v1", kind = "Policy", singular = "polly")]
        struct PolicySpec {}
    });
    assert_eq!(from_singular.plural, "pollies");
    let explicit = valid(parse_quote! {
        #[kube(group = "example.com", version = "v1", kind = "Foot", plural = "feet", namespaced)]
        struct FootSpec {}
    });
    assert_eq!(explicit.plural, "feet");
    assert_eq!(accessor(&explicit).as_deref(), Some("feet"));
    let by_rule = valid(parse_quote! {
        #[kube(group = "example.com", version = "v1", kind = "Gateway")]
        struct GatewaySpec {}
    });
    assert_eq!(by_rule.plural, "gateways");
}

#[test]
fn root_is_kubes_root_or_kind_else_the_annotated_struct() {
    let kube_root = valid(parse_quote! {
        #[kube(group = "example.com", version = "v1", kind = "Foo", root = "FooResource")]
        pub(crate) struct FooSpec {}
    });
    assert_eq!(kube_root.root, "FooResource");
    assert_eq!(kube_root.kind, "Foo");
    assert_eq!(kube_root.vis.to_token_stream().to_string(), "pub (crate)");
    let hand_written = valid(parse_quote! {
        #[informer(group = "example.com", version = "v1", kind = "Foo")]
        pub struct MyFoo { metadata: ObjectMeta }
    });
    assert_eq!(hand_written.root, "MyFoo");
    assert_eq!(hand_written.plural, "foos");
    let elsewhere = valid(parse_quote! {
        #[informer(group = "example.com", version = "v1", kind = "Foo", root = "Foo")]
        pub struct FooSpec {}
    });
    assert_eq!(elsewhere.root, "Foo");
}

#[test]
fn scope_is_cluster_unless_namespaced() {
    let cluster = valid(parse_quote! {
        #[kube(group = "example.com", version = "v1", kind = "Foo")]
        struct FooSpec {}
    });
    assert!(accessor(&cluster).is_none());
    let informer_cluster = valid(parse_quote! {
        #[informer(group = "example.com", version = "v1", kind = "Foo", namespaced = false)]
        struct Foo {}
    });
    assert!(accessor(&informer_cluster).is_none());
    let informer_namespaced = valid(parse_quote! {
        #[informer(group = "", version = "v1", kind = "Pod", plural = "pods", namespaced)]
        struct MyPod {}
    });
    assert_eq!(accessor(&informer_namespaced).as_deref(), Some("pods"));
    assert_eq!(informer_namespaced.api_version(), "v1");
}

#[test]
fn agreeing_attributes_are_accepted() {
    let resource = valid(parse_quote! {
        #[kube(group = "example.com", version = "v1", kind = "Foo", namespaced)]
        #[informer(group = "example.com", kind = "Foo", plural = "foos", namespaced, root = "Foo")]
        struct FooSpec {}
    });
    assert_eq!(resource.root, "Foo");
    assert_eq!(resource.plural, "foos");
    assert_eq!(accessor(&resource).as_deref(), Some("foos"));
}

#[test]
fn every_conflict_is_reported() {
    let errors = messages(parse_quote! {
        #[kube(group = "example.com", version = "v1", kind = "Foo", plural = "foos")]
        #[informer(group = "example.org", version = "v2", kind = "Foo", plural = "fooz", namespaced, root = "Bar")]
        struct FooSpec {}
    });
    assert_eq!(errors.len(), 5, "{errors:#?}");
    for key in ["`group`", "`version`", "`plural`", "scope", "`root`"] {
        assert!(
            errors.iter().any(|e| e.starts_with(&format!("conflicting {key}"))),
            "{key}: {errors:#?}"
        );
    }
}

#[test]
fn every_missing_key_is_reported() {
    let errors = messages(parse_quote! {
        #[informer(namespaced)]
        struct Foo {}
    });
    assert_eq!(errors.len(), 3, "{errors:#?}");
    for key in ["group", "version", "kind"] {
        assert!(errors.iter().any(|e| e.starts_with(&format!("missing `{key} = "))), "{errors:#?}");
    }
}

#[test]
fn the_core_group_may_be_empty_but_version_and_kind_may_not() {
    let errors = messages(parse_quote! {
        #[informer(group = "", version = "", kind = "")]
        struct Foo {}
    });
    assert_eq!(errors, ["`version` must not be empty", "`kind` must not be empty"]);
}

#[test]
fn not_a_struct_is_reported_with_the_other_mistakes() {
    let errors = messages(parse_quote! {
        #[kube(group = "example.com", version = "v1")]
        enum FooSpec { A }
    });
    assert_eq!(errors.len(), 2, "{errors:#?}");
    assert!(errors[0].contains("only supports structs, not enums"));
    assert!(errors[1].starts_with("missing `kind = "));
}

#[test]
fn fallback_root_is_known_only_when_valid() {
    let root = |node: DeriveInput| {
        let input = Input::from_syn(&node, &mut Errors::default());
        fallback_root(&input).map(|ident| ident.to_string())
    };
    assert_eq!(
        root(parse_quote!(
            #[kube(kind = "Foo")]
            struct FooSpec;
        ))
        .as_deref(),
        Some("Foo")
    );
    assert_eq!(
        root(parse_quote!(
            #[kube(kind = "a-b")]
            struct FooSpec;
        )),
        None
    );
    assert_eq!(
        root(parse_quote!(
            #[kube(group = "g")]
            struct FooSpec;
        )),
        None
    );
    assert_eq!(
        root(parse_quote!(
            #[informer(kind = "Foo")]
            struct MyFoo;
        ))
        .as_deref(),
        Some("MyFoo")
    );
}
