//! The standard process metrics of Prometheus' client libraries (what Go's
//! `collectors.NewProcessCollector` exports for controller-runtime), read from `/proc/self`
//! at each scrape on Linux; nothing elsewhere.
//!
//! | metric | from |
//! |---|---|
//! | `process_resident_memory_bytes`, `process_virtual_memory_bytes` | `/proc/self/status` (`VmRSS`, `VmSize`) |
//! | `process_cpu_seconds_total` | `/proc/self/stat` (utime + stime) |
//! | `process_start_time_seconds` | `/proc/self/stat` (starttime) and `/proc/stat` (btime) |
//! | `process_open_fds` | entries of `/proc/self/fd` |
//! | `process_max_fds` | `/proc/self/limits` (`Max open files`, soft limit) |
//!
//! Clock ticks are taken as 100 a second (`USER_HZ`, as Go's `procfs` does).

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;

/// Clock ticks a second on Linux (`USER_HZ`).
const TICKS_PER_SECOND: f64 = 100.0;

/// CPU time and start of a process, from its `stat` line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stat {
    /// User plus system CPU time, in clock ticks.
    pub cpu_ticks: u64,
    /// Start, in clock ticks after boot.
    pub start_ticks: u64,
}

/// Parses `/proc/<pid>/stat`: the fields after the command name (which may hold spaces and
/// parentheses, so the last `)` ends it): utime and stime are fields 14 and 15, starttime 22.
#[must_use]
pub fn parse_stat(stat: &str) -> Option<Stat> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state).
    let field = |n: usize| fields.get(n - 3)?.parse::<u64>().ok();
    Some(Stat {
        cpu_ticks: field(14)? + field(15)?,
        start_ticks: field(22)?,
    })
}

/// A `Name:   N kB` line of `/proc/<pid>/status`, in bytes.
#[must_use]
pub fn parse_status_bytes(status: &str, name: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.split(':').next() == Some(name))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The soft limit of open files in `/proc/<pid>/limits` (`unlimited`: `u64::MAX`).
#[must_use]
pub fn parse_max_open_files(limits: &str) -> Option<u64> {
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    let soft = line
        .trim_start_matches("Max open files")
        .split_whitespace()
        .next()?;
    if soft == "unlimited" {
        return Some(u64::MAX);
    }
    soft.parse().ok()
}

/// The boot time (`btime`) in `/proc/stat`, in Unix seconds.
#[must_use]
pub fn parse_boot_time(stat: &str) -> Option<u64> {
    stat.lines()
        .find_map(|l| l.strip_prefix("btime "))?
        .trim()
        .parse()
        .ok()
}

/// The process metrics, read at each scrape.
#[derive(Debug)]
pub struct ProcessCollector;

fn gauge(
    encoder: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    value: f64,
) -> Result<(), std::fmt::Error> {
    let gauge = ConstGauge::new(value);
    gauge.encode(encoder.encode_descriptor(name, help, None, gauge.metric_type())?)
}

impl Collector for ProcessCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let read = |path: &str| std::fs::read_to_string(path).ok();
        if let Some(status) = read("/proc/self/status") {
            if let Some(rss) = parse_status_bytes(&status, "VmRSS") {
                let help = "Resident memory size in bytes.";
                gauge(
                    &mut encoder,
                    "process_resident_memory_bytes",
                    help,
                    rss as f64,
                )?;
            }
            if let Some(vsize) = parse_status_bytes(&status, "VmSize") {
                let help = "Virtual memory size in bytes.";
                gauge(
                    &mut encoder,
                    "process_virtual_memory_bytes",
                    help,
                    vsize as f64,
                )?;
            }
        }
        if let Some(stat) = read("/proc/self/stat").as_deref().and_then(parse_stat) {
            let cpu = ConstCounter::new(stat.cpu_ticks as f64 / TICKS_PER_SECOND);
            cpu.encode(encoder.encode_descriptor(
                "process_cpu_seconds",
                "Total user and system CPU time spent in seconds.",
                None,
                cpu.metric_type(),
            )?)?;
            if let Some(boot) = read("/proc/stat").as_deref().and_then(parse_boot_time) {
                let start = boot as f64 + stat.start_ticks as f64 / TICKS_PER_SECOND;
                let help = "Start time of the process since unix epoch in seconds.";
                gauge(&mut encoder, "process_start_time_seconds", help, start)?;
            }
        }
        if let Ok(entries) = std::fs::read_dir("/proc/self/fd") {
            let open = entries.count() as f64;
            gauge(
                &mut encoder,
                "process_open_fds",
                "Number of open file descriptors.",
                open,
            )?;
        }
        if let Some(max) = read("/proc/self/limits")
            .as_deref()
            .and_then(parse_max_open_files)
        {
            let help = "Maximum number of open file descriptors.";
            gauge(&mut encoder, "process_max_fds", help, max as f64)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_proc_files() {
        let stat = "4242 (web hook) (x) S 1 4242 4242 0 -1 4194560 2107 0 0 0 150 25 0 0 20 0 9 0 123456 1234567 3000 18446744073709551615";
        assert_eq!(
            parse_stat(stat),
            Some(Stat {
                cpu_ticks: 175,
                start_ticks: 123_456
            })
        );
        assert_eq!(parse_stat("garbage"), None);
        let status = "Name:\tconversion-webh\nVmSize:\t  123456 kB\nVmHWM:\t   20000 kB\nVmRSS:\t   15000 kB\n";
        assert_eq!(parse_status_bytes(status, "VmRSS"), Some(15_000 * 1024));
        assert_eq!(parse_status_bytes(status, "VmSize"), Some(123_456 * 1024));
        assert_eq!(parse_status_bytes(status, "VmSwap"), None);
        let limits = "Limit                     Soft Limit           Hard Limit           Units     \nMax cpu time              unlimited            unlimited            seconds   \nMax open files            1048576              1048576              files     \n";
        assert_eq!(parse_max_open_files(limits), Some(1_048_576));
        assert_eq!(
            parse_boot_time("cpu  1 2 3\nbtime 1767225600\nprocesses 5\n"),
            Some(1_767_225_600)
        );
    }
}
