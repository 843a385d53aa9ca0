use kube_informers_macros::Informer;

// kube's own keys are fine in #[kube(...)] but unknown in #[informer(...)].
#[derive(Informer)]
#[informer(group = "example.com", version = "v1", shortname = "f", kind = "Foo", status(x), singular = "foo")]
pub struct Foo {
    replicas: u32,
}

fn main() {}
