use kube_informers_macros::Informer;

// The one mistake is the unknown key: code naming the generated types gets no
// "cannot find type" errors on top of it.
#[derive(Informer)]
#[kube(group = "example.com", version = "v1", kind = "Foo", namespaced)]
#[informer(plurals = "foos")]
pub struct FooSpec {
    replicas: u32,
}

pub struct Controller {
    pub foos: FooInformer,
    pub lister: FooLister,
    pub namespaced: Option<FooNamespaceLister>,
}

fn main() {}
