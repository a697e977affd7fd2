//! Temporal arithmetic: adding durations to instants and measuring durations between them.
//!
//! Adding a duration applies its components from the largest down, each in the way its unit
//! demands: months move the calendar month (clamping the day), days move the calendar day,
//! and seconds move the clock. A date takes the whole days its seconds make up; a time of day
//! takes the seconds modulo one day. For zoned date-times months and days act on the wall
//! clock and seconds on the instant, so adding `P1D` across a daylight-saving change keeps
//! the wall-clock time while adding `PT24H` keeps the elapsed time.
//!
//! Between two temporals of different types, the poorer one is completed from the richer: a
//! date gains midnight, a time gains the other's date, a local value gains the other's zone.

use super::calendar::{self, NANOS_PER_SECOND};
use super::{Date, DateTime, Duration, LocalDateTime, LocalTime, Temporal, Time, TimeZone, zone};
use crate::error::{Result, ValueError};

/// `temporal + duration`.
pub fn add_duration(t: &Temporal, d: &Duration) -> Result<Temporal> {
    shift(t, d, 1)
}

/// `temporal - duration`.
pub fn sub_duration(t: &Temporal, d: &Duration) -> Result<Temporal> {
    shift(t, d, -1)
}

fn overflow() -> ValueError {
    ValueError::invalid_value("Temporal arithmetic overflow: the result is out of range")
}

fn shift(t: &Temporal, d: &Duration, sign: i64) -> Result<Temporal> {
    let months = d.months.checked_mul(sign).ok_or_else(overflow)?;
    let days = d.days.checked_mul(sign).ok_or_else(overflow)?;
    let time_nanos = d.time_nanos() * i128::from(sign);
    Ok(match t {
        Temporal::Date(date) => {
            let shifted = calendar::add_months(date.days, months)?;
            let total_days = d.total_days().checked_mul(sign).ok_or_else(overflow)?;
            Temporal::Date(Date {
                days: calendar::add_days(shifted, total_days)?,
            })
        }
        Temporal::LocalTime(time) => {
            Temporal::LocalTime(time.wrapping_add_nanos(d.nanos_of_day().wrapping_mul(sign)))
        }
        Temporal::Time(time) => {
            let moved = LocalTime { nanos: time.nanos }
                .wrapping_add_nanos(d.nanos_of_day().wrapping_mul(sign));
            Temporal::Time(Time {
                nanos: moved.nanos,
                offset_seconds: time.offset_seconds,
            })
        }
        Temporal::LocalDateTime(ldt) => {
            let mut days_part = ldt.date().days;
            if months != 0 {
                days_part = calendar::add_months(days_part, months)?;
            }
            days_part = calendar::add_days(days_part, days)?;
            let moved = LocalDateTime::new(Date { days: days_part }, ldt.time())?;
            Temporal::LocalDateTime(add_nanos_local(moved, time_nanos)?)
        }
        Temporal::DateTime(dt) => {
            let mut current = dt.clone();
            if months != 0 {
                let local = current.local();
                let date = calendar::add_months(local.date().days, months)?;
                let moved = LocalDateTime::new(Date { days: date }, local.time())?;
                current = DateTime::from_local(
                    moved,
                    current.zone.clone(),
                    Some(current.offset_seconds),
                )?;
            }
            if days != 0 {
                let local = current.local();
                let date = calendar::add_days(local.date().days, days)?;
                let moved = LocalDateTime::new(Date { days: date }, local.time())?;
                current = DateTime::from_local(
                    moved,
                    current.zone.clone(),
                    Some(current.offset_seconds),
                )?;
            }
            if time_nanos != 0 {
                let (seconds, nanos) = split_nanos(instant_nanos(&current) + time_nanos)?;
                current = DateTime::from_instant(seconds, nanos, current.zone.clone())?;
            }
            Temporal::DateTime(current)
        }
    })
}

fn local_nanos(ldt: LocalDateTime) -> i128 {
    i128::from(ldt.seconds) * i128::from(NANOS_PER_SECOND) + i128::from(ldt.nanos)
}

fn instant_nanos(dt: &DateTime) -> i128 {
    i128::from(dt.seconds) * i128::from(NANOS_PER_SECOND) + i128::from(dt.nanos)
}

fn split_nanos(total: i128) -> Result<(i64, u32)> {
    let seconds =
        i64::try_from(total.div_euclid(i128::from(NANOS_PER_SECOND))).map_err(|_| overflow())?;
    Ok((
        seconds,
        total.rem_euclid(i128::from(NANOS_PER_SECOND)) as u32,
    ))
}

fn add_nanos_local(ldt: LocalDateTime, nanos: i128) -> Result<LocalDateTime> {
    let (seconds, nanos) = split_nanos(local_nanos(ldt) + nanos)?;
    super::check_local_range(LocalDateTime { seconds, nanos })
}

/// What `duration.between` and its variants measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BetweenUnit {
    /// Months, then days, then the remaining time (`duration.between`).
    All,
    /// Whole months only (`duration.inMonths`).
    Months,
    /// Whole days only (`duration.inDays`).
    Days,
    /// Seconds and nanoseconds only (`duration.inSeconds`).
    Seconds,
}

/// The duration from one temporal to another.
pub fn between(from: &Temporal, to: &Temporal, unit: BetweenUnit) -> Result<Duration> {
    match unit {
        BetweenUnit::Months => Duration::new(until(from, to, Unit::Months)?, 0, 0, 0),
        BetweenUnit::Days => Duration::new(0, until(from, to, Unit::Days)?, 0, 0),
        BetweenUnit::Seconds => Duration::new(0, 0, 0, until(from, to, Unit::Nanos)?),
        BetweenUnit::All => {
            let mut start = from.clone();
            let (mut months, mut days) = (0, 0);
            if from.date().is_some() && to.date().is_some() {
                months = until(&start, to, Unit::Months)?;
                start = plus_calendar(&start, months, 0)?;
                days = until(&start, to, Unit::Days)?;
                start = plus_calendar(&start, 0, days)?;
            }
            Duration::new(months, days, 0, until(&start, to, Unit::Nanos)?)
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Unit {
    Months,
    Days,
    Nanos,
}

/// Moves a dated temporal by whole months and days on its calendar.
fn plus_calendar(t: &Temporal, months: i128, days: i128) -> Result<Temporal> {
    let months = i64::try_from(months).map_err(|_| overflow())?;
    let days = i64::try_from(days).map_err(|_| overflow())?;
    shift(
        t,
        &Duration {
            months,
            days,
            seconds: 0,
            nanos: 0,
        },
        1,
    )
}

/// Completes two temporals to a common shape: dates gain midnight, times gain the other's
/// date, local values gain the other's zone.
fn complete(from: &Temporal, to: &Temporal) -> Result<(Temporal, Temporal)> {
    let mut from = with_time(from)?;
    let mut to = with_time(to)?;
    match (from.date(), to.date()) {
        (Some(date), None) => to = with_date(&to, date)?,
        (None, Some(date)) => from = with_date(&from, date)?,
        _ => {}
    }
    match (from.zone(), to.zone()) {
        (Some(zone), None) => to = with_zone(&to, zone)?,
        (None, Some(zone)) => from = with_zone(&from, zone)?,
        _ => {}
    }
    Ok((from, to))
}

fn with_time(t: &Temporal) -> Result<Temporal> {
    Ok(match t {
        Temporal::Date(d) => Temporal::LocalDateTime(LocalDateTime::new(*d, LocalTime::MIDNIGHT)?),
        other => other.clone(),
    })
}

fn with_date(t: &Temporal, date: Date) -> Result<Temporal> {
    Ok(match t {
        Temporal::LocalTime(time) => Temporal::LocalDateTime(LocalDateTime::new(date, *time)?),
        Temporal::Time(time) => {
            let local = LocalDateTime::new(date, LocalTime { nanos: time.nanos })?;
            Temporal::DateTime(DateTime::from_local(
                local,
                TimeZone::Offset(time.offset_seconds),
                None,
            )?)
        }
        other => other.clone(),
    })
}

fn with_zone(t: &Temporal, zone: TimeZone) -> Result<Temporal> {
    Ok(match t {
        Temporal::LocalDateTime(ldt) => Temporal::DateTime(DateTime::from_local(*ldt, zone, None)?),
        Temporal::LocalTime(time) => {
            // Only times (whose zone is an offset) lend a zone to undated values.
            let offset = match zone {
                TimeZone::Offset(offset) => offset,
                TimeZone::Named(_) => zone::offset_at(&zone, super::Instant::now().seconds)?,
            };
            Temporal::Time(Time {
                nanos: time.nanos,
                offset_seconds: offset,
            })
        }
        other => other.clone(),
    })
}

/// `from.until(to, unit)` after completing both to a common shape.
fn until(from: &Temporal, to: &Temporal, unit: Unit) -> Result<i128> {
    let (from, to) = complete(from, to)?;
    match (&from, &to) {
        (Temporal::LocalDateTime(a), Temporal::LocalDateTime(b)) => Ok(match unit {
            Unit::Nanos => local_nanos(*b) - local_nanos(*a),
            _ => calendar_until(*a, *b, unit),
        }),
        (Temporal::DateTime(a), Temporal::DateTime(b)) => Ok(match unit {
            Unit::Nanos => instant_nanos(b) - instant_nanos(a),
            _ => {
                // Date units compare wall clocks, with `to` seen in `from`'s zone.
                let b_offset = zone::offset_at(&a.zone, b.seconds)?;
                let b_local = LocalDateTime {
                    seconds: b.seconds.saturating_add(i64::from(b_offset)),
                    nanos: b.nanos,
                };
                calendar_until(a.local(), b_local, unit)
            }
        }),
        (Temporal::Time(a), Temporal::Time(b)) => Ok(match unit {
            Unit::Nanos => {
                let utc = |t: &Time| {
                    i128::from(t.nanos)
                        - i128::from(t.offset_seconds) * i128::from(NANOS_PER_SECOND)
                };
                utc(b) - utc(a)
            }
            _ => 0,
        }),
        (Temporal::LocalTime(a), Temporal::LocalTime(b)) => Ok(match unit {
            Unit::Nanos => i128::from(b.nanos) - i128::from(a.nanos),
            _ => 0,
        }),
        _ => Err(ValueError::invalid_value(format!(
            "Cannot compute a duration between {} and {}",
            from.type_name(),
            to.type_name()
        ))),
    }
}

/// Whole months or days between two wall-clock date-times; a partial last day does not count.
fn calendar_until(a: LocalDateTime, b: LocalDateTime, unit: Unit) -> i128 {
    let (a_date, b_date) = (a.date().days, b.date().days);
    let (a_time, b_time) = (a.time().nanos, b.time().nanos);
    let mut end = b_date;
    if b_date > a_date && b_time < a_time {
        end -= 1;
    } else if b_date < a_date && b_time > a_time {
        end += 1;
    }
    match unit {
        Unit::Months => i128::from(calendar::months_between(a_date, end)),
        _ => i128::from(end) - i128::from(a_date),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::temporal::format::*;
    use crate::temporal::parse::*;

    fn utc() -> TimeZone {
        TimeZone::Offset(0)
    }

    /// Parses a temporal written as Cypher's constructor call: `date('...')` and friends.
    fn t(call: &str) -> Temporal {
        let open = call.find("('").unwrap();
        let text = &call[open + 2..call.len() - 2];
        match &call[..open] {
            "date" => Temporal::Date(parse_date(text).unwrap()),
            "localtime" => Temporal::LocalTime(parse_local_time(text).unwrap()),
            "time" => Temporal::Time(parse_time(text, 0).unwrap()),
            "localdatetime" => Temporal::LocalDateTime(parse_local_date_time(text).unwrap()),
            "datetime" => Temporal::DateTime(parse_date_time(text, &utc()).unwrap()),
            other => panic!("{other}"),
        }
    }

    fn text(t: &Temporal) -> String {
        match t {
            Temporal::Date(d) => date_text(d),
            Temporal::LocalTime(v) => local_time_text(v),
            Temporal::Time(v) => time_text(v),
            Temporal::LocalDateTime(v) => local_date_time_text(v),
            Temporal::DateTime(v) => date_time_text(v),
        }
    }

    fn durations() -> [Duration; 3] {
        [
            parse_duration("P12Y5M14DT16H12M70.000000002S").unwrap(),
            parse_duration("P1M-14DT16H-12M70S").unwrap(),
            // {years: 12.5, months: 5.5, days: 14.5, hours: 16.5, minutes: 12.5, seconds: 70.5, nanoseconds: 3}
            Duration {
                months: 155,
                days: 29,
                seconds: 122_293,
                nanos: 500_000_003,
            },
        ]
    }

    fn check(start: &str, expected: [(&str, &str); 3]) {
        let x = t(start);
        for (d, (sum, diff)) in durations().iter().zip(expected) {
            assert_eq!(text(&add_duration(&x, d).unwrap()), sum, "{start} + {d:?}");
            assert_eq!(text(&sub_duration(&x, d).unwrap()), diff, "{start} - {d:?}");
        }
    }

    #[test]
    fn adding_durations_follows_each_unit() {
        // Temporal8 [1] to [5].
        check(
            "date('1984-10-11')",
            [
                ("1997-03-25", "1972-04-27"),
                ("1984-10-28", "1984-09-25"),
                ("1997-10-11", "1971-10-12"),
            ],
        );
        check(
            "localtime('12:31:14.000000001')",
            [
                ("04:44:24.000000003", "20:18:03.999999999"),
                ("04:20:24.000000001", "20:42:04.000000001"),
                ("22:29:27.500000004", "02:33:00.499999998"),
            ],
        );
        check(
            "time('12:31:14.000000001+01:00')",
            [
                ("04:44:24.000000003+01:00", "20:18:03.999999999+01:00"),
                ("04:20:24.000000001+01:00", "20:42:04.000000001+01:00"),
                ("22:29:27.500000004+01:00", "02:33:00.499999998+01:00"),
            ],
        );
        check(
            "localdatetime('1984-10-11T12:31:14.000000001')",
            [
                (
                    "1997-03-26T04:44:24.000000003",
                    "1972-04-26T20:18:03.999999999",
                ),
                (
                    "1984-10-29T04:20:24.000000001",
                    "1984-09-24T20:42:04.000000001",
                ),
                (
                    "1997-10-11T22:29:27.500000004",
                    "1971-10-12T02:33:00.499999998",
                ),
            ],
        );
        check(
            "datetime('1984-10-11T12:31:14.000000001+01:00')",
            [
                (
                    "1997-03-26T04:44:24.000000003+01:00",
                    "1972-04-26T20:18:03.999999999+01:00",
                ),
                (
                    "1984-10-29T04:20:24.000000001+01:00",
                    "1984-09-24T20:42:04.000000001+01:00",
                ),
                (
                    "1997-10-11T22:29:27.500000004+01:00",
                    "1971-10-12T02:33:00.499999998+01:00",
                ),
            ],
        );
    }

    #[test]
    fn days_keep_the_wall_clock_across_daylight_saving() {
        let start = t("datetime('2017-10-28T12:00[Europe/Stockholm]')");
        let plus_day = add_duration(&start, &parse_duration("P1D").unwrap()).unwrap();
        assert_eq!(text(&plus_day), "2017-10-29T12:00+01:00[Europe/Stockholm]");
        let plus_hours = add_duration(&start, &parse_duration("PT24H").unwrap()).unwrap();
        assert_eq!(
            text(&plus_hours),
            "2017-10-29T11:00+01:00[Europe/Stockholm]"
        );
    }

    fn between_text(a: &str, b: &str, unit: BetweenUnit) -> String {
        duration_text(&between(&t(a), &t(b), unit).unwrap())
    }

    #[test]
    fn between_splits_at_boundaries() {
        // Temporal10 [1].
        let all = BetweenUnit::All;
        assert_eq!(
            between_text(
                "localdatetime('2018-01-01T12:00')",
                "localdatetime('2018-01-02T10:00')",
                all
            ),
            "PT22H"
        );
        assert_eq!(
            between_text(
                "localdatetime('2018-01-02T10:00')",
                "localdatetime('2018-01-01T12:00')",
                all
            ),
            "PT-22H"
        );
        assert_eq!(
            between_text(
                "localdatetime('2018-01-01T10:00:00.2')",
                "localdatetime('2018-01-02T10:00:00.1')",
                all
            ),
            "PT23H59M59.9S"
        );
        assert_eq!(
            between_text(
                "localdatetime('2018-01-02T10:00:00.1')",
                "localdatetime('2018-01-01T10:00:00.2')",
                all
            ),
            "PT-23H-59M-59.9S"
        );
        assert_eq!(
            between_text(
                "datetime('2017-10-28T23:00+02:00[Europe/Stockholm]')",
                "datetime('2017-10-29T04:00+01:00[Europe/Stockholm]')",
                all
            ),
            "PT6H"
        );
        let d = between(
            &t("localdatetime('2018-01-02T10:00:00.1')"),
            &t("localdatetime('2018-01-01T10:00:00.2')"),
            all,
        )
        .unwrap();
        assert_eq!((d.days, d.seconds, d.nanos), (0, -86400, 100_000_000));
    }

    const LHS: [&str; 5] = [
        "date('1984-10-11')",
        "localtime('14:30')",
        "time('14:30')",
        "localdatetime('2015-07-21T21:40:32.142')",
        "datetime('2014-07-21T21:40:36.143+0200')",
    ];
    const RHS: [&str; 5] = [
        "date('2015-06-24')",
        "localdatetime('2016-07-21T21:45:22.142')",
        "datetime('2015-07-21T21:40:32.142+0100')",
        "localtime('16:30')",
        "time('16:30+0100')",
    ];

    fn table(unit: BetweenUnit, expected: &[[&str; 5]; 5]) {
        for (i, lhs) in LHS.iter().enumerate() {
            for (j, rhs) in RHS.iter().enumerate() {
                // The TCK lists localtime and time rows without a date on the right.
                if expected[i][j].is_empty() {
                    continue;
                }
                assert_eq!(
                    between_text(lhs, rhs, unit),
                    expected[i][j],
                    "{lhs} {rhs} {unit:?}"
                );
            }
        }
    }

    #[test]
    fn between_mixed_types() {
        // Temporal10 [2].
        table(
            BetweenUnit::All,
            &[
                [
                    "P30Y8M13D",
                    "P31Y9M10DT21H45M22.142S",
                    "P30Y9M10DT21H40M32.142S",
                    "PT16H30M",
                    "PT16H30M",
                ],
                [
                    "PT-14H-30M",
                    "PT7H15M22.142S",
                    "PT7H10M32.142S",
                    "PT2H",
                    "PT2H",
                ],
                [
                    "PT-14H-30M",
                    "PT7H15M22.142S",
                    "PT6H10M32.142S",
                    "PT2H",
                    "PT1H",
                ],
                [
                    "P-27DT-21H-40M-32.142S",
                    "P1YT4M50S",
                    "PT0S",
                    "PT-5H-10M-32.142S",
                    "PT-5H-10M-32.142S",
                ],
                [
                    "P11M2DT2H19M23.857S",
                    "P2YT4M45.999S",
                    "P1YT59M55.999S",
                    "PT-5H-10M-36.143S",
                    "PT-4H-10M-36.143S",
                ],
            ],
        );
    }

    #[test]
    fn between_in_months_days_and_seconds() {
        // Temporal10 [3] to [5].
        table(
            BetweenUnit::Months,
            &[
                ["P30Y8M", "P31Y9M", "P30Y9M", "PT0S", "PT0S"],
                ["PT0S", "PT0S", "PT0S", "", ""],
                ["PT0S", "PT0S", "PT0S", "", ""],
                ["PT0S", "P1Y", "PT0S", "PT0S", "PT0S"],
                ["P11M", "P2Y", "P1Y", "PT0S", "PT0S"],
            ],
        );
        table(
            BetweenUnit::Days,
            &[
                ["P11213D", "P11606D", "P11240D", "PT0S", "PT0S"],
                ["PT0S", "PT0S", "PT0S", "", ""],
                ["PT0S", "PT0S", "PT0S", "", ""],
                ["P-27D", "P366D", "PT0S", "PT0S", "PT0S"],
                ["P337D", "P731D", "P365D", "PT0S", "PT0S"],
            ],
        );
        table(
            BetweenUnit::Seconds,
            &[
                [
                    "PT269112H",
                    "PT278565H45M22.142S",
                    "PT269781H40M32.142S",
                    "PT16H30M",
                    "PT16H30M",
                ],
                [
                    "PT-14H-30M",
                    "PT7H15M22.142S",
                    "PT7H10M32.142S",
                    "PT2H",
                    "PT2H",
                ],
                [
                    "PT-14H-30M",
                    "PT7H15M22.142S",
                    "PT6H10M32.142S",
                    "PT2H",
                    "PT1H",
                ],
                [
                    "PT-669H-40M-32.142S",
                    "PT8784H4M50S",
                    "PT0S",
                    "PT-5H-10M-32.142S",
                    "PT-5H-10M-32.142S",
                ],
                [
                    "PT8090H19M23.857S",
                    "PT17544H4M45.999S",
                    "PT8760H59M55.999S",
                    "PT-5H-10M-36.143S",
                    "PT-4H-10M-36.143S",
                ],
            ],
        );
    }

    #[test]
    fn between_edge_cases() {
        // Temporal10 [6] to [11].
        let secs = BetweenUnit::Seconds;
        assert_eq!(
            between_text(
                "localdatetime('2014-07-21T21:40:36.143')",
                "localdatetime('2014-07-21T21:40:36.142')",
                secs
            ),
            "PT-0.001S"
        );
        let months = BetweenUnit::Months;
        assert_eq!(
            between_text("date('2018-03-11')", "date('2016-06-24')", months),
            "P-1Y-8M"
        );
        assert_eq!(
            between_text(
                "date('2018-07-21')",
                "datetime('2016-07-21T21:40:32.142+0100')",
                months
            ),
            "P-1Y-11M"
        );
        assert_eq!(
            between_text(
                "localdatetime('2018-07-21T21:40:32.142')",
                "date('2016-07-21')",
                months
            ),
            "P-2Y"
        );
        assert_eq!(
            between_text(
                "datetime('2018-07-21T21:40:36.143+0200')",
                "localdatetime('2016-07-21T21:40:36.143')",
                months
            ),
            "P-2Y"
        );
        assert_eq!(
            between_text(
                "datetime('2018-07-21T21:40:36.143+0500')",
                "datetime('1984-07-21T22:40:36.143+0200')",
                months
            ),
            "P-33Y-11M"
        );
    }

    #[test]
    fn between_across_a_daylight_saving_change() {
        // Temporal10 [6] to [11], continued.
        let secs = BetweenUnit::Seconds;
        let stockholm_midnight = "datetime('2017-10-29T00:00[Europe/Stockholm]')";
        assert_eq!(
            between_text(
                stockholm_midnight,
                "localdatetime('2017-10-29T04:00')",
                secs
            ),
            "PT5H"
        );
        assert_eq!(
            between_text(stockholm_midnight, "localtime('04:00')", secs),
            "PT5H"
        );
        assert_eq!(
            between_text(
                "localdatetime('2017-10-29T00:00')",
                "datetime('2017-10-29T04:00[Europe/Stockholm]')",
                secs
            ),
            "PT5H"
        );
        assert_eq!(
            between_text(
                "localtime('00:00')",
                "datetime('2017-10-29T04:00[Europe/Stockholm]')",
                secs
            ),
            "PT5H"
        );
        assert_eq!(
            between_text(
                "date('2017-10-29')",
                "datetime('2017-10-29T04:00[Europe/Stockholm]')",
                secs
            ),
            "PT5H"
        );
        assert_eq!(
            between_text(stockholm_midnight, "date('2017-10-30')", secs),
            "PT25H"
        );
    }

    #[test]
    fn between_at_the_range_limits_and_within_a_second() {
        // Temporal10 [6] to [11], continued.
        let secs = BetweenUnit::Seconds;
        assert_eq!(
            between_text(
                "date('-999999999-01-01')",
                "date('+999999999-12-31')",
                BetweenUnit::All
            ),
            "P1999999998Y11M30D"
        );
        assert_eq!(
            between_text(
                "localdatetime('-999999999-01-01')",
                "localdatetime('+999999999-12-31T23:59:59')",
                secs
            ),
            "PT17531639991215H59M59S"
        );
        for (a, b, expected) in [
            ("12:34:54.7", "12:34:54.3", "PT-0.4S"),
            ("12:34:54.3", "12:34:54.7", "PT0.4S"),
            ("12:34:54.7", "12:34:55.3", "PT0.6S"),
            ("12:34:54.7", "12:44:55.3", "PT10M0.6S"),
            ("12:44:54.7", "12:34:55.3", "PT-9M-59.4S"),
            ("12:34:56", "12:34:55.7", "PT-0.3S"),
            ("12:34:56", "12:44:55.7", "PT9M59.7S"),
            ("12:44:56", "12:34:55.7", "PT-10M-0.3S"),
            ("12:34:56.3", "12:34:54.7", "PT-1.6S"),
            ("12:34:54.7", "12:34:56.3", "PT1.6S"),
        ] {
            assert_eq!(
                between_text(
                    &format!("localtime('{a}')"),
                    &format!("localtime('{b}')"),
                    secs
                ),
                expected
            );
        }
    }

    #[test]
    fn arithmetic_out_of_range_is_an_error() {
        let max = t("date('+999999999-12-31')");
        assert!(add_duration(&max, &parse_duration("P1D").unwrap()).is_err());
        let big = Duration {
            months: i64::MAX / 2,
            days: 0,
            seconds: 0,
            nanos: 0,
        };
        assert!(add_duration(&max, &big).is_err());
        assert!(sub_duration(&t("localdatetime('2015-01-01')"), &big).is_err());
    }
}
