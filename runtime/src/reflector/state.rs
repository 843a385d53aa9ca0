//! What the stages of one [`Reflector::run`](super::Reflector::run) share: the run's
//! state, the step a stage asks for when it gives up, and a cancellable sleep.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::{ReflectorConfig, backoff::Backoff};

/// What the reflector does after a cycle stage gives up.
#[derive(Debug)]
pub(super) enum Flow {
    /// Cancelled: return from `run`.
    Stop,
    /// Back off (at least `min_delay`), then start a new list-and-watch cycle.
    Relist {
        /// The server's `Retry-After`, if it sent one.
        min_delay: Option<Duration>,
    },
}

impl Flow {
    pub(super) const RELIST: Flow = Flow::Relist { min_delay: None };
}

/// State of one [`Reflector::run`](super::Reflector::run) call.
#[derive(Debug)]
pub(super) struct RunState {
    pub(super) backoff: Backoff,
    /// The last synced resource version is known to be gone (410 or "too large"):
    /// the next list or streaming list must be a consistent read (`""`).
    pub(super) rv_unavailable: bool,
    /// A `resourceVersion="0"` list came back paginated: the server pages even when it
    /// could serve from its watch cache, so keep paging later relists too.
    pub(super) paginated_result: bool,
}

impl RunState {
    pub(super) fn new(config: &ReflectorConfig) -> Self {
        Self {
            backoff: Backoff::new(config.backoff.clone()),
            rv_unavailable: false,
            paginated_result: false,
        }
    }

    /// client-go's `relistResourceVersion`: `""` after an expiry, `"0"` before the
    /// first sync, the last synced version otherwise.
    pub(super) fn relist_resource_version(&self, last_synced: String) -> String {
        if self.rv_unavailable {
            String::new()
        } else if last_synced.is_empty() {
            "0".to_owned()
        } else {
            last_synced
        }
    }

    /// client-go's `rewatchResourceVersion`, where a streaming list starts from.
    pub(super) fn rewatch_resource_version(&self, last_synced: String) -> String {
        if self.rv_unavailable { String::new() } else { last_synced }
    }
}

/// Sleeps for `delay` unless cancelled first; returns whether it slept the whole time.
pub(super) async fn sleep(delay: Duration, cancel: &CancellationToken) -> bool {
    cancel.run_until_cancelled(tokio::time::sleep(delay)).await.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relist_and_rewatch_versions_follow_client_go() {
        // client-go: reflector_test.go TestReflectorResyncWithResourceVersion, TestReflectorExpiredExactResourceVersion
        let mut state = RunState::new(&ReflectorConfig::default());
        assert_eq!(state.relist_resource_version(String::new()), "0");
        assert_eq!(state.relist_resource_version("42".into()), "42");
        assert_eq!(state.rewatch_resource_version(String::new()), "");
        state.rv_unavailable = true;
        assert_eq!(state.relist_resource_version("42".into()), "");
        assert_eq!(state.rewatch_resource_version("42".into()), "");
    }
}
