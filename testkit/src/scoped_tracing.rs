//! Scoped tracing subscribers in tests that share one process.

use std::sync::OnceLock;

use tracing::Dispatch;
use tracing::subscriber::NoSubscriber;

/// Makes a scoped subscriber (`tracing::subscriber::set_default` or `with_default`) see every
/// span and event of its thread, even when tests on other threads of the same process hit the
/// same callsites first. Call it before setting the subscriber; calling it again does nothing.
///
/// While exactly one dispatcher is registered in the process, tracing-core decides a
/// callsite's interest, the first time the callsite is hit, from the default dispatcher of the
/// thread that hits it, and caches it for every thread. A test's lone scoped subscriber is
/// then never asked about a callsite that another test's thread (with no subscriber) hit
/// first: it is cached as of no interest, and its spans and events are lost. A test of what
/// is logged (that no Secret is, say) would pass on logs with those events missing. A second
/// dispatcher, registered once and kept for the life of the process, makes tracing-core ask
/// every registered dispatcher instead; being a [`NoSubscriber`], it records nothing.
pub fn scoped_subscribers_see_every_callsite() {
    static SECOND: OnceLock<Dispatch> = OnceLock::new();
    SECOND.get_or_init(|| Dispatch::new(NoSubscriber::default()));
}
