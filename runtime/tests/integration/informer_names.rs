//! Named informers (client-go's `SharedIndexInformerOptions.Identifier`): two ConfigMap
//! informers from two named factories, run against the testkit API server, are told apart
//! in their tracing spans and, with the `metrics` feature, in their Prometheus series.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, PostParams};
use kube_informers_runtime::{InformerError, TypedInformerFactory};
use kube_informers_testkit::TestApiServer;
use parking_lot::Mutex;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// The fields of one span, as recorded so far.
#[derive(Default)]
struct Fields(Vec<(String, String)>);

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push((field.name().to_owned(), value.to_owned()));
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.push((field.name().to_owned(), format!("{value:?}")));
    }
}

/// The message of an event.
#[derive(Default)]
struct Message(String);

impl Visit for Message {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }
}

/// One event as seen: its message, and every `(span, field, value)` of the spans around it.
type Seen = (String, Vec<(String, String, String)>);

/// Keeps each span's fields, and every event with the fields of the spans around it.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<Seen>>>);

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Capture {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut fields = Fields::default();
        attrs.record(&mut fields);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(fields);
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id)
            && let Some(fields) = span.extensions_mut().get_mut::<Fields>()
        {
            values.record(fields);
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let mut message = Message::default();
        event.record(&mut message);
        let mut around = Vec::new();
        for span in ctx.event_scope(event).into_iter().flatten() {
            if let Some(fields) = span.extensions().get::<Fields>() {
                for (field, value) in &fields.0 {
                    around.push((span.name().to_owned(), field.clone(), value.clone()));
                }
            }
        }
        self.0.lock().push((message.0, around));
    }
}

impl Capture {
    /// The value of `field` on the span `span` around each event whose message is `message`.
    fn around(&self, message: &str, span: &str, field: &str) -> Vec<String> {
        let seen = self.0.lock();
        let mut values: Vec<String> = seen
            .iter()
            .filter(|(m, _)| m == message)
            .flat_map(|(_, around)| {
                around.iter().filter(|(s, f, _)| s == span && f == field).map(|(.., v)| v.clone())
            })
            .collect();
        values.sort();
        values
    }
}

fn config_map(name: &str) -> ConfigMap {
    let mut cm = ConfigMap::default();
    cm.metadata.name = Some(name.into());
    cm
}

/// The testkit server with `count` ConfigMaps in namespace `team-<name>` for each
/// `(name, count)`, and one factory per name, named after it and watching that namespace.
async fn named_factories(teams: &[(&str, usize)]) -> (TestApiServer, Vec<TypedInformerFactory>) {
    let server = TestApiServer::start().await.unwrap();
    let client = server.client().unwrap();
    let mut factories = Vec::new();
    for (name, count) in teams {
        let namespace = format!("team-{name}");
        let api = Api::<ConfigMap>::namespaced(client.clone(), &namespace);
        for i in 0..*count {
            api.create(&PostParams::default(), &config_map(&format!("cm-{i}"))).await.unwrap();
        }
        let factory =
            TypedInformerFactory::builder(client.clone()).name(*name).namespace(namespace).build();
        assert_eq!(factory.name(), Some(*name));
        factories.push(factory);
    }
    (server, factories)
}

async fn start_and_sync(factories: &[TypedInformerFactory]) {
    for factory in factories {
        factory.start();
        let synced = factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await;
        assert!(!synced.is_empty() && synced.values().all(|ok| *ok), "{synced:?}");
    }
}

// Current-thread runtime: `set_default` applies to this thread, which runs every task of
// both informers.
#[tokio::test(flavor = "current_thread")]
async fn named_informers_are_told_apart_in_their_spans() {
    kube_informers_testkit::scoped_subscribers_see_every_callsite();
    let capture = Capture::default();
    let subscriber = tracing_subscriber::registry().with(capture.clone());
    let _guard = tracing::subscriber::set_default(subscriber);

    let (server, factories) = named_factories(&[("a", 1), ("b", 2)]).await;
    let informers: Vec<_> = factories.iter().map(|f| f.informer_for::<ConfigMap>()).collect();
    assert_eq!(informers[0].name().as_deref(), Some("a"));
    start_and_sync(&factories).await;
    assert_eq!(informers[1].get_indexer().len(), 2);
    // The name is fixed once the informer runs.
    assert!(matches!(informers[0].set_name("c"), Err(InformerError::AlreadyStarted)));

    // The informer's own events, and its reflector's (whose span sits under the
    // informer's), carry the informer's name and are named after it.
    assert_eq!(capture.around("starting informer", "informer", "informer"), ["a", "b"]);
    assert_eq!(capture.around("starting reflector", "informer", "informer"), ["a", "b"]);
    assert_eq!(
        capture.around("starting reflector", "reflector", "reflector"),
        ["a/ConfigMap", "b/ConfigMap"]
    );
    assert_eq!(capture.around("starting informer", "informer", "resource"), ["ConfigMap"; 2]);

    for factory in &factories {
        factory.shutdown().await;
    }
    server.shutdown().await;
}

#[tokio::test(flavor = "current_thread")]
async fn an_unnamed_informer_keeps_its_reflector_name_and_has_no_informer_field() {
    kube_informers_testkit::scoped_subscribers_see_every_callsite();
    let capture = Capture::default();
    let subscriber = tracing_subscriber::registry().with(capture.clone());
    let _guard = tracing::subscriber::set_default(subscriber);

    let server = TestApiServer::start().await.unwrap();
    let factory = TypedInformerFactory::new(server.client().unwrap(), Duration::ZERO);
    assert_eq!(factory.name(), None);
    assert_eq!(factory.informer_for::<ConfigMap>().name(), None);
    start_and_sync(std::slice::from_ref(&factory)).await;

    assert!(capture.around("starting informer", "informer", "informer").is_empty());
    assert_eq!(capture.around("starting reflector", "reflector", "reflector"), ["reflector"]);
    factory.shutdown().await;
    server.shutdown().await;
}

#[cfg(feature = "metrics")]
#[tokio::test]
async fn named_informers_have_their_own_prometheus_series() {
    use kube_informers_runtime::ResourceEventHandlerFuncs;
    use kube_informers_runtime::metrics::prometheus::InformerCollector;
    use prometheus_client::encoding::text::encode;
    use prometheus_client::registry::Registry;

    let (server, factories) = named_factories(&[("a", 1), ("b", 2)]).await;
    let mut registry = Registry::default();
    factories
        .iter()
        .fold(InformerCollector::new(), |collector, factory| collector.factory(factory))
        .register(&mut registry);
    for factory in &factories {
        let informer = factory.informer_for::<ConfigMap>();
        informer.add_event_handler(ResourceEventHandlerFuncs::new()).unwrap();
    }
    start_and_sync(&factories).await;

    let mut text = String::new();
    encode(&mut text, &registry).unwrap();
    let samples: Vec<&str> = text.lines().filter(|line| !line.starts_with('#')).collect();
    for line in [
        r#"informer_list_requests_total{resource="v1/configmaps",informer="a"} 1"#,
        r#"informer_list_requests_total{resource="v1/configmaps",informer="b"} 1"#,
        r#"informer_synced{resource="v1/configmaps",informer="a"} 1"#,
        r#"informer_synced{resource="v1/configmaps",informer="b"} 1"#,
        r#"informer_events_total{resource="v1/configmaps",informer="a",type="added"} 0"#,
    ] {
        assert!(samples.contains(&line), "missing `{line}` in:\n{text}");
    }
    // Every informer-level series names its informer: none is left without the label,
    // which would merge the two.
    for sample in samples.iter().filter(|s| s.starts_with("informer_")) {
        assert!(
            sample.contains(r#",informer="a""#) || sample.contains(r#",informer="b""#),
            "series without its informer's name: `{sample}`"
        );
    }
    // The two informers are one each of every informer-level series.
    for metric in [
        "informer_list_requests_total",
        "informer_synced",
        "informer_relists_total",
        "informer_handler_pending",
    ] {
        let count = samples.iter().filter(|s| s.starts_with(&format!("{metric}{{"))).count();
        assert_eq!(count, 2, "{metric} in:\n{text}");
    }

    for factory in &factories {
        factory.shutdown().await;
    }
    server.shutdown().await;
}
