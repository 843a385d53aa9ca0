//! Exponential backoff with jitter and a quiet-period reset
//! (client-go's `exponentialBackoffManagerImpl`).

use std::time::Duration;

use tokio::time::Instant;

use super::config::BackoffConfig;

/// The backoff state of one running reflector. Uses `tokio::time`, so tests with a
/// paused clock see exact delays.
#[derive(Debug)]
pub(crate) struct Backoff {
    config: BackoffConfig,
    /// The next un-jittered delay.
    next: Duration,
    /// When the previous delay was handed out.
    last: Option<Instant>,
}

impl Backoff {
    pub(crate) fn new(config: BackoffConfig) -> Self {
        Self { next: config.initial, config, last: None }
    }

    /// The delay before the next retry. Starts over from the initial delay when the
    /// previous delay was handed out more than `reset_after` ago.
    pub(crate) fn next_delay(&mut self) -> Duration {
        let now = Instant::now();
        if self.last.is_some_and(|last| now.duration_since(last) > self.config.reset_after) {
            self.next = self.config.initial;
        }
        self.last = Some(now);

        let delay = self.next.min(self.config.max);
        let factor = if self.config.factor.is_finite() && self.config.factor > 0.0 {
            self.config.factor
        } else {
            1.0
        };
        self.next = Duration::try_from_secs_f64(delay.as_secs_f64() * factor)
            .unwrap_or(self.config.max)
            .min(self.config.max);
        jittered(delay, self.config.jitter)
    }
}

/// client-go's `wait.Jitter`: a random duration in `[d, d * (1 + jitter)]`.
fn jittered(delay: Duration, jitter: f64) -> Duration {
    if !(jitter.is_finite() && jitter > 0.0) {
        return delay;
    }
    let extra: f64 = rand::Rng::random_range(&mut rand::rng(), 0.0..=jitter);
    delay + Duration::try_from_secs_f64(delay.as_secs_f64() * extra).unwrap_or(Duration::ZERO)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_jitter() -> BackoffConfig {
        BackoffConfig { jitter: 0.0, ..BackoffConfig::default() }
    }

    #[tokio::test(start_paused = true)]
    async fn grows_by_factor_and_caps() {
        // client-go: wait/backoff_test.go TestExponentialBackoffManagerGetNextBackoff
        let mut backoff = Backoff::new(no_jitter());
        let delays: Vec<u64> = (0..9).map(|_| backoff.next_delay().as_millis() as u64).collect();
        assert_eq!(delays, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000]);
    }

    #[tokio::test(start_paused = true)]
    async fn resets_after_quiet_period() {
        // client-go: wait/backoff_test.go TestExponentialBackoffManagerGetNextBackoff (reset)
        let mut backoff = Backoff::new(no_jitter());
        for _ in 0..4 {
            backoff.next_delay();
        }
        tokio::time::sleep(Duration::from_secs(119)).await;
        assert_eq!(backoff.next_delay(), Duration::from_millis(12800));
        tokio::time::sleep(Duration::from_secs(121)).await;
        assert_eq!(backoff.next_delay(), Duration::from_millis(800));
    }

    #[tokio::test(start_paused = true)]
    async fn jitter_stays_within_bounds() {
        let mut backoff = Backoff::new(BackoffConfig::default());
        let mut saw_jitter = false;
        for expected in [800u64, 1600, 3200, 6400, 12800, 25600, 30000, 30000] {
            let d = backoff.next_delay();
            let base = Duration::from_millis(expected);
            assert!(d >= base && d <= base * 2, "{d:?} outside [{base:?}, 2x]");
            saw_jitter |= d != base;
        }
        assert!(saw_jitter);
    }
}
