use kube_informers_macros::Informer;

#[derive(Informer)]
#[informer(group = "example.com", version = 1, kind = "Foo", kind = "Foo")]
pub struct Foo {
    replicas: u32,
}

#[derive(Informer)]
#[informer(group = "example.com", version = "", kind = "", namespaced = "yes")]
pub struct Bar {
    replicas: u32,
}

#[derive(Informer)]
#[kube(group = "example.com", version = "v1", kind = "foo-bar")]
pub struct FooBarSpec {
    replicas: u32,
}

#[derive(Informer)]
#[informer(group = "example.com", version = "v1", kind = "Generic")]
pub struct Generic<T> {
    value: T,
}

#[derive(Informer)]
#[informer(group = "example.com", version = "v1", kind = "Listed", plural = "list", namespaced)]
pub struct Listed {
    replicas: u32,
}

fn main() {}
