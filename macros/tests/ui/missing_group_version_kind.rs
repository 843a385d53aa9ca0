use kube_informers_macros::Informer;

// Every missing key is reported, not just the first.
#[derive(Informer)]
#[informer(plural = "foos", namespaced)]
pub struct Foo {
    replicas: u32,
}

#[derive(Informer)]
#[kube(group = "example.com", shortname = "b")]
pub struct BarSpec {
    replicas: u32,
}

// Neither #[kube] nor #[informer]: nothing to go on.
#[derive(Informer)]
pub struct BazSpec {
    replicas: u32,
}

fn main() {}
