//! `FilteringResourceEventHandler`: updates crossing the filter become adds and deletes.

use std::sync::{Arc, Mutex};

use kube_informers_runtime::{
    DeletedFinalStateUnknown, DeletedObject, FilteringResourceEventHandler, ResourceEventHandler,
};

#[derive(Debug)]
struct Pod {
    name: &'static str,
}

#[derive(Debug, Default)]
struct Recording {
    added: Vec<(Arc<Pod>, bool)>,
    updated: Vec<(Arc<Pod>, Arc<Pod>)>,
    deleted: Vec<DeletedObject<Pod>>,
}

#[derive(Default, Clone)]
struct Recorder(Arc<Mutex<Recording>>);

impl ResourceEventHandler<Pod> for Recorder {
    fn on_add(&self, obj: &Arc<Pod>, is_in_initial_list: bool) {
        self.0.lock().unwrap().added.push((Arc::clone(obj), is_in_initial_list));
    }
    fn on_update(&self, old: &Arc<Pod>, new: &Arc<Pod>) {
        self.0.lock().unwrap().updated.push((Arc::clone(old), Arc::clone(new)));
    }
    fn on_delete(&self, obj: &DeletedObject<Pod>) {
        self.0.lock().unwrap().deleted.push(obj.clone());
    }
}

fn pod(name: &'static str) -> Arc<Pod> {
    Arc::new(Pod { name })
}

fn filtering(
    passes: impl Fn(&Pod) -> bool + Send + Sync + 'static,
) -> (FilteringResourceEventHandler<Pod, Recorder>, Recorder) {
    let recorder = Recorder::default();
    (FilteringResourceEventHandler::new(passes, recorder.clone()), recorder)
}

// client-go: typed_test.go TestTypedFilteringResourceEventHandler/OnAdd
#[test]
fn add_passes_only_when_the_filter_accepts() {
    for passes in [true, false] {
        let (handler, recorder) = filtering(move |_| passes);
        let new = pod("new");
        handler.on_add(&new, true);
        let rec = recorder.0.lock().unwrap();
        if passes {
            assert_eq!(rec.added.len(), 1);
            assert!(Arc::ptr_eq(&rec.added[0].0, &new));
            assert!(rec.added[0].1, "is_in_initial_list is forwarded");
        } else {
            assert!(rec.added.is_empty());
        }
        assert!(rec.updated.is_empty() && rec.deleted.is_empty());
    }
}

// client-go: typed_test.go TestTypedFilteringResourceEventHandler/OnDelete
#[test]
fn delete_passes_only_when_the_filter_accepts() {
    for passes in [true, false] {
        let (handler, recorder) = filtering(move |_| passes);
        let old = pod("old");
        handler.on_delete(&DeletedObject::Object(Arc::clone(&old)));
        let rec = recorder.0.lock().unwrap();
        if passes {
            assert_eq!(rec.deleted.len(), 1);
            assert!(Arc::ptr_eq(rec.deleted[0].object(), &old));
        } else {
            assert!(rec.deleted.is_empty());
        }
    }
}

// client-go: controller.go FilteringResourceEventHandler.OnDelete filters the tombstone too;
// here the filter sees the tombstone's last known object, and the tombstone is forwarded.
#[test]
fn delete_of_a_tombstone_is_filtered_on_its_last_known_state() {
    let (handler, recorder) = filtering(|p| p.name.starts_with("keep"));
    for name in ["keep-me", "drop-me"] {
        handler.on_delete(&DeletedObject::DeletedFinalStateUnknown(DeletedFinalStateUnknown {
            key: format!("ns/{name}"),
            object: pod(name),
        }));
    }
    let rec = recorder.0.lock().unwrap();
    assert_eq!(rec.deleted.len(), 1);
    let tombstone = rec.deleted[0].tombstone().expect("the tombstone is forwarded as is");
    assert_eq!(tombstone.key, "ns/keep-me");
}

// client-go: typed_test.go TestTypedFilteringResourceEventHandler/OnUpdate
#[test]
fn update_is_converted_by_which_side_passes() {
    struct Case {
        name: &'static str,
        older: bool,
        newer: bool,
        want_add: bool,
        want_update: bool,
        want_delete: bool,
    }
    let cases = [
        Case {
            name: "still-passing-to-update",
            older: true,
            newer: true,
            want_add: false,
            want_update: true,
            want_delete: false,
        },
        Case {
            name: "starts-passing-to-add",
            older: false,
            newer: true,
            want_add: true,
            want_update: false,
            want_delete: false,
        },
        Case {
            name: "stops-passing-to-delete",
            older: true,
            newer: false,
            want_add: false,
            want_update: false,
            want_delete: true,
        },
        Case {
            name: "still-failing-to-nothing",
            older: false,
            newer: false,
            want_add: false,
            want_update: false,
            want_delete: false,
        },
    ];
    for case in cases {
        let (older, newer) = (case.older, case.newer);
        let (handler, recorder) = filtering(move |p| match p.name {
            "old" => older,
            "new" => newer,
            other => panic!("unexpected object {other}"),
        });
        let (old, new) = (pod("old"), pod("new"));
        handler.on_update(&old, &new);
        let rec = recorder.0.lock().unwrap();

        assert_eq!(rec.added.len(), usize::from(case.want_add), "{}", case.name);
        if case.want_add {
            assert!(Arc::ptr_eq(&rec.added[0].0, &new), "{}", case.name);
            assert!(!rec.added[0].1, "{}: an add from an update is never initial", case.name);
        }
        assert_eq!(rec.updated.len(), usize::from(case.want_update), "{}", case.name);
        if case.want_update {
            assert!(Arc::ptr_eq(&rec.updated[0].0, &old), "{}", case.name);
            assert!(Arc::ptr_eq(&rec.updated[0].1, &new), "{}", case.name);
        }
        assert_eq!(rec.deleted.len(), usize::from(case.want_delete), "{}", case.name);
        if case.want_delete {
            assert!(!rec.deleted[0].is_tombstone(), "{}", case.name);
            assert!(Arc::ptr_eq(rec.deleted[0].object(), &old), "{}", case.name);
        }
    }
}

#[test]
fn a_shared_handler_can_be_filtered() {
    let recorder = Recorder::default();
    let shared: Arc<dyn ResourceEventHandler<Pod>> = Arc::new(recorder.clone());
    let handler = FilteringResourceEventHandler::new(|p: &Pod| p.name == "a", shared);
    handler.on_add(&pod("a"), false);
    handler.on_add(&pod("b"), false);
    assert_eq!(recorder.0.lock().unwrap().added.len(), 1);
}
