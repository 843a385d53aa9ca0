use kube_informers_macros::Informer;

#[derive(Informer)]
#[kube(group = "example.com", version = "v1", kind = "Foo", namespaced)]
#[informer(group = "example.org", version = "v1", kind = "Fob", namespaced = false)]
pub struct FooSpec {
    replicas: u32,
}

// kube derives the plural `bars`; an #[informer] plural must agree with it.
#[derive(Informer)]
#[kube(group = "example.com", version = "v1", kind = "Bar", root = "BarResource")]
#[informer(plural = "barz", root = "Bar")]
pub struct BarSpec {
    replicas: u32,
}

fn main() {}
