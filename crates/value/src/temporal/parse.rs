//! Parsing ISO-8601 text into temporal values, in every form Cypher accepts.
//!
//! Dates come in calendar (`2015-07-21`, `20150721`, `2015-07`, `201507`, `2015`), week
//! (`2015-W30-2`, `2015W302`, `2015-W30`), ordinal (`2015-202`, `2015202`) and quarter
//! (`2015-Q3-21`, `2015Q321`) forms; years outside four digits carry a sign (`+999999999`).
//! Times come in extended (`21:40:32.142`, `21:40`, `21`) and basic (`214032.142`, `2140`)
//! forms, optionally followed by an offset (`Z`, `+01`, `+0100`, `+01:00`) and, for
//! date-times, a zone name in brackets (`[Europe/Stockholm]`). Durations come in unit form
//! (`P1Y2M3W4DT5H6M7.8S`, fractions allowed in the smallest unit) and date form
//! (`P2012-02-02T14:37:21.545`).

use std::ops::RangeInclusive;

use super::calendar::{self, NANOS_PER_SECOND};
use super::duration::approximate;
use super::zone::{parse_offset, parse_zone};
use super::{Date, DateTime, Duration, LocalDateTime, LocalTime, Time, TimeZone};
use crate::error::{Result, ValueError};

/// Longer texts are rejected outright: no valid temporal text comes close.
pub const TEMPORAL_TEXT_BYTES_MAX: usize = 128;

pub fn parse_date(text: &str) -> Result<Date> {
    let fail = || ValueError::temporal_parse("Date", text);
    check_length(text, "Date")?;
    let days = parse_date_text(text.as_bytes()).ok_or_else(fail)??;
    Ok(Date { days })
}

pub fn parse_local_time(text: &str) -> Result<LocalTime> {
    check_length(text, "LocalTime")?;
    let parsed = parse_time_text(strip_t(text.as_bytes()))
        .ok_or_else(|| ValueError::temporal_parse("LocalTime", text))?;
    if parsed.offset.is_some() || parsed.zone.is_some() {
        return Err(ValueError::temporal_parse("LocalTime", text));
    }
    parsed.time
}

/// Parses a time with an offset; without one, `default_offset` applies.
pub fn parse_time(text: &str, default_offset: i32) -> Result<Time> {
    check_length(text, "Time")?;
    let parsed = parse_time_text(strip_t(text.as_bytes()))
        .ok_or_else(|| ValueError::temporal_parse("Time", text))?;
    if parsed.zone.is_some() {
        return Err(ValueError::invalid_value(
            "A time cannot have a named time zone without a date",
        ));
    }
    let offset = parsed.offset.transpose()?.unwrap_or(default_offset);
    Ok(Time {
        nanos: parsed.time?.nanos,
        offset_seconds: offset,
    })
}

pub fn parse_local_date_time(text: &str) -> Result<LocalDateTime> {
    check_length(text, "LocalDateTime")?;
    let fail = || ValueError::temporal_parse("LocalDateTime", text);
    let (date, time) = split_date_time(text.as_bytes());
    let days = parse_date_text(date).ok_or_else(fail)??;
    let time = match time {
        None => LocalTime::MIDNIGHT,
        Some(t) => {
            let parsed = parse_time_text(t).ok_or_else(fail)?;
            if parsed.offset.is_some() || parsed.zone.is_some() {
                return Err(fail());
            }
            parsed.time?
        }
    };
    LocalDateTime::new(Date { days }, time)
}

/// Parses a zoned date-time; without an offset or zone, `default_zone` applies.
pub fn parse_date_time(text: &str, default_zone: &TimeZone) -> Result<DateTime> {
    check_length(text, "DateTime")?;
    let fail = || ValueError::temporal_parse("DateTime", text);
    let (date, time) = split_date_time(text.as_bytes());
    let days = parse_date_text(date).ok_or_else(fail)??;
    let (time, offset, zone) = match time {
        None => (LocalTime::MIDNIGHT, None, None),
        Some(t) => {
            let parsed = parse_time_text(t).ok_or_else(fail)?;
            let zone = match parsed.zone {
                Some(name) => Some(parse_zone(name)?),
                None => None,
            };
            (parsed.time?, parsed.offset.transpose()?, zone)
        }
    };
    let local = LocalDateTime::new(Date { days }, time)?;
    match (zone, offset) {
        (Some(zone), Some(offset)) => {
            let value = DateTime::from_local(local, zone, Some(offset))?;
            if value.offset_seconds != offset || value.local() != local {
                return Err(ValueError::invalid_value(format!(
                    "Timezone and offset do not match: {text}"
                )));
            }
            Ok(value)
        }
        (Some(zone), None) => DateTime::from_local(local, zone, None),
        (None, Some(offset)) => DateTime::from_local(local, TimeZone::Offset(offset), None),
        (None, None) => DateTime::from_local(local, default_zone.clone(), None),
    }
}

pub fn parse_duration(text: &str) -> Result<Duration> {
    check_length(text, "Duration")?;
    parse_duration_text(text.as_bytes())
        .ok_or_else(|| ValueError::temporal_parse("Duration", text))?
}

fn check_length(text: &str, type_name: &str) -> Result<()> {
    if text.len() > TEMPORAL_TEXT_BYTES_MAX || !text.is_ascii() {
        Err(ValueError::temporal_parse(type_name, text))
    } else {
        Ok(())
    }
}

fn strip_t(bytes: &[u8]) -> &[u8] {
    match bytes.first() {
        Some(b'T' | b't') => &bytes[1..],
        _ => bytes,
    }
}

/// Splits `date[T time]` at the first `T`; date forms never contain one.
fn split_date_time(bytes: &[u8]) -> (&[u8], Option<&[u8]>) {
    match bytes.iter().position(|b| matches!(b, b'T' | b't')) {
        Some(i) => (&bytes[..i], Some(&bytes[i + 1..])),
        None => (bytes, None),
    }
}

/// A cursor over ASCII text.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, pos: 0 }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    fn eat(&mut self, byte: u8) -> bool {
        if self.peek().is_some_and(|b| b.eq_ignore_ascii_case(&byte)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// The run of digits at the cursor (possibly empty).
    fn digits(&mut self) -> &'a [u8] {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        &self.bytes[start..self.pos]
    }

    fn rest(&self) -> &'a [u8] {
        &self.bytes[self.pos.min(self.bytes.len())..]
    }
}

/// The value of a run of at most 18 digits.
fn number(digits: &[u8]) -> Option<i64> {
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    Some(
        digits
            .iter()
            .fold(0_i64, |acc, d| acc * 10 + i64::from(d - b'0')),
    )
}

/// Nanoseconds from a fraction's digits (`142` is 142,000,000).
fn fraction_nanos(digits: &[u8]) -> Option<i64> {
    if digits.is_empty() || digits.len() > 9 {
        return None;
    }
    let value = number(digits)?;
    Some(value * 10_i64.pow(9 - digits.len() as u32))
}

/// What a date text says, before validation.
enum DateSpec {
    Calendar { month: i64, day: i64 },
    Week { week: i64, day: i64 },
    Quarter { quarter: i64, day: i64 },
    Ordinal { day: i64 },
}

/// Parses a whole date text: `None` if it is not one of the date forms, `Some(Err)` if it is
/// but names an impossible date.
fn parse_date_text(bytes: &[u8]) -> Option<Result<i64>> {
    let mut c = Cursor::new(bytes);
    let (year, spec) = match c.peek()? {
        b'+' | b'-' => {
            let negative = c.peek() == Some(b'-');
            c.pos += 1;
            let digits = c.digits();
            if digits.is_empty() || digits.len() > 9 {
                return None;
            }
            let year = number(digits)?;
            (
                if negative { -year } else { year },
                long_date_suffix(&mut c)?,
            )
        }
        _ => {
            let year_digits = c.digits();
            if year_digits.len() < 4 {
                return None;
            }
            let year = number(&year_digits[..4])?;
            c.pos = 4;
            if c.at_end() || c.peek() == Some(b'-') {
                (year, long_date_suffix(&mut c)?)
            } else {
                (year, short_date_suffix(&mut c)?)
            }
        }
    };
    if !c.at_end() {
        return None;
    }
    Some(date_from_spec(year, &spec))
}

/// After a four-digit year without dashes: `MM[DD]`, `Www[D]`, `Qq[dd]` or `DDD`.
fn short_date_suffix(c: &mut Cursor<'_>) -> Option<DateSpec> {
    if c.eat(b'W') {
        let (week, day) = field_then_day(c.digits(), 2, 3)?;
        return Some(DateSpec::Week { week, day });
    }
    if c.eat(b'Q') {
        let (quarter, day) = field_then_day(c.digits(), 1, 3)?;
        return Some(DateSpec::Quarter { quarter, day });
    }
    let digits = c.digits();
    if digits.len() == 3 {
        return Some(DateSpec::Ordinal {
            day: number(digits)?,
        });
    }
    let (month, day) = field_then_day(digits, 2, 4)?;
    Some(DateSpec::Calendar { month, day })
}

/// A field of `width` digits, alone (day 1) or with its day in the digits after it, making
/// `with_day` digits in all; `None` for any other length.
fn field_then_day(digits: &[u8], width: usize, with_day: usize) -> Option<(i64, i64)> {
    let day = match digits.len() {
        n if n == width => 1,
        n if n == with_day => number(&digits[width..])?,
        _ => return None,
    };
    Some((number(&digits[..width])?, day))
}

/// After a year in extended form: nothing, `-M[M][-D[D]]`, `-Www[-D]`, `-Qq[-d[d]]` or `-DDD`.
fn long_date_suffix(c: &mut Cursor<'_>) -> Option<DateSpec> {
    if c.at_end() {
        return Some(DateSpec::Calendar { month: 1, day: 1 });
    }
    if !c.eat(b'-') {
        return None;
    }
    if c.eat(b'W') {
        let week = c.digits();
        if !(1..=2).contains(&week.len()) {
            return None;
        }
        let day = dashed_day(c, 1..=1)?;
        return Some(DateSpec::Week {
            week: number(week)?,
            day,
        });
    }
    if c.eat(b'Q') {
        let quarter = c.digits();
        if quarter.len() != 1 {
            return None;
        }
        let day = dashed_day(c, 1..=2)?;
        return Some(DateSpec::Quarter {
            quarter: number(quarter)?,
            day,
        });
    }
    let first = c.digits();
    match first.len() {
        3 if c.at_end() => Some(DateSpec::Ordinal {
            day: number(first)?,
        }),
        1 | 2 => {
            let day = dashed_day(c, 1..=2)?;
            Some(DateSpec::Calendar {
                month: number(first)?,
                day,
            })
        }
        _ => None,
    }
}

/// `-` and a day of `lengths` digits, or day 1 when no `-` follows; `None` for a day of
/// another length.
fn dashed_day(c: &mut Cursor<'_>, lengths: RangeInclusive<usize>) -> Option<i64> {
    if !c.eat(b'-') {
        return Some(1);
    }
    let d = c.digits();
    if !lengths.contains(&d.len()) {
        return None;
    }
    number(d)
}

fn date_from_spec(year: i64, spec: &DateSpec) -> Result<i64> {
    calendar::check_year(year)?;
    match *spec {
        DateSpec::Calendar { month, day } => calendar::checked_days(year, month, day),
        DateSpec::Week { week, day } => week_date_days(year, week, day),
        DateSpec::Quarter { quarter, day } => quarter_date_days(year, quarter, day),
        DateSpec::Ordinal { day } => ordinal_date_days(year, day),
    }
}

/// Day number of an ISO week date, validated.
pub(crate) fn week_date_days(week_year: i64, week: i64, day_of_week: i64) -> Result<i64> {
    calendar::check_year(week_year)?;
    let weeks = i64::from(calendar::weeks_in_year(week_year));
    super::check_range("WeekOfWeekBasedYear", week, 1, weeks)?;
    super::check_range("DayOfWeek", day_of_week, 1, 7)?;
    calendar::check_days(calendar::week_one_monday(week_year) + (week - 1) * 7 + day_of_week - 1)
}

/// Day number of a quarter date, validated.
pub(crate) fn quarter_date_days(year: i64, quarter: i64, day_of_quarter: i64) -> Result<i64> {
    calendar::check_year(year)?;
    super::check_range("QuarterOfYear", quarter, 1, 4)?;
    let quarter = quarter as u32;
    let length = i64::from(calendar::days_in_quarter(year, quarter));
    super::check_range("DayOfQuarter", day_of_quarter, 1, length)?;
    Ok(calendar::quarter_start(year, quarter) + day_of_quarter - 1)
}

/// Day number of an ordinal date, validated.
pub(crate) fn ordinal_date_days(year: i64, day_of_year: i64) -> Result<i64> {
    calendar::check_year(year)?;
    let length = i64::from(calendar::days_in_year(year));
    super::check_range("DayOfYear", day_of_year, 1, length)?;
    Ok(calendar::days_from_ymd(year, 1, 1) + day_of_year - 1)
}

/// A parsed time text: the time of day, an optional offset and an optional zone name.
struct TimeText<'a> {
    time: Result<LocalTime>,
    offset: Option<Result<i32>>,
    zone: Option<&'a str>,
}

/// Parses `time[offset][[zone]]`; `None` if the text has no such shape.
fn parse_time_text(bytes: &[u8]) -> Option<TimeText<'_>> {
    let mut c = Cursor::new(bytes);
    // Extended form H[H]:M[M][:S[S][.fraction]], basic form HH[MM[SS[.fraction]]], or a lone
    // extended hour.
    let (hour, minute, second, nanos) = time_fields(&mut c, 1..=2)?;
    let time = LocalTime::from_hms_nano(hour, minute, second, nanos);
    let rest = c.rest();
    let (offset_text, zone) = match rest.iter().position(|&b| b == b'[') {
        Some(open) => {
            let inner = rest.get(open + 1..rest.len().checked_sub(1)?)?;
            if rest.last() != Some(&b']') || !valid_zone_name(inner) {
                return None;
            }
            (&rest[..open], Some(std::str::from_utf8(inner).ok()?))
        }
        None => (rest, None),
    };
    let offset = if offset_text.is_empty() {
        None
    } else {
        Some(parse_offset(std::str::from_utf8(offset_text).ok()?)?)
    };
    Some(TimeText { time, offset, zone })
}

/// Hour, minute, second and nanoseconds, unvalidated, of `H:M[:S[.fraction]]` with each
/// field `lengths` digits long, or of the basic `HH[MM[SS[.fraction]]]` (an hour alone may be
/// `lengths` digits long).
fn time_fields(c: &mut Cursor<'_>, lengths: RangeInclusive<usize>) -> Option<(i64, i64, i64, i64)> {
    let first = c.digits();
    if !c.eat(b':') {
        return match first.len() {
            n if lengths.contains(&n) => Some((number(first)?, 0, 0, 0)),
            4 => Some((number(&first[..2])?, number(&first[2..])?, 0, 0)),
            6 => Some((
                number(&first[..2])?,
                number(&first[2..4])?,
                number(&first[4..])?,
                optional_fraction(c)?,
            )),
            _ => None,
        };
    }
    let minute = c.digits();
    if !lengths.contains(&first.len()) || !lengths.contains(&minute.len()) {
        return None;
    }
    let (second, nanos) = if c.eat(b':') {
        let second = c.digits();
        if !lengths.contains(&second.len()) {
            return None;
        }
        (number(second)?, optional_fraction(c)?)
    } else {
        (0, 0)
    };
    Some((number(first)?, number(minute)?, second, nanos))
}

/// An optional `.fraction` (or `,fraction`): `None` if malformed, `Some(0)` if absent.
fn optional_fraction(c: &mut Cursor<'_>) -> Option<i64> {
    if c.eat(b'.') || c.eat(b',') {
        fraction_nanos(c.digits())
    } else {
        Some(0)
    }
}

fn valid_zone_name(name: &[u8]) -> bool {
    !name.is_empty()
        && name
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || b"~._ /+-:".contains(b))
}

/// Parses a whole duration text: `None` if it has no duration shape.
fn parse_duration_text(bytes: &[u8]) -> Option<Result<Duration>> {
    let mut c = Cursor::new(bytes);
    let sign: i64 = if c.eat(b'-') {
        -1
    } else {
        c.eat(b'+');
        1
    };
    if !c.eat(b'P') {
        return None;
    }
    let rest = c.rest();
    // Unit form first; texts it cannot read may still be date form (`P2012-02-02T14:37`).
    unit_form_duration(&mut c, sign).or_else(|| date_form_duration(rest, sign))
}

/// One `number unit` component of a unit-form duration.
struct Component {
    unit: u8,
    whole: i64,
    /// The fraction as nanoseconds-of-one-unit digits, if the number had a fraction.
    fraction: Option<i64>,
    negative: bool,
}

fn unit_form_duration(c: &mut Cursor<'_>, sign: i64) -> Option<Result<Duration>> {
    let (date_part, time_part) = unit_form_components(c)?;
    // Units must appear in order, each at most once.
    let date_order = b"YMWD";
    let time_order = b"HMS";
    if !in_order(&date_part, date_order) || !in_order(&time_part, time_order) {
        return None;
    }
    // Only the last component may carry a fraction.
    let all: Vec<&Component> = date_part.iter().chain(time_part.iter()).collect();
    if all.iter().rev().skip(1).any(|comp| comp.fraction.is_some()) {
        return None;
    }
    let signed = |comp: &Component| {
        if comp.negative {
            -comp.whole
        } else {
            comp.whole
        }
    };
    let mut months: i128 = 0;
    let mut days: i128 = 0;
    let mut seconds: i128 = 0;
    for comp in &date_part {
        let v = i128::from(signed(comp));
        match comp.unit {
            b'Y' => months += v * 12,
            b'M' => months += v,
            b'W' => days += v * 7,
            _ => days += v,
        }
    }
    for comp in &time_part {
        let v = i128::from(signed(comp));
        match comp.unit {
            b'H' => seconds += v * 3600,
            b'M' => seconds += v * 60,
            _ => seconds += v,
        }
    }
    let s = i128::from(sign);
    let last = all.last()?;
    match last.fraction {
        None => Some(Duration::new(months * s, days * s, seconds * s, 0)),
        Some(fraction) if last.unit == b'S' && time_part.iter().any(|p| std::ptr::eq(p, *last)) => {
            let f = i128::from(if last.negative { -fraction } else { fraction });
            Some(Duration::new(months * s, days * s, seconds * s, f * s))
        }
        Some(fraction) => {
            // A fractional unit larger than a second cascades like `duration({...})`.
            let frac = fraction as f64 / NANOS_PER_SECOND as f64;
            let frac = if last.negative { -frac } else { frac };
            let in_time_part = time_part.iter().any(|p| std::ptr::eq(p, *last));
            let (mut m, mut d, mut sec) = (months as f64, days as f64, seconds as f64);
            match (in_time_part, last.unit) {
                (false, b'Y') => m += frac * 12.0,
                (false, b'M') => m += frac,
                (false, b'W') => d += frac * 7.0,
                (false, _) => d += frac,
                (true, b'H') => sec += frac * 3600.0,
                (true, _) => sec += frac * 60.0,
            }
            let sf = sign as f64;
            Some(approximate(m * sf, d * sf, sec * sf, 0.0))
        }
    }
}

/// The components of a unit-form duration, split at `T` into the date and the time part;
/// `None` when the text is not a unit-form duration with at least one component.
fn unit_form_components(c: &mut Cursor<'_>) -> Option<(Vec<Component>, Vec<Component>)> {
    let mut date_part = Vec::with_capacity(4);
    let mut time_part = Vec::with_capacity(3);
    let mut in_time = false;
    while !c.at_end() {
        if !in_time && c.eat(b'T') {
            in_time = true;
            if c.at_end() {
                return None;
            }
            continue;
        }
        let negative = if c.eat(b'-') {
            true
        } else {
            c.eat(b'+');
            false
        };
        let digits = c.digits();
        let whole = number(digits)?;
        let fraction = if c.eat(b'.') || c.eat(b',') {
            Some(fraction_nanos(c.digits())?)
        } else {
            None
        };
        let unit = c.peek()?.to_ascii_uppercase();
        c.pos += 1;
        let component = Component {
            unit,
            whole,
            fraction,
            negative,
        };
        if in_time {
            time_part.push(component);
        } else {
            date_part.push(component);
        }
    }
    if date_part.is_empty() && time_part.is_empty() {
        return None;
    }
    Some((date_part, time_part))
}

fn in_order(components: &[Component], order: &[u8]) -> bool {
    let mut last = None;
    for comp in components {
        let Some(index) = order.iter().position(|&u| u == comp.unit) else {
            return false;
        };
        if last.is_some_and(|l| index <= l) {
            return false;
        }
        last = Some(index);
    }
    true
}

/// `PYYYY-MM-DDThh:mm:ss.f`, `PYYYYMMDDThhmmss.f`, or either time alone after `PT`.
fn date_form_duration(bytes: &[u8], sign: i64) -> Option<Result<Duration>> {
    let (date, time) = split_date_time(bytes);
    let (mut months, mut days) = (0_i64, 0_i64);
    if !date.is_empty() {
        let mut c = Cursor::new(date);
        let year = c.digits();
        let (y, m, d) = if year.len() == 8 {
            (
                number(&year[..4])?,
                number(&year[4..6])?,
                number(&year[6..])?,
            )
        } else if year.len() == 4 && c.eat(b'-') {
            let m = c.digits();
            if m.len() != 2 || !c.eat(b'-') {
                return None;
            }
            let d = c.digits();
            if d.len() != 2 {
                return None;
            }
            (number(year)?, number(m)?, number(d)?)
        } else {
            return None;
        };
        if !c.at_end() {
            return None;
        }
        if m > 12 || d > 31 {
            return Some(Err(ValueError::invalid_value(
                "Duration date component out of range",
            )));
        }
        months = y * 12 + m;
        days = d;
    }
    let (mut seconds, mut nanos) = (0_i64, 0_i64);
    if let Some(time) = time {
        let mut c = Cursor::new(time);
        let (h, m, s, n) = time_fields(&mut c, 2..=2)?;
        if !c.at_end() {
            return None;
        }
        if h > 24 || m > 60 || s > 60 {
            return Some(Err(ValueError::invalid_value(
                "Duration time component out of range",
            )));
        }
        seconds = h * 3600 + m * 60 + s;
        nanos = n;
    } else if date.is_empty() {
        return None;
    }
    let s = i128::from(sign);
    Some(Duration::new(
        i128::from(months) * s,
        i128::from(days) * s,
        i128::from(seconds) * s,
        i128::from(nanos) * s,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::temporal::format::*;

    fn date(text: &str) -> String {
        date_text(&parse_date(text).unwrap())
    }

    #[test]
    fn dates_in_every_form() {
        assert_eq!(date("2015-07-21"), "2015-07-21");
        assert_eq!(date("20150721"), "2015-07-21");
        assert_eq!(date("2015-07"), "2015-07-01");
        assert_eq!(date("201507"), "2015-07-01");
        assert_eq!(date("2015-W30-2"), "2015-07-21");
        assert_eq!(date("2015W302"), "2015-07-21");
        assert_eq!(date("2015-W30"), "2015-07-20");
        assert_eq!(date("2015W30"), "2015-07-20");
        assert_eq!(date("2015-202"), "2015-07-21");
        assert_eq!(date("2015202"), "2015-07-21");
        assert_eq!(date("2015"), "2015-01-01");
        assert_eq!(date("2015-Q3-21"), "2015-07-21");
        assert_eq!(date("2015Q321"), "2015-07-21");
        assert_eq!(date("2015-7-1"), "2015-07-01");
        assert_eq!(date("-999999999-01-01"), "-999999999-01-01");
        assert_eq!(date("+999999999-12-31"), "+999999999-12-31");
    }

    #[test]
    fn invalid_dates_are_errors() {
        for text in [
            "",
            "2015-13-01",
            "2015-02-29",
            "2015-W54",
            "2015-Q5",
            "2015-366",
            "15-07-21",
            "2015--07",
            "2015-07-21x",
            "abcd",
            "2015-W30-8",
            "+1234567890-01-01",
            "１９８４",
        ] {
            assert!(parse_date(text).is_err(), "{text}");
        }
        assert!(parse_date(&"9".repeat(1000)).is_err());
    }

    #[test]
    fn times_in_every_form() {
        let lt = |t: &str| local_time_text(&parse_local_time(t).unwrap());
        assert_eq!(lt("21:40:32.142"), "21:40:32.142");
        assert_eq!(lt("214032.142"), "21:40:32.142");
        assert_eq!(lt("21:40:32"), "21:40:32");
        assert_eq!(lt("214032"), "21:40:32");
        assert_eq!(lt("21:40"), "21:40");
        assert_eq!(lt("2140"), "21:40");
        assert_eq!(lt("21"), "21:00");
        assert_eq!(lt("T21:40"), "21:40");
        assert_eq!(lt("12:34:54.7"), "12:34:54.700");
        let t = |s: &str| time_text(&parse_time(s, 0).unwrap());
        assert_eq!(t("21:40:32.142+0100"), "21:40:32.142+01:00");
        assert_eq!(t("214032.142Z"), "21:40:32.142Z");
        assert_eq!(t("21:40:32+01:00"), "21:40:32+01:00");
        assert_eq!(t("214032-0100"), "21:40:32-01:00");
        assert_eq!(t("21:40-01:30"), "21:40-01:30");
        assert_eq!(t("2140-00:00"), "21:40Z");
        assert_eq!(t("2140-02"), "21:40-02:00");
        assert_eq!(t("22+18:00"), "22:00+18:00");
        assert_eq!(
            time_text(&parse_time("14:30", 3600).unwrap()),
            "14:30+01:00"
        );
        for bad in [
            "25:00",
            "12:60",
            "1234567",
            "12:3:4:5",
            "12:30+19:00",
            "12:30[Europe/Stockholm]",
            "",
        ] {
            assert!(parse_time(bad, 0).is_err(), "{bad}");
        }
        assert!(parse_local_time("12:00Z").is_err());
    }

    #[test]
    fn local_date_times() {
        let ldt = |t: &str| local_date_time_text(&parse_local_date_time(t).unwrap());
        assert_eq!(ldt("2015-07-21T21:40:32.142"), "2015-07-21T21:40:32.142");
        assert_eq!(ldt("2015-W30-2T214032.142"), "2015-07-21T21:40:32.142");
        assert_eq!(ldt("2015-202T21:40:32"), "2015-07-21T21:40:32");
        assert_eq!(ldt("2015T214032"), "2015-01-01T21:40:32");
        assert_eq!(ldt("20150721T21:40"), "2015-07-21T21:40");
        assert_eq!(ldt("2015-W30T2140"), "2015-07-20T21:40");
        assert_eq!(ldt("2015202T21"), "2015-07-21T21:00");
        assert_eq!(ldt("-999999999-01-01"), "-999999999-01-01T00:00");
        assert!(parse_local_date_time("2015-07-21T21:40Z").is_err());
    }

    #[test]
    fn date_times_with_offsets_and_zones() {
        let utc = TimeZone::Offset(0);
        let dt = |t: &str| date_time_text(&parse_date_time(t, &utc).unwrap());
        assert_eq!(
            dt("2015-07-21T21:40:32.142+0100"),
            "2015-07-21T21:40:32.142+01:00"
        );
        assert_eq!(dt("2015-W30-2T214032.142Z"), "2015-07-21T21:40:32.142Z");
        assert_eq!(dt("2015T21:40:32+01:00"), "2015-01-01T21:40:32+01:00");
        assert_eq!(dt("20150721T21:40-01:30"), "2015-07-21T21:40-01:30");
        assert_eq!(dt("2015-W30T2140-02"), "2015-07-20T21:40-02:00");
        assert_eq!(dt("2015202T21+18:00"), "2015-07-21T21:00+18:00");
        assert_eq!(
            dt("2015-07-21T21:40:32.142[Europe/London]"),
            "2015-07-21T21:40:32.142+01:00[Europe/London]"
        );
        assert_eq!(
            dt("2015-07-21T21:40:32.142+0100[Europe/London]"),
            "2015-07-21T21:40:32.142+01:00[Europe/London]"
        );
        assert_eq!(
            dt("2017-10-28T23:00+02:00[Europe/Stockholm]"),
            "2017-10-28T23:00+02:00[Europe/Stockholm]"
        );
        assert_eq!(dt("2015-07-21"), "2015-07-21T00:00Z");
        assert!(parse_date_time("2015-07-21T21:40:32.142+0300[Europe/London]", &utc).is_err());
        assert!(parse_date_time("2015-07-21T21:40[Nowhere/Special]", &utc).is_err());
    }

    #[test]
    fn durations_in_unit_and_date_form() {
        let d = |t: &str| duration_text(&parse_duration(t).unwrap());
        assert_eq!(d("P14DT16H12M"), "P14DT16H12M");
        assert_eq!(d("P5M1.5D"), "P5M1DT12H");
        assert_eq!(d("P0.75M"), "P22DT19H51M49.5S");
        assert_eq!(d("PT0.75M"), "PT45S");
        assert_eq!(d("P2.5W"), "P17DT12H");
        assert_eq!(d("P12Y5M14DT16H12M70S"), "P12Y5M14DT16H13M10S");
        assert_eq!(d("P2012-02-02T14:37:21.545"), "P2012Y2M2DT14H37M21.545S");
        assert_eq!(d("P20120202T143721.545"), "P2012Y2M2DT14H37M21.545S");
        assert_eq!(d("PT-1.999S"), "PT-1.999S");
        assert_eq!(d("PT-1M-0.001S"), "PT-1M-0.001S");
        assert_eq!(d("P12Y5M-14DT16H"), "P12Y5M-14DT16H");
        assert_eq!(d("-P1D"), "P-1D");
        assert_eq!(d("PT0S"), "PT0S");
        assert_eq!(d("pt1h"), "PT1H");
        for bad in [
            "P", "PT", "P1", "P1DT", "P1H", "PT1D", "P1M1Y", "P1.5Y2M", "1D", "P1D2D", "PT1.5H2M",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
