//! Command-line flags: `--duration 20s`, `--pods N`, `--deployments M`.

use std::time::Duration;

/// What a bad command line says.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum ArgsError {
    /// A flag this program does not know.
    #[error("unknown flag `{0}` (flags: --duration 20s|2m|500ms, --pods N, --deployments M)")]
    UnknownFlag(String),
    /// A flag without its value.
    #[error("flag `{0}` needs a value")]
    MissingValue(String),
    /// A value that does not parse.
    #[error("invalid value `{value}` for `{flag}`")]
    InvalidValue {
        /// The flag.
        flag: String,
        /// What was given.
        value: String,
    },
}

/// The demo's options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Args {
    /// Stop after this long; `None` runs until Ctrl-C.
    pub(crate) duration: Option<Duration>,
    /// Pods to seed into the built-in server.
    pub(crate) pods: usize,
    /// Deployments to seed into the built-in server.
    pub(crate) deployments: usize,
}

impl Default for Args {
    fn default() -> Self {
        Self { duration: None, pods: 5_000, deployments: 500 }
    }
}

impl Args {
    /// Parses flags (without the program name); accepts `--flag value` and `--flag=value`.
    pub(crate) fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, ArgsError> {
        let mut parsed = Args::default();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) => (flag.to_string(), Some(value.to_string())),
                None => (arg.clone(), None),
            };
            if !matches!(flag.as_str(), "--duration" | "--pods" | "--deployments") {
                return Err(ArgsError::UnknownFlag(arg));
            }
            let value = match inline.or_else(|| args.next()) {
                Some(value) => value,
                None => return Err(ArgsError::MissingValue(flag)),
            };
            let invalid = || ArgsError::InvalidValue { flag: flag.clone(), value: value.clone() };
            match flag.as_str() {
                "--duration" => parsed.duration = Some(parse_duration(&value).ok_or_else(invalid)?),
                "--pods" => parsed.pods = value.parse().map_err(|_| invalid())?,
                _ => parsed.deployments = value.parse().map_err(|_| invalid())?,
            }
        }
        Ok(parsed)
    }
}

/// Parses `500ms`, `20s`, `2m`, `1h` or a bare number of seconds.
pub(crate) fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number.parse().ok()?;
    let millis = match unit {
        "ms" => number,
        "" | "s" => number.checked_mul(1_000)?,
        "m" => number.checked_mul(60_000)?,
        "h" => number.checked_mul(3_600_000)?,
        _ => return None,
    };
    Some(Duration::from_millis(millis))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(parse_duration("20s"), Some(Duration::from_secs(20)));
        assert_eq!(parse_duration("2m"), Some(Duration::from_secs(120)));
        assert_eq!(parse_duration("500ms"), Some(Duration::from_millis(500)));
        assert_eq!(parse_duration("7"), Some(Duration::from_secs(7)));
        assert_eq!(parse_duration("1h"), Some(Duration::from_secs(3600)));
        assert_eq!(parse_duration("2x"), None);
        assert_eq!(parse_duration("s"), None);
    }

    #[test]
    fn flags_parse_in_both_forms() {
        let args =
            Args::parse(strings(&["--duration", "3s", "--pods=40", "--deployments", "4"])).unwrap();
        assert_eq!(args, Args { duration: Some(Duration::from_secs(3)), pods: 40, deployments: 4 });
        assert_eq!(Args::parse(Vec::new()).unwrap(), Args::default());
    }

    #[test]
    fn bad_flags_are_errors() {
        assert_eq!(
            Args::parse(strings(&["--verbose"])),
            Err(ArgsError::UnknownFlag("--verbose".into()))
        );
        assert_eq!(
            Args::parse(strings(&["--pods"])),
            Err(ArgsError::MissingValue("--pods".into()))
        );
        assert!(matches!(
            Args::parse(strings(&["--duration", "soon"])),
            Err(ArgsError::InvalidValue { .. })
        ));
    }
}
