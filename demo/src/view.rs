//! The live view: one snapshot of the informers, the workqueue and a few queries, rendered
//! as lines.

use std::time::Duration;

/// One informer's row.
#[derive(Debug, Clone)]
pub(crate) struct InformerRow {
    /// Resource name, e.g. `pods`.
    pub(crate) name: &'static str,
    /// Objects in the cache.
    pub(crate) objects: usize,
    /// Notifications handled in the last interval.
    pub(crate) events_per_sec: u64,
    /// Notifications queued for the handler and not yet handled.
    pub(crate) handler_lag: usize,
}

/// Everything one redraw shows.
#[derive(Debug, Clone)]
pub(crate) struct Snapshot {
    /// Where the objects come from.
    pub(crate) source: String,
    /// Time since the informers synced.
    pub(crate) elapsed: Duration,
    /// One row per informer.
    pub(crate) informers: Vec<InformerRow>,
    /// Items waiting in the workqueue.
    pub(crate) queue_depth: usize,
    /// Items the worker has reconciled.
    pub(crate) queue_processed: u64,
    /// `(query, answer)` pairs from listers and indexes.
    pub(crate) queries: Vec<(String, String)>,
}

impl Snapshot {
    /// The view as lines of text.
    pub(crate) fn lines(&self) -> Vec<String> {
        let mut lines = vec![
            format!(
                "kube-informers demo | {} | {}s | Ctrl-C to quit",
                self.source,
                self.elapsed.as_secs()
            ),
            String::new(),
            format!("{:<14} {:>9} {:>9} {:>12}", "informer", "objects", "events/s", "handler lag"),
        ];
        for row in &self.informers {
            lines.push(format!(
                "{:<14} {:>9} {:>9} {:>12}",
                row.name, row.objects, row.events_per_sec, row.handler_lag
            ));
        }
        lines.push(String::new());
        lines.push(format!(
            "workqueue deployments: depth {} processed {}",
            self.queue_depth, self.queue_processed
        ));
        lines.push(String::new());
        lines.push("queries:".to_string());
        let width = self.queries.iter().map(|(q, _)| q.len()).max().unwrap_or(0);
        for (query, answer) in &self.queries {
            lines.push(format!("  {query:<width$}  {answer}"));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_show_every_row_and_query() {
        let snapshot = Snapshot {
            source: "test".into(),
            elapsed: Duration::from_secs(3),
            informers: vec![InformerRow {
                name: "pods",
                objects: 42,
                events_per_sec: 7,
                handler_lag: 1,
            }],
            queue_depth: 2,
            queue_processed: 9,
            queries: vec![("pods in ns-0".into(), "10".into())],
        };
        let text = snapshot.lines().join("\n");
        assert!(text.contains("| 3s |"));
        assert!(
            text.lines()
                .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["pods", "42", "7", "1"])
        );
        assert!(text.contains("depth 2 processed 9"));
        assert!(text.contains("pods in ns-0  10"));
    }
}
