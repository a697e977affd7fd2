//! Readings from Linux's `/proc`: resident memory, descriptors, threads, CPU time per thread.
//! Every reader returns `None` where the file is missing or unreadable (another OS, a
//! process that has exited), so a report says "unknown" rather than a made-up zero.

use std::fs;
use std::path::Path;
use std::time::Duration;

/// Clock ticks per second of `/proc/*/stat` CPU times (`USER_HZ`, 100 on every Linux ABI).
pub const TICKS_PER_SECOND: u64 = 100;
/// Page size assumed for `statm` (4 KiB on x86-64 and most arm64 kernels).
const PAGE_BYTES: u64 = 4096;

/// `pid` as a `/proc` path component: `self` or a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pid {
    This,
    Other(u32),
}

impl Pid {
    fn dir(self) -> String {
        match self {
            Pid::This => "/proc/self".to_owned(),
            Pid::Other(pid) => format!("/proc/{pid}"),
        }
    }
}

pub fn rss_bytes(pid: Pid) -> Option<u64> {
    let statm = fs::read_to_string(format!("{}/statm", pid.dir())).ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * PAGE_BYTES)
}

/// Open descriptors (entries of `/proc/<pid>/fd`).
pub fn open_fds(pid: Pid) -> Option<u64> {
    Some(fs::read_dir(format!("{}/fd", pid.dir())).ok()?.count() as u64)
}

pub fn threads(pid: Pid) -> Option<u64> {
    let stat = fs::read_to_string(format!("{}/stat", pid.dir())).ok()?;
    stat_fields(&stat)?.get(17)?.parse().ok()
}

/// User plus system CPU time of a whole process.
pub fn process_cpu(pid: Pid) -> Option<Duration> {
    let stat = fs::read_to_string(format!("{}/stat", pid.dir())).ok()?;
    cpu_of_stat(&stat)
}

/// CPU time of this process's threads whose name starts with `prefix` (the lab names its
/// client and server runtime threads, so the two can be told apart in one process).
pub fn threads_cpu(prefix: &str) -> Option<Duration> {
    let tasks = fs::read_dir("/proc/self/task").ok()?;
    let mut total = Duration::ZERO;
    for task in tasks.flatten() {
        let dir = task.path();
        let Ok(comm) = fs::read_to_string(dir.join("comm")) else {
            continue;
        };
        if !comm.trim_end().starts_with(prefix) {
            continue;
        }
        if let Some(cpu) = read(&dir.join("stat")).as_deref().and_then(cpu_of_stat) {
            total += cpu;
        }
    }
    Some(total)
}

fn read(path: &Path) -> Option<String> {
    fs::read_to_string(path).ok()
}

/// The fields after `(comm)`: the name may hold spaces and parentheses, so split after the
/// last `)`. Index 0 is the state (field 3 of `proc(5)`).
fn stat_fields(stat: &str) -> Option<Vec<&str>> {
    let after = stat.get(stat.rfind(')')? + 1..)?;
    Some(after.split_whitespace().collect())
}

/// utime + stime (fields 14 and 15 of `proc(5)`).
pub fn cpu_of_stat(stat: &str) -> Option<Duration> {
    let fields = stat_fields(stat)?;
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(Duration::from_millis(
        (utime + stime) * 1000 / TICKS_PER_SECOND,
    ))
}

/// The three load averages.
pub fn loadavg() -> Option<[f64; 3]> {
    parse_loadavg(&fs::read_to_string("/proc/loadavg").ok()?)
}

pub fn parse_loadavg(text: &str) -> Option<[f64; 3]> {
    let mut it = text.split_whitespace().map(str::parse::<f64>);
    Some([it.next()?.ok()?, it.next()?.ok()?, it.next()?.ok()?])
}

/// The soft and hard descriptor limits, from `/proc/self/limits`.
pub fn fd_limits() -> Option<(u64, u64)> {
    parse_fd_limits(&fs::read_to_string("/proc/self/limits").ok()?)
}

pub fn parse_fd_limits(text: &str) -> Option<(u64, u64)> {
    let line = text.lines().find(|l| l.starts_with("Max open files"))?;
    let mut numbers = line
        .trim_start_matches("Max open files")
        .split_whitespace()
        .map(|w| {
            if w == "unlimited" {
                Some(u64::MAX)
            } else {
                w.parse().ok()
            }
        });
    Some((numbers.next()??, numbers.next()??))
}

/// Raises the soft descriptor limit to the hard one when `needed` is more than the soft one
/// (processes started afterwards inherit it), and says what it did.
pub fn raise_fd_limit(needed: u64) -> String {
    let Some((soft, hard)) = fd_limits() else {
        return "descriptor limit unknown".to_owned();
    };
    if soft >= needed {
        return format!("descriptor limit {soft} covers the {needed} needed");
    }
    // `setrlimit` is an unsafe call and this crate denies `unsafe`: `prlimit(1)` sets it.
    let _ = std::process::Command::new("prlimit")
        .arg("--pid")
        .arg(std::process::id().to_string())
        .arg(format!("--nofile={hard}:{hard}"))
        .status();
    match fd_limits() {
        Some((now, _)) if now >= needed => {
            format!("descriptor limit raised from {soft} to {now}")
        }
        Some((now, _)) => format!(
            "descriptor limit {now} (hard limit {hard}) is below the {needed} needed: \
             connections past it fail on the client side"
        ),
        None => "descriptor limit unknown after raising".to_owned(),
    }
}

/// A one-line value such as `/proc/sys/net/core/somaxconn`.
pub fn sysctl(path: &str) -> Option<String> {
    Some(fs::read_to_string(path).ok()?.trim().to_owned())
}

/// `model name` of the first CPU.
pub fn cpu_model() -> Option<String> {
    let info = fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_owned())
}

pub fn mem_total_bytes() -> Option<u64> {
    let info = fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_cpu_survives_odd_names() {
        let stat = "4242 (quiver (lab) x) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 7 0 100";
        assert_eq!(cpu_of_stat(stat), Some(Duration::from_secs(3)));
        assert_eq!(stat_fields(stat).unwrap()[17], "7");
        assert_eq!(cpu_of_stat("garbage"), None);
    }

    #[test]
    fn loadavg_and_limits_parse() {
        assert_eq!(
            parse_loadavg("8.86 11.00 9.59 11/180 4210\n"),
            Some([8.86, 11.0, 9.59])
        );
        assert_eq!(parse_loadavg("x"), None);
        let limits = "Limit                     Soft Limit           Hard Limit           Units\n\
                      Max open files            20000                20000                files\n";
        assert_eq!(parse_fd_limits(limits), Some((20000, 20000)));
    }

    #[test]
    fn this_process_is_readable() {
        assert!(rss_bytes(Pid::This).unwrap() > 0);
        assert!(open_fds(Pid::This).unwrap() >= 3);
        assert!(threads(Pid::This).unwrap() >= 1);
        assert!(process_cpu(Pid::This).is_some());
    }
}
