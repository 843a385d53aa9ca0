//! `#[derive(Informer)]`: typed informers and listers for custom resources, shaped like the
//! generated built-ins of `kube-informers`.
//!
//! Use it through `kube_informers::Informer` (feature `derive`, on by default); the
//! generated code names everything through `kube_informers`, so no other dependency is
//! needed.
#![forbid(unsafe_code)]

mod ast;
mod attr;
mod errors;
mod expand;
mod naming;
mod resource;
mod valid;

#[cfg(test)]
mod expand_snapshots;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Generates `FooInformer`, `FooLister` and, for namespaced kinds, `FooNamespaceLister` for
/// a custom resource `Foo`.
///
/// Put it on the spec struct next to kube's `#[derive(CustomResource)]`: it reads `group`,
/// `version`, `kind`, `plural`, `singular`, `root` and `namespaced` from `#[kube(...)]`
/// and ignores kube's other keys. On a hand-written type that implements `kube::Resource`,
/// give the same facts with `#[informer(group = "...", version = "...", kind = "...",
/// plural = "...", namespaced, root = "...")]`; both attributes may be used together as
/// long as they agree.
///
/// ```ignore
/// use std::time::Duration;
/// use kube::CustomResource;
/// use kube_informers::{Informer, Selector, SharedInformerFactory};
/// use schemars::JsonSchema;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(CustomResource, Informer, Clone, Debug, Deserialize, Serialize, JsonSchema)]
/// #[kube(group = "example.com", version = "v1", kind = "Foo", namespaced)]
/// pub struct FooSpec {
///     replicas: u32,
/// }
///
/// # async fn doc(client: kube::Client) {
/// let factory = SharedInformerFactory::new(client, Duration::ZERO);
/// let foos = FooInformer::new(&factory);
/// let informer = foos.informer(); // the factory's one watch of `Foo`
/// factory.start();
/// factory.wait_for_cache_sync().await;
/// let web: Option<std::sync::Arc<Foo>> = foos.lister().foos("prod").get("web");
/// let all = foos.lister().list(&Selector::default());
/// # let _ = (informer, web, all);
/// # }
/// ```
///
/// (The same example is compiled as a doctest in the `kube-informers` crate docs; the UI
/// tests here must not depend on that crate, so it is not compiled here.)
///
/// # What it generates
///
/// For a root type `Foo` (the kind, or `root = "..."`), with the struct's visibility:
///
/// - `FooInformer::new(&factory)`, then `informer()` (the factory's shared
///   `SharedIndexInformer<Foo>`: every user of `Foo` in that factory shares one watch) and
///   `lister()`; `FooInformer::new_filtered(client, namespace, resync, indexers, tweak)`
///   builds an informer outside any factory.
/// - `FooLister::new(indexer)` with `list(&selector)`, plus `foos(namespace)` returning a
///   `FooNamespaceLister { list, get }` for namespaced kinds, or `get(name)` for
///   cluster-scoped ones.
///
/// The namespace accessor is the plural in snake case, split where the kind's words split:
/// kind `CronTab` with plural `crontabs` gives `cron_tabs(namespace)`. Without `plural`,
/// the plural is kube's (`kind` lowercased plus `s`, `es` or `ies`), so it always matches
/// the URL kube's `CustomResource` uses.
///
/// A compile-time check makes sure the declared scope matches the root type's
/// `kube::Resource::Scope`.
///
/// The generated code names everything through `::kube_informers`. If the dependency is
/// renamed (`ki = { package = "kube-informers", ... }`) or reached through a re-export,
/// say where with `#[informer(crate = "ki")]` (any path, such as `"crate::deps::ki"`),
/// as serde's `#[serde(crate = "...")]` does.
///
/// # Errors
///
/// Every mistake is reported at once, each at the place it was made: the derive on an
/// enum or union, a missing `group`, `version` or `kind`, `#[kube]` and `#[informer]`
/// values that disagree, an unknown `#[informer]` key, and a `crate` that is not a path.
#[proc_macro_derive(Informer, attributes(kube, informer))]
pub fn derive_informer(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}
