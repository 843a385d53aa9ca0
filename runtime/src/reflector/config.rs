//! Reflector configuration, with client-go's defaults.

use std::time::Duration;

/// Exponential backoff between failed requests, client-go's
/// `wait.NewExponentialBackoffManager(800ms, 30s, 2m, 2.0, 1.0)`.
///
/// The n-th consecutive delay is `min(initial * factor^n, max)`, then jittered up to
/// `jitter` times itself (a delay `d` becomes a random value in `[d, d * (1 + jitter)]`).
/// When no backoff was needed for `reset_after`, the next delay starts from `initial` again.
#[derive(Clone, Debug, PartialEq)]
pub struct BackoffConfig {
    /// The first delay (default 800 ms).
    pub initial: Duration,
    /// The cap on the un-jittered delay (default 30 s).
    pub max: Duration,
    /// The growth factor between consecutive delays (default 2.0).
    pub factor: f64,
    /// The jitter factor (default 1.0); 0 disables jitter.
    pub jitter: f64,
    /// The quiet period after which the backoff starts over (default 2 minutes).
    pub reset_after: Duration,
}

impl Default for BackoffConfig {
    fn default() -> Self {
        Self {
            initial: Duration::from_millis(800),
            max: Duration::from_secs(30),
            factor: 2.0,
            jitter: 1.0,
            reset_after: Duration::from_secs(120),
        }
    }
}

/// How a [`Reflector`](super::Reflector) lists and watches. The defaults match client-go.
///
/// ```
/// use std::time::Duration;
/// use kube_informers_runtime::reflector::ReflectorConfig;
///
/// let config = ReflectorConfig {
///     name: "pods".into(),
///     resync_period: Duration::from_secs(60),
///     ..ReflectorConfig::default()
/// };
/// assert_eq!(config.page_size, 500);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ReflectorConfig {
    /// A name for logs and tracing spans (client-go's reflector name).
    pub name: String,
    /// The `limit` of each list page (client-go's pager default, 500); 0 lists without a limit.
    ///
    /// As in client-go, a relist at a specific resource version (not `""` or `"0"`) is sent
    /// without a limit, so the API server can serve it from its watch cache, unless an
    /// earlier `resourceVersion="0"` list came back paginated (the watch cache is off).
    pub page_size: u32,
    /// The lower bound of the random server-side watch timeout (default 5 minutes).
    pub min_watch_timeout: Duration,
    /// The upper bound of the random server-side watch timeout (default 10 minutes).
    pub max_watch_timeout: Duration,
    /// How long past the server-side watch timeout a watch may stay silent before the
    /// reflector presumes its connection dead (default 5 s, as kube-runtime's watcher);
    /// zero disables the check.
    ///
    /// Every watch asks the server to close it after a random timeout of at most
    /// `max_watch_timeout`, so a watch that has received nothing (no event, no bookmark,
    /// not even its response) for `max_watch_timeout + watch_idle_margin` is stuck: a
    /// half-open TCP connection, or a request lost on the client side. The reflector then
    /// reports [`WireError::Stalled`](crate::listwatch::WireError::Stalled) through the
    /// watch-error handler and re-watches from the last resource version, after the usual
    /// backoff.
    /// client-go has no such check on HTTP/1 connections (its HTTP/2 transport pings
    /// idle connections instead), and kube's client sets no read timeout by default, so
    /// without it one dead connection would freeze the cache with no error at all.
    pub watch_idle_margin: Duration,
    /// How long a list request may stay silent before the reflector presumes its
    /// connection dead (default 60 s); zero disables the check.
    ///
    /// The limit is on silence, not on the length of the list: the response must begin
    /// (status line and headers) within it, and then each piece of the body must arrive
    /// within it of the one before, so a list of 100,000 objects that keeps sending is
    /// never cut, however long it takes. kube-apiserver ends any request that is not a
    /// watch after its `--request-timeout` (60 s by default), so a list that has sent
    /// nothing for longer is stuck: a half-open TCP connection. The reflector then reports
    /// [`WireError::Stalled`](crate::listwatch::WireError::Stalled) as a failed list
    /// ([`ReflectorError::List`](super::ReflectorError::List)) and relists after the usual
    /// backoff. Here we do better than client-go, whose list over HTTP/1 has no time limit
    /// at all: one dead connection during a relist would freeze the cache with no error.
    pub list_idle_timeout: Duration,
    /// The backoff between failed requests.
    pub backoff: BackoffConfig,
    /// How often the resync timer fires while watching; zero (the default) never resyncs.
    pub resync_period: Duration,
    /// Opt in to streaming lists (client-go's `WatchListClient` feature): the initial state
    /// comes from a watch with `sendInitialEvents=true` instead of a list. The reflector
    /// falls back to a plain list for any cycle whose streaming attempt fails.
    pub streaming_list: bool,
}

impl Default for ReflectorConfig {
    fn default() -> Self {
        Self {
            name: "reflector".into(),
            page_size: 500,
            min_watch_timeout: Duration::from_secs(5 * 60),
            max_watch_timeout: Duration::from_secs(10 * 60),
            watch_idle_margin: Duration::from_secs(5),
            list_idle_timeout: Duration::from_secs(60),
            backoff: BackoffConfig::default(),
            resync_period: Duration::ZERO,
            streaming_list: false,
        }
    }
}

impl ReflectorConfig {
    /// A random watch timeout in whole seconds within
    /// `[min_watch_timeout, max_watch_timeout]` (bounds swapped if given in the wrong order).
    pub(crate) fn random_watch_timeout_secs(&self) -> u32 {
        let to_secs = |d: Duration| u32::try_from(d.as_secs()).unwrap_or(u32::MAX);
        let (a, b) = (to_secs(self.min_watch_timeout), to_secs(self.max_watch_timeout));
        let (low, high) = if a <= b { (a, b) } else { (b, a) };
        rand::Rng::random_range(&mut rand::rng(), low..=high)
    }

    /// How long a watch may stay silent (see
    /// [`watch_idle_margin`](Self::watch_idle_margin)): the longest server-side timeout it
    /// could have asked for plus the margin; `None` when the margin is zero (the check is
    /// off).
    pub(crate) fn watch_idle_limit(&self) -> Option<Duration> {
        (!self.watch_idle_margin.is_zero()).then(|| {
            let longest = self.min_watch_timeout.max(self.max_watch_timeout);
            // The timeout sent is in whole seconds, rounded down.
            Duration::from_secs(longest.as_secs()) + self.watch_idle_margin
        })
    }

    /// How long a list may stay silent (see
    /// [`list_idle_timeout`](Self::list_idle_timeout)); `None` when the check is off.
    pub(crate) fn list_idle_limit(&self) -> Option<Duration> {
        (!self.list_idle_timeout.is_zero()).then_some(self.list_idle_timeout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_client_go() {
        let config = ReflectorConfig::default();
        assert_eq!(config.page_size, 500);
        assert_eq!(config.min_watch_timeout, Duration::from_secs(300));
        assert_eq!(config.max_watch_timeout, Duration::from_secs(600));
        assert_eq!(config.resync_period, Duration::ZERO);
        assert_eq!(config.watch_idle_margin, Duration::from_secs(5));
        // Not client-go's: its HTTP/1 list has no time limit. kube-apiserver's default
        // --request-timeout, past which no list is still being answered.
        assert_eq!(config.list_idle_timeout, Duration::from_secs(60));
        assert!(!config.streaming_list);
        assert_eq!(config.backoff.initial, Duration::from_millis(800));
        assert_eq!(config.backoff.max, Duration::from_secs(30));
        assert_eq!(config.backoff.reset_after, Duration::from_secs(120));
        assert_eq!((config.backoff.factor, config.backoff.jitter), (2.0, 1.0));
    }

    #[test]
    fn watch_timeout_stays_in_range() {
        let config = ReflectorConfig::default();
        for _ in 0..200 {
            let t = config.random_watch_timeout_secs();
            assert!((300..=600).contains(&t), "{t}");
        }
        let swapped = ReflectorConfig {
            min_watch_timeout: Duration::from_secs(9),
            max_watch_timeout: Duration::from_secs(7),
            ..ReflectorConfig::default()
        };
        for _ in 0..50 {
            assert!((7..=9).contains(&swapped.random_watch_timeout_secs()));
        }
    }

    #[test]
    fn idle_limit_is_the_longest_timeout_plus_the_margin() {
        let config = ReflectorConfig::default();
        assert_eq!(config.watch_idle_limit(), Some(Duration::from_secs(605)));
        let swapped = ReflectorConfig {
            min_watch_timeout: Duration::from_millis(9_500),
            max_watch_timeout: Duration::from_secs(7),
            watch_idle_margin: Duration::from_secs(1),
            ..ReflectorConfig::default()
        };
        assert_eq!(swapped.watch_idle_limit(), Some(Duration::from_secs(10)));
        let off =
            ReflectorConfig { watch_idle_margin: Duration::ZERO, ..ReflectorConfig::default() };
        assert_eq!(off.watch_idle_limit(), None);
    }

    #[test]
    fn list_idle_limit_is_the_timeout_unless_zero() {
        assert_eq!(ReflectorConfig::default().list_idle_limit(), Some(Duration::from_secs(60)));
        let off =
            ReflectorConfig { list_idle_timeout: Duration::ZERO, ..ReflectorConfig::default() };
        assert_eq!(off.list_idle_limit(), None);
    }
}
