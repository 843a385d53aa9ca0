//! The decoded cache of a compact store: `Arc<K>`s of hot keys, bounded by estimated bytes.

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
use std::sync::Arc;

/// Bits of the doorkeeper (4 KiB): keys read once recently, by hash.
const DOORKEEPER_BITS: usize = 1 << 15;

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
    /// One bit per key hash, set by a key's first read ([`admit`](Self::admit)); cleared
    /// whole once a quarter of the bits were set, so "recently" is the last ~8,000 first
    /// reads. A collision admits a key on its first read, which is harmless. The hash is
    /// the same in every run (`DefaultHasher::new`), so what a test sees does not vary.
    doorkeeper: Box<[u64]>,
    doorkeeper_set: usize,
}

struct HotEntry<K> {
    obj: Arc<K>,
    bytes: usize,
    number: u64,
    referenced: bool,
}

impl<K> HotCache<K> {
    pub(crate) fn new(budget: usize) -> Self {
        Self {
            budget,
            used: 0,
            next: 0,
            entries: HashMap::new(),
            clock: VecDeque::new(),
            doorkeeper: vec![0; DOORKEEPER_BITS / 64].into_boxed_slice(),
            doorkeeper_set: 0,
        }
    }

    /// Whether a point read that missed should cache what it decoded: only on the key's
    /// second read in a while (the doorkeeper of TinyLFU caches). A pass over many keys
    /// read once each then neither evicts the hot keys nor pays, in each read, for
    /// evicting an object.
    pub(crate) fn admit(&mut self, key: &str) -> bool {
        if self.budget == 0 {
            return false;
        }
        let bit =
            BuildHasherDefault::<DefaultHasher>::default().hash_one(key) as usize % DOORKEEPER_BITS;
        let (word, mask) = (bit / 64, 1u64 << (bit % 64));
        if self.doorkeeper[word] & mask != 0 {
            return true;
        }
        if self.doorkeeper_set >= DOORKEEPER_BITS / 4 {
            self.doorkeeper.fill(0);
            self.doorkeeper_set = 0;
        }
        self.doorkeeper[word] |= mask;
        self.doorkeeper_set += 1;
        false
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

    /// The cached keys.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &Arc<str>> {
        self.entries.keys()
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
    fn keys_are_admitted_on_their_second_read_and_the_doorkeeper_forgets() {
        let mut cache = HotCache::<u32>::new(100);
        assert!(!cache.admit("a"));
        assert!(cache.admit("a"));
        assert!(cache.admit("a"), "stays admitted until the doorkeeper is cleared");
        // Once a quarter of the bits are set, the next first read clears them all: only the
        // bit of that read is left.
        let mut i = 0;
        while cache.doorkeeper_set < DOORKEEPER_BITS / 4 {
            let _ = cache.admit(&format!("k{i}"));
            i += 1;
            assert!(i < 4 * DOORKEEPER_BITS, "never filled");
        }
        while cache.admit(&format!("k{i}")) {
            i += 1;
        }
        let bits: u32 = cache.doorkeeper.iter().map(|word| word.count_ones()).sum();
        assert_eq!((bits, cache.doorkeeper_set), (1, 1));
        assert!(!HotCache::<u32>::new(0).admit("a"), "a zero budget admits nothing");
    }

    #[test]
    fn a_zero_budget_caches_nothing() {
        let mut cache = HotCache::<u32>::new(0);
        cache.put(&Arc::from("k"), Arc::new(1), 1);
        assert!(cache.get("k").is_none());
        assert_eq!(cache.used, 0);
    }
}
