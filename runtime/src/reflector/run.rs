//! The outer loop: list-and-watch cycles separated by backoff.

use kube::Resource;
use tokio_util::sync::CancellationToken;

use super::{
    Reflector,
    state::{Flow, RunState, sleep},
    streaming::StreamingOutcome,
};

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
}
