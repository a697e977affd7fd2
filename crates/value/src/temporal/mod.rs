//! Temporal values. Each is stored in a canonical numeric form so that comparison is a
//! comparison of integers; formatting, parsing and arithmetic live here too.
//!
//! The submodules hold Cypher's temporal semantics as pure functions:
//! [`calendar`] (day numbers, week dates, quarters), [`zone`] (offsets and IANA zones),
//! [`mod@format`] and [`parse`] (ISO-8601 text), [`duration`] (construction, normalisation and
//! arithmetic of durations), [`arith`] (temporal ± duration, `duration.between`), [`build`]
//! (construction from maps and selection from other temporals), [`truncate`], and [`fields`]
//! (component accessors such as `d.weekYear`).

use std::sync::Arc;

pub mod arith;
pub mod build;
pub mod calendar;
pub mod duration;
pub mod fields;
pub mod format;
pub mod parse;
pub mod truncate;
pub mod zone;

use calendar::{NANOS_PER_DAY, NANOS_PER_SECOND, SECONDS_PER_DAY, Ymd};

use crate::error::{Result, ValueError};

/// A calendar date: days since 1970-01-01 (proleptic Gregorian).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    pub days: i64,
}

/// A time of day without a zone: nanoseconds since midnight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LocalTime {
    pub nanos: i64,
}

/// A time of day with a UTC offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Time {
    /// Nanoseconds since local midnight.
    pub nanos: i64,
    pub offset_seconds: i32,
}

/// A date and time without a zone: wall-clock seconds since 1970-01-01T00:00 plus nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LocalDateTime {
    pub seconds: i64,
    pub nanos: u32,
}

/// A zone: a fixed offset, or a named IANA zone with the offset in force at the instant.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TimeZone {
    Offset(i32),
    Named(Arc<str>),
}

/// An instant with a zone: UTC seconds since the epoch plus nanoseconds, and the zone it is
/// expressed in (the offset in force is kept so that formatting needs no zone lookup).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DateTime {
    pub seconds: i64,
    pub nanos: u32,
    pub offset_seconds: i32,
    pub zone: TimeZone,
}

/// A duration in Cypher's four components; they are not normalised into one another because
/// months and days have no fixed length. `nanos` is kept in `0..1_000_000_000` (the sign lives
/// in `seconds`), as Neo4j and Bolt represent durations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Duration {
    pub months: i64,
    pub days: i64,
    pub seconds: i64,
    pub nanos: i64,
}

/// A point on the UTC time line, used for "now": the statement, transaction and real-time
/// clocks hand one of these to the temporal constructors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant {
    pub seconds: i64,
    pub nanos: u32,
}

impl Instant {
    /// The current wall-clock time.
    pub fn now() -> Instant {
        let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        match since {
            Ok(d) => Instant {
                seconds: i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
                nanos: d.subsec_nanos(),
            },
            // A clock before 1970: count backwards.
            Err(e) => {
                let d = e.duration();
                let total = -(i128::from(d.as_secs()) * i128::from(NANOS_PER_SECOND)
                    + i128::from(d.subsec_nanos()));
                Instant {
                    seconds: total.div_euclid(i128::from(NANOS_PER_SECOND)) as i64,
                    nanos: total.rem_euclid(i128::from(NANOS_PER_SECOND)) as u32,
                }
            }
        }
    }

    /// The instant `micros` microseconds after the Unix epoch (before it when negative).
    pub fn from_epoch_micros(micros: i64) -> Instant {
        Instant {
            seconds: micros.div_euclid(1_000_000),
            // Below 10^6 microseconds, so below 10^9 nanoseconds: it fits.
            nanos: (micros.rem_euclid(1_000_000) * 1_000) as u32,
        }
    }

    pub fn epoch_millis(self) -> i64 {
        self.seconds
            .saturating_mul(1000)
            .saturating_add(i64::from(self.nanos / 1_000_000))
    }
}

impl Date {
    /// A date from calendar fields, validated.
    pub fn from_ymd(year: i64, month: i64, day: i64) -> Result<Date> {
        Ok(Date {
            days: calendar::checked_days(year, month, day)?,
        })
    }

    pub fn ymd(self) -> Ymd {
        calendar::ymd_from_days(self.days)
    }
}

impl LocalTime {
    pub const MIDNIGHT: LocalTime = LocalTime { nanos: 0 };

    /// A time of day from its fields, validated.
    pub fn from_hms_nano(hour: i64, minute: i64, second: i64, nano: i64) -> Result<LocalTime> {
        check_range("HourOfDay", hour, 0, 23)?;
        check_range("MinuteOfHour", minute, 0, 59)?;
        check_range("SecondOfMinute", second, 0, 59)?;
        check_range("NanoOfSecond", nano, 0, NANOS_PER_SECOND - 1)?;
        Ok(LocalTime {
            nanos: ((hour * 60 + minute) * 60 + second) * NANOS_PER_SECOND + nano,
        })
    }

    pub fn hour(self) -> i64 {
        self.nanos / (3600 * NANOS_PER_SECOND)
    }

    pub fn minute(self) -> i64 {
        self.nanos / (60 * NANOS_PER_SECOND) % 60
    }

    pub fn second(self) -> i64 {
        self.nanos / NANOS_PER_SECOND % 60
    }

    pub fn nanosecond(self) -> i64 {
        self.nanos % NANOS_PER_SECOND
    }

    /// Adds (or with a negative argument subtracts) nanoseconds, wrapping around midnight.
    pub fn wrapping_add_nanos(self, nanos: i64) -> LocalTime {
        let sum = i128::from(self.nanos) + i128::from(nanos);
        LocalTime {
            nanos: sum.rem_euclid(i128::from(NANOS_PER_DAY)) as i64,
        }
    }
}

impl LocalDateTime {
    pub fn new(date: Date, time: LocalTime) -> Result<LocalDateTime> {
        let seconds = date
            .days
            .checked_mul(SECONDS_PER_DAY)
            .and_then(|s| s.checked_add(time.nanos / NANOS_PER_SECOND))
            .ok_or_else(|| ValueError::invalid_value("Date time overflow"))?;
        Ok(LocalDateTime {
            seconds,
            nanos: (time.nanos % NANOS_PER_SECOND) as u32,
        })
    }

    pub fn date(self) -> Date {
        Date {
            days: self.seconds.div_euclid(SECONDS_PER_DAY),
        }
    }

    pub fn time(self) -> LocalTime {
        LocalTime {
            nanos: self.seconds.rem_euclid(SECONDS_PER_DAY) * NANOS_PER_SECOND
                + i64::from(self.nanos),
        }
    }
}

impl DateTime {
    /// The date-time at a wall-clock time in a zone (see [`zone::resolve_local`] for gaps and
    /// overlaps).
    pub fn from_local(
        local: LocalDateTime,
        zone: TimeZone,
        preferred_offset: Option<i32>,
    ) -> Result<DateTime> {
        let (seconds, offset_seconds) =
            zone::resolve_local_with_offset(&zone, local.seconds, preferred_offset)?;
        let value = DateTime {
            seconds,
            nanos: local.nanos,
            offset_seconds,
            zone,
        };
        check_local_range(value.local())?;
        Ok(value)
    }

    /// The date-time of an instant seen in a zone.
    pub fn from_instant(seconds: i64, nanos: u32, zone: TimeZone) -> Result<DateTime> {
        let offset_seconds = zone::offset_at(&zone, seconds)?;
        let value = DateTime {
            seconds,
            nanos,
            offset_seconds,
            zone,
        };
        check_local_range(value.local())?;
        Ok(value)
    }

    /// The wall-clock date and time.
    pub fn local(&self) -> LocalDateTime {
        LocalDateTime {
            seconds: self.seconds.saturating_add(i64::from(self.offset_seconds)),
            nanos: self.nanos,
        }
    }

    /// The same instant seen in another zone.
    pub fn with_zone_same_instant(&self, zone: TimeZone) -> Result<DateTime> {
        DateTime::from_instant(self.seconds, self.nanos, zone)
    }
}

/// Any one of the five temporal instant types, for code that works across them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Temporal {
    Date(Date),
    LocalTime(LocalTime),
    Time(Time),
    LocalDateTime(LocalDateTime),
    DateTime(DateTime),
}

impl Temporal {
    /// The temporal inside a value, if it holds one.
    pub fn from_value(value: &crate::Value) -> Option<Temporal> {
        use crate::Value as V;
        Some(match value {
            V::Date(d) => Temporal::Date(*d),
            V::LocalTime(t) => Temporal::LocalTime(*t),
            V::Time(t) => Temporal::Time(*t),
            V::LocalDateTime(t) => Temporal::LocalDateTime(*t),
            V::DateTime(t) => Temporal::DateTime((**t).clone()),
            _ => return None,
        })
    }

    pub fn into_value(self) -> crate::Value {
        use crate::Value as V;
        match self {
            Temporal::Date(d) => V::Date(d),
            Temporal::LocalTime(t) => V::LocalTime(t),
            Temporal::Time(t) => V::Time(t),
            Temporal::LocalDateTime(t) => V::LocalDateTime(t),
            Temporal::DateTime(t) => V::DateTime(Box::new(t)),
        }
    }

    /// The calendar date, for the types that have one.
    pub fn date(&self) -> Option<Date> {
        match self {
            Temporal::Date(d) => Some(*d),
            Temporal::LocalDateTime(t) => Some(t.date()),
            Temporal::DateTime(t) => Some(t.local().date()),
            Temporal::LocalTime(_) | Temporal::Time(_) => None,
        }
    }

    /// The wall-clock time of day, for the types that have one.
    pub fn local_time(&self) -> Option<LocalTime> {
        match self {
            Temporal::LocalTime(t) => Some(*t),
            Temporal::Time(t) => Some(LocalTime { nanos: t.nanos }),
            Temporal::LocalDateTime(t) => Some(t.time()),
            Temporal::DateTime(t) => Some(t.local().time()),
            Temporal::Date(_) => None,
        }
    }

    /// The zone, for the types that have one (a time's zone is its offset).
    pub fn zone(&self) -> Option<TimeZone> {
        match self {
            Temporal::Time(t) => Some(TimeZone::Offset(t.offset_seconds)),
            Temporal::DateTime(t) => Some(t.zone.clone()),
            _ => None,
        }
    }

    /// The offset in force, for the types that have one.
    pub fn offset(&self) -> Option<i32> {
        match self {
            Temporal::Time(t) => Some(t.offset_seconds),
            Temporal::DateTime(t) => Some(t.offset_seconds),
            _ => None,
        }
    }

    /// The name Cypher uses for this type in messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Temporal::Date(_) => "Date",
            Temporal::LocalTime(_) => "LocalTime",
            Temporal::Time(_) => "Time",
            Temporal::LocalDateTime(_) => "LocalDateTime",
            Temporal::DateTime(_) => "DateTime",
        }
    }
}

/// Fails unless a local date-time lies within the years Cypher can represent.
pub(crate) fn check_local_range(local: LocalDateTime) -> Result<LocalDateTime> {
    calendar::check_days(local.date().days)?;
    Ok(local)
}

pub(crate) fn check_range(field: &str, value: i64, min: i64, max: i64) -> Result<()> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(ValueError::invalid_value(format!(
            "Invalid value for {field}: {value} (valid values {min} - {max})"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_date_time_splits_into_date_and_time() {
        let date = Date::from_ymd(1969, 12, 31).unwrap();
        let time = LocalTime::from_hms_nano(23, 59, 59, 5).unwrap();
        let ldt = LocalDateTime::new(date, time).unwrap();
        assert_eq!(ldt.date(), date);
        assert_eq!(ldt.time(), time);
        assert_eq!(ldt.seconds, -1);
    }

    #[test]
    fn invalid_fields_are_rejected() {
        assert!(Date::from_ymd(2017, 2, 29).is_err());
        assert!(Date::from_ymd(2016, 2, 29).is_ok());
        assert!(LocalTime::from_hms_nano(24, 0, 0, 0).is_err());
        assert!(LocalTime::from_hms_nano(0, 0, 0, NANOS_PER_SECOND).is_err());
    }

    #[test]
    fn times_wrap_around_midnight() {
        let t = LocalTime::from_hms_nano(23, 0, 0, 0).unwrap();
        assert_eq!(t.wrapping_add_nanos(2 * 3600 * NANOS_PER_SECOND).hour(), 1);
        assert_eq!(
            t.wrapping_add_nanos(-24 * 3600 * NANOS_PER_SECOND).hour(),
            23
        );
    }
}
