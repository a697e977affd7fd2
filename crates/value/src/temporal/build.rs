//! Constructing temporal values: `date(...)`, `localtime(...)`, `time(...)`,
//! `localdatetime(...)` and `datetime(...)` with a string, a map, another temporal, or nothing.
//!
//! A map either constructs a value from fields or selects parts of other temporals and
//! overrides some fields:
//! - dates come from one group of fields: calendar (`year, month, day`), week
//!   (`year, week, dayOfWeek` where `year` is the week-based year), quarter
//!   (`year, quarter, dayOfQuarter`) or ordinal (`year, ordinalDay`); fields must be given from
//!   the largest down (`day` needs `month`), and missing smaller ones default to their first;
//! - times come from `hour, minute, second` and the sub-second fields `millisecond,
//!   microsecond, nanosecond`, which add up (`{millisecond: 123, nanosecond: 789}` is
//!   `.123000789`);
//! - `date`, `time` and `datetime` select a base from another temporal; given fields override
//!   its components;
//! - `timezone` sets the zone: for a base that has a zone it converts (same instant), for a
//!   local base it attaches (same wall clock);
//! - `datetime` also accepts `epochSeconds` or `epochMillis`.

use super::calendar::{self, NANOS_PER_SECOND};
use super::parse::{ordinal_date_days, quarter_date_days, week_date_days};
use super::zone::{self, parse_zone};
use super::{Date, DateTime, Instant, LocalDateTime, LocalTime, Temporal, Time, TimeZone};
use crate::error::{Result, ValueError};
use crate::value::{Map, Value};

/// The five temporal instant types, as constructor functions name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TemporalKind {
    Date,
    LocalTime,
    Time,
    LocalDateTime,
    DateTime,
}

impl TemporalKind {
    pub fn name(self) -> &'static str {
        match self {
            TemporalKind::Date => "Date",
            TemporalKind::LocalTime => "LocalTime",
            TemporalKind::Time => "Time",
            TemporalKind::LocalDateTime => "LocalDateTime",
            TemporalKind::DateTime => "DateTime",
        }
    }

    fn has_date(self) -> bool {
        matches!(
            self,
            TemporalKind::Date | TemporalKind::LocalDateTime | TemporalKind::DateTime
        )
    }

    fn has_time(self) -> bool {
        !matches!(self, TemporalKind::Date)
    }

    fn has_zone(self) -> bool {
        matches!(self, TemporalKind::Time | TemporalKind::DateTime)
    }
}

/// The clock and zone a construction reads when it needs "now" or a default zone.
#[derive(Clone, Debug)]
pub struct Clock {
    pub now: Instant,
    pub default_zone: TimeZone,
}

impl Clock {
    /// The offset of the default zone now: what zone-less times take.
    pub fn default_offset(&self) -> Result<i32> {
        zone::offset_at(&self.default_zone, self.now.seconds)
    }
}

/// The current value of a kind in a zone.
pub fn now(kind: TemporalKind, instant: Instant, zone: &TimeZone) -> Result<Value> {
    let dt = DateTime::from_instant(instant.seconds, instant.nanos, zone.clone())?;
    let clock = Clock {
        now: instant,
        default_zone: zone.clone(),
    };
    Ok(project(kind, &Temporal::DateTime(dt), &clock)?.into_value())
}

/// `kind(arg)`: parses strings, builds from maps, converts other temporals; `null` gives `null`.
pub fn construct(kind: TemporalKind, arg: &Value, clock: &Clock) -> Result<Value> {
    match arg {
        Value::Null => Ok(Value::Null),
        Value::String(text) => parse_kind(kind, text, clock),
        Value::Map(map) => from_map(kind, map, clock),
        other => match Temporal::from_value(other) {
            Some(t) => Ok(project(kind, &t, clock)?.into_value()),
            None => Err(ValueError::invalid_type(format!(
                "Cannot construct a {} from a {}",
                kind.name(),
                other.value_type()
            ))),
        },
    }
}

fn parse_kind(kind: TemporalKind, text: &str, clock: &Clock) -> Result<Value> {
    use super::parse;
    Ok(match kind {
        TemporalKind::Date => Value::Date(parse::parse_date(text)?),
        TemporalKind::LocalTime => Value::LocalTime(parse::parse_local_time(text)?),
        TemporalKind::Time => Value::Time(parse::parse_time(text, clock.default_offset()?)?),
        TemporalKind::LocalDateTime => Value::LocalDateTime(parse::parse_local_date_time(text)?),
        TemporalKind::DateTime => {
            Value::DateTime(Box::new(parse::parse_date_time(text, &clock.default_zone)?))
        }
    })
}

fn cannot_select(kind: TemporalKind, t: &Temporal) -> ValueError {
    ValueError::invalid_value(format!(
        "Cannot select a {} from a {}",
        kind.name(),
        t.type_name()
    ))
}

/// Converts a temporal to another kind: takes its date or time part, attaching the clock's
/// default zone where the target needs one and the source has none.
pub fn project(kind: TemporalKind, t: &Temporal, clock: &Clock) -> Result<Temporal> {
    let local_time = |t: &Temporal| t.local_time().ok_or_else(|| cannot_select(kind, t));
    let date = |t: &Temporal| t.date().ok_or_else(|| cannot_select(kind, t));
    Ok(match kind {
        TemporalKind::Date => Temporal::Date(date(t)?),
        TemporalKind::LocalTime => Temporal::LocalTime(local_time(t)?),
        TemporalKind::Time => {
            let offset = match t.offset() {
                Some(offset) => offset,
                None => clock.default_offset()?,
            };
            Temporal::Time(Time {
                nanos: local_time(t)?.nanos,
                offset_seconds: offset,
            })
        }
        TemporalKind::LocalDateTime => {
            Temporal::LocalDateTime(LocalDateTime::new(date(t)?, local_time(t)?)?)
        }
        TemporalKind::DateTime => match t {
            Temporal::DateTime(dt) => Temporal::DateTime(dt.clone()),
            other => {
                let local = LocalDateTime::new(date(other)?, local_time(other)?)?;
                Temporal::DateTime(DateTime::from_local(
                    local,
                    clock.default_zone.clone(),
                    None,
                )?)
            }
        },
    })
}

/// The fields a temporal map may hold.
#[derive(Default)]
struct Fields<'a> {
    year: Option<&'a Value>,
    quarter: Option<&'a Value>,
    month: Option<&'a Value>,
    week: Option<&'a Value>,
    ordinal_day: Option<&'a Value>,
    day_of_quarter: Option<&'a Value>,
    day_of_week: Option<&'a Value>,
    day: Option<&'a Value>,
    hour: Option<&'a Value>,
    minute: Option<&'a Value>,
    second: Option<&'a Value>,
    millisecond: Option<&'a Value>,
    microsecond: Option<&'a Value>,
    nanosecond: Option<&'a Value>,
    timezone: Option<&'a Value>,
    date: Option<&'a Value>,
    time: Option<&'a Value>,
    datetime: Option<&'a Value>,
    epoch_seconds: Option<&'a Value>,
    epoch_millis: Option<&'a Value>,
}

impl<'a> Fields<'a> {
    fn read(map: &'a Map) -> Result<Fields<'a>> {
        let mut f = Fields::default();
        for (key, value) in map {
            let slot = match key.to_ascii_lowercase().as_str() {
                "year" => &mut f.year,
                "quarter" => &mut f.quarter,
                "month" => &mut f.month,
                "week" => &mut f.week,
                "ordinalday" => &mut f.ordinal_day,
                "dayofquarter" | "quarterday" => &mut f.day_of_quarter,
                "dayofweek" | "weekday" => &mut f.day_of_week,
                "day" => &mut f.day,
                "hour" => &mut f.hour,
                "minute" => &mut f.minute,
                "second" => &mut f.second,
                "millisecond" => &mut f.millisecond,
                "microsecond" => &mut f.microsecond,
                "nanosecond" => &mut f.nanosecond,
                "timezone" => &mut f.timezone,
                "date" => &mut f.date,
                "time" => &mut f.time,
                "datetime" => &mut f.datetime,
                "epochseconds" => &mut f.epoch_seconds,
                "epochmillis" => &mut f.epoch_millis,
                _ => return Err(ValueError::invalid_value(format!("No such field: {key}"))),
            };
            if slot.is_some() {
                return Err(ValueError::invalid_value(format!(
                    "Cannot assign {key} twice"
                )));
            }
            *slot = Some(value);
        }
        Ok(f)
    }

    fn has_date_fields(&self) -> bool {
        [
            self.year,
            self.quarter,
            self.month,
            self.week,
            self.ordinal_day,
            self.day_of_quarter,
            self.day_of_week,
            self.day,
        ]
        .iter()
        .any(Option::is_some)
    }

    fn has_time_fields(&self) -> bool {
        [
            self.hour,
            self.minute,
            self.second,
            self.millisecond,
            self.microsecond,
            self.nanosecond,
        ]
        .iter()
        .any(Option::is_some)
    }

    fn has_sub_second(&self) -> bool {
        self.millisecond.is_some() || self.microsecond.is_some() || self.nanosecond.is_some()
    }

    fn has_epoch(&self) -> bool {
        self.epoch_seconds.is_some() || self.epoch_millis.is_some()
    }
}

/// An integral field value.
fn int(name: &str, value: Option<&Value>) -> Result<Option<i64>> {
    match value {
        None => Ok(None),
        Some(Value::Int(i)) => Ok(Some(*i)),
        Some(other) => Err(ValueError::invalid_type(format!(
            "{name} must be an integer value, but was a {}",
            other.value_type()
        ))),
    }
}

fn temporal_field(name: &str, value: Option<&Value>) -> Result<Option<Temporal>> {
    match value {
        None => Ok(None),
        Some(v) => Temporal::from_value(v).map(Some).ok_or_else(|| {
            ValueError::invalid_type(format!(
                "{name} must be a temporal value, but was a {}",
                v.value_type()
            ))
        }),
    }
}

fn zone_field(value: Option<&Value>) -> Result<Option<TimeZone>> {
    match value {
        None => Ok(None),
        Some(Value::String(s)) => parse_zone(s).map(Some),
        Some(other) => Err(ValueError::invalid_type(format!(
            "timezone must be a string, but was a {}",
            other.value_type()
        ))),
    }
}

/// Fails unless the fields present form a prefix of `order` (nothing given after a gap).
fn defined_in_order(order: &[(&str, bool)]) -> Result<()> {
    if let Some((first, false)) = order.first()
        && order.iter().any(|(_, present)| *present)
    {
        return Err(ValueError::invalid_value(format!(
            "{first} must be specified"
        )));
    }
    let mut missing: Option<&str> = None;
    for (name, present) in order {
        match (present, missing) {
            (false, None) => missing = Some(name),
            (true, Some(gap)) => {
                return Err(ValueError::invalid_value(format!(
                    "{name} cannot be specified without {gap}"
                )));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Which group of date fields a map uses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum DateGroup {
    YearOnly,
    Calendar,
    Week,
    Quarter,
    Ordinal,
}

fn date_group(f: &Fields<'_>) -> Result<DateGroup> {
    let calendar = f.month.is_some() || f.day.is_some();
    let week = f.week.is_some() || f.day_of_week.is_some();
    let quarter = f.quarter.is_some() || f.day_of_quarter.is_some();
    let ordinal = f.ordinal_day.is_some();
    let groups = [calendar, week, quarter, ordinal]
        .iter()
        .filter(|g| **g)
        .count();
    if groups > 1 {
        return Err(ValueError::invalid_value(
            "Cannot mix fields of calendar, week, quarter and ordinal dates",
        ));
    }
    Ok(if calendar {
        DateGroup::Calendar
    } else if week {
        DateGroup::Week
    } else if quarter {
        DateGroup::Quarter
    } else if ordinal {
        DateGroup::Ordinal
    } else {
        DateGroup::YearOnly
    })
}

/// The date a map describes, from fields alone or from a base date with overrides.
fn build_date(f: &Fields<'_>, base: Option<Date>, need_complete: bool) -> Result<Option<Date>> {
    let group = date_group(f)?;
    let year = int("year", f.year)?;
    match base {
        None => date_from_fields(f, group, year, need_complete),
        Some(base) => date_over_base(f, group, year, base).map(Some),
    }
}

/// The date the fields alone describe (`None` when they name no date field); a missing field
/// defaults to its first value unless `need_complete` asks for every field of the group.
fn date_from_fields(
    f: &Fields<'_>,
    group: DateGroup,
    year: Option<i64>,
    need_complete: bool,
) -> Result<Option<Date>> {
    if !f.has_date_fields() {
        return Ok(None);
    }
    let present = |v: Option<&Value>| v.is_some();
    let order: &[(&str, bool)] = match group {
        DateGroup::YearOnly | DateGroup::Calendar => &[
            ("year", present(f.year)),
            ("month", present(f.month)),
            ("day", present(f.day)),
        ],
        DateGroup::Week => &[
            ("year", present(f.year)),
            ("week", present(f.week)),
            ("dayOfWeek", present(f.day_of_week)),
        ],
        DateGroup::Quarter => &[
            ("year", present(f.year)),
            ("quarter", present(f.quarter)),
            ("dayOfQuarter", present(f.day_of_quarter)),
        ],
        DateGroup::Ordinal => &[
            ("year", present(f.year)),
            ("ordinalDay", present(f.ordinal_day)),
        ],
    };
    defined_in_order(order)?;
    if need_complete && let Some((name, _)) = order.iter().find(|(_, present)| !present) {
        let name = if group == DateGroup::YearOnly {
            "month"
        } else {
            name
        };
        return Err(ValueError::invalid_value(format!(
            "{name} must be specified"
        )));
    }
    let year = year.unwrap_or(0);
    let days = match group {
        DateGroup::YearOnly | DateGroup::Calendar => calendar::checked_days(
            year,
            int("month", f.month)?.unwrap_or(1),
            int("day", f.day)?.unwrap_or(1),
        )?,
        DateGroup::Week => week_date_days(
            year,
            int("week", f.week)?.unwrap_or(1),
            int("dayOfWeek", f.day_of_week)?.unwrap_or(1),
        )?,
        DateGroup::Quarter => quarter_date_days(
            year,
            int("quarter", f.quarter)?.unwrap_or(1),
            int("dayOfQuarter", f.day_of_quarter)?.unwrap_or(1),
        )?,
        DateGroup::Ordinal => {
            ordinal_date_days(year, int("ordinalDay", f.ordinal_day)?.unwrap_or(1))?
        }
    };
    Ok(Some(Date { days }))
}

/// The base date with the fields that are present overriding its own.
fn date_over_base(f: &Fields<'_>, group: DateGroup, year: Option<i64>, base: Date) -> Result<Date> {
    let days = match group {
        DateGroup::Week => {
            let (base_year, base_week, base_dow) = calendar::week_date(base.days);
            let week_year = year.unwrap_or(base_year);
            let week = match int("week", f.week)? {
                Some(w) => w,
                // Keep the base's week, within the new week-based year.
                None => i64::from(base_week.min(calendar::weeks_in_year(week_year))),
            };
            let dow = int("dayOfWeek", f.day_of_week)?.unwrap_or(i64::from(base_dow));
            week_date_days(week_year, week, dow)?
        }
        DateGroup::Ordinal => {
            let y = year.unwrap_or(base.ymd().year);
            ordinal_date_days(y, int("ordinalDay", f.ordinal_day)?.unwrap_or(1))?
        }
        DateGroup::Quarter => {
            let mut days = with_year(base.days, year)?;
            if let Some(q) = int("quarter", f.quarter)? {
                super::check_range("QuarterOfYear", q, 1, 4)?;
                let current = i64::from(calendar::quarter_of_month(
                    calendar::ymd_from_days(days).month,
                ));
                days = calendar::add_months(days, (q - current) * 3)?;
            }
            if let Some(doq) = int("dayOfQuarter", f.day_of_quarter)? {
                let ymd = calendar::ymd_from_days(days);
                days = quarter_date_days(
                    ymd.year,
                    i64::from(calendar::quarter_of_month(ymd.month)),
                    doq,
                )?;
            }
            days
        }
        DateGroup::Calendar | DateGroup::YearOnly => {
            let mut days = with_year(base.days, year)?;
            if let Some(m) = int("month", f.month)? {
                super::check_range("MonthOfYear", m, 1, 12)?;
                let ymd = calendar::ymd_from_days(days);
                days = calendar::add_months(days, m - i64::from(ymd.month))?;
            }
            if let Some(d) = int("day", f.day)? {
                let ymd = calendar::ymd_from_days(days);
                days = calendar::checked_days(ymd.year, i64::from(ymd.month), d)?;
            }
            days
        }
    };
    Ok(Date { days })
}

/// A date moved to another year, keeping month and day (February 29th becomes the 28th).
fn with_year(days: i64, year: Option<i64>) -> Result<i64> {
    let Some(year) = year else { return Ok(days) };
    calendar::check_year(year)?;
    let ymd = calendar::ymd_from_days(days);
    Ok(calendar::days_from_ymd(
        year,
        ymd.month,
        ymd.day.min(calendar::days_in_month(year, ymd.month)),
    ))
}

/// Nanoseconds of a second from the sub-second fields, which add up; each is bounded by the
/// next larger one given (`microsecond` below 1000 when `millisecond` is given, ...).
pub(crate) fn sub_second_nanos(ms: Option<i64>, us: Option<i64>, ns: Option<i64>) -> Result<i64> {
    let us_limit = if ms.is_some() { 1000 } else { 1_000_000 };
    let ns_limit = if us.is_some() {
        1000
    } else if ms.is_some() {
        1_000_000
    } else {
        NANOS_PER_SECOND
    };
    let (ms, us, ns) = (ms.unwrap_or(0), us.unwrap_or(0), ns.unwrap_or(0));
    super::check_range("Millisecond", ms, 0, 999)?;
    super::check_range("Microsecond", us, 0, us_limit - 1)?;
    super::check_range("Nanosecond", ns, 0, ns_limit - 1)?;
    Ok(ms * 1_000_000 + us * 1000 + ns)
}

/// The time of day a map describes, from fields alone or from a base time with overrides.
fn build_time(f: &Fields<'_>, base: Option<LocalTime>) -> Result<Option<LocalTime>> {
    let hour = int("hour", f.hour)?;
    let minute = int("minute", f.minute)?;
    let second = int("second", f.second)?;
    let sub = if f.has_sub_second() {
        Some(sub_second_nanos(
            int("millisecond", f.millisecond)?,
            int("microsecond", f.microsecond)?,
            int("nanosecond", f.nanosecond)?,
        )?)
    } else {
        None
    };
    match base {
        Some(b) => Ok(Some(LocalTime::from_hms_nano(
            hour.unwrap_or(b.hour()),
            minute.unwrap_or(b.minute()),
            second.unwrap_or(b.second()),
            sub.unwrap_or(b.nanosecond()),
        )?)),
        None => {
            if !f.has_time_fields() {
                return Ok(None);
            }
            defined_in_order(&[
                ("hour", hour.is_some()),
                ("minute", minute.is_some()),
                ("second", second.is_some()),
                ("subsecond", sub.is_some()),
            ])?;
            Ok(Some(LocalTime::from_hms_nano(
                hour.unwrap_or(0),
                minute.unwrap_or(0),
                second.unwrap_or(0),
                sub.unwrap_or(0),
            )?))
        }
    }
}

fn not_supported(kind: TemporalKind, field: &str) -> ValueError {
    ValueError::invalid_value(format!("Cannot assign {field} to a {}", kind.name()))
}

/// Builds a value of `kind` from a map.
pub fn from_map(kind: TemporalKind, map: &Map, clock: &Clock) -> Result<Value> {
    let f = Fields::read(map)?;
    let zone = zone_field(f.timezone)?;
    // `{timezone: ...}` alone means "now, in that zone".
    if map.len() == 1
        && let Some(zone) = &zone
    {
        return now(kind, clock.now, zone);
    }
    check_supported(kind, &f, zone.is_some())?;
    if f.has_epoch() {
        // Only date-times take epochs (checked above); fields then override the wall clock.
        return build_date_time(&f, zone, None, None, None, clock)
            .map(|dt| Value::DateTime(Box::new(dt)));
    }
    let date_base = match (
        temporal_field("date", f.date)?,
        temporal_field("datetime", f.datetime)?,
    ) {
        (Some(t), _) | (None, Some(t)) => Some(t.date().ok_or_else(|| cannot_select(kind, &t))?),
        (None, None) => None,
    };
    let time_source = match (
        temporal_field("time", f.time)?,
        temporal_field("datetime", f.datetime)?,
    ) {
        (Some(t), _) | (None, Some(t)) => Some(t),
        (None, None) => None,
    };
    let time_base = match &time_source {
        Some(t) => Some(t.local_time().ok_or_else(|| cannot_select(kind, t))?),
        None => None,
    };
    let need_complete_date = kind.has_date() && f.has_time_fields() && date_base.is_none();
    let date = build_date(&f, date_base, need_complete_date)?;
    let time = build_time(&f, time_base)?;
    if kind.has_date() && date.is_none() {
        if time.is_some() {
            return Err(ValueError::invalid_value("year must be specified"));
        }
        if f.time.is_some() {
            return Err(ValueError::invalid_value(
                "A date must be given together with a time",
            ));
        }
    }
    match kind {
        TemporalKind::Date => {
            Ok(Value::Date(date.ok_or_else(|| {
                ValueError::invalid_value("year must be specified")
            })?))
        }
        TemporalKind::LocalTime => Ok(Value::LocalTime(time.unwrap_or(LocalTime::MIDNIGHT))),
        TemporalKind::LocalDateTime => Ok(Value::LocalDateTime(LocalDateTime::new(
            date.unwrap_or(Date { days: 0 }),
            time.unwrap_or(LocalTime::MIDNIGHT),
        )?)),
        TemporalKind::Time => {
            let time = time.unwrap_or(LocalTime::MIDNIGHT);
            let source_offset = time_source.as_ref().and_then(Temporal::offset);
            let target_offset = match &zone {
                Some(z) => Some(zone::offset_at(z, clock.now.seconds)?),
                None => None,
            };
            let offset_seconds = match (source_offset, target_offset) {
                (Some(_), None) | (None, None) => match source_offset {
                    Some(o) => o,
                    None => clock.default_offset()?,
                },
                (None, Some(target)) => target,
                (Some(source), Some(target)) => {
                    // Same instant, other offset.
                    let shifted =
                        time.wrapping_add_nanos(i64::from(target - source) * NANOS_PER_SECOND);
                    return Ok(Value::Time(Time {
                        nanos: shifted.nanos,
                        offset_seconds: target,
                    }));
                }
            };
            Ok(Value::Time(Time {
                nanos: time.nanos,
                offset_seconds,
            }))
        }
        TemporalKind::DateTime => {
            build_date_time(&f, zone, date, time, time_source.as_ref(), clock)
                .map(|dt| Value::DateTime(Box::new(dt)))
        }
    }
}

fn check_supported(kind: TemporalKind, f: &Fields<'_>, has_zone: bool) -> Result<()> {
    if !kind.has_date() {
        if f.has_date_fields() {
            return Err(not_supported(kind, "date fields"));
        }
        if f.date.is_some() {
            return Err(not_supported(kind, "date"));
        }
        if f.datetime.is_some() {
            return Err(not_supported(kind, "datetime"));
        }
    }
    if !kind.has_time() {
        if f.has_time_fields() {
            return Err(not_supported(kind, "time fields"));
        }
        if f.time.is_some() {
            return Err(not_supported(kind, "time"));
        }
        if f.datetime.is_some() {
            return Err(not_supported(kind, "datetime"));
        }
    }
    if has_zone && !kind.has_zone() {
        return Err(ValueError::invalid_value(
            "Cannot assign time zone if also assigning other fields.",
        ));
    }
    if f.has_epoch() && kind != TemporalKind::DateTime {
        return Err(not_supported(kind, "epochSeconds/epochMillis"));
    }
    if f.epoch_seconds.is_some() && f.epoch_millis.is_some() {
        return Err(ValueError::invalid_value(
            "epochSeconds cannot be selected together with epochMillis.",
        ));
    }
    if f.datetime.is_some() && (f.date.is_some() || f.time.is_some()) {
        return Err(ValueError::invalid_value(
            "date and time cannot be selected together with datetime.",
        ));
    }
    if f.has_epoch() && (f.datetime.is_some() || f.date.is_some() || f.time.is_some()) {
        return Err(ValueError::invalid_value(
            "epoch fields cannot be selected together with date, time or datetime.",
        ));
    }
    Ok(())
}

fn build_date_time(
    f: &Fields<'_>,
    zone: Option<TimeZone>,
    date: Option<Date>,
    time: Option<LocalTime>,
    time_source: Option<&Temporal>,
    clock: &Clock,
) -> Result<DateTime> {
    let target_zone = zone.clone().unwrap_or_else(|| clock.default_zone.clone());
    if f.has_epoch() {
        let (seconds, nanos) = match (
            int("epochSeconds", f.epoch_seconds)?,
            int("epochMillis", f.epoch_millis)?,
        ) {
            (Some(s), _) => (s, 0),
            (None, Some(ms)) => (
                ms.div_euclid(1000),
                (ms.rem_euclid(1000) * 1_000_000) as u32,
            ),
            (None, None) => (0, 0),
        };
        let at_epoch = DateTime::from_instant(seconds, nanos, target_zone.clone())?;
        if !f.has_date_fields() && !f.has_time_fields() {
            return Ok(at_epoch);
        }
        // Fields override the wall clock at the epoch instant.
        let local = at_epoch.local();
        let date = build_date(f, Some(local.date()), false)?.unwrap_or(local.date());
        let time = build_time(f, Some(local.time()))?.unwrap_or(local.time());
        return DateTime::from_local(
            LocalDateTime::new(date, time)?,
            target_zone,
            Some(at_epoch.offset_seconds),
        );
    }
    // The zone the wall clock is read in: the time source's, else the given or default one.
    let (source_zone, source_offset) = match time_source {
        Some(Temporal::Time(t)) => (
            Some(TimeZone::Offset(t.offset_seconds)),
            Some(t.offset_seconds),
        ),
        Some(Temporal::DateTime(dt)) => (Some(dt.zone.clone()), Some(dt.offset_seconds)),
        _ => (None, None),
    };
    let local = LocalDateTime::new(
        date.unwrap_or(Date { days: 0 }),
        time.unwrap_or(LocalTime::MIDNIGHT),
    )?;
    match (source_zone, zone) {
        (Some(source), Some(target)) => {
            DateTime::from_local(local, source, source_offset)?.with_zone_same_instant(target)
        }
        (Some(source), None) => DateTime::from_local(local, source, source_offset),
        (None, _) => DateTime::from_local(local, target_zone, None),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::display::to_string_cypher;

    fn clock() -> Clock {
        Clock {
            now: Instant {
                seconds: 1_500_000_000,
                nanos: 0,
            },
            default_zone: TimeZone::Offset(0),
        }
    }

    /// A tiny reader for the map literals of the TCK examples: `{year: 1984, timezone: '+01:00'}`,
    /// with values that are integers, strings or references to `bindings`.
    fn map(text: &str, bindings: &[(&str, Value)]) -> Map {
        let inner = text.trim().trim_start_matches('{').trim_end_matches('}');
        let mut out = Map::new();
        for entry in inner.split(',').filter(|e| !e.trim().is_empty()) {
            let (key, value) = entry.split_once(':').unwrap();
            let value = value.trim();
            let parsed = if let Some(s) = value.strip_prefix('\'') {
                Value::from(s.trim_end_matches('\''))
            } else if let Ok(i) = value.parse::<i64>() {
                Value::Int(i)
            } else {
                bindings
                    .iter()
                    .find(|(name, _)| *name == value)
                    .unwrap()
                    .1
                    .clone()
            };
            out.insert(Arc::from(key.trim()), parsed);
        }
        out
    }

    fn build(kind: TemporalKind, text: &str, bindings: &[(&str, Value)]) -> String {
        match from_map(kind, &map(text, bindings), &clock()) {
            Ok(v) => to_string_cypher(&v),
            Err(e) => format!("error: {e}"),
        }
    }

    /// Builds each `(kind, map literal, expected)` case from `bindings` and compares its
    /// Cypher text, naming the case that differs.
    fn check(cases: &[(TemporalKind, &str, &str)], bindings: &[(&str, Value)]) {
        for (kind, text, expected) in cases {
            assert_eq!(build(*kind, text, bindings), *expected, "{kind:?} {text}");
        }
    }

    use TemporalKind::{
        Date as D, DateTime as DT, LocalDateTime as LDT, LocalTime as LT, Time as T,
    };

    #[test]
    fn week_dates() {
        // Temporal1 [1] to [3].
        let cases = [
            ("{year: 1816, week: 1}", "1816-01-01"),
            ("{year: 1816, week: 52}", "1816-12-23"),
            ("{year: 1817, week: 1}", "1816-12-30"),
            ("{year: 1817, week: 10}", "1817-03-03"),
            ("{year: 1817, week: 30}", "1817-07-21"),
            ("{year: 1817, week: 52}", "1817-12-22"),
            ("{year: 1818, week: 1}", "1817-12-29"),
            ("{year: 1818, week: 52}", "1818-12-21"),
            ("{year: 1818, week: 53}", "1818-12-28"),
            ("{year: 1819, week: 1}", "1819-01-04"),
            ("{year: 1819, week: 52}", "1819-12-27"),
            ("{dayOfWeek: 2, year: 1817, week: 1}", "1816-12-31"),
        ];
        for (m, expected) in cases {
            assert_eq!(build(D, m, &[]), expected, "{m}");
            assert_eq!(build(LDT, m, &[]), format!("{expected}T00:00"), "{m}");
            assert_eq!(build(DT, m, &[]), format!("{expected}T00:00Z"), "{m}");
        }
        let d1 = Value::Date(Date::from_ymd(1816, 12, 30).unwrap());
        let d2 = Value::Date(Date::from_ymd(1816, 12, 31).unwrap());
        check(
            &[
                (D, "{date: a, week: 2, dayOfWeek: 3}", "1817-01-08"),
                (D, "{date: b, week: 2}", "1817-01-07"),
                (D, "{date: b, year: 1817, week: 2}", "1817-01-07"),
                (DT, "{date: b, year: 1817, week: 2}", "1817-01-07T00:00Z"),
            ],
            &[("a", d1), ("b", d2)],
        );
    }

    const DATES: [(&str, &str); 8] = [
        ("year: 1984, month: 10, day: 11", "1984-10-11"),
        ("year: 1984, month: 10", "1984-10-01"),
        ("year: 1984, week: 10, dayOfWeek: 3", "1984-03-07"),
        ("year: 1984, week: 10", "1984-03-05"),
        ("year: 1984", "1984-01-01"),
        ("year: 1984, ordinalDay: 202", "1984-07-20"),
        ("year: 1984, quarter: 3, dayOfQuarter: 45", "1984-08-14"),
        ("year: 1984, quarter: 3", "1984-07-01"),
    ];

    #[test]
    fn dates_from_every_group() {
        // Temporal1 [4].
        for (fields, expected) in DATES {
            assert_eq!(build(D, &format!("{{{fields}}}"), &[]), expected);
        }
    }

    const TIMES: [(&str, &str); 7] = [
        (
            "hour: 12, minute: 31, second: 14, nanosecond: 789, millisecond: 123, microsecond: 456",
            "12:31:14.123456789",
        ),
        (
            "hour: 12, minute: 31, second: 14, nanosecond: 645876123",
            "12:31:14.645876123",
        ),
        (
            "hour: 12, minute: 31, second: 14, microsecond: 645876",
            "12:31:14.645876",
        ),
        (
            "hour: 12, minute: 31, second: 14, millisecond: 645",
            "12:31:14.645",
        ),
        ("hour: 12, minute: 31, second: 14", "12:31:14"),
        ("hour: 12, minute: 31", "12:31"),
        ("hour: 12", "12:00"),
    ];

    #[test]
    fn times() {
        // Temporal1 [5], [6].
        for (fields, expected) in TIMES {
            assert_eq!(build(LT, &format!("{{{fields}}}"), &[]), expected);
            assert_eq!(
                build(T, &format!("{{{fields}}}"), &[]),
                format!("{expected}Z")
            );
            assert_eq!(
                build(T, &format!("{{{fields}, timezone: '+01:00'}}"), &[]),
                format!("{expected}+01:00")
            );
        }
        assert_eq!(
            build(T, "{hour: 12, minute: 31, second: 14, nanosecond: 3}", &[]),
            "12:31:14.000000003Z"
        );
    }

    #[test]
    fn date_times_in_every_form() {
        // Temporal1 [7] to [10].
        let dated_times = [
            ("year: 1984, month: 10, day: 11", "1984-10-11", "+01:00"),
            ("year: 1984, week: 10, dayOfWeek: 3", "1984-03-07", "+01:00"),
            ("year: 1984, ordinalDay: 202", "1984-07-20", "+02:00"),
            (
                "year: 1984, quarter: 3, dayOfQuarter: 45",
                "1984-08-14",
                "+02:00",
            ),
        ];
        for (date_fields, date, stockholm) in dated_times {
            for (time_fields, time) in TIMES.iter().skip(1) {
                let fields = format!("{{{date_fields}, {time_fields}}}");
                assert_eq!(build(LDT, &fields, &[]), format!("{date}T{time}"));
                assert_eq!(build(DT, &fields, &[]), format!("{date}T{time}Z"));
                let fields = format!("{{{date_fields}, {time_fields}, timezone: '+01:00'}}");
                assert_eq!(build(DT, &fields, &[]), format!("{date}T{time}+01:00"));
                let fields =
                    format!("{{{date_fields}, {time_fields}, timezone: 'Europe/Stockholm'}}");
                assert_eq!(
                    build(DT, &fields, &[]),
                    format!("{date}T{time}{stockholm}[Europe/Stockholm]")
                );
            }
            assert_eq!(
                build(LDT, &format!("{{{date_fields}}}"), &[]),
                format!("{date}T00:00")
            );
            assert_eq!(
                build(DT, &format!("{{{date_fields}}}"), &[]),
                format!("{date}T00:00Z")
            );
        }
        assert_eq!(build(LDT, "{year: 1984}", &[]), "1984-01-01T00:00");
        assert_eq!(
            build(DT, "{year: 1984, timezone: 'Europe/Stockholm'}", &[]),
            "1984-01-01T00:00+01:00[Europe/Stockholm]"
        );
        assert_eq!(
            build(
                DT,
                "{year: 1984, month: 10, day: 11, hour: 12, minute: 31, second: 14, nanosecond: 789, millisecond: 123, microsecond: 456}",
                &[]
            ),
            "1984-10-11T12:31:14.123456789Z"
        );
    }

    #[test]
    fn offsets_with_seconds() {
        // Temporal1 [13].
        check(
            &[
                (
                    T,
                    "{hour: 12, minute: 34, second: 56, timezone: '+02:05:00'}",
                    "12:34:56+02:05",
                ),
                (
                    T,
                    "{hour: 12, minute: 34, second: 56, timezone: '+02:05:59'}",
                    "12:34:56+02:05:59",
                ),
                (
                    T,
                    "{hour: 12, minute: 34, second: 56, timezone: '-02:05:07'}",
                    "12:34:56-02:05:07",
                ),
                (
                    DT,
                    "{year: 1984, month: 10, day: 11, hour: 12, minute: 34, second: 56, timezone: '+02:05:59'}",
                    "1984-10-11T12:34:56+02:05:59",
                ),
            ],
            &[],
        );
    }

    fn sources() -> [(&'static str, Value); 5] {
        let c = clock();
        let v = |kind, text: &str| from_map(kind, &map(text, &[]), &c).unwrap();
        [
            ("d", v(D, "{year: 1984, month: 11, day: 11}")),
            (
                "lt",
                v(
                    LT,
                    "{hour: 12, minute: 31, second: 14, nanosecond: 645876123}",
                ),
            ),
            (
                "t",
                v(
                    T,
                    "{hour: 12, minute: 31, second: 14, microsecond: 645876, timezone: '+01:00'}",
                ),
            ),
            (
                "ldt",
                v(
                    LDT,
                    "{year: 1984, week: 10, dayOfWeek: 3, hour: 12, minute: 31, second: 14, millisecond: 645}",
                ),
            ),
            (
                "dt",
                v(
                    DT,
                    "{year: 1984, month: 10, day: 11, hour: 12, timezone: 'Europe/Stockholm'}",
                ),
            ),
        ]
    }

    #[test]
    fn selecting_dates_and_times() {
        // Temporal3 [1] to [3].
        check(
            &[
                (D, "{date: d, year: 28}", "0028-11-11"),
                (D, "{date: d, day: 28}", "1984-11-28"),
                (D, "{date: d, week: 1}", "1984-01-08"),
                (D, "{date: d, ordinalDay: 28}", "1984-01-28"),
                (D, "{date: d, quarter: 3}", "1984-08-11"),
                (LT, "{time: t, second: 42}", "12:31:42.645876"),
                (LT, "{time: dt, second: 42}", "12:00:42"),
                (
                    T,
                    "{time: lt, timezone: '+05:00'}",
                    "12:31:14.645876123+05:00",
                ),
                (
                    T,
                    "{time: t, second: 42, timezone: '+05:00'}",
                    "16:31:42.645876+05:00",
                ),
                (T, "{time: ldt, second: 42}", "12:31:42.645Z"),
                (T, "{time: dt}", "12:00+01:00"),
                (T, "{time: dt, timezone: '+05:00'}", "16:00+05:00"),
            ],
            &sources(),
        );
    }

    #[test]
    fn selecting_into_date_times() {
        // Temporal3 [4] to [11].
        check(
            &[
                (
                    LDT,
                    "{date: d, day: 28, hour: 10, minute: 10, second: 10}",
                    "1984-11-28T10:10:10",
                ),
                (
                    LDT,
                    "{year: 1984, month: 10, day: 11, time: t, second: 42}",
                    "1984-10-11T12:31:42.645876",
                ),
                (
                    LDT,
                    "{date: ldt, time: dt, day: 28, second: 42}",
                    "1984-03-28T12:00:42",
                ),
                (
                    LDT,
                    "{datetime: dt, day: 28, second: 42}",
                    "1984-10-28T12:00:42",
                ),
                (
                    DT,
                    "{date: d, day: 28, hour: 10, minute: 10, second: 10, timezone: 'Pacific/Honolulu'}",
                    "1984-11-28T10:10:10-10:00[Pacific/Honolulu]",
                ),
                (
                    DT,
                    "{year: 1984, month: 10, day: 11, time: t, second: 42, timezone: 'Pacific/Honolulu'}",
                    "1984-10-11T01:31:42.645876-10:00[Pacific/Honolulu]",
                ),
                (
                    DT,
                    "{year: 1984, month: 10, day: 11, time: dt, timezone: '+05:00'}",
                    "1984-10-11T16:00+05:00",
                ),
                (
                    DT,
                    "{date: ldt, time: dt, day: 28, second: 42}",
                    "1984-03-28T12:00:42+02:00[Europe/Stockholm]",
                ),
                (
                    DT,
                    "{date: ldt, time: dt, day: 28, second: 42, timezone: 'Pacific/Honolulu'}",
                    "1984-03-28T00:00:42-10:00[Pacific/Honolulu]",
                ),
                (
                    DT,
                    "{date: ldt, time: lt}",
                    "1984-03-07T12:31:14.645876123Z",
                ),
                (
                    DT,
                    "{datetime: ldt, timezone: '+05:00'}",
                    "1984-03-07T12:31:14.645+05:00",
                ),
                (
                    DT,
                    "{datetime: ldt, day: 28, second: 42, timezone: 'Pacific/Honolulu'}",
                    "1984-03-28T12:31:42.645-10:00[Pacific/Honolulu]",
                ),
                (
                    DT,
                    "{datetime: dt}",
                    "1984-10-11T12:00+01:00[Europe/Stockholm]",
                ),
                (
                    DT,
                    "{datetime: dt, timezone: '+05:00'}",
                    "1984-10-11T16:00+05:00",
                ),
                (
                    DT,
                    "{datetime: dt, day: 28, second: 42}",
                    "1984-10-28T12:00:42+01:00[Europe/Stockholm]",
                ),
                (
                    DT,
                    "{datetime: dt, day: 28, second: 42, timezone: 'Pacific/Honolulu'}",
                    "1984-10-28T01:00:42-10:00[Pacific/Honolulu]",
                ),
            ],
            &sources(),
        );
    }

    #[test]
    fn projection_of_whole_values() {
        let b = sources();
        let dz = clock();
        let proj = |kind, v: &Value| {
            to_string_cypher(
                &project(kind, &Temporal::from_value(v).unwrap(), &dz)
                    .unwrap()
                    .into_value(),
            )
        };
        assert_eq!(proj(D, &b[4].1), "1984-10-11");
        assert_eq!(proj(LT, &b[2].1), "12:31:14.645876");
        assert_eq!(proj(T, &b[3].1), "12:31:14.645Z");
        assert_eq!(proj(LDT, &b[4].1), "1984-10-11T12:00");
        assert_eq!(proj(DT, &b[3].1), "1984-03-07T12:31:14.645Z");
        assert!(project(D, &Temporal::from_value(&b[1].1).unwrap(), &dz).is_err());
        assert!(project(DT, &Temporal::from_value(&b[0].1).unwrap(), &dz).is_err());
    }

    #[test]
    fn epochs() {
        check(
            &[
                (DT, "{epochSeconds: 416779}", "1970-01-05T19:46:19Z"),
                (
                    DT,
                    "{epochMillis: 237821673987}",
                    "1977-07-15T13:34:33.987Z",
                ),
                (
                    DT,
                    "{epochSeconds: 416779, nanosecond: 999999999}",
                    "1970-01-05T19:46:19.999999999Z",
                ),
                (
                    DT,
                    "{epochSeconds: 0, timezone: '+01:00'}",
                    "1970-01-01T01:00+01:00",
                ),
            ],
            &[],
        );
    }

    #[test]
    fn invalid_maps_are_errors() {
        for (kind, m) in [
            (D, "{month: 1}"),
            (D, "{year: 1984, day: 1}"),
            (D, "{year: 1984, month: 2, day: 30}"),
            (D, "{year: 1984, month: 1, week: 1}"),
            (D, "{year: 1984, dayOfWeek: 1}"),
            (D, "{year: 1984, timezone: '+01:00'}"),
            (D, "{year: 1984, hour: 1}"),
            (LT, "{minute: 1}"),
            (LT, "{hour: 1, second: 1}"),
            (LT, "{hour: 24}"),
            (
                LT,
                "{hour: 1, minute: 1, second: 1, millisecond: 1, microsecond: 1000}",
            ),
            (LT, "{year: 1984}"),
            (LDT, "{hour: 12}"),
            (LDT, "{year: 1984, hour: 12}"),
            (
                DT,
                "{year: 1984, month: 1, day: 1, timezone: 'Nowhere/Special'}",
            ),
            (DT, "{datetime: d, date: d}"),
            (D, "{year: '1984'}"),
            (D, "{yaer: 1984}"),
            (D, "{year: 1984, week: 53}"),
        ] {
            let b = sources();
            assert!(build(kind, m, &b).starts_with("error"), "{kind:?} {m}");
        }
    }

    #[test]
    fn now_in_a_zone() {
        let c = clock();
        let zone = TimeZone::Named(Arc::from("Europe/Stockholm"));
        // 1_500_000_000 is 2017-07-14T02:40:00Z.
        assert_eq!(
            to_string_cypher(&now(DT, c.now, &zone).unwrap()),
            "2017-07-14T04:40+02:00[Europe/Stockholm]"
        );
        assert_eq!(
            to_string_cypher(&now(D, c.now, &zone).unwrap()),
            "2017-07-14"
        );
        assert_eq!(
            to_string_cypher(&now(T, c.now, &zone).unwrap()),
            "04:40+02:00"
        );
        let only_zone: Map = [(Arc::from("timezone"), Value::from("Europe/Stockholm"))]
            .into_iter()
            .collect();
        assert_eq!(
            to_string_cypher(&from_map(LT, &only_zone, &c).unwrap()),
            "04:40"
        );
    }
}
