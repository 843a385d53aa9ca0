//! Per-informer event counting: a handler that counts, and the rate between two samples.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use kube_informers::{DeletedObject, ResourceEventHandler};

/// Counts every notification a handler receives.
#[derive(Debug, Default, Clone)]
pub(crate) struct EventCounter {
    events: Arc<AtomicU64>,
}

impl EventCounter {
    /// Events counted so far.
    pub(crate) fn total(&self) -> u64 {
        self.events.load(Ordering::Relaxed)
    }

    fn bump(&self) {
        self.events.fetch_add(1, Ordering::Relaxed);
    }
}

impl<K: Send + Sync + 'static> ResourceEventHandler<K> for EventCounter {
    fn on_add(&self, _obj: &Arc<K>, _is_in_initial_list: bool) {
        self.bump();
    }

    fn on_update(&self, _old: &Arc<K>, _new: &Arc<K>) {
        self.bump();
    }

    fn on_delete(&self, _obj: &DeletedObject<K>) {
        self.bump();
    }
}

/// Turns a running total into a per-interval rate.
#[derive(Debug, Default)]
pub(crate) struct Rate {
    last: u64,
}

impl Rate {
    /// Events since the previous call.
    pub(crate) fn sample(&mut self, total: u64) -> u64 {
        let delta = total.saturating_sub(self.last);
        self.last = total;
        delta
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_is_the_delta_between_samples() {
        let mut rate = Rate::default();
        assert_eq!(rate.sample(10), 10);
        assert_eq!(rate.sample(15), 5);
        assert_eq!(rate.sample(15), 0);
    }

    #[test]
    fn counter_counts_every_kind_of_notification() {
        let counter = EventCounter::default();
        let obj = Arc::new(1u32);
        ResourceEventHandler::<u32>::on_add(&counter, &obj, true);
        ResourceEventHandler::<u32>::on_update(&counter, &obj, &obj);
        ResourceEventHandler::<u32>::on_delete(&counter, &DeletedObject::Object(obj));
        assert_eq!(counter.total(), 3);
    }
}
