//! The decoded cache of a compact store: `Arc<K>`s of hot keys, bounded by estimated bytes.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// Decoded objects of hot keys, bounded by their estimated bytes; evicts with CLOCK
/// (second chance): a key read since it was last passed over stays one more round.
pub(crate) struct HotCache<K> {
    budget: usize,
    used: usize,
    next: u64,
    entries: HashMap<Arc<str>, HotEntry<K>>,
    /// Keys in insertion order with the number of their entry; a number that no longer
    /// matches is a removed or replaced entry, skipped.
    clock: VecDeque<(Arc<str>, u64)>,
}

struct HotEntry<K> {
    obj: Arc<K>,
    bytes: usize,
    number: u64,
    referenced: bool,
}

impl<K> HotCache<K> {
    pub(crate) fn new(budget: usize) -> Self {
        Self { budget, used: 0, next: 0, entries: HashMap::new(), clock: VecDeque::new() }
    }

    /// The cached object, marked as read.
    pub(crate) fn get(&mut self, key: &str) -> Option<Arc<K>> {
        let entry = self.entries.get_mut(key)?;
        entry.referenced = true;
        Some(Arc::clone(&entry.obj))
    }

    /// The cached object, without marking it (bulk reads).
    pub(crate) fn peek(&self, key: &str) -> Option<Arc<K>> {
        self.entries.get(key).map(|entry| Arc::clone(&entry.obj))
    }

    pub(crate) fn remove(&mut self, key: &str) -> Option<Arc<K>> {
        let entry = self.entries.remove(key)?;
        self.used -= entry.bytes;
        Some(entry.obj)
    }

    /// Number of cached objects.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Their estimated bytes.
    pub(crate) fn used(&self) -> usize {
        self.used
    }

    pub(crate) fn clear(&mut self) {
        self.entries.clear();
        self.clock.clear();
        self.used = 0;
    }

    pub(crate) fn put(&mut self, key: &Arc<str>, obj: Arc<K>, bytes: usize) {
        self.remove(key);
        if bytes > self.budget {
            return;
        }
        let number = self.next;
        self.next += 1;
        self.entries.insert(Arc::clone(key), HotEntry { obj, bytes, number, referenced: false });
        self.clock.push_back((Arc::clone(key), number));
        self.used += bytes;
        while self.used > self.budget {
            let Some((key, number)) = self.clock.pop_front() else { break };
            let Some(entry) = self.entries.get_mut(&key).filter(|e| e.number == number) else {
                continue;
            };
            if entry.referenced {
                entry.referenced = false;
                self.clock.push_back((key, number));
            } else {
                self.remove(&key);
            }
        }
        // Removed and replaced entries leave stale clock slots; drop them now and then.
        if self.clock.len() > 2 * self.entries.len() + 64 {
            let entries = &self.entries;
            self.clock
                .retain(|(key, number)| entries.get(key).is_some_and(|e| e.number == *number));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hot_cache_stays_within_its_budget_and_gives_read_keys_a_second_chance() {
        let mut cache = HotCache::<u32>::new(100);
        let key = |i: u32| -> Arc<str> { Arc::from(format!("k{i}").as_str()) };
        for i in 0..5 {
            cache.put(&key(i), Arc::new(i), 20);
        }
        assert_eq!(cache.used, 100);
        // k0 is read, so the next insert passes it over and evicts k1.
        assert!(cache.get("k0").is_some());
        cache.put(&key(5), Arc::new(5), 20);
        assert!(cache.peek("k0").is_some());
        assert!(cache.peek("k1").is_none());
        assert_eq!(cache.used, 100);
        // Too large for the budget: not cached, and nothing else is evicted for it.
        cache.put(&key(9), Arc::new(9), 101);
        assert!(cache.peek("k9").is_none());
        assert_eq!(cache.entries.len(), 5);
        // Replacing a key does not count it twice.
        cache.put(&key(0), Arc::new(10), 20);
        assert_eq!(cache.used, 100);
        assert_eq!(cache.remove("k0").as_deref(), Some(&10));
        assert_eq!(cache.used, 80);
        // Stale clock slots are dropped, so the clock does not grow without bound.
        for _ in 0..1_000 {
            cache.put(&key(2), Arc::new(2), 1);
        }
        assert!(cache.clock.len() <= 2 * cache.entries.len() + 64);
    }

    #[test]
    fn a_zero_budget_caches_nothing() {
        let mut cache = HotCache::<u32>::new(0);
        cache.put(&Arc::from("k"), Arc::new(1), 1);
        assert!(cache.get("k").is_none());
        assert_eq!(cache.used, 0);
    }
}
