use kube_informers_macros::Informer;

// Not a struct, an unknown key, a conflict and a missing version: four errors, one compile.
#[derive(Informer)]
#[kube(group = "example.com", kind = "Foo")]
#[informer(kind = "Fob", resync = 30)]
pub enum FooSpec {
    A,
}

fn main() {}
