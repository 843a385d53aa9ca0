use kube_informers_macros::Informer;

#[derive(Informer)]
#[kube(group = "example.com", version = "v1", kind = "Foo", namespaced)]
pub enum FooSpec {
    A,
    B,
}

#[derive(Informer)]
#[informer(group = "example.com", version = "v1", kind = "Bar")]
pub union Bar {
    a: u32,
    b: f32,
}

fn main() {}
