//! The methods every queue has, for the queues built on [`WorkQueue`](super::WorkQueue):
//! written out as plain methods on each (client-go's interfaces embed each other; `Deref`
//! would hide the methods from the docs and let one queue pass for another).

/// Defines the [`WorkQueue`](super::WorkQueue) methods on `$queue`, each calling the
/// method of the same name on `self.$field`.
macro_rules! work_queue_methods {
    ($queue:ident, $field:ident) => {
        impl<T: Eq + std::hash::Hash + Clone + Send + Sync + 'static> $queue<T> {
            /// The queue's name, if it has one (see [`WorkQueue::name`](super::WorkQueue::name)).
            pub fn name(&self) -> Option<&str> {
                self.$field.name()
            }

            /// Marks `item` as needing processing (client-go `Add`); see
            /// [`WorkQueue::add`](super::WorkQueue::add).
            pub fn add(&self, item: T) {
                self.$field.add(item)
            }

            /// How many items are queued and ready (client-go `Len`); see
            /// [`WorkQueue::len`](super::WorkQueue::len).
            pub fn len(&self) -> usize {
                self.$field.len()
            }

            /// Whether [`len`](Self::len) is zero.
            pub fn is_empty(&self) -> bool {
                self.$field.is_empty()
            }

            /// Waits for the next item, `None` once shut down and drained (client-go `Get`);
            /// see [`WorkQueue::get`](super::WorkQueue::get). Cancel-safe.
            pub async fn get(&self) -> Option<T> {
                self.$field.get().await
            }

            /// Marks `item` as processed (client-go `Done`); see
            /// [`WorkQueue::done`](super::WorkQueue::done).
            pub fn done(&self, item: &T) {
                self.$field.done(item)
            }

            /// Stops accepting items (client-go `ShutDown`); see
            /// [`WorkQueue::shut_down`](super::WorkQueue::shut_down).
            pub fn shut_down(&self) {
                self.$field.shut_down()
            }

            /// Shuts down, then waits until no item is processing (client-go
            /// `ShutDownWithDrain`); see
            /// [`WorkQueue::shut_down_with_drain`](super::WorkQueue::shut_down_with_drain).
            pub async fn shut_down_with_drain(&self) {
                self.$field.shut_down_with_drain().await
            }

            /// Whether the queue is shutting down (client-go `ShuttingDown`).
            pub fn shutting_down(&self) -> bool {
                self.$field.shutting_down()
            }

            /// Sets the unfinished-work gauges now; see
            /// [`WorkQueue::update_unfinished_work_metrics`](super::WorkQueue::update_unfinished_work_metrics).
            pub fn update_unfinished_work_metrics(&self) {
                self.$field.update_unfinished_work_metrics()
            }
        }
    };
}
