//! A prometheus-client [`Collector`] that reads informers' [`InformerStats`] at scrape time.

use std::fmt;
use std::sync::Arc;

use kube::Resource;
use kube::core::GroupVersionResource;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::encoding::{EncodeCounterValue, EncodeGaugeValue};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::{Registry, Unit};

use crate::factory::TypedInformerFactory;
use crate::factory::{GenericInformerFactory, GenericObject};
use crate::informer::SharedIndexInformer;
use crate::metrics::InformerStats;

/// Where a collector finds informers at scrape time: each source returns its informers'
/// stats, with the series they belong to.
type Source = Arc<dyn Fn() -> Vec<(Series, InformerStats)> + Send + Sync>;

/// What tells one informer's series from another's: its resource, and its name if it has
/// one.
struct Series {
    resource: String,
    informer: Option<String>,
}

impl Series {
    fn new(resource: String, informer: Option<&str>) -> Self {
        let informer = informer.filter(|name| !name.is_empty()).map(str::to_owned);
        Self { resource, informer }
    }

    /// The labels of every series of this informer, followed by `extra`.
    fn labels(&self, extra: &[(&'static str, String)]) -> Labels {
        let mut labels = vec![("resource", self.resource.clone())];
        if let Some(name) = &self.informer {
            labels.push(("informer", name.clone()));
        }
        labels.extend(extra.iter().cloned());
        labels
    }
}

/// Exports the [`InformerStats`] of informers as Prometheus metrics, read at scrape time.
///
/// Every metric has a `resource` label: `group/version/resource` (`apps/v1/deployments`,
/// `v1/pods` for the core group) for factory informers, or the label given to
/// [`informer`](Self::informer). A named informer's series also have an `informer` label
/// holding its name (a factory's [`name`](crate::FactoryBuilder::name), or
/// [`SharedIndexInformer::set_name`]), so two informers of one resource are reported
/// apart; an unnamed informer's series have no `informer` label, exactly as before names
/// existed (Prometheus treats a missing label as an empty one, so `informer=""` selects
/// them). No label ever holds an object's name or content.
///
/// | metric | type | labels | what |
/// |---|---|---|---|
/// | `informer_list_requests_total` | counter | `resource`, `informer` | list requests, one per page |
/// | `informer_list_failures_total` | counter | `resource`, `informer` | failed list requests |
/// | `informer_watch_requests_total` | counter | `resource`, `informer` | watch requests (streaming lists included) |
/// | `informer_watch_failures_total` | counter | `resource`, `informer` | watch requests that failed |
/// | `informer_events_total` | counter | `resource`, `informer`, `type` | watch events: `added`, `modified`, `deleted`, `bookmark`, `error` |
/// | `informer_relists_total` | counter | `resource`, `informer` | complete lists after the first |
/// | `informer_stalls_total` | counter | `resource`, `informer` | lists and watches abandoned as silent (presumed dead connections) |
/// | `informer_expirations_total` | counter | `resource`, `informer` | requests answered `410 Expired` (or "resource version too large") |
/// | `informer_undecodable_objects_total` | counter | `resource`, `informer` | objects skipped because they do not decode, once per list and per watch event |
/// | `informer_handler_pending` | gauge | `resource`, `informer`, `handler` | notifications queued for each handler (`handler`: its [`ListenerId`](crate::ListenerId)) |
/// | `informer_synced` | gauge | `resource`, `informer` | 1 once the initial list reached the cache |
/// | `informer_last_sync_resource_version` | gauge | `resource`, `informer` | the last synced resourceVersion, when numeric (as on etcd) |
/// | `informer_sync_duration_seconds` | gauge | `resource`, `informer` | from start to synced; absent until synced |
///
/// A factory source reports every informer the factory has started, including those
/// started after registration. The collector holds the factories and informers it reports
/// on, so they live as long as the registry.
///
/// ```no_run
/// # #[allow(dead_code)]
/// # async fn doc(client: kube::Client) {
/// use std::time::Duration;
/// use kube_informers_runtime::TypedInformerFactory;
/// use kube_informers_runtime::metrics::prometheus::InformerCollector;
/// use prometheus_client::registry::Registry;
///
/// let factory = TypedInformerFactory::new(client, Duration::ZERO);
/// let mut registry = Registry::default();
/// InformerCollector::new().factory(&factory).register(&mut registry);
///
/// let mut text = String::new();
/// prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
/// # }
/// ```
#[derive(Clone, Default)]
pub struct InformerCollector {
    sources: Vec<Source>,
}

impl fmt::Debug for InformerCollector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InformerCollector").field("sources", &self.sources.len()).finish()
    }
}

impl InformerCollector {
    /// A collector without informers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds every informer `factory` has started, at each scrape: a
    /// [`TypedInformerFactory`] or the `kube-informers` crate's `SharedInformerFactory`.
    #[must_use]
    pub fn factory(mut self, factory: &impl AsRef<TypedInformerFactory>) -> Self {
        let factory = factory.as_ref().clone();
        self.sources.push(Arc::new(move || {
            factory
                .informers()
                .into_iter()
                .filter(|informer| informer.is_started())
                .map(|informer| {
                    let series = Series::new(resource_label(informer.gvr()), factory.name());
                    (series, informer.stats())
                })
                .collect()
        }));
        self
    }

    /// Adds every informer a dynamic or metadata factory has started, at each scrape.
    #[must_use]
    pub fn dynamic_factory<K: GenericObject>(
        mut self,
        factory: &GenericInformerFactory<K>,
    ) -> Self {
        let factory = factory.clone();
        self.sources.push(Arc::new(move || {
            factory
                .resources()
                .iter()
                .filter_map(|gvr| factory.get(gvr))
                .map(|generic| (resource_label(generic.gvr()), generic.informer()))
                .filter(|(_, informer)| informer.is_started())
                .map(|(resource, informer)| {
                    (Series::new(resource, factory.name()), informer.stats())
                })
                .collect()
        }));
        self
    }

    /// Adds one informer, labelled `resource="<resource>"` (e.g. its kind), and
    /// `informer="<name>"` if it has a [name](SharedIndexInformer::set_name).
    #[must_use]
    pub fn informer<K>(
        mut self,
        resource: impl Into<String>,
        informer: &SharedIndexInformer<K>,
    ) -> Self
    where
        K: Resource + Clone + fmt::Debug + Send + Sync + 'static,
    {
        let resource = resource.into();
        let informer = informer.clone();
        self.sources.push(Arc::new(move || {
            let series = Series::new(resource.clone(), informer.name().as_deref());
            vec![(series, informer.stats())]
        }));
        self
    }

    /// Registers this collector with `registry`.
    pub fn register(self, registry: &mut Registry) {
        registry.register_collector(Box::new(self));
    }
}

/// Registers every informer `factory` has started, or will start, with `registry`
/// (shorthand for [`InformerCollector::new().factory(factory).register(registry)`](InformerCollector)).
pub fn register_factory(registry: &mut Registry, factory: &impl AsRef<TypedInformerFactory>) {
    InformerCollector::new().factory(factory).register(registry);
}

/// The `resource` label of a factory informer: `group/version/resource`, or
/// `version/resource` for the core group, as in the API paths.
pub fn resource_label(gvr: &GroupVersionResource) -> String {
    if gvr.group.is_empty() {
        format!("{}/{}", gvr.version, gvr.resource)
    } else {
        format!("{}/{}/{}", gvr.group, gvr.version, gvr.resource)
    }
}

type Labels = Vec<(&'static str, String)>;

impl Collector for InformerCollector {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> fmt::Result {
        let informers: Vec<(Series, InformerStats)> =
            self.sources.iter().flat_map(|source| source()).collect();
        let by_resource = |value: fn(&InformerStats) -> u64| {
            informers.iter().map(move |(series, stats)| (series.labels(&[]), value(stats)))
        };

        counter(
            &mut encoder,
            "informer_list_requests",
            "List requests sent, one per page.",
            by_resource(|s| s.reflector.list_requests),
        )?;
        counter(
            &mut encoder,
            "informer_list_failures",
            "List requests that failed.",
            by_resource(|s| s.reflector.list_failures),
        )?;
        counter(
            &mut encoder,
            "informer_watch_requests",
            "Watch requests sent, streaming lists included.",
            by_resource(|s| s.reflector.watch_requests),
        )?;
        counter(
            &mut encoder,
            "informer_watch_failures",
            "Watch requests that failed.",
            by_resource(|s| s.reflector.watch_failures),
        )?;
        counter(
            &mut encoder,
            "informer_events",
            "Watch events received, by type.",
            informers.iter().flat_map(|(series, stats)| {
                let events = stats.reflector.events;
                [
                    ("added", events.added),
                    ("modified", events.modified),
                    ("deleted", events.deleted),
                    ("bookmark", events.bookmarks),
                    ("error", events.errors),
                ]
                .map(|(kind, count)| (series.labels(&[("type", kind.to_owned())]), count))
            }),
        )?;
        counter(
            &mut encoder,
            "informer_relists",
            "Complete lists (plain or streaming) after the first.",
            by_resource(|s| s.reflector.relists()),
        )?;
        counter(
            &mut encoder,
            "informer_stalls",
            "Lists and watches abandoned because nothing arrived within their idle limit.",
            by_resource(|s| s.reflector.stalls),
        )?;
        counter(
            &mut encoder,
            "informer_expirations",
            "Lists and watches answered 410 Expired or resource version too large.",
            by_resource(|s| s.reflector.expirations),
        )?;
        counter(
            &mut encoder,
            "informer_undecodable_objects",
            "Objects skipped because they do not decode, once per list and per watch event.",
            by_resource(|s| s.reflector.undecodable_objects),
        )?;
        gauge(
            &mut encoder,
            "informer_handler_pending",
            "Notifications queued for a handler and not yet handled.",
            None,
            informers.iter().flat_map(|(series, stats)| {
                stats.handler_pending.iter().map(move |(handler, pending)| {
                    (series.labels(&[("handler", handler.to_string())]), *pending)
                })
            }),
        )?;
        gauge(
            &mut encoder,
            "informer_synced",
            "1 once the informer's initial list has reached its cache.",
            None,
            informers
                .iter()
                .map(|(series, stats)| (series.labels(&[]), u32::from(stats.has_synced))),
        )?;
        gauge(
            &mut encoder,
            "informer_last_sync_resource_version",
            "The resourceVersion of the last list, event or bookmark applied, when numeric.",
            None,
            informers.iter().filter_map(|(series, stats)| {
                let version = stats.last_sync_resource_version.parse::<u64>().ok()?;
                Some((series.labels(&[]), version))
            }),
        )?;
        gauge(
            &mut encoder,
            "informer_sync_duration",
            "Seconds from the informer's start to its initial list reaching the cache.",
            Some(&Unit::Seconds),
            informers.iter().filter_map(|(series, stats)| {
                Some((series.labels(&[]), stats.sync_duration?.as_secs_f64()))
            }),
        )?;
        Ok(())
    }
}

fn counter<V: EncodeCounterValue>(
    encoder: &mut DescriptorEncoder<'_>,
    name: &str,
    help: &str,
    rows: impl IntoIterator<Item = (Labels, V)>,
) -> fmt::Result {
    let mut metric = encoder.encode_descriptor(name, help, None, MetricType::Counter)?;
    for (labels, value) in rows {
        ConstCounter::new(value).encode(metric.encode_family(&labels)?)?;
    }
    Ok(())
}

fn gauge<V: EncodeGaugeValue>(
    encoder: &mut DescriptorEncoder<'_>,
    name: &str,
    help: &str,
    unit: Option<&Unit>,
    rows: impl IntoIterator<Item = (Labels, V)>,
) -> fmt::Result {
    let mut metric = encoder.encode_descriptor(name, help, unit, MetricType::Gauge)?;
    for (labels, value) in rows {
        ConstGauge::new(value).encode(metric.encode_family(&labels)?)?;
    }
    Ok(())
}
