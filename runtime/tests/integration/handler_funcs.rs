//! `ResourceEventHandlerFuncs` and the handler trait's defaults.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use kube_informers_runtime::{
    DeletedFinalStateUnknown, DeletedObject, ResourceEventHandler, ResourceEventHandlerFuncs,
};

#[derive(Debug, PartialEq)]
struct Deployment {
    name: String,
}

fn deployment(name: &str) -> Arc<Deployment> {
    Arc::new(Deployment { name: name.to_owned() })
}

#[derive(Debug, PartialEq)]
enum Seen {
    Add(String, bool),
    Update(String, String),
    Delete(String, bool),
}

// The call shape of DESIGN.md's example: only the first and last closures name the type,
// the update closure's parameters are inferred.
#[test]
fn closures_infer_their_types_and_receive_every_call() {
    let (tx, rx) = mpsc::channel();
    let (add_tx, update_tx, delete_tx) = (tx.clone(), tx.clone(), tx);
    let handler = ResourceEventHandlerFuncs::new()
        .on_add(move |d: &Arc<Deployment>, is_in_initial_list| {
            add_tx.send(Seen::Add(d.name.clone(), is_in_initial_list)).unwrap();
        })
        .on_update(move |old, new| {
            update_tx.send(Seen::Update(old.name.clone(), new.name.clone())).unwrap();
        })
        .on_delete(move |gone: &DeletedObject<Deployment>| {
            delete_tx.send(Seen::Delete(gone.object().name.clone(), gone.is_tombstone())).unwrap();
        });

    ResourceEventHandler::on_add(&handler, &deployment("a"), true);
    ResourceEventHandler::on_add(&handler, &deployment("b"), false);
    ResourceEventHandler::on_update(&handler, &deployment("a"), &deployment("a2"));
    ResourceEventHandler::on_delete(&handler, &DeletedObject::Object(deployment("b")));
    ResourceEventHandler::on_delete(
        &handler,
        &DeletedObject::DeletedFinalStateUnknown(DeletedFinalStateUnknown {
            key: "ns/c".into(),
            object: deployment("c"),
        }),
    );
    drop(handler);

    let seen: Vec<Seen> = rx.iter().collect();
    assert_eq!(
        seen,
        [
            Seen::Add("a".into(), true),
            Seen::Add("b".into(), false),
            Seen::Update("a".into(), "a2".into()),
            Seen::Delete("b".into(), false),
            Seen::Delete("c".into(), true),
        ]
    );
}

#[test]
fn handler_receives_the_callers_arc_not_a_copy() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let handler = ResourceEventHandlerFuncs::new()
        .on_add(move |d: &Arc<Deployment>, _| record.lock().unwrap().push(Arc::clone(d)));
    let object = deployment("a");
    ResourceEventHandler::on_add(&handler, &object, false);
    assert!(Arc::ptr_eq(&seen.lock().unwrap()[0], &object));
}

#[test]
fn unset_callbacks_ignore_their_notifications() {
    let adds = Arc::new(Mutex::new(0));
    let counted = Arc::clone(&adds);
    let handler = ResourceEventHandlerFuncs::new()
        .on_add(move |_: &Arc<Deployment>, _| *counted.lock().unwrap() += 1);
    ResourceEventHandler::on_update(&handler, &deployment("a"), &deployment("b"));
    ResourceEventHandler::on_delete(&handler, &DeletedObject::Object(deployment("a")));
    ResourceEventHandler::on_add(&handler, &deployment("a"), false);
    assert_eq!(*adds.lock().unwrap(), 1);
    assert_eq!(
        format!("{handler:?}"),
        "ResourceEventHandlerFuncs { on_add: true, on_update: false, on_delete: false }"
    );
}

struct OnlyDeletes(mpsc::Sender<String>);

impl ResourceEventHandler<Deployment> for OnlyDeletes {
    fn on_delete(&self, obj: &DeletedObject<Deployment>) {
        self.0.send(obj.object().name.clone()).unwrap();
    }
}

#[test]
fn trait_methods_default_to_nothing_and_arc_forwards() {
    let (tx, rx) = mpsc::channel();
    let handler: Arc<dyn ResourceEventHandler<Deployment>> = Arc::new(OnlyDeletes(tx));
    // `Arc<dyn ResourceEventHandler<K>>` is itself a handler.
    fn call_all(h: &impl ResourceEventHandler<Deployment>) {
        h.on_add(&deployment("a"), true);
        h.on_update(&deployment("a"), &deployment("a"));
        h.on_delete(&DeletedObject::Object(deployment("a")));
    }
    call_all(&handler);
    drop(handler);
    assert_eq!(rx.iter().collect::<Vec<_>>(), ["a"]);
}
