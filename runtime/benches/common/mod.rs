//! What the benches that run each case in a process of their own read about that process.
// Each bench includes this module and reads only part of it.
#![allow(dead_code)]

/// This process's CPU and faults so far, from `/proc/self/stat` (zeros where it cannot be
/// read: Linux only).
pub(crate) struct ProcStat {
    /// User CPU seconds, all threads (10 ms ticks).
    pub(crate) user_s: f64,
    /// System CPU seconds, all threads.
    pub(crate) sys_s: f64,
    /// Minor page faults.
    pub(crate) minor_faults: f64,
}

impl ProcStat {
    pub(crate) fn now() -> Self {
        let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
        let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
        let field = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
        // After the command name: state is field 0, minflt 7, utime 11, stime 12.
        Self { user_s: field(11) / 100.0, sys_s: field(12) / 100.0, minor_faults: field(7) }
    }

    /// User plus system CPU seconds.
    pub(crate) fn cpu_s(&self) -> f64 {
        self.user_s + self.sys_s
    }
}
