//! The outer loop: list-and-watch cycles separated by backoff, and error reporting.

use std::{panic::AssertUnwindSafe, time::Duration};

use kube::Resource;
use tokio_util::sync::CancellationToken;

use super::{
    Reflector, ReflectorConfig, ReflectorError, backoff::Backoff, streaming::StreamingOutcome,
};

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

/// State of one [`Reflector::run`] call.
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
    fn new(config: &ReflectorConfig) -> Self {
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

impl<K> Reflector<K>
where
    K: Resource + Clone + Send + Sync + 'static,
{
    /// Lists and watches until `cancel` is cancelled, recovering from every error on its
    /// own (client-go's `Reflector.Run`). Returns as soon as the pending request, sleep
    /// or stream read observes the cancellation.
    #[tracing::instrument(name = "reflector", skip_all, fields(reflector = %self.config.name))]
    pub async fn run(&self, cancel: CancellationToken) {
        tracing::debug!(
            resync_period = ?self.config.resync_period,
            streaming_list = self.config.streaming_list,
            "starting reflector"
        );
        let mut state = RunState::new(&self.config);
        loop {
            let min_delay = match self.list_and_watch(&mut state, &cancel).await {
                Flow::Stop => break,
                Flow::Relist { min_delay } => min_delay,
            };
            let delay = state.backoff.next_delay().max(min_delay.unwrap_or_default());
            tracing::debug!(?delay, "relisting after backoff");
            if !sleep(delay, &cancel).await {
                break;
            }
        }
        tracing::debug!("reflector stopped");
    }

    /// One cycle: (streaming) list, then watch until something calls for a relist.
    async fn list_and_watch(&self, state: &mut RunState, cancel: &CancellationToken) -> Flow {
        if cancel.is_cancelled() {
            return Flow::Stop;
        }
        let mut live = None;
        if self.config.streaming_list {
            match self.streaming_list(state, cancel).await {
                StreamingOutcome::Cancelled => return Flow::Stop,
                StreamingOutcome::Synced(stream) => live = Some(stream),
                StreamingOutcome::FallBack => {}
            }
        }
        if live.is_none()
            && let Err(flow) = self.list(state, cancel).await
        {
            return flow;
        }
        self.watch_with_resync(state, live, cancel).await
    }

    /// Passes `err` to the watch-error handler and logs it. Expiry is routine and logged
    /// at info; the rest at warn. Decode errors are logged without their message, which
    /// can quote object contents.
    pub(super) fn report(&self, err: &ReflectorError) {
        let description = describe_for_log(err);
        if err.is_expired() {
            tracing::info!(error = %description, "reflector: resource version expired");
        } else {
            tracing::warn!(error = %description, "reflector error");
        }
        if let Some(handler) = &self.watch_error_handler
            && std::panic::catch_unwind(AssertUnwindSafe(|| handler(err))).is_err()
        {
            tracing::error!("the reflector's watch-error handler panicked");
        }
    }
}

/// Sleeps for `delay` unless cancelled first; returns whether it slept the whole time.
pub(super) async fn sleep(delay: Duration, cancel: &CancellationToken) -> bool {
    cancel.run_until_cancelled(tokio::time::sleep(delay)).await.is_some()
}

/// The error and its causes on one line, with the text of any JSON decoding error
/// replaced by its position: serde's messages quote the offending value.
fn describe_for_log(err: &ReflectorError) -> String {
    use std::{error::Error, fmt::Write};

    let mut out = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        if let Some(json) = cause.downcast_ref::<serde_json::Error>() {
            let _ = write!(
                out,
                ": invalid {:?} data at line {} column {}",
                json.classify(),
                json.line(),
                json.column()
            );
            break;
        }
        let next = cause.source();
        if let Some(json) = next.and_then(|n| n.downcast_ref::<serde_json::Error>()) {
            // `cause` wraps the JSON error and prints it: print the redacted form only.
            let _ = write!(
                out,
                ": response did not decode (invalid {:?} data at line {} column {})",
                json.classify(),
                json.line(),
                json.column()
            );
            break;
        }
        let _ = write!(out, ": {cause}");
        source = next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_errors_are_logged_without_contents() {
        let json = serde_json::from_str::<u32>(r#""top-secret-value""#).unwrap_err();
        assert!(json.to_string().contains("top-secret-value"));
        let err = ReflectorError::Decode(kube::Error::SerdeError(json));
        let logged = describe_for_log(&err);
        assert!(!logged.contains("top-secret-value"), "{logged}");
        assert!(logged.starts_with("failed to decode a watch event: response did not decode"));
        assert!(logged.contains("line 1 column"));
    }

    #[test]
    fn other_errors_keep_their_chain() {
        let status = kube::core::Status::failure("pods is forbidden", "Forbidden").with_code(403);
        let err = ReflectorError::List(kube::Error::Api(status.boxed()));
        let logged = describe_for_log(&err);
        assert!(logged.starts_with("list request failed: ApiError"), "{logged}");
        assert!(logged.contains("pods is forbidden"), "{logged}");
    }

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
