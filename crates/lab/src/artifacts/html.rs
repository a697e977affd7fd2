//! `report.html`: the ladder at a glance, as inline SVG charts (nothing is fetched, so the
//! page opens from a file anywhere).

use std::fmt::Write as _;

use crate::report::{RunRecord, fmt_ns};

/// One line of a chart.
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    /// Dashed: a reference (the echo server, a RESP client) rather than a peer under test.
    pub dashed: bool,
}

const COLORS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f",
];
const W: f64 = 720.0;
const H: f64 = 380.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 170.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 50.0;

pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Round tick values covering `0..=max`.
pub fn linear_ticks(max: f64) -> Vec<f64> {
    if max <= 0.0 || !max.is_finite() {
        return vec![0.0, 1.0];
    }
    let raw = max / 5.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * magnitude);
    let mut ticks = Vec::new();
    let mut v = 0.0;
    while v < max + step * 0.999 {
        ticks.push(v);
        v += step;
    }
    ticks
}

/// Powers of ten covering `min..=max`.
pub fn log_ticks(min: f64, max: f64) -> Vec<f64> {
    if min <= 0.0 || max <= 0.0 || !min.is_finite() || !max.is_finite() {
        return vec![1.0, 10.0];
    }
    let lo = min.log10().floor() as i32;
    let hi = max.log10().ceil().max(f64::from(lo) + 1.0) as i32;
    (lo..=hi).map(|e| 10f64.powi(e)).collect()
}

fn short(v: f64) -> String {
    if v >= 1e6 {
        format!("{}M", trim(v / 1e6))
    } else if v >= 1e3 {
        format!("{}k", trim(v / 1e3))
    } else {
        trim(v)
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.1}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// A line chart. `log_x`: x on a log₂ axis (connection counts); `y_ns`: y values are
/// nanoseconds on a log₁₀ axis, labelled as durations.
pub fn line_chart(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    log_x: bool,
    y_ns: bool,
) -> String {
    let xs: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    let ys: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .filter(|y| !y_ns || *y > 0.0)
        .collect();
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#
    );
    let _ = write!(
        svg,
        r#"<text x="{}" y="22" font-size="15" font-weight="bold">{}</text>"#,
        LEFT,
        escape(title)
    );
    if xs.is_empty() || ys.is_empty() {
        svg.push_str(r#"<text x="80" y="120">no data</text></svg>"#);
        return svg;
    }
    let (x_min, x_max) = xs.iter().fold((f64::MAX, f64::MIN), |(a, b), &x| {
        (a.min(fx(log_x, x)), b.max(fx(log_x, x)))
    });
    let y_ticks = if y_ns {
        let (lo, hi) = ys
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &y| (a.min(y), b.max(y)));
        log_ticks(lo, hi)
    } else {
        linear_ticks(ys.iter().copied().fold(0.0, f64::max))
    };
    let (y_lo, y_hi) = (y_ticks[0], *y_ticks.last().unwrap_or(&1.0));
    let mut plot = Plot {
        log_x,
        y_ns,
        x_min,
        x_span: if x_max > x_min { x_max - x_min } else { 1.0 },
        y_lo,
        y_span: 1.0,
        w: W - LEFT - RIGHT,
        h: H - TOP - BOTTOM,
    };
    if plot.fy(y_hi) > plot.fy(y_lo) {
        plot.y_span = plot.fy(y_hi) - plot.fy(y_lo);
    }
    draw_frame(&mut svg, &plot, &y_ticks, &xs, x_label, y_label);
    for (i, s) in series.iter().enumerate() {
        draw_series(&mut svg, &plot, i, s);
    }
    svg.push_str("</svg>");
    svg
}

/// Where a chart's values land on the canvas.
struct Plot {
    log_x: bool,
    y_ns: bool,
    x_min: f64,
    x_span: f64,
    y_lo: f64,
    y_span: f64,
    /// The plotting area's size.
    w: f64,
    h: f64,
}

fn fx(log_x: bool, x: f64) -> f64 {
    if log_x { x.max(1.0).log2() } else { x }
}

impl Plot {
    fn fy(&self, y: f64) -> f64 {
        if self.y_ns {
            y.max(self.y_lo).log10()
        } else {
            y
        }
    }

    fn px(&self, x: f64) -> f64 {
        LEFT + (fx(self.log_x, x) - self.x_min) / self.x_span * self.w
    }

    fn py(&self, y: f64) -> f64 {
        TOP + self.h - (self.fy(y) - self.fy(self.y_lo)) / self.y_span * self.h
    }
}

/// The grid, the y labels at `y_ticks`, the x labels at the data's x values, the frame and the
/// axis titles.
fn draw_frame(
    svg: &mut String,
    plot: &Plot,
    y_ticks: &[f64],
    xs: &[f64],
    x_label: &str,
    y_label: &str,
) {
    let (plot_w, plot_h) = (plot.w, plot.h);
    // Grid and y labels.
    for t in y_ticks {
        let y = plot.py(*t);
        let label = if plot.y_ns {
            fmt_ns(*t as u64)
        } else {
            short(*t)
        };
        let _ = write!(
            svg,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{label}</text>"##,
            LEFT + plot.w,
            LEFT - 6.0,
            y + 4.0
        );
    }
    // X labels at the data's x values.
    let mut distinct: Vec<f64> = xs.to_vec();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    for x in &distinct {
        let _ = write!(
            svg,
            r##"<line x1="{0:.1}" y1="{1:.1}" x2="{0:.1}" y2="{2:.1}" stroke="#eee"/><text x="{0:.1}" y="{3:.1}" text-anchor="middle">{4}</text>"##,
            plot.px(*x),
            TOP,
            TOP + plot.h,
            TOP + plot.h + 18.0,
            short(*x)
        );
    }
    let _ = write!(
        svg,
        r##"<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#888"/><text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text><text x="16" y="{:.1}" transform="rotate(-90 16 {:.1})" text-anchor="middle">{}</text>"##,
        LEFT + plot.w / 2.0,
        H - 10.0,
        escape(x_label),
        TOP + plot.h / 2.0,
        TOP + plot.h / 2.0,
        escape(y_label)
    );
}

/// Series `i`: its line, a point with a tooltip per value, and its legend entry.
fn draw_series(svg: &mut String, plot: &Plot, i: usize, s: &Series) {
    let color = COLORS[i % COLORS.len()];
    let dash = if s.dashed {
        r#" stroke-dasharray="6 4""#
    } else {
        ""
    };
    let points: Vec<String> = s
        .points
        .iter()
        .filter(|p| !plot.y_ns || p.1 > 0.0)
        .map(|(x, y)| format!("{:.1},{:.1}", plot.px(*x), plot.py(*y)))
        .collect();
    let _ = write!(
        svg,
        r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2"{dash}/>"#,
        points.join(" ")
    );
    for (x, y) in s.points.iter().filter(|p| !plot.y_ns || p.1 > 0.0) {
        let value = if plot.y_ns {
            fmt_ns(*y as u64)
        } else {
            format!("{y:.0}")
        };
        let _ = write!(
            svg,
            r#"<circle cx="{:.1}" cy="{:.1}" r="3.5" fill="{color}"><title>{}: {} at {}</title></circle>"#,
            plot.px(*x),
            plot.py(*y),
            escape(&s.name),
            value,
            short(*x)
        );
    }
    let ly = TOP + 14.0 + i as f64 * 18.0;
    let _ = write!(
        svg,
        r#"<line x1="{:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{color}" stroke-width="2"{dash}/><text x="{:.1}" y="{:.1}">{}</text>"#,
        LEFT + plot.w + 10.0,
        LEFT + plot.w + 34.0,
        LEFT + plot.w + 40.0,
        ly + 4.0,
        escape(&s.name)
    );
}

pub const STYLE: &str = "body{font-family:sans-serif;max-width:980px;margin:2em auto;color:#222}\
table{border-collapse:collapse;font-size:13px;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}\
th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}.note{background:#fff8e0;padding:.6em 1em;border-left:4px solid #e0b000}\
.fail{color:#b00;font-weight:bold}";

/// The page of `--protocol http --ladder`: seed 002's four experiments at every rung, each
/// with the server's own counters (accepted total, active, in flight) and which side ran out.
pub fn http_page(
    reports: &[crate::experiments::http::HttpReport],
    header_deadline_ms: u64,
) -> String {
    let mut html = String::new();
    let _ = write!(
        html,
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>quiver lab: HTTP experiments</title><style>{STYLE}</style></head><body><h1>quiver lab: seed 002's four experiments over HTTP</h1>"
    );
    html.push_str("<p class=\"note\">Each point is one run against a fresh server. The server's counters are read while the connections are held (slow: the reading with the most requests in flight).</p>");
    html.push_str(&line_chart(
        "Throughput: count query over keep-alive connections",
        "connections",
        "requests/s",
        &[http_series(
            reports,
            "requests/s",
            "load",
            |r| r.requests_per_s,
            false,
        )],
        true,
        false,
    ));
    html.push_str(&line_chart(
        "Throughput: latency",
        "connections",
        "latency",
        &[
            http_series(
                reports,
                "p50",
                "load",
                |r| r.latency.map(|p| p.p50_ns as f64),
                false,
            ),
            http_series(
                reports,
                "p99",
                "load",
                |r| r.latency.map(|p| p.p99_ns as f64),
                false,
            ),
        ],
        true,
        true,
    ));
    html.push_str(&line_chart(
        "Idle keep-alive: server resident memory per connection",
        "connections held",
        "bytes",
        &[http_series(
            reports,
            "RSS per idle connection",
            "idle",
            |r| r.server_rss_per_conn.map(|b| b as f64),
            false,
        )],
        true,
        false,
    ));
    html.push_str(&http_hold_charts(reports, header_deadline_ms));
    html.push_str(&http_table(reports));
    html.push_str(&seed_go_table());
    html.push_str("</body></html>");
    html
}

/// What seed 002 measured with its Go `net/http` server (8 cores, macOS, client and server on
/// one host), the figures each experiment here is read beside. Published figures, quoted as
/// the seed gives them: they are not measured by this run.
pub const SEED_GO_FIGURES: [(&str, &str, &str); 5] = [
    (
        "throughput",
        "/static, 50 keep-alive connections, 3 s",
        "148,338 req/s, p50 259 µs, p99 1.4 ms",
    ),
    (
        "idle",
        "10,000 keep-alive connections held 30 s",
        "10,000 held; active 10,001, in flight 1; heap 107 MiB (about 10.7 KiB each), one goroutine each",
    ),
    (
        "slow",
        "500 requests of /sleep?d=10s",
        "500 ok; active 501, in flight 501 (the sleepers and the /stats poll)",
    ),
    (
        "slowloris",
        "200 connections, a header every drip, no blank line",
        "no ReadHeaderTimeout: 0 reclaimed; ReadHeaderTimeout 3 s: 200 reclaimed about 3 s after opening",
    ),
    (
        "client limits",
        "20,000 idle connections from one address",
        "16,312 held: the client's 16,384 ephemeral ports ran out first, the server held 16,313",
    ),
];

/// The seed's Go figures as a table.
fn seed_go_table() -> String {
    let mut html = String::from(
        "<h2>Beside seed 002's Go net/http server</h2><p>The seed's own figures (8 cores, macOS, its Go server and client on one host), not measured here: read the rows above beside them.</p><table><tr><th>experiment</th><th>the seed's run</th><th>the seed's result</th></tr>",
    );
    for (experiment, run, result) in SEED_GO_FIGURES {
        let _ = write!(
            html,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(experiment),
            escape(run),
            escape(result)
        );
    }
    html.push_str("</table>");
    html
}

/// One line of an HTTP chart: `y` of each run of `mode`, over what the run offered (its
/// connections or requests); a run without a `y` has no point.
fn http_series(
    reports: &[crate::experiments::http::HttpReport],
    name: &str,
    mode: &str,
    y: impl Fn(&crate::experiments::http::HttpReport) -> Option<f64>,
    dashed: bool,
) -> Series {
    Series {
        name: name.to_owned(),
        points: reports
            .iter()
            .filter(|r| r.mode == mode)
            .filter_map(|r| Some((r.offered as f64, y(r)?)))
            .collect(),
        dashed,
    }
}

/// The charts of the experiments that hold requests or heads open: slow and slowloris.
fn http_hold_charts(
    reports: &[crate::experiments::http::HttpReport],
    header_deadline_ms: u64,
) -> String {
    let mut html = String::new();
    html.push_str(&line_chart(
        "Slow requests: held in flight",
        "requests offered",
        "count",
        &[
            http_series(reports, "offered", "slow", |r| Some(r.offered as f64), true),
            http_series(
                reports,
                "server in_flight",
                "slow",
                |r| r.live_held.map(|l| l.in_flight as f64),
                false,
            ),
            http_series(
                reports,
                "server active",
                "slow",
                |r| r.live_held.map(|l| l.active as f64),
                false,
            ),
        ],
        true,
        false,
    ));
    let deadline_ns = header_deadline_ms as f64 * 1e6;
    html.push_str(&line_chart(
        "Slowloris: time from connect to the server's close",
        "dribbling connections",
        "time",
        &[
            http_series(
                reports,
                "header deadline",
                "slowloris",
                |_| Some(deadline_ns),
                true,
            ),
            http_series(
                reports,
                "p50",
                "slowloris",
                |r| r.latency.map(|p| p.p50_ns as f64),
                false,
            ),
            http_series(
                reports,
                "max",
                "slowloris",
                |r| r.latency.map(|p| p.max_ns as f64),
                false,
            ),
        ],
        true,
        true,
    ));
    html
}

/// Every run of the HTTP experiments in one table.
fn http_table(reports: &[crate::experiments::http::HttpReport]) -> String {
    let mut html = String::new();
    html.push_str("<table><tr><th>experiment</th><th>offered</th><th>succeeded</th><th>accepted total</th><th>active</th><th>in flight</th><th>RSS per conn</th><th>errors</th><th>which side ran out</th></tr>");
    for r in reports {
        let live = r.live_held;
        let _ = write!(
            html,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&r.mode),
            r.offered,
            r.succeeded,
            live.map_or_else(String::new, |l| l.accepted_total.to_string()),
            live.map_or_else(String::new, |l| l.active.to_string()),
            live.map_or_else(String::new, |l| l.in_flight.to_string()),
            r.server_rss_per_conn
                .map_or_else(String::new, |b| b.to_string()),
            escape(&r.errors.summary()),
            escape(&r.verdict),
        );
    }
    html.push_str("</table>");
    html
}

/// A page for one rung: its windows and the latency distribution of its median window.
pub fn run_page(record: &RunRecord) -> String {
    let mut html = String::new();
    let _ = write!(
        html,
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>quiver lab: {0}</title><style>{STYLE}</style></head><body><h1>quiver lab: {0}</h1>",
        escape(&record.label)
    );
    let _ = write!(
        html,
        "<p class=\"note\">{}<br>{}</p>",
        escape(&record.host.note),
        escape(&record.host.idle_note)
    );
    if !record.passed {
        html.push_str(
            "<p class=\"fail\">Verification FAILED: these numbers are not to be quoted.</p>",
        );
    }
    let percentiles = |w: &crate::rung::WindowRecord| {
        vec![
            (50.0, w.latency.p50_ns as f64),
            (95.0, w.latency.p95_ns as f64),
            (99.0, w.latency.p99_ns as f64),
            (99.9, w.latency.p999_ns as f64),
        ]
    };
    let series: Vec<Series> = record
        .effect
        .iter()
        .map(|w| Series {
            name: format!("window {}", w.index),
            points: percentiles(w),
            dashed: false,
        })
        .collect();
    html.push_str(&line_chart(
        "Latency percentiles per effect window",
        "percentile",
        "latency",
        &series,
        false,
        true,
    ));
    html.push_str("<table><tr><th>window</th><th>queries ok</th><th>queries/s</th><th>p50</th><th>p99</th><th>p999</th><th>client CPU share</th><th>verified</th></tr>");
    for w in record.effect.iter().chain(&record.probe) {
        let _ = write!(
            html,
            "<tr><td>{} {}</td><td>{}</td><td>{:.0}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            w.kind,
            w.index,
            w.queries_ok,
            w.throughput_qps,
            fmt_ns(w.latency.p50_ns),
            fmt_ns(w.latency.p99_ns),
            fmt_ns(w.latency.p999_ns),
            w.cpu
                .client_share
                .map_or_else(|| "?".to_owned(), |s| format!("{:.0}%", s * 100.0)),
            if w.verdict.passed() { "yes" } else { "NO" }
        );
    }
    html.push_str("</table><p>The probe window ran under the CPU profiler: its throughput is attribution only, never quoted.</p>");
    if let Some(f) = &record.flamegraph {
        let _ = write!(
            html,
            "<p><a href=\"{0}\">{0}</a>: CPU profile of the probe window.</p>",
            escape(f)
        );
    }
    html.push_str("</body></html>\n");
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_data() {
        assert_eq!(
            linear_ticks(47_000.0),
            vec![0.0, 10_000.0, 20_000.0, 30_000.0, 40_000.0, 50_000.0]
        );
        assert_eq!(
            log_ticks(54_000.0, 1_661_000.0),
            vec![10_000.0, 100_000.0, 1_000_000.0, 10_000_000.0]
        );
        assert_eq!(linear_ticks(0.0), vec![0.0, 1.0]);
    }

    #[test]
    fn charts_are_self_contained_svg() {
        let s = Series {
            name: "quiver <in process>".into(),
            points: vec![(1.0, 9000.0), (8.0, 30000.0), (64.0, 41000.0)],
            dashed: false,
        };
        let svg = line_chart("t", "connections", "queries/s", &[s], true, false);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert!(svg.contains("quiver &lt;in process&gt;"));
        assert!(!svg.contains("http://") || svg.contains("xmlns=\"http://www.w3.org/2000/svg\""));
        assert_eq!(svg.matches("<circle").count(), 3);
        let empty = line_chart("t", "x", "y", &[], true, true);
        assert!(empty.contains("no data"));
    }
}
