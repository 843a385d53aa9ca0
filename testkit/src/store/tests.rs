//! Unit tests of the store: reads at old resourceVersions, pages, compaction.

use super::*;
use serde_json::json;

fn gr() -> GroupResource {
    GroupResource { group: String::new(), resource: "configmaps".into() }
}

fn put(store: &mut StoreInner, name: &str, data: &str) -> u64 {
    let rv = store.next_rv();
    let v = json!({"metadata": {"name": name, "namespace": "ns", "resourceVersion": rv.to_string()}, "data": data});
    store.put(&gr(), Arc::new(StoredObject::from_value(&v).expect("valid")));
    rv
}

fn names(items: &[Arc<StoredObject>]) -> Vec<String> {
    items.iter().map(|o| o.meta.name.clone()).collect()
}

#[test]
fn list_at_old_rv_sees_the_old_state() {
    let store = Store::new(100);
    let mut s = store.lock();
    put(&mut s, "a", "1");
    let snapshot = put(&mut s, "b", "1");
    put(&mut s, "c", "1");
    put(&mut s, "a", "2");
    let b = s.get(&gr(), &("ns".into(), "b".into())).expect("b");
    let rv = s.next_rv();
    let mut v = b.to_value().expect("json");
    crate::object::set_meta(&mut v, "resourceVersion", rv.to_string().into());
    s.remove(&gr(), Arc::new(StoredObject::from_value(&v).expect("valid")));

    let (now, _) =
        s.list_page(&gr(), Some("ns"), s.current_rv(), None, 0, &|_| true).expect("list");
    assert_eq!(names(&now), ["a", "c"]);
    let (then, _) = s.list_page(&gr(), None, snapshot, None, 0, &|_| true).expect("list");
    assert_eq!(names(&then), ["a", "b"]);
    assert_eq!(then[0].meta.resource_version, 2);
}

#[test]
fn pages_carry_a_continuation_only_when_more_items_match() {
    let store = Store::new(100);
    let mut s = store.lock();
    for n in ["a", "b", "c", "d"] {
        put(&mut s, n, "1");
    }
    let rv = s.current_rv();
    let (p1, next) = s.list_page(&gr(), None, rv, None, 2, &|_| true).expect("page");
    assert_eq!(names(&p1), ["a", "b"]);
    let (p2, next) = s.list_page(&gr(), None, rv, next.as_ref(), 2, &|_| true).expect("page");
    assert_eq!(names(&p2), ["c", "d"]);
    assert!(next.is_none());
}

#[test]
fn compaction_expires_old_reads() {
    let store = Store::new(2);
    let mut s = store.lock();
    let first = put(&mut s, "a", "1");
    put(&mut s, "b", "1");
    put(&mut s, "c", "1");
    assert_eq!(s.compacted_rv(), first);
    assert!(s.watch(&gr(), None, WatchStart::After(first - 1)).is_err());
    assert!(s.watch(&gr(), None, WatchStart::After(first)).is_ok());
    s.compact();
    let err = s.list_page(&gr(), None, first, None, 0, &|_| true).expect_err("expired");
    assert_eq!(err.code, 410);
}
