//! One child process of the control plane: started with its output in a log file, killed on
//! drop so a panicking test leaves no server behind.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::process::{Child, Command};

use crate::error::{Error, Result};

/// A running etcd or kube-apiserver.
#[derive(Debug)]
pub(crate) struct ServerProcess {
    name: &'static str,
    child: Child,
    log: PathBuf,
}

impl ServerProcess {
    /// Starts `program args` with `env` added to ours, writing stdout and stderr to `log`
    /// (appended, so a restart keeps the earlier run's lines).
    pub(crate) fn spawn(
        name: &'static str,
        program: &Path,
        args: &[String],
        env: &[(String, String)],
        log: PathBuf,
    ) -> Result<ServerProcess> {
        let open = || {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&log)
                .map_err(|source| Error::RealServerStart { name, source })
        };
        let child = Command::new(program)
            .args(args)
            // Our builds exit when this process dies without running destructors
            // (realserver/internal/parentwatch); envtest's binaries ignore the variable.
            .env("KUBE_INFORMERS_EXIT_WITH_PARENT", "1")
            .envs(env.iter().map(|(name, value)| (name, value)))
            .stdin(Stdio::null())
            .stdout(open()?)
            .stderr(open()?)
            .kill_on_drop(true)
            .spawn()
            .map_err(|source| Error::RealServerStart { name, source })?;
        tracing::debug!(name, pid = child.id(), "started");
        Ok(ServerProcess { name, child, log })
    }

    /// Fails with the end of the log if the process has already exited.
    pub(crate) fn check_alive(&mut self) -> Result<()> {
        match self.child.try_wait() {
            Ok(None) => Ok(()),
            Ok(Some(status)) => Err(Error::RealServerExited {
                name: self.name,
                status: status.to_string(),
                log_tail: self.log_tail(),
            }),
            Err(source) => Err(Error::RealServerStart { name: self.name, source }),
        }
    }

    /// The last 40 lines of the process's log.
    pub(crate) fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }

    /// SIGKILL, then reap.
    pub(crate) async fn kill(&mut self) {
        let _ = self.child.start_kill();
        let _ = self.child.wait().await;
        tracing::debug!(name = self.name, "killed");
    }
}

/// A loopback port that was free a moment ago (bound, read, released). Another process may
/// take it before the server binds it (any outgoing connection can be given it): the server
/// then exits, [`port_taken`] says so, and the start is retried on new ports.
pub(crate) fn free_port() -> Result<u16> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).map_err(Error::Bind)?;
    Ok(listener.local_addr().map_err(Error::Bind)?.port())
}

/// How many times a control plane is started before a taken port fails the start.
pub(crate) const START_ATTEMPTS: u32 = 3;

/// Whether `err` is a server that exited because its port was taken (Go's `bind: address
/// already in use`, from etcd or kube-apiserver).
pub(crate) fn port_taken(err: &Error) -> bool {
    matches!(err, Error::RealServerExited { log_tail, .. } if log_tail.contains("address already in use"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_server_that_could_not_bind_its_port_counts_as_port_taken() {
        let exited = |log_tail: &str| Error::RealServerExited {
            name: "etcd",
            status: "exit status: 1".into(),
            log_tail: log_tail.into(),
        };
        assert!(port_taken(&exited(
            r#"{"level":"fatal","msg":"discovery failed","error":"listen tcp 127.0.0.1:43503: bind: address already in use"}"#
        )));
        assert!(!port_taken(&exited(r#"{"level":"fatal","msg":"cannot access data directory"}"#)));
        assert!(!port_taken(&Error::Setup("address already in use".into())));
    }
}
