//! Reporting what goes wrong: every error goes to `tracing` (decode errors redacted) and
//! to the error observer; the watch-error handler gets those client-go's would (see
//! [`WatchErrorHandler`](super::WatchErrorHandler)).

use std::panic::AssertUnwindSafe;

use kube::Resource;

use super::{Reflector, ReflectorError};

impl<K> Reflector<K>
where
    K: Resource + Clone + Send + Sync + 'static,
{
    /// An error that ends the list-and-watch cycle as client-go's `ListAndWatch` would
    /// return it: logged, observed, and passed to the watch-error handler.
    pub(super) fn report(&self, err: &ReflectorError) {
        self.note(err);
        if let Some(handler) = &self.watch_error_handler
            && std::panic::catch_unwind(AssertUnwindSafe(|| handler(err))).is_err()
        {
            tracing::error!("the reflector's watch-error handler panicked");
        }
    }

    /// An error the reflector recovers from within the cycle (an expiry, a retried or
    /// resumed watch, a streaming list that falls back): logged and observed only.
    /// Expiry is routine and logged at info; the rest at warn. Decode errors are logged
    /// without their message, which can quote object contents.
    pub(super) fn note(&self, err: &ReflectorError) {
        let description = describe_for_log(err);
        if err.is_expired() {
            tracing::info!(error = %description, "reflector: resource version expired");
        } else {
            tracing::warn!(error = %description, "reflector error");
        }
        if let Some(observer) = &self.error_observer
            && std::panic::catch_unwind(AssertUnwindSafe(|| observer(err))).is_err()
        {
            tracing::error!("the reflector's error observer panicked");
        }
    }
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
}
