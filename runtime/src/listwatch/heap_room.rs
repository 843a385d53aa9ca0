//! Making room on the heap before a list's items are decoded, so that glibc grows a
//! thread's heap in a few large steps rather than one page at a time.
//!
//! glibc's `malloc` gives each thread that allocates (a tokio worker, say) an arena of its
//! own, and grows an arena's heap by exactly what the allocation at hand lacks, rounded up
//! to a page, with one `mprotect` call each time. Decoding a list allocates a great many
//! small blocks, so the heap grew a page per call: syncing 10,000 Pods from a real
//! kube-apiserver made 197,000 `mprotect` calls for 215,000 page faults; client-go's Go
//! heap, mapped in large steps, made 12 `mprotect` and 160 `mmap` calls for the same sync.
//! The main arena, which only the main thread uses unless the arenas run out, grows with
//! `brk` and 128 KiB to spare, so it does not have this problem.
//!
//! [`HeapRoom`] asks for one block of [`ROOM`] bytes and frees it at once, before the items
//! it expects to fill that room, and again before the blocks the items are then moved
//! into. In a thread's arena the heap grows once to fit the block, the freed block goes
//! back to the arena's free top, and the items' allocations are then carved from it
//! without another call. The block is never written to, so no page is touched and the
//! resident size does not change. Measured the same way, the sync made about 10,500
//! `mprotect` calls (about one per Pod) and its system time fell by a fifth with JSON and
//! by a third with protobuf (tests/BENCH.md has the runs).
//!
//! With another global allocator, each room made is one allocation and one free of
//! [`ROOM`] bytes, about one per Pod: under jemalloc the sync's CPU did not move (paired
//! ratios 0.97–1.04). On targets other than Linux with glibc nothing is done.

/// The size of the block asked for. It stays under glibc's default mmap threshold
/// (128 KiB), so the block comes from the arena's heap and not from `mmap`, and the freed
/// top stays under glibc's default trim threshold (also 128 KiB), so the arena does not
/// hand the room back straight away.
const ROOM: usize = 112 * 1024;

/// At most this many bytes of decoded object per byte on the wire: measured, a realistic
/// Pod takes 9.6 heap bytes per byte of JSON and 13.6 per byte of protobuf. An estimate
/// that is too high only makes room more often than needed.
const HEAP_PER_WIRE_BYTE: usize = 16;

/// The room made for the items decoded since: see the [module](self).
#[derive(Debug, Default)]
pub(crate) struct HeapRoom {
    /// How much of the last room is not yet spoken for.
    left: usize,
}

impl HeapRoom {
    /// Called before decoding an item of `wire` bytes.
    pub(crate) fn before_item(&mut self, wire: usize) {
        self.expect(wire.saturating_mul(HEAP_PER_WIRE_BYTE));
    }

    /// Hands the decoded `items` on to `each`, in order, with room made before each for
    /// the block the caller moves it into (see [`before_handing_on`](Self::before_handing_on)).
    pub(crate) fn hand_on<K>(
        &mut self,
        items: impl Iterator<Item = K>,
        each: &mut (dyn FnMut(K) + Send),
    ) {
        for item in items {
            self.before_handing_on::<K>();
            each(item);
        }
    }

    /// Called before handing a decoded `K` on to the caller, which moves it into a block of
    /// its own: the reflector puts each listed object in an `Arc` (a `Pod` is 2,464 bytes).
    /// Those blocks are asked for after a whole batch of items is decoded, so the room
    /// made for decoding is gone by then.
    fn before_handing_on<K>(&mut self) {
        self.expect(std::mem::size_of::<K>() + 2 * std::mem::size_of::<usize>());
    }

    /// Makes room first when the estimate of what is left is less than `bytes`.
    fn expect(&mut self, bytes: usize) {
        if bytes > self.left {
            make_room();
            self.left = ROOM;
        }
        self.left = self.left.saturating_sub(bytes);
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn make_room() {
    // The main thread allocates from glibc's main arena, which has room to spare already
    // (see the module); there the freed block makes the arena give memory back and take it
    // again. Measured with a current-thread runtime on the main thread, room made there
    // too took a 10,000-Pod sync from 6,460 `brk` calls to 20,540, for no gain.
    if std::thread::current().name() == Some("main") {
        return;
    }
    let block = Vec::<u8>::with_capacity(ROOM);
    // Keeps the compiler from leaving out an allocation it can see is never used.
    std::hint::black_box(&block);
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn make_room() {}

#[cfg(test)]
mod tests {
    use super::{HEAP_PER_WIRE_BYTE, HeapRoom, ROOM};

    #[test]
    fn room_is_made_before_the_first_item_and_then_used_up() {
        let mut room = HeapRoom::default();
        room.before_item(1000);
        assert_eq!(room.left, ROOM - 1000 * HEAP_PER_WIRE_BYTE);
        room.before_item(2000);
        assert_eq!(room.left, ROOM - 3000 * HEAP_PER_WIRE_BYTE);
    }

    #[test]
    fn an_item_that_does_not_fit_what_is_left_gets_new_room() {
        let mut room = HeapRoom::default();
        let wire = ROOM / HEAP_PER_WIRE_BYTE / 2 + 1;
        room.before_item(wire);
        let left = room.left;
        assert!(left < wire * HEAP_PER_WIRE_BYTE);
        room.before_item(wire);
        assert_eq!(room.left, ROOM - wire * HEAP_PER_WIRE_BYTE);
    }

    #[test]
    fn handing_on_counts_the_block_the_item_moves_into() {
        let mut room = HeapRoom::default();
        room.before_handing_on::<[u8; 1000]>();
        assert_eq!(room.left, ROOM - 1000 - 2 * std::mem::size_of::<usize>());
    }

    #[test]
    fn hand_on_passes_every_item_in_order_and_counts_each_block() {
        let mut room = HeapRoom::default();
        let mut seen = Vec::new();
        room.hand_on([[1u8; 100], [2u8; 100], [3u8; 100]].into_iter(), &mut |item| {
            seen.push(item[0])
        });
        assert_eq!(seen, [1, 2, 3]);
        assert_eq!(room.left, ROOM - 3 * (100 + 2 * std::mem::size_of::<usize>()));
    }

    #[test]
    fn an_item_larger_than_the_room_leaves_none() {
        let mut room = HeapRoom::default();
        room.before_item(ROOM);
        assert_eq!(room.left, 0);
        room.before_item(usize::MAX);
        assert_eq!(room.left, 0);
    }
}
