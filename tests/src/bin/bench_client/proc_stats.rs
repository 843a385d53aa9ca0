//! What the benchmark measures of its own process: CPU time and resident memory.

/// CPU and memory of this process, from `/proc/self` (or CPU and faults of the calling
/// thread alone, from `/proc/thread-self`: [`ProcStats::read_thread`]).
pub(crate) struct ProcStats {
    /// user + system CPU seconds of every thread so far (of the thread, from `read_thread`).
    pub(crate) cpu_s: f64,
    /// The system (kernel) part of `cpu_s`: page faults of fresh memory, mostly.
    pub(crate) sys_s: f64,
    /// `VmHWM`: peak resident set size.
    pub(crate) peak_rss: u64,
    /// `VmRSS`: resident set size now.
    pub(crate) rss: u64,
    /// Minor page faults so far (`minflt`): with `sys_s`, what one fault costs on this
    /// machine, which on a VM depends on whether the host still backs the page (BENCH.md).
    pub(crate) minor_faults: u64,
}

impl ProcStats {
    pub(crate) fn read() -> Self {
        Self::read_from("/proc/self")
    }

    /// CPU, system time and minor faults of the calling thread alone; the memory fields
    /// are still the process's (a thread has no RSS of its own).
    pub(crate) fn read_thread() -> Self {
        Self::read_from("/proc/thread-self")
    }

    fn read_from(dir: &str) -> Self {
        let status = std::fs::read_to_string(format!("{dir}/status")).unwrap_or_default();
        let kib = |field: &str| {
            status
                .lines()
                .find_map(|line| line.strip_prefix(field))
                .and_then(|rest| rest.split_whitespace().next()?.parse::<u64>().ok())
                .unwrap_or(0)
                * 1024
        };
        // Field 10 of `stat` is minflt; fields 14 and 15 (utime, stime) are in
        // clock ticks, and USER_HZ is 100 on every Linux architecture we run on. The command
        // name (field 2) may contain spaces, so split after its closing parenthesis: field N
        // is then at N - 3.
        let stat = std::fs::read_to_string(format!("{dir}/stat")).unwrap_or_default();
        let fields: Vec<&str> =
            stat.rsplit_once(')').map_or(vec![], |(_, rest)| rest.split_whitespace().collect());
        let field = |i: usize| fields.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
        let cpu_s = (field(14 - 3) + field(15 - 3)) as f64 / 100.0;
        let sys_s = field(15 - 3) as f64 / 100.0;
        ProcStats {
            cpu_s,
            sys_s,
            peak_rss: kib("VmHWM:"),
            rss: kib("VmRSS:"),
            minor_faults: field(10 - 3),
        }
    }
}
