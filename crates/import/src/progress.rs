//! Progress: an `indicatif` bar (bytes read of the total, rows, rows/s, ETA) when standard
//! error is a terminal, and a plain line every few seconds when it is not, so a log of an
//! import run from a script still shows it moving.

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressMode {
    /// A bar on a terminal, plain lines otherwise.
    Auto,
    Plain,
    Off,
}

/// Time between two plain progress lines.
const PLAIN_INTERVAL: Duration = Duration::from_secs(2);

pub struct Progress {
    bar: Option<ProgressBar>,
    plain: bool,
    total_bytes: u64,
    read: Arc<AtomicU64>,
    started: Instant,
    last_line: Instant,
    rows: u64,
    phase: &'static str,
}

impl Progress {
    pub fn new(mode: ProgressMode, total_bytes: u64, read: Arc<AtomicU64>) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let bar = (mode == ProgressMode::Auto && terminal).then(|| {
            let bar = ProgressBar::with_draw_target(Some(total_bytes), ProgressDrawTarget::stderr());
            if let Ok(style) = ProgressStyle::with_template(
                "{prefix:>13} [{elapsed_precise}] [{wide_bar}] {binary_bytes}/{binary_total_bytes} {msg} ETA {eta}",
            ) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar
        });
        let plain = mode == ProgressMode::Plain || (mode == ProgressMode::Auto && !terminal);
        let now = Instant::now();
        Progress {
            bar,
            plain,
            total_bytes,
            read,
            started: now,
            last_line: now,
            rows: 0,
            phase: "nodes",
        }
    }

    /// The counter the input files add their bytes to.
    pub fn counter(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.read)
    }

    pub fn phase(&mut self, phase: &'static str) {
        self.phase = phase;
        if let Some(bar) = &self.bar {
            bar.set_prefix(phase);
        }
    }

    fn rate(&self) -> f64 {
        self.rows as f64 / self.started.elapsed().as_secs_f64().max(1e-3)
    }

    /// Adds `rows` read rows and redraws (the bar) or prints a line when one is due.
    pub fn rows(&mut self, rows: u64) {
        self.rows += rows;
        let read = self.read.load(Ordering::Relaxed);
        if let Some(bar) = &self.bar {
            bar.set_position(read);
            bar.set_message(format!("{} rows, {:.0} rows/s", self.rows, self.rate()));
        } else if self.plain && self.last_line.elapsed() >= PLAIN_INTERVAL {
            self.last_line = Instant::now();
            self.line(read);
        }
    }

    fn line(&self, read: u64) {
        let elapsed = self.started.elapsed().as_secs_f64();
        let fraction = if self.total_bytes == 0 {
            1.0
        } else {
            read as f64 / self.total_bytes as f64
        };
        let eta = if fraction > 0.0 {
            format!("{:.0} s", elapsed * (1.0 - fraction) / fraction)
        } else {
            "unknown".to_string()
        };
        eprintln!(
            "import: {}: {} rows, {:.0} rows/s, {:.1} of {:.1} MiB read ({:.0}%), ETA {eta}",
            self.phase,
            self.rows,
            self.rate(),
            read as f64 / MIB,
            self.total_bytes as f64 / MIB,
            fraction * 100.0,
        );
    }

    /// Ends the display with the final figures.
    pub fn finish(&self) {
        let read = self.read.load(Ordering::Relaxed);
        if let Some(bar) = &self.bar {
            bar.set_position(read);
            bar.finish_and_clear();
        } else if self.plain {
            self.line(read);
        }
    }
}

const MIB: f64 = 1024.0 * 1024.0;
