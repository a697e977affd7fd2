//! Durations: construction from components, normalisation, arithmetic and accessors.
//!
//! A duration keeps months, days and seconds apart because a month and a day have no fixed
//! length. Fractions cascade downwards when a duration is built or scaled: a fractional month
//! becomes days at the average month length (365.2425 / 12 days), a fractional day becomes
//! seconds, a fractional second nanoseconds. Integral inputs are computed exactly; fractional
//! inputs follow the same floating-point steps as Neo4j, so results agree to the nanosecond.

use super::Duration;
use super::calendar::{NANOS_PER_SECOND, SECONDS_PER_DAY};
use crate::error::{Result, ValueError};
use crate::value::Value;

/// The average Gregorian month in days.
pub const AVG_DAYS_PER_MONTH: f64 = 365.2425 / 12.0;
/// The average Gregorian month in seconds.
pub const AVG_SECONDS_PER_MONTH: i64 = 2_629_746;

impl Duration {
    pub const ZERO: Duration = Duration {
        months: 0,
        days: 0,
        seconds: 0,
        nanos: 0,
    };

    /// A duration from components of any sign; nanoseconds carry into seconds so that `nanos`
    /// ends in `0..1e9`. Fails when the duration would not fit.
    pub fn new(months: i128, days: i128, seconds: i128, nanos: i128) -> Result<Duration> {
        let total_seconds = seconds + nanos.div_euclid(i128::from(NANOS_PER_SECOND));
        let nanos = nanos.rem_euclid(i128::from(NANOS_PER_SECOND));
        let overflow = || {
            ValueError::invalid_value(format!(
                "Invalid value for duration, will cause overflow. Value was months={months}, days={days}, seconds={total_seconds}, nanos={nanos}"
            ))
        };
        let months = i64::try_from(months).map_err(|_| overflow())?;
        let days = i64::try_from(days).map_err(|_| overflow())?;
        let seconds = i64::try_from(total_seconds).map_err(|_| overflow())?;
        // The average length must fit too, or durations could not be ordered.
        let length = i128::from(months) * i128::from(AVG_SECONDS_PER_MONTH)
            + i128::from(days) * i128::from(SECONDS_PER_DAY)
            + i128::from(seconds);
        if i64::try_from(length).is_err() {
            return Err(overflow());
        }
        Ok(Duration {
            months,
            days,
            seconds,
            nanos: nanos as i64,
        })
    }

    /// The time part (seconds and nanoseconds) as signed nanoseconds.
    pub fn time_nanos(&self) -> i128 {
        i128::from(self.seconds) * i128::from(NANOS_PER_SECOND) + i128::from(self.nanos)
    }

    /// The average length in seconds, used to order durations.
    pub fn average_seconds(&self) -> i128 {
        i128::from(self.months) * i128::from(AVG_SECONDS_PER_MONTH)
            + i128::from(self.days) * i128::from(SECONDS_PER_DAY)
            + i128::from(self.seconds)
    }

    pub fn checked_add(&self, other: &Duration) -> Result<Duration> {
        Duration::new(
            i128::from(self.months) + i128::from(other.months),
            i128::from(self.days) + i128::from(other.days),
            i128::from(self.seconds) + i128::from(other.seconds),
            i128::from(self.nanos) + i128::from(other.nanos),
        )
    }

    pub fn checked_sub(&self, other: &Duration) -> Result<Duration> {
        Duration::new(
            i128::from(self.months) - i128::from(other.months),
            i128::from(self.days) - i128::from(other.days),
            i128::from(self.seconds) - i128::from(other.seconds),
            i128::from(self.nanos) - i128::from(other.nanos),
        )
    }

    pub fn checked_neg(&self) -> Result<Duration> {
        Duration::ZERO.checked_sub(self)
    }

    /// Multiplies every component by an integer, exactly.
    pub fn mul_int(&self, factor: i64) -> Result<Duration> {
        let f = i128::from(factor);
        Duration::new(
            i128::from(self.months) * f,
            i128::from(self.days) * f,
            i128::from(self.seconds) * f,
            i128::from(self.nanos) * f,
        )
    }

    /// Multiplies by a float; fractions cascade down to nanoseconds.
    pub fn mul_float(&self, factor: f64) -> Result<Duration> {
        approximate(
            self.months as f64 * factor,
            self.days as f64 * factor,
            self.seconds as f64 * factor,
            self.nanos as f64 * factor,
        )
    }

    /// Divides by a number; fractions cascade down to nanoseconds.
    pub fn div_float(&self, divisor: f64) -> Result<Duration> {
        if divisor == 0.0 {
            return Err(ValueError::division_by_zero());
        }
        approximate(
            self.months as f64 / divisor,
            self.days as f64 / divisor,
            self.seconds as f64 / divisor,
            self.nanos as f64 / divisor,
        )
    }

    /// Whole days of the duration, counting the days its seconds make up but not its months:
    /// what a date moves by.
    pub fn total_days(&self) -> i64 {
        self.days.saturating_add(self.seconds / SECONDS_PER_DAY)
    }

    /// The time part modulo one day, in nanoseconds: what a time of day moves by.
    pub fn nanos_of_day(&self) -> i64 {
        (self.seconds % SECONDS_PER_DAY) * NANOS_PER_SECOND + self.nanos
    }
}

/// Builds a duration from fractional components, cascading each fraction into the next
/// smaller unit. The steps mirror Neo4j's so that results agree exactly.
pub fn approximate(months: f64, days: f64, seconds: f64, nanos: f64) -> Result<Duration> {
    let m = whole(months)?;
    let days = days + AVG_DAYS_PER_MONTH * (months - m as f64);
    let d = whole(days)?;
    let seconds = seconds + SECONDS_PER_DAY as f64 * (days - d as f64);
    let s = whole(seconds)?;
    let nanos = nanos + NANOS_PER_SECOND as f64 * (seconds - s as f64);
    let n = whole(nanos)?;
    Duration::new(i128::from(m), i128::from(d), i128::from(s), i128::from(n))
}

/// The integral part of a float, failing for values no `i64` holds.
fn whole(value: f64) -> Result<i64> {
    let t = value.trunc();
    // 2^63 is exactly representable; every float below it in magnitude converts exactly.
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&t) {
        Ok(t as i64)
    } else {
        Err(ValueError::invalid_value(format!(
            "Duration component out of range: {value}"
        )))
    }
}

/// The components a duration map may name, in the order their units shrink.
const COMPONENTS: [(&str, usize); 10] = [
    ("years", 0),
    ("months", 1),
    ("weeks", 2),
    ("days", 3),
    ("hours", 4),
    ("minutes", 5),
    ("seconds", 6),
    ("milliseconds", 7),
    ("microseconds", 8),
    ("nanoseconds", 9),
];

/// A numeric component: integral components are kept exact.
#[derive(Clone, Copy)]
enum Number {
    Int(i64),
    Float(f64),
}

/// Builds a duration from named components (`{days: 14, hours: 16}`), as `duration({...})`
/// does. Keys are matched case-insensitively.
pub fn from_components<'a>(
    entries: impl IntoIterator<Item = (&'a str, &'a Value)>,
) -> Result<Duration> {
    let mut values = [Number::Int(0); 10];
    for (key, value) in entries {
        let index = COMPONENTS
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(key))
            .map(|(_, i)| *i)
            .ok_or_else(|| ValueError::invalid_value(format!("No such field: {key}")))?;
        values[index] = match value {
            Value::Int(i) => Number::Int(*i),
            Value::Float(f) => Number::Float(*f),
            other => {
                return Err(ValueError::invalid_type(format!(
                    "Duration component '{key}' must be a number, got {}",
                    other.value_type()
                )));
            }
        };
    }
    if values.iter().all(|v| matches!(v, Number::Int(_))) {
        let int = |i: usize| match values[i] {
            Number::Int(v) => i128::from(v),
            Number::Float(_) => 0,
        };
        Duration::new(
            int(0) * 12 + int(1),
            int(2) * 7 + int(3),
            int(4) * 3600 + int(5) * 60 + int(6),
            int(7) * 1_000_000 + int(8) * 1000 + int(9),
        )
    } else {
        let float = |i: usize| match values[i] {
            Number::Int(v) => v as f64,
            Number::Float(v) => v,
        };
        approximate(
            float(0) * 12.0 + float(1),
            float(2) * 7.0 + float(3),
            float(4) * 3600.0 + float(5) * 60.0 + float(6),
            float(7) * 1_000_000.0 + float(8) * 1000.0 + float(9),
        )
    }
}

/// Reads a component of a duration (`d.years`, `d.minutesOfHour`, ...). Names are matched
/// case-insensitively; `None` for names durations do not have.
pub fn field(d: &Duration, name: &str) -> Option<i64> {
    let ms_of_second = d.nanos / 1_000_000;
    let value = match name.to_ascii_lowercase().as_str() {
        "years" => d.months / 12,
        "quarters" => d.months / 3,
        "months" => d.months,
        "weeks" => d.days / 7,
        "days" => d.days,
        "hours" => d.seconds / 3600,
        "minutes" => d.seconds / 60,
        "seconds" => d.seconds,
        "milliseconds" => d.seconds.saturating_mul(1000).saturating_add(ms_of_second),
        "microseconds" => d
            .seconds
            .saturating_mul(1_000_000)
            .saturating_add(d.nanos / 1000),
        "nanoseconds" => d
            .seconds
            .saturating_mul(NANOS_PER_SECOND)
            .saturating_add(d.nanos),
        "quartersofyear" => d.months / 3 % 4,
        "monthsofquarter" => d.months % 3,
        "monthsofyear" => d.months % 12,
        "daysofweek" => d.days % 7,
        "minutesofhour" => d.seconds / 60 % 60,
        "secondsofminute" => d.seconds % 60,
        "millisecondsofsecond" => ms_of_second,
        "microsecondsofsecond" => d.nanos / 1000,
        "nanosecondsofsecond" => d.nanos,
        _ => return None,
    };
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::temporal::format::duration_text;

    fn build(entries: &[(&str, Value)]) -> Result<Duration> {
        from_components(entries.iter().map(|(k, v)| (*k, v)))
    }

    fn text(entries: &[(&str, Value)]) -> String {
        duration_text(&build(entries).unwrap())
    }

    /// Years, months, days, hours, minutes and seconds of `values`, in that order, then the
    /// entries of `more`.
    fn units(values: [Value; 6], more: &[(&'static str, Value)]) -> Vec<(&'static str, Value)> {
        ["years", "months", "days", "hours", "minutes", "seconds"]
            .into_iter()
            .zip(values)
            .chain(more.iter().cloned())
            .collect()
    }

    /// Builds each case's components and compares the duration's text, naming the case that
    /// differs.
    fn check(cases: &[(&[(&str, Value)], &str)]) {
        for (entries, expected) in cases {
            assert_eq!(text(entries), *expected, "{entries:?}");
        }
    }

    #[test]
    fn construction_cascades_fractions() {
        // Temporal1 [12].
        use Value::{Float as F, Int as I};
        check(&[
            (
                &[("days", I(14)), ("hours", I(16)), ("minutes", I(12))],
                "P14DT16H12M",
            ),
            (&[("months", I(5)), ("days", F(1.5))], "P5M1DT12H"),
            (&[("months", F(0.75))], "P22DT19H51M49.5S"),
            (&[("weeks", F(2.5))], "P17DT12H"),
            (
                &units([I(12), I(5), I(14), I(16), I(12), I(70)], &[]),
                "P12Y5M14DT16H13M10S",
            ),
            (
                &[("days", I(14)), ("seconds", I(70)), ("milliseconds", I(1))],
                "P14DT1M10.001S",
            ),
            (
                &[("days", I(14)), ("seconds", I(70)), ("microseconds", I(1))],
                "P14DT1M10.000001S",
            ),
            (
                &[("days", I(14)), ("seconds", I(70)), ("nanoseconds", I(1))],
                "P14DT1M10.000000001S",
            ),
            (&[("minutes", F(1.5)), ("seconds", I(1))], "PT1M31S"),
        ]);
    }

    #[test]
    fn negative_components_normalise() {
        // Temporal6 [6].
        use Value::Int as I;
        check(&[
            (&[("minutes", I(12)), ("seconds", I(-60))], "PT11M"),
            (&[("seconds", I(2)), ("milliseconds", I(-1))], "PT1.999S"),
            (&[("seconds", I(-2)), ("milliseconds", I(1))], "PT-1.999S"),
            (&[("seconds", I(-2)), ("milliseconds", I(-1))], "PT-2.001S"),
            (&[("days", I(1)), ("milliseconds", I(1))], "P1DT0.001S"),
            (&[("days", I(1)), ("milliseconds", I(-1))], "P1DT-0.001S"),
            (&[("seconds", I(60)), ("milliseconds", I(-1))], "PT59.999S"),
            (&[("seconds", I(-60)), ("milliseconds", I(1))], "PT-59.999S"),
            (
                &[("seconds", I(-60)), ("milliseconds", I(-1))],
                "PT-1M-0.001S",
            ),
            (
                &[
                    ("years", I(12)),
                    ("months", I(5)),
                    ("days", I(-14)),
                    ("hours", I(16)),
                ],
                "P12Y5M-14DT16H",
            ),
        ]);
    }

    fn tck_durations() -> [Duration; 3] {
        use Value::{Float as F, Int as I};
        [
            build(&units(
                [I(12), I(5), I(14), I(16), I(12), I(70)],
                &[("nanoseconds", I(1))],
            ))
            .unwrap(),
            build(&[
                ("months", I(1)),
                ("days", I(-14)),
                ("hours", I(16)),
                ("minutes", I(-12)),
                ("seconds", I(70)),
            ])
            .unwrap(),
            build(&units(
                [F(12.5), F(5.5), F(14.5), F(16.5), F(12.5), F(70.5)],
                &[("nanoseconds", I(3))],
            ))
            .unwrap(),
        ]
    }

    #[test]
    fn addition_and_subtraction_are_componentwise() {
        // Temporal8 [6].
        let [a, b, c] = tck_durations();
        let sum = |x: &Duration, y: &Duration| duration_text(&x.checked_add(y).unwrap());
        let diff = |x: &Duration, y: &Duration| duration_text(&x.checked_sub(y).unwrap());
        assert_eq!(sum(&a, &a), "P24Y10M28DT32H26M20.000000002S");
        assert_eq!(diff(&a, &a), "PT0S");
        assert_eq!(sum(&a, &b), "P12Y6MT32H2M20.000000001S");
        assert_eq!(diff(&a, &b), "P12Y4M28DT24M0.000000001S");
        assert_eq!(sum(&a, &c), "P25Y4M43DT50H11M23.500000004S");
        assert_eq!(diff(&a, &c), "P-6M-15DT-17H-45M-3.500000002S");
        assert_eq!(diff(&b, &a), "P-12Y-4M-28DT-24M-0.000000001S");
        assert_eq!(sum(&b, &b), "P2M-28DT31H38M20S");
        assert_eq!(sum(&b, &c), "P13Y15DT49H47M23.500000003S");
        assert_eq!(diff(&b, &c), "P-12Y-10M-43DT-18H-9M-3.500000003S");
        assert_eq!(diff(&c, &a), "P6M15DT17H45M3.500000002S");
        assert_eq!(diff(&c, &b), "P12Y10M43DT18H9M3.500000003S");
        assert_eq!(sum(&c, &c), "P25Y10M58DT67H56M27.000000006S");
    }

    #[test]
    fn scaling_cascades_fractions() {
        // Temporal8 [7].
        let [a, ..] = tck_durations();
        for (case, scaled, expected) in [
            ("* 1", a.mul_int(1), "P12Y5M14DT16H13M10.000000001S"),
            ("* 2", a.mul_int(2), "P24Y10M28DT32H26M20.000000002S"),
            ("* 0.5", a.mul_float(0.5), "P6Y2M22DT13H21M8S"),
            ("/ 1.0", a.div_float(1.0), "P12Y5M14DT16H13M10.000000001S"),
            ("/ 2.0", a.div_float(2.0), "P6Y2M22DT13H21M8S"),
            ("/ 0.5", a.div_float(0.5), "P24Y10M28DT32H26M20.000000002S"),
        ] {
            assert_eq!(duration_text(&scaled.unwrap()), expected, "a {case}");
        }
        assert!(a.div_float(0.0).is_err());
    }

    #[test]
    fn accessors() {
        // Temporal5 [7].
        use Value::Int as I;
        let d = build(&[
            ("years", I(1)),
            ("months", I(4)),
            ("days", I(10)),
            ("hours", I(1)),
            ("minutes", I(1)),
            ("seconds", I(1)),
            ("nanoseconds", I(111_111_111)),
        ])
        .unwrap();
        let expected = [
            ("years", 1),
            ("quarters", 5),
            ("months", 16),
            ("weeks", 1),
            ("days", 10),
            ("hours", 1),
            ("minutes", 61),
            ("seconds", 3661),
            ("milliseconds", 3_661_111),
            ("microseconds", 3_661_111_111),
            ("nanoseconds", 3_661_111_111_111),
            ("quartersOfYear", 1),
            ("monthsOfQuarter", 1),
            ("monthsOfYear", 4),
            ("daysOfWeek", 3),
            ("minutesOfHour", 1),
            ("secondsOfMinute", 1),
            ("millisecondsOfSecond", 111),
            ("microsecondsOfSecond", 111_111),
            ("nanosecondsOfSecond", 111_111_111),
        ];
        for (name, value) in expected {
            assert_eq!(field(&d, name), Some(value), "{name}");
        }
        assert_eq!(field(&d, "fortnights"), None);
    }

    #[test]
    fn bad_components_are_errors() {
        assert!(build(&[("lightyears", Value::Int(1))]).is_err());
        assert!(build(&[("days", Value::from("one"))]).is_err());
        assert!(build(&[("days", Value::Float(f64::NAN))]).is_err());
        assert!(build(&[("years", Value::Int(i64::MAX))]).is_err());
        assert_eq!(build(&[]).unwrap(), Duration::ZERO);
    }
}
