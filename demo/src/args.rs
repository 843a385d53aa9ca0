//! Command-line flags: `--duration 20s`, `--pods N`, `--deployments M` (parsed by clap).

use std::time::Duration;

use clap::Parser;

/// A live terminal view of kube-informers syncing and following the cluster KUBECONFIG names
/// or, when none answers within 3 s, the built-in test API server, seeded and churned.
#[derive(Debug, Clone, PartialEq, Eq, Parser)]
#[command(name = "kube-informers-demo", version)]
pub(crate) struct Args {
    /// Stops after this long (500ms, 20s, 1m30s, 2h; a bare number is seconds); without it
    /// the demo runs until Ctrl-C.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub(crate) duration: Option<Duration>,
    /// Pods to seed into the built-in server (ignored with a cluster).
    #[arg(long, value_name = "N", default_value_t = 5_000)]
    pub(crate) pods: usize,
    /// Deployments to seed into the built-in server (ignored with a cluster).
    #[arg(long, value_name = "M", default_value_t = 500)]
    pub(crate) deployments: usize,
}

/// Parses a humantime duration (`500ms`, `20s`, `1m30s`, `2h`) or a bare number of seconds.
fn parse_duration(text: &str) -> Result<Duration, humantime::DurationError> {
    match text.trim().parse::<u64>() {
        Ok(seconds) => Ok(Duration::from_secs(seconds)),
        Err(_) => humantime::parse_duration(text),
    }
}

#[cfg(test)]
mod tests {
    use clap::error::ErrorKind;

    use super::*;

    fn parse(args: &[&str]) -> Result<Args, clap::Error> {
        Args::try_parse_from(std::iter::once("kube-informers-demo").chain(args.iter().copied()))
    }

    #[test]
    fn defaults_seed_5000_pods_and_500_deployments_and_run_until_ctrl_c() {
        let args = parse(&[]).unwrap();
        assert_eq!(args, Args { duration: None, pods: 5_000, deployments: 500 });
    }

    #[test]
    fn durations_take_humantime_units_or_bare_seconds() {
        let duration = |text: &str| parse(&["--duration", text]).unwrap().duration;
        assert_eq!(duration("20s"), Some(Duration::from_secs(20)));
        assert_eq!(duration("2m"), Some(Duration::from_secs(120)));
        assert_eq!(duration("1m30s"), Some(Duration::from_secs(90)));
        assert_eq!(duration("500ms"), Some(Duration::from_millis(500)));
        assert_eq!(duration("1h"), Some(Duration::from_secs(3600)));
        assert_eq!(duration("7"), Some(Duration::from_secs(7)));
    }

    #[test]
    fn flags_parse_in_both_forms() {
        let args = parse(&["--duration", "3s", "--pods=40", "--deployments", "4"]).unwrap();
        assert_eq!(args, Args { duration: Some(Duration::from_secs(3)), pods: 40, deployments: 4 });
    }

    #[test]
    fn bad_flags_are_usage_errors() {
        let kind = |args: &[&str]| parse(args).unwrap_err().kind();
        assert_eq!(kind(&["--verbose"]), ErrorKind::UnknownArgument);
        assert_eq!(kind(&["--pods"]), ErrorKind::InvalidValue);
        assert_eq!(kind(&["--pods", "many"]), ErrorKind::ValueValidation);
        assert_eq!(kind(&["--duration", "soon"]), ErrorKind::ValueValidation);
        assert_eq!(kind(&["--duration", "2x"]), ErrorKind::ValueValidation);
        assert_eq!(parse(&["--pods", "x"]).unwrap_err().exit_code(), 2);
    }
}
