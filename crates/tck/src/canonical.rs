//! Canonical text for values that TCK tables write as strings: temporal values and points.
//!
//! The TCK compares a temporal result with the ISO-8601 text Neo4j prints for it (`'12:00'`,
//! `'2015-07-21T20:40:32.142+01:00[Europe/Stockholm]'`, `'PT-0.4S'`). The runner renders the
//! actual value itself rather than asking the engine to, so a formatting bug in the engine cannot
//! confirm itself. The rules follow what the kit's tables contain:
//! - times print `HH:MM`, then `:SS` only if seconds or nanoseconds are non-zero, then a fraction
//!   of 3, 6 or 9 digits, whichever is shortest without loss;
//! - years outside 0..=9999 carry a sign (`+10000`, `-0001`);
//! - offsets print `Z` for zero, `+HH:MM`, and `:SS` when the seconds are non-zero; a named zone
//!   follows in brackets;
//! - durations print `P[nY][nM][nD][T[nH][nM][n.fS]]`, each component signed on its own and the
//!   fraction without trailing zeros; a zero duration is `PT0S`.

use std::fmt::Write as _;

use quiver_value::spatial::{SRID_CARTESIAN, SRID_CARTESIAN_3D, SRID_WGS84, SRID_WGS84_3D};
use quiver_value::temporal::calendar::{Ymd, ymd_from_days};
use quiver_value::{Date, DateTime, Duration, LocalDateTime, LocalTime, Point, Time, TimeZone};

const NANOS_PER_SECOND: i128 = 1_000_000_000;
const SECONDS_PER_DAY: i128 = 86_400;

fn write_year(out: &mut String, year: i128) {
    if (0..=9999).contains(&year) {
        let _ = write!(out, "{year:04}");
    } else if year > 9999 {
        let _ = write!(out, "+{year}");
    } else {
        let _ = write!(out, "-{:04}", year.unsigned_abs());
    }
}

fn write_date(out: &mut String, days: i64) {
    let Ymd { year, month, day } = ymd_from_days(days);
    write_year(out, i128::from(year));
    let _ = write!(out, "-{month:02}-{day:02}");
}

/// `HH:MM[:SS[.fff[fff[fff]]]]` for nanoseconds since midnight.
fn write_time_of_day(out: &mut String, nanos_of_day: i128) {
    let nanos_of_day = nanos_of_day.rem_euclid(SECONDS_PER_DAY * NANOS_PER_SECOND);
    let seconds = nanos_of_day / NANOS_PER_SECOND;
    let nanos = nanos_of_day % NANOS_PER_SECOND;
    let _ = write!(out, "{:02}:{:02}", seconds / 3600, seconds / 60 % 60);
    if seconds % 60 != 0 || nanos != 0 {
        let _ = write!(out, ":{:02}", seconds % 60);
    }
    if nanos != 0 {
        if nanos % 1_000_000 == 0 {
            let _ = write!(out, ".{:03}", nanos / 1_000_000);
        } else if nanos % 1000 == 0 {
            let _ = write!(out, ".{:06}", nanos / 1000);
        } else {
            let _ = write!(out, ".{nanos:09}");
        }
    }
}

fn write_offset(out: &mut String, offset_seconds: i32) {
    if offset_seconds == 0 {
        out.push('Z');
        return;
    }
    let sign = if offset_seconds < 0 { '-' } else { '+' };
    let abs = offset_seconds.unsigned_abs();
    let _ = write!(out, "{sign}{:02}:{:02}", abs / 3600, abs / 60 % 60);
    if !abs.is_multiple_of(60) {
        let _ = write!(out, ":{:02}", abs % 60);
    }
}

fn write_local_date_time(out: &mut String, seconds: i128, nanos: i128) {
    // Seconds are an `i64` plus an offset, so their day count always fits an `i64`.
    let days = i64::try_from(seconds.div_euclid(SECONDS_PER_DAY)).unwrap_or(i64::MAX);
    write_date(out, days);
    out.push('T');
    write_time_of_day(
        out,
        seconds.rem_euclid(SECONDS_PER_DAY) * NANOS_PER_SECOND + nanos,
    );
}

pub fn date_text(date: &Date) -> String {
    let mut out = String::new();
    write_date(&mut out, date.days);
    out
}

pub fn local_time_text(time: &LocalTime) -> String {
    let mut out = String::new();
    write_time_of_day(&mut out, i128::from(time.nanos));
    out
}

pub fn time_text(time: &Time) -> String {
    let mut out = String::new();
    write_time_of_day(&mut out, i128::from(time.nanos));
    write_offset(&mut out, time.offset_seconds);
    out
}

pub fn local_date_time_text(value: &LocalDateTime) -> String {
    let mut out = String::new();
    write_local_date_time(&mut out, i128::from(value.seconds), i128::from(value.nanos));
    out
}

pub fn date_time_text(value: &DateTime) -> String {
    let mut out = String::new();
    let local_seconds = i128::from(value.seconds) + i128::from(value.offset_seconds);
    write_local_date_time(&mut out, local_seconds, i128::from(value.nanos));
    write_offset(&mut out, value.offset_seconds);
    if let TimeZone::Named(name) = &value.zone {
        let _ = write!(out, "[{name}]");
    }
    out
}

pub fn duration_text(value: &Duration) -> String {
    let total_nanos = i128::from(value.seconds) * NANOS_PER_SECOND + i128::from(value.nanos);
    if value.months == 0 && value.days == 0 && total_nanos == 0 {
        return "PT0S".to_owned();
    }
    let mut out = String::from("P");
    let (years, months) = (value.months / 12, value.months % 12);
    if years != 0 {
        let _ = write!(out, "{years}Y");
    }
    if months != 0 {
        let _ = write!(out, "{months}M");
    }
    if value.days != 0 {
        let _ = write!(out, "{}D", value.days);
    }
    if total_nanos != 0 {
        out.push('T');
        let sign = if total_nanos < 0 { "-" } else { "" };
        let abs = total_nanos.unsigned_abs();
        let nanos_per_second = NANOS_PER_SECOND.unsigned_abs();
        let seconds = abs / nanos_per_second;
        let fraction = abs % nanos_per_second;
        let (hours, minutes, secs) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
        if hours != 0 {
            let _ = write!(out, "{sign}{hours}H");
        }
        if minutes != 0 {
            let _ = write!(out, "{sign}{minutes}M");
        }
        if secs != 0 || fraction != 0 {
            let _ = write!(out, "{sign}{secs}");
            if fraction != 0 {
                let digits = format!("{fraction:09}");
                let _ = write!(out, ".{}", digits.trim_end_matches('0'));
            }
            out.push('S');
        }
    }
    out
}

pub fn point_text(point: &Point) -> String {
    let crs = match point.srid {
        SRID_CARTESIAN => "cartesian",
        SRID_CARTESIAN_3D => "cartesian-3d",
        SRID_WGS84 => "wgs-84",
        SRID_WGS84_3D => "wgs-84-3d",
        _ => "unknown",
    };
    let mut out = format!(
        "point({{x: {}, y: {}",
        float_text(point.x),
        float_text(point.y)
    );
    if let Some(z) = point.z {
        let _ = write!(out, ", z: {}", float_text(z));
    }
    let _ = write!(out, ", crs: '{crs}'}})");
    out
}

/// A float as the TCK writes it: always with a fraction or exponent, so `1.0` never reads as the
/// integer `1`.
pub fn float_text(x: f64) -> String {
    if x.is_nan() {
        "NaN".to_owned()
    } else if x.is_infinite() {
        if x > 0.0 {
            "Infinity".to_owned()
        } else {
            "-Infinity".to_owned()
        }
    } else {
        format!("{x:?}")
    }
}

/// Escapes a string for display inside single quotes, the inverse of the table syntax.
pub fn escape_string(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\'', "\\'")
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400;

    #[test]
    fn dates() {
        assert_eq!(date_text(&Date { days: 0 }), "1970-01-01");
        assert_eq!(date_text(&Date { days: -1 }), "1969-12-31");
        assert_eq!(date_text(&Date { days: 11_016 }), "2000-02-29");
        assert_eq!(date_text(&Date { days: -56_248 }), "1816-01-01");
        // 0000-01-01 and the day before it.
        assert_eq!(date_text(&Date { days: -719_528 }), "0000-01-01");
        assert_eq!(date_text(&Date { days: -719_529 }), "-0001-12-31");
        assert_eq!(date_text(&Date { days: 2_932_897 }), "+10000-01-01");
        // The extremes Cypher supports.
        assert_eq!(
            date_text(&Date {
                days: 365_241_780_471
            }),
            "+999999999-12-31"
        );
        assert_eq!(
            date_text(&Date {
                days: -365_243_219_162
            }),
            "-999999999-01-01"
        );
        // Any i64 renders without panicking.
        let _ = date_text(&Date { days: i64::MAX });
        let _ = date_text(&Date { days: i64::MIN });
    }

    #[test]
    fn times_use_millis_micros_or_nanos() {
        let t = |h: i64, m: i64, s: i64, n: i64| LocalTime {
            nanos: ((h * 60 + m) * 60 + s) * 1_000_000_000 + n,
        };
        assert_eq!(local_time_text(&t(12, 0, 0, 0)), "12:00");
        assert_eq!(local_time_text(&t(12, 0, 42, 0)), "12:00:42");
        assert_eq!(local_time_text(&t(12, 31, 14, 645_000_000)), "12:31:14.645");
        assert_eq!(
            local_time_text(&t(12, 31, 14, 645_876_000)),
            "12:31:14.645876"
        );
        assert_eq!(
            local_time_text(&t(12, 31, 14, 645_876_123)),
            "12:31:14.645876123"
        );
        assert_eq!(local_time_text(&t(4, 20, 24, 1)), "04:20:24.000000001");
        assert_eq!(local_time_text(&t(0, 0, 0, 300_000_000)), "00:00:00.300");
        let _ = local_time_text(&LocalTime { nanos: i64::MIN });
    }

    #[test]
    fn offsets_and_zones() {
        let noon = 12 * 3600 * 1_000_000_000;
        assert_eq!(
            time_text(&Time {
                nanos: noon,
                offset_seconds: 0
            }),
            "12:00Z"
        );
        assert_eq!(
            time_text(&Time {
                nanos: noon,
                offset_seconds: 3600
            }),
            "12:00+01:00"
        );
        assert_eq!(
            time_text(&Time {
                nanos: noon + 56 * 1_000_000_000,
                offset_seconds: -(2 * 3600 + 5 * 60 + 7)
            }),
            "12:00:56-02:05:07"
        );
        let stockholm = DateTime {
            seconds: 16_637 * DAY + 19 * 3600 + 40 * 60 + 32, // 2015-07-21T19:40:32Z
            nanos: 142_000_000,
            offset_seconds: 7200,
            zone: TimeZone::Named("Europe/Stockholm".into()),
        };
        assert_eq!(
            date_time_text(&stockholm),
            "2015-07-21T21:40:32.142+02:00[Europe/Stockholm]"
        );
        let utc = DateTime {
            seconds: 0,
            nanos: 0,
            offset_seconds: 0,
            zone: TimeZone::Offset(0),
        };
        assert_eq!(date_time_text(&utc), "1970-01-01T00:00Z");
        let honolulu = DateTime {
            seconds: 0,
            nanos: 1,
            offset_seconds: -36_000,
            zone: TimeZone::Named("Pacific/Honolulu".into()),
        };
        assert_eq!(
            date_time_text(&honolulu),
            "1969-12-31T14:00:00.000000001-10:00[Pacific/Honolulu]"
        );
    }

    #[test]
    fn local_date_times() {
        assert_eq!(
            local_date_time_text(&LocalDateTime {
                seconds: -56_248 * DAY,
                nanos: 0
            }),
            "1816-01-01T00:00"
        );
        assert_eq!(
            local_date_time_text(&LocalDateTime {
                seconds: -1,
                nanos: 500_000_000
            }),
            "1969-12-31T23:59:59.500"
        );
        let _ = local_date_time_text(&LocalDateTime {
            seconds: i64::MIN,
            nanos: u32::MAX,
        });
    }

    #[test]
    fn durations_sign_each_component() {
        let d = |months: i64, days: i64, seconds: i64, nanos: i64| {
            duration_text(&Duration {
                months,
                days,
                seconds,
                nanos,
            })
        };
        assert_eq!(d(0, 0, 0, 0), "PT0S");
        assert_eq!(d(11, 0, 0, 0), "P11M");
        assert_eq!(d(-23, 0, 0, 0), "P-1Y-11M");
        assert_eq!(d(149, -14, 16 * 3600, 0), "P12Y5M-14DT16H");
        assert_eq!(d(0, 14, 16 * 3600 + 12 * 60, 0), "P14DT16H12M");
        assert_eq!(d(0, 0, -1, 600_000_000), "PT-0.4S");
        assert_eq!(d(0, 0, 0, 400_000_000), "PT0.4S");
        assert_eq!(d(0, 0, -86_400, 100_000_000), "PT-23H-59M-59.9S");
        assert_eq!(d(0, 0, -601, 700_000_000), "PT-10M-0.3S");
        assert_eq!(d(0, 1, -1, 999_000_000), "P1DT-0.001S");
        assert_eq!(
            d(148, 28, -(24 * 60) - 1, 999_999_999),
            "P12Y4M28DT-24M-0.000000001S"
        );
        assert_eq!(
            d(0, 0, 17_531_639_991_215 * 3600 + 59 * 60 + 59, 0),
            "PT17531639991215H59M59S"
        );
        let _ = d(i64::MIN, i64::MIN, i64::MIN, i64::MIN);
    }

    #[test]
    fn points_and_floats() {
        assert_eq!(
            point_text(&Point {
                srid: SRID_CARTESIAN,
                x: 1.0,
                y: 2.5,
                z: None
            }),
            "point({x: 1.0, y: 2.5, crs: 'cartesian'})"
        );
        assert_eq!(float_text(1.0), "1.0");
        assert_eq!(float_text(f64::NAN), "NaN");
        assert_eq!(escape_string(r"a'b\c"), r"a\'b\\c");
    }
}
