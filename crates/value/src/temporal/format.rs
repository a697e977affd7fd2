//! Canonical ISO-8601 text of temporal values, exactly as Cypher's `toString` prints them.
//!
//! - dates: `YYYY-MM-DD`, years outside 0000..=9999 signed (`+10000`, `-0001`);
//! - times: `HH:MM`, then `:SS` only when seconds or nanoseconds are non-zero, then the
//!   fraction in groups of three digits (`.645`, `.645876`, `.645876123`);
//! - offsets: `Z` for zero, `+HH:MM`, `+HH:MM:SS` when seconds are non-zero;
//! - zoned date-times append `[Zone/Name]` when the zone is named;
//! - durations: `P1Y2M3DT4H5M6.7S` with each component signed on its own, `PT0S` when zero.

use std::fmt::Write;

use super::calendar::{NANOS_PER_SECOND, SECONDS_PER_DAY, ymd_from_days};
use super::{Date, DateTime, Duration, LocalDateTime, LocalTime, Time, TimeZone};

pub fn write_date(out: &mut String, days: i64) {
    let ymd = ymd_from_days(days);
    if ymd.year > 9999 {
        let _ = write!(out, "+{}", ymd.year);
    } else if ymd.year < 0 {
        let _ = write!(out, "-{:04}", ymd.year.unsigned_abs());
    } else {
        let _ = write!(out, "{:04}", ymd.year);
    }
    let _ = write!(out, "-{:02}-{:02}", ymd.month, ymd.day);
}

pub fn write_time_of_day(out: &mut String, nanos_of_day: i64) {
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

pub fn offset_text(offset_seconds: i32) -> String {
    let mut out = String::with_capacity(9);
    write_offset(&mut out, offset_seconds);
    out
}

pub fn write_offset(out: &mut String, offset_seconds: i32) {
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

fn write_local_date_time(out: &mut String, seconds: i64, nanos: u32) {
    write_date(out, seconds.div_euclid(SECONDS_PER_DAY));
    out.push('T');
    write_time_of_day(
        out,
        seconds.rem_euclid(SECONDS_PER_DAY) * NANOS_PER_SECOND + i64::from(nanos),
    );
}

pub fn date_text(value: &Date) -> String {
    let mut out = String::with_capacity(10);
    write_date(&mut out, value.days);
    out
}

pub fn local_time_text(value: &LocalTime) -> String {
    let mut out = String::with_capacity(18);
    write_time_of_day(&mut out, value.nanos);
    out
}

pub fn time_text(value: &Time) -> String {
    let mut out = String::with_capacity(24);
    write_time_of_day(&mut out, value.nanos);
    write_offset(&mut out, value.offset_seconds);
    out
}

pub fn local_date_time_text(value: &LocalDateTime) -> String {
    let mut out = String::with_capacity(29);
    write_local_date_time(&mut out, value.seconds, value.nanos);
    out
}

pub fn date_time_text(value: &DateTime) -> String {
    let mut out = String::with_capacity(48);
    let local = value
        .seconds
        .saturating_add(i64::from(value.offset_seconds));
    write_local_date_time(&mut out, local, value.nanos);
    write_offset(&mut out, value.offset_seconds);
    if let TimeZone::Named(name) = &value.zone {
        let _ = write!(out, "[{name}]");
    }
    out
}

pub fn duration_text(value: &Duration) -> String {
    let total_nanos =
        i128::from(value.seconds) * i128::from(NANOS_PER_SECOND) + i128::from(value.nanos);
    if value.months == 0 && value.days == 0 && total_nanos == 0 {
        return "PT0S".to_owned();
    }
    let mut out = String::with_capacity(32);
    out.push('P');
    let years = value.months / 12;
    let months = value.months % 12;
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
        // Every component carries the sign of the whole time part (`PT-1M-0.001S`).
        let seconds = total_nanos / i128::from(NANOS_PER_SECOND);
        let fraction = (total_nanos % i128::from(NANOS_PER_SECOND)).unsigned_abs();
        let hours = seconds / 3600;
        let minutes = seconds % 3600 / 60;
        let secs = seconds % 60;
        if hours != 0 {
            let _ = write!(out, "{hours}H");
        }
        if minutes != 0 {
            let _ = write!(out, "{minutes}M");
        }
        if secs != 0 || fraction != 0 {
            if secs == 0 && total_nanos < 0 {
                out.push('-');
            }
            let _ = write!(out, "{secs}");
            if fraction != 0 {
                let digits = format!("{fraction:09}");
                let _ = write!(out, ".{}", digits.trim_end_matches('0'));
            }
            out.push('S');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::temporal::calendar::days_from_ymd;

    fn local_time(h: i64, m: i64, s: i64, n: i64) -> LocalTime {
        LocalTime {
            nanos: ((h * 60 + m) * 60 + s) * NANOS_PER_SECOND + n,
        }
    }

    #[test]
    fn dates_sign_years_outside_four_digits() {
        for ((y, m, d), expected) in [
            ((1984, 10, 11), "1984-10-11"),
            ((28, 11, 11), "0028-11-11"),
            ((-1, 1, 1), "-0001-01-01"),
            ((999_999_999, 12, 31), "+999999999-12-31"),
            ((-999_999_999, 1, 1), "-999999999-01-01"),
        ] {
            let date = Date {
                days: days_from_ymd(y, m, d),
            };
            assert_eq!(date_text(&date), expected, "{y}-{m}-{d}");
        }
    }

    #[test]
    fn times_drop_zero_seconds_and_group_fractions_by_three() {
        for ((h, m, sec, n), expected) in [
            ((12, 0, 0, 0), "12:00"),
            ((12, 31, 14, 0), "12:31:14"),
            ((12, 31, 14, 645_000_000), "12:31:14.645"),
            ((12, 31, 14, 645_876_000), "12:31:14.645876"),
            ((12, 31, 14, 3), "12:31:14.000000003"),
            ((12, 31, 0, 500_000_000), "12:31:00.500"),
        ] {
            assert_eq!(
                local_time_text(&local_time(h, m, sec, n)),
                expected,
                "{h}:{m}:{sec} and {n} ns"
            );
        }
    }

    #[test]
    fn offsets() {
        assert_eq!(offset_text(0), "Z");
        assert_eq!(offset_text(3600), "+01:00");
        assert_eq!(offset_text(-(2 * 3600 + 5 * 60 + 7)), "-02:05:07");
        assert_eq!(offset_text(2 * 3600 + 5 * 60), "+02:05");
    }

    #[test]
    fn zoned_date_times_name_their_zone() {
        let local = days_from_ymd(2017, 8, 8) * SECONDS_PER_DAY + (12 * 60 + 31) * 60 + 14;
        let value = DateTime {
            seconds: local - 7200,
            nanos: 645_876_123,
            offset_seconds: 7200,
            zone: TimeZone::Named("Europe/Stockholm".into()),
        };
        assert_eq!(
            date_time_text(&value),
            "2017-08-08T12:31:14.645876123+02:00[Europe/Stockholm]"
        );
    }

    #[test]
    fn durations_sign_each_component() {
        let d = |months, days, seconds, nanos| {
            duration_text(&Duration {
                months,
                days,
                seconds,
                nanos,
            })
        };
        assert_eq!(d(0, 0, 0, 0), "PT0S");
        assert_eq!(d(149, 14, 58390, 1), "P12Y5M14DT16H13M10.000000001S");
        assert_eq!(d(149, -14, 57600, 0), "P12Y5M-14DT16H");
        assert_eq!(d(0, 0, -2, 1_000_000), "PT-1.999S");
        assert_eq!(d(0, 0, -61, 999_000_000), "PT-1M-0.001S");
        assert_eq!(d(0, 1, -1, 999_000_000), "P1DT-0.001S");
        assert_eq!(d(0, 0, 59, 999_000_000), "PT59.999S");
        assert_eq!(
            d(-6, -15, -63904, 499_999_998),
            "P-6M-15DT-17H-45M-3.500000002S"
        );
    }
}
