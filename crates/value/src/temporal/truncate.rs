//! `date.truncate(unit, value[, fields])` and its siblings for every temporal type.
//!
//! Truncation sets every component smaller than the unit to its first value: `'week'` goes
//! back to Monday, `'weekYear'` to the Monday of week 1, `'decade'` to January 1st of a year
//! divisible by ten. Date units reset the time to midnight. The optional map then overrides
//! components of the truncated value, as the constructors' maps do; sub-second fields below a
//! millisecond or microsecond unit add to what truncation kept (`'millisecond'` with
//! `{nanosecond: 2}` keeps the milliseconds and adds two nanoseconds). A `timezone` in the map
//! of `datetime.truncate` keeps the wall clock and changes the zone.

use std::sync::Arc;

use super::build::{Clock, TemporalKind, from_map, sub_second_nanos};
use super::calendar::{self, NANOS_PER_SECOND};
use super::zone::{self, parse_zone};
use super::{Date, DateTime, LocalDateTime, LocalTime, Temporal, Time};
use crate::error::{Result, ValueError};
use crate::value::{Map, Value};

/// The units values can be truncated to, largest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Millennium,
    Century,
    Decade,
    Year,
    WeekYear,
    Quarter,
    Month,
    Week,
    Day,
    Hour,
    Minute,
    Second,
    Millisecond,
    Microsecond,
}

impl Unit {
    /// Parses a unit name, case-insensitively.
    pub fn parse(name: &str) -> Result<Unit> {
        const NAMES: [(&str, Unit); 14] = [
            ("millennium", Unit::Millennium),
            ("century", Unit::Century),
            ("decade", Unit::Decade),
            ("year", Unit::Year),
            ("weekyear", Unit::WeekYear),
            ("quarter", Unit::Quarter),
            ("month", Unit::Month),
            ("week", Unit::Week),
            ("day", Unit::Day),
            ("hour", Unit::Hour),
            ("minute", Unit::Minute),
            ("second", Unit::Second),
            ("millisecond", Unit::Millisecond),
            ("microsecond", Unit::Microsecond),
        ];
        NAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, u)| *u)
            .ok_or_else(|| {
                ValueError::invalid_value(format!("Unsupported unit for truncation: '{name}'"))
            })
    }

    fn is_time_based(self) -> bool {
        matches!(
            self,
            Unit::Hour | Unit::Minute | Unit::Second | Unit::Millisecond | Unit::Microsecond
        )
    }
}

/// Truncates a day number to a date unit.
fn truncate_date(days: i64, unit: Unit) -> i64 {
    let ymd = calendar::ymd_from_days(days);
    let first_of_year = |year: i64| calendar::days_from_ymd(year, 1, 1);
    match unit {
        Unit::Millennium => first_of_year(ymd.year / 1000 * 1000),
        Unit::Century => first_of_year(ymd.year / 100 * 100),
        Unit::Decade => first_of_year(ymd.year / 10 * 10),
        Unit::Year => first_of_year(ymd.year),
        Unit::WeekYear => calendar::week_one_monday(calendar::week_date(days).0),
        Unit::Quarter => calendar::quarter_start(ymd.year, calendar::quarter_of_month(ymd.month)),
        Unit::Month => calendar::days_from_ymd(ymd.year, ymd.month, 1),
        Unit::Week => days - i64::from(calendar::weekday(days)) + 1,
        _ => days,
    }
}

/// Truncates a time of day to a unit no larger than a day.
fn truncate_time(time: LocalTime, unit: Unit) -> LocalTime {
    let step = match unit {
        Unit::Hour => 3600 * NANOS_PER_SECOND,
        Unit::Minute => 60 * NANOS_PER_SECOND,
        Unit::Second => NANOS_PER_SECOND,
        Unit::Millisecond => 1_000_000,
        Unit::Microsecond => 1000,
        _ => return LocalTime::MIDNIGHT,
    };
    LocalTime {
        nanos: time.nanos - time.nanos % step,
    }
}

fn unsupported(kind: TemporalKind, unit: Unit, t: &Temporal) -> ValueError {
    ValueError::invalid_value(format!(
        "Cannot truncate a {} to a {} with unit {unit:?}",
        t.type_name(),
        kind.name()
    ))
}

/// `kind.truncate(unit, value[, fields])`.
pub fn truncate(
    kind: TemporalKind,
    unit: &str,
    input: &Value,
    fields: Option<&Map>,
    clock: &Clock,
) -> Result<Value> {
    if input.is_null() {
        return Ok(Value::Null);
    }
    let unit = Unit::parse(unit)?;
    let t = Temporal::from_value(input).ok_or_else(|| {
        ValueError::invalid_type(format!("Cannot truncate a {}", input.value_type()))
    })?;
    let mut truncated = truncated_value(kind, unit, &t, clock)?;
    let Some(fields) = fields.filter(|f| !f.is_empty()) else {
        return Ok(truncated.into_value());
    };
    let mut rest = fields.clone();
    if kind == TemporalKind::DateTime
        && let Some(zone_value) = rest.remove("timezone")
    {
        let Value::String(name) = &zone_value else {
            return Err(ValueError::invalid_type("timezone must be a string"));
        };
        if let Temporal::DateTime(dt) = &truncated {
            truncated =
                Temporal::DateTime(DateTime::from_local(dt.local(), parse_zone(name)?, None)?);
        }
    }
    if kind == TemporalKind::Time {
        // A zone given to `time.truncate` keeps the wall clock and takes the zone's offset now.
        if let Some(zone_value) = rest.remove("timezone") {
            let Value::String(name) = &zone_value else {
                return Err(ValueError::invalid_type("timezone must be a string"));
            };
            let offset = zone::offset_at(&parse_zone(name)?, clock.now.seconds)?;
            if let Temporal::Time(t) = truncated {
                truncated = Temporal::Time(Time {
                    nanos: t.nanos,
                    offset_seconds: offset,
                });
            }
        }
    }
    truncated = merge_sub_seconds(truncated, unit, &mut rest)?;
    if rest.is_empty() {
        return Ok(truncated.into_value());
    }
    let selector = match kind {
        TemporalKind::Date => "date",
        TemporalKind::LocalTime | TemporalKind::Time => "time",
        TemporalKind::LocalDateTime | TemporalKind::DateTime => "datetime",
    };
    rest.insert(Arc::from(selector), truncated.into_value());
    from_map(kind, &rest, clock)
}

/// The truncated value, before any field overrides.
fn truncated_value(
    kind: TemporalKind,
    unit: Unit,
    t: &Temporal,
    clock: &Clock,
) -> Result<Temporal> {
    match kind {
        TemporalKind::Date => {
            let date = t.date().ok_or_else(|| unsupported(kind, unit, t))?;
            if unit.is_time_based() {
                return Err(unsupported(kind, unit, t));
            }
            Ok(Temporal::Date(Date {
                days: truncate_date(date.days, unit),
            }))
        }
        TemporalKind::LocalTime | TemporalKind::Time => {
            let time = t.local_time().ok_or_else(|| unsupported(kind, unit, t))?;
            if !unit.is_time_based() && unit != Unit::Day {
                return Err(unsupported(kind, unit, t));
            }
            let time = truncate_time(time, unit);
            if kind == TemporalKind::LocalTime {
                return Ok(Temporal::LocalTime(time));
            }
            let offset = match t.offset() {
                Some(offset) => offset,
                None => clock.default_offset()?,
            };
            Ok(Temporal::Time(Time {
                nanos: time.nanos,
                offset_seconds: offset,
            }))
        }
        TemporalKind::LocalDateTime | TemporalKind::DateTime => {
            let date = t.date().ok_or_else(|| unsupported(kind, unit, t))?;
            let (date, time) = if unit.is_time_based() {
                let time = match t {
                    Temporal::LocalDateTime(_) | Temporal::DateTime(_) => t.local_time(),
                    _ => None,
                }
                .ok_or_else(|| unsupported(kind, unit, t))?;
                (date, truncate_time(time, unit))
            } else {
                (
                    Date {
                        days: truncate_date(date.days, unit),
                    },
                    LocalTime::MIDNIGHT,
                )
            };
            let local = LocalDateTime::new(date, time)?;
            if kind == TemporalKind::LocalDateTime {
                return Ok(Temporal::LocalDateTime(local));
            }
            let zone = t.zone().unwrap_or_else(|| clock.default_zone.clone());
            let preferred = t.offset();
            Ok(Temporal::DateTime(DateTime::from_local(
                local, zone, preferred,
            )?))
        }
    }
}

/// Folds sub-second fields smaller than a millisecond or microsecond unit into the truncated
/// value, removing them from the map.
fn merge_sub_seconds(t: Temporal, unit: Unit, fields: &mut Map) -> Result<Temporal> {
    let int = |v: Option<Value>, name: &str| -> Result<Option<i64>> {
        match v {
            None => Ok(None),
            Some(Value::Int(i)) => Ok(Some(i)),
            Some(other) => Err(ValueError::invalid_type(format!(
                "{name} must be an integer value, but was a {}",
                other.value_type()
            ))),
        }
    };
    let Some(time) = t.local_time() else {
        return Ok(t);
    };
    let nanos_of_second = time.nanosecond();
    let new_nanos = match unit {
        Unit::Millisecond
            if fields.contains_key("microsecond") || fields.contains_key("nanosecond") =>
        {
            let us = int(fields.remove("microsecond"), "microsecond")?;
            let ns = int(fields.remove("nanosecond"), "nanosecond")?;
            sub_second_nanos(Some(nanos_of_second / 1_000_000), us, ns)?
        }
        Unit::Microsecond if fields.contains_key("nanosecond") => {
            let ns = int(fields.remove("nanosecond"), "nanosecond")?;
            sub_second_nanos(None, Some(nanos_of_second / 1000), ns)?
        }
        _ => return Ok(t),
    };
    let adjusted = LocalTime {
        nanos: time.nanos - nanos_of_second + new_nanos,
    };
    Ok(match t {
        Temporal::LocalTime(_) => Temporal::LocalTime(adjusted),
        Temporal::Time(old) => Temporal::Time(Time {
            nanos: adjusted.nanos,
            offset_seconds: old.offset_seconds,
        }),
        Temporal::LocalDateTime(ldt) => {
            Temporal::LocalDateTime(LocalDateTime::new(ldt.date(), adjusted)?)
        }
        Temporal::DateTime(dt) => {
            let local = LocalDateTime::new(dt.local().date(), adjusted)?;
            Temporal::DateTime(DateTime::from_local(
                local,
                dt.zone.clone(),
                Some(dt.offset_seconds),
            )?)
        }
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::display::to_string_cypher;
    use crate::temporal::{Instant, TimeZone};

    fn clock() -> Clock {
        Clock {
            now: Instant {
                seconds: 0,
                nanos: 0,
            },
            default_zone: TimeZone::Offset(0),
        }
    }

    /// The map of `fields`, as a Cypher map literal would give it.
    fn map(fields: &[(&str, Value)]) -> Map {
        fields
            .iter()
            .map(|(k, v)| (Arc::from(*k), v.clone()))
            .collect()
    }

    fn value(kind: TemporalKind, fields: &[(&str, Value)]) -> Value {
        from_map(kind, &map(fields), &clock()).unwrap()
    }

    fn run(kind: TemporalKind, unit: &str, input: &Value, fields: &[(&str, Value)]) -> String {
        match truncate(kind, unit, input, Some(&map(fields)), &clock()) {
            Ok(v) => to_string_cypher(&v),
            Err(e) => format!("error: {e}"),
        }
    }

    /// 2017-11-11 as a date, at 12:31:14.645876123 as a date-time (+03:00) and a local
    /// date-time, and that time of day as a local time and a time (-01:00).
    fn inputs() -> [Value; 5] {
        use Value::{Int as I, String as S};
        let date = [("year", I(2017)), ("month", I(11)), ("day", I(11))];
        let time = [
            ("hour", I(12)),
            ("minute", I(31)),
            ("second", I(14)),
            ("nanosecond", I(645_876_123)),
        ];
        let zone = |offset: &str| [("timezone", S(offset.into()))];
        [
            value(TemporalKind::Date, &date),
            value(
                TemporalKind::DateTime,
                &[&date[..], &time, &zone("+03:00")].concat(),
            ),
            value(TemporalKind::LocalDateTime, &[&date[..], &time].concat()),
            value(TemporalKind::LocalTime, &time),
            value(TemporalKind::Time, &[&time[..], &zone("-01:00")].concat()),
        ]
    }

    #[test]
    fn dates_truncate_to_every_date_unit() {
        let [d, dt, ldt, ..] = inputs();
        let date = TemporalKind::Date;
        for input in [&d, &dt, &ldt] {
            assert_eq!(run(date, "millennium", input, &[]), "2000-01-01");
            assert_eq!(run(date, "century", input, &[]), "2000-01-01");
            assert_eq!(run(date, "decade", input, &[]), "2010-01-01");
            assert_eq!(run(date, "year", input, &[]), "2017-01-01");
            assert_eq!(run(date, "weekYear", input, &[]), "2017-01-02");
            assert_eq!(run(date, "quarter", input, &[]), "2017-10-01");
            assert_eq!(run(date, "month", input, &[]), "2017-11-01");
            assert_eq!(run(date, "week", input, &[]), "2017-11-06");
            assert_eq!(run(date, "day", input, &[]), "2017-11-11");
            assert_eq!(
                run(date, "millennium", input, &[("day", Value::Int(2))]),
                "2000-01-02"
            );
            assert_eq!(
                run(date, "week", input, &[("dayOfWeek", Value::Int(2))]),
                "2017-11-07"
            );
        }
        assert!(run(date, "hour", &d, &[]).starts_with("error"));
    }

    #[test]
    fn date_times_truncate_with_overrides() {
        let [d, dt, ldt, ..] = inputs();
        let kind = TemporalKind::DateTime;
        assert_eq!(run(kind, "millennium", &dt, &[]), "2000-01-01T00:00+03:00");
        assert_eq!(
            run(kind, "weekYear", &dt, &[("day", Value::Int(5))]),
            "2017-01-05T00:00+03:00"
        );
        assert_eq!(run(kind, "hour", &dt, &[]), "2017-11-11T12:00+03:00");
        assert_eq!(
            run(kind, "second", &dt, &[("nanosecond", Value::Int(2))]),
            "2017-11-11T12:31:14.000000002+03:00"
        );
        assert_eq!(
            run(kind, "millisecond", &dt, &[("nanosecond", Value::Int(2))]),
            "2017-11-11T12:31:14.645000002+03:00"
        );
        assert_eq!(
            run(kind, "microsecond", &dt, &[("nanosecond", Value::Int(2))]),
            "2017-11-11T12:31:14.645876002+03:00"
        );
        assert_eq!(
            run(
                kind,
                "day",
                &dt,
                &[("timezone", Value::from("Europe/Stockholm"))]
            ),
            "2017-11-11T00:00+01:00[Europe/Stockholm]"
        );
        assert_eq!(run(kind, "day", &ldt, &[]), "2017-11-11T00:00Z");
        assert_eq!(run(kind, "year", &d, &[]), "2017-01-01T00:00Z");
        assert!(run(kind, "hour", &d, &[]).starts_with("error"));
        let kind = TemporalKind::LocalDateTime;
        assert_eq!(run(kind, "minute", &dt, &[]), "2017-11-11T12:31");
        assert_eq!(
            run(kind, "month", &ldt, &[("day", Value::Int(3))]),
            "2017-11-03T00:00"
        );
    }

    #[test]
    fn times_truncate_to_time_units() {
        let [d, dt, _, lt, t] = inputs();
        let kind = TemporalKind::LocalTime;
        assert_eq!(run(kind, "day", &lt, &[]), "00:00");
        assert_eq!(run(kind, "hour", &lt, &[]), "12:00");
        assert_eq!(run(kind, "minute", &dt, &[]), "12:31");
        assert_eq!(run(kind, "millisecond", &t, &[]), "12:31:14.645");
        assert_eq!(
            run(kind, "millisecond", &lt, &[("nanosecond", Value::Int(2))]),
            "12:31:14.645000002"
        );
        assert!(run(kind, "year", &lt, &[]).starts_with("error"));
        assert!(run(kind, "hour", &d, &[]).starts_with("error"));
        let kind = TemporalKind::Time;
        assert_eq!(run(kind, "second", &t, &[]), "12:31:14-01:00");
        assert_eq!(run(kind, "second", &lt, &[]), "12:31:14Z");
        assert_eq!(
            run(kind, "hour", &dt, &[("minute", Value::Int(5))]),
            "12:05+03:00"
        );
        assert!(run(kind, "fortnight", &t, &[]).starts_with("error"));
        assert_eq!(run(kind, "hour", &Value::Null, &[]), "null");
    }
}
