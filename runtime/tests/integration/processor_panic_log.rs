//! A handler panic is logged at error level, naming the kind of notification and never the
//! object (objects may be Secrets). Alone in its file: it installs a global subscriber,
//! since the listener thread logs outside any test-local dispatcher.

use std::fmt;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kube_informers_runtime::{Notification, ResourceEventHandlerFuncs, SharedProcessor};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Metadata, Subscriber, span};

#[derive(Debug)]
struct Captured {
    level: Level,
    thread: Option<String>,
    fields: Vec<(String, String)>,
}

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<Captured>>>);

struct Fields(Vec<(String, String)>);

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push((field.name().to_owned(), value.to_owned()));
    }
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.push((field.name().to_owned(), format!("{value:?}")));
    }
}

impl Subscriber for Capture {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &span::Attributes<'_>) -> span::Id {
        span::Id::from_u64(1)
    }
    fn record(&self, _: &span::Id, _: &span::Record<'_>) {}
    fn record_follows_from(&self, _: &span::Id, _: &span::Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut fields = Fields(Vec::new());
        event.record(&mut fields);
        self.0.lock().unwrap().push(Captured {
            level: *event.metadata().level(),
            thread: std::thread::current().name().map(str::to_owned),
            fields: fields.0,
        });
    }
    fn enter(&self, _: &span::Id) {}
    fn exit(&self, _: &span::Id) {}
}

#[derive(Debug)]
struct Secret {
    data: &'static str,
}

// client-go: shared_informer_test.go TestEventPanics ("Observed a panic" is logged once per
// panicking call), without the object in the log.
#[tokio::test]
async fn a_handler_panic_is_logged_without_the_object() {
    let capture = Capture::default();
    tracing::subscriber::set_global_default(capture.clone()).expect("first subscriber");

    let processor = SharedProcessor::new();
    let (tx, rx) = mpsc::channel();
    let handler = ResourceEventHandlerFuncs::new()
        .on_update(|_: &Arc<Secret>, new| panic!("cannot handle {}", new.data))
        .on_add(move |s, _| {
            let _ = tx.send(s.data);
        });
    processor.add_listener(Arc::new(handler), Duration::ZERO).unwrap();

    let secret = Arc::new(Secret { data: "hunter2" });
    processor.distribute(Notification::Update { old: Arc::clone(&secret), new: secret }, false);
    processor.distribute(
        Notification::Add { object: Arc::new(Secret { data: "after" }), is_in_initial_list: false },
        false,
    );
    // The add after the panic proves the error was logged (it precedes the add's dispatch).
    assert_eq!(rx.recv_timeout(Duration::from_secs(30)).unwrap(), "after");
    processor.shutdown().await;

    let events = capture.0.lock().unwrap();
    let errors: Vec<&Captured> = events.iter().filter(|e| e.level == Level::ERROR).collect();
    assert_eq!(errors.len(), 1, "{events:#?}");
    let error = errors[0];
    assert_eq!(error.thread.as_deref(), Some("kube-informers-listener"));
    let field = |name: &str| error.fields.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
    assert_eq!(field("notification"), Some("update"));
    assert!(field("listener").is_some());
    assert!(field("message").is_some_and(|m| m.contains("panicked")));
    for event in events.iter() {
        for (_, value) in &event.fields {
            assert!(!value.contains("hunter2"), "object contents logged: {event:?}");
        }
    }
}
