//! The resident set of a process, as Linux reports it in `/proc/<pid>/status`; shared by the
//! memory tests and the load bench.

/// The resident set of process `pid` (`"self"` for this one), in bytes.
pub fn resident_bytes(pid: &str) -> Result<u64, String> {
    let path = format!("/proc/{pid}/status");
    let status = std::fs::read_to_string(&path).map_err(|e| format!("reading {path}: {e}"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map(|kib| kib * 1024)
        .ok_or_else(|| "no VmRSS line".to_owned())
}
