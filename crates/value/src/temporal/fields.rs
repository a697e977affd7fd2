//! Components of temporal values: `d.year`, `d.weekYear`, `t.offsetMinutes`, `dt.epochMillis`...
//!
//! Names are matched case-insensitively, as Cypher does for temporal accessors. A component a
//! type does not have (`date.hour`, `localtime.timezone`) is `None`; the caller reports it.

use super::calendar::{self, NANOS_PER_SECOND};
use super::format::offset_text;
use super::zone::zone_name;
use super::{Temporal, TimeZone};
use crate::value::Value;

/// Reads a component of a temporal value.
pub fn field(t: &Temporal, name: &str) -> Option<Value> {
    let name = name.to_ascii_lowercase();
    if let Some(v) = date_field(t, &name) {
        return Some(v);
    }
    if let Some(v) = time_field(t, &name) {
        return Some(v);
    }
    zone_field(t, &name)
}

fn date_field(t: &Temporal, name: &str) -> Option<Value> {
    let days = t.date()?.days;
    let ymd = || calendar::ymd_from_days(days);
    let value = match name {
        "year" => ymd().year,
        "quarter" => i64::from(calendar::quarter_of_month(ymd().month)),
        "month" => i64::from(ymd().month),
        "week" => i64::from(calendar::week_date(days).1),
        "weekyear" => calendar::week_date(days).0,
        "day" => i64::from(ymd().day),
        "ordinalday" => i64::from(calendar::ordinal_day(days)),
        "weekday" | "dayofweek" => i64::from(calendar::weekday(days)),
        "dayofquarter" | "quarterday" => i64::from(calendar::day_of_quarter(days)),
        _ => return None,
    };
    Some(Value::Int(value))
}

fn time_field(t: &Temporal, name: &str) -> Option<Value> {
    let time = t.local_time()?;
    let value = match name {
        "hour" => time.hour(),
        "minute" => time.minute(),
        "second" => time.second(),
        "millisecond" => time.nanosecond() / 1_000_000,
        "microsecond" => time.nanosecond() / 1000,
        "nanosecond" => time.nanosecond(),
        _ => return None,
    };
    Some(Value::Int(value))
}

fn zone_field(t: &Temporal, name: &str) -> Option<Value> {
    let offset = t.offset()?;
    Some(match name {
        "timezone" => Value::from(zone_name(&t.zone().unwrap_or(TimeZone::Offset(offset)))),
        "offset" => Value::from(offset_text(offset)),
        "offsetminutes" => Value::Int(i64::from(offset / 60)),
        "offsetseconds" => Value::Int(i64::from(offset)),
        "epochseconds" | "epochmillis" => {
            let Temporal::DateTime(dt) = t else {
                return None;
            };
            if name == "epochseconds" {
                Value::Int(dt.seconds)
            } else {
                Value::Int(
                    dt.seconds
                        .saturating_mul(1000)
                        .saturating_add(i64::from(dt.nanos) / (NANOS_PER_SECOND / 1000)),
                )
            }
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::temporal::parse::*;

    fn check(t: &Temporal, expected: &[(&str, Value)]) {
        for (name, value) in expected {
            assert_eq!(field(t, name).as_ref(), Some(value), "{name}");
        }
    }

    #[test]
    fn date_components() {
        // Temporal5 [1], [2].
        let d = Temporal::Date(parse_date("1984-10-11").unwrap());
        let i = Value::Int;
        check(
            &d,
            &[
                ("year", i(1984)),
                ("quarter", i(4)),
                ("month", i(10)),
                ("week", i(41)),
                ("weekYear", i(1984)),
                ("day", i(11)),
                ("ordinalDay", i(285)),
                ("weekDay", i(4)),
                ("dayOfQuarter", i(11)),
            ],
        );
        let d = Temporal::Date(parse_date("1984-01-01").unwrap());
        check(
            &d,
            &[
                ("year", i(1984)),
                ("weekYear", i(1983)),
                ("week", i(52)),
                ("weekDay", i(7)),
            ],
        );
        assert_eq!(field(&d, "hour"), None);
        assert_eq!(field(&d, "timezone"), None);
    }

    #[test]
    fn time_and_zone_components() {
        // Temporal5 [3], [4], [6].
        let i = Value::Int;
        let t = Temporal::Time(parse_time("12:31:14.645876123+01:00", 0).unwrap());
        check(
            &t,
            &[
                ("hour", i(12)),
                ("minute", i(31)),
                ("second", i(14)),
                ("millisecond", i(645)),
                ("microsecond", i(645_876)),
                ("nanosecond", i(645_876_123)),
                ("timezone", Value::from("+01:00")),
                ("offset", Value::from("+01:00")),
                ("offsetMinutes", i(60)),
                ("offsetSeconds", i(3600)),
            ],
        );
        let utc = TimeZone::Offset(0);
        let dt = Temporal::DateTime(
            parse_date_time("1984-11-11T12:31:14.645876123[Europe/Stockholm]", &utc).unwrap(),
        );
        check(
            &dt,
            &[
                ("year", i(1984)),
                ("quarter", i(4)),
                ("month", i(11)),
                ("week", i(45)),
                ("weekYear", i(1984)),
                ("day", i(11)),
                ("ordinalDay", i(316)),
                ("weekDay", i(7)),
                ("dayOfQuarter", i(42)),
                ("hour", i(12)),
                ("nanosecond", i(645_876_123)),
                ("timezone", Value::from("Europe/Stockholm")),
                ("offset", Value::from("+01:00")),
                ("offsetMinutes", i(60)),
                ("offsetSeconds", i(3600)),
                ("epochSeconds", i(469_020_674)),
                ("epochMillis", i(469_020_674_645)),
            ],
        );
        let lt = Temporal::LocalTime(parse_local_time("12:00").unwrap());
        assert_eq!(field(&lt, "offset"), None);
        let ldt = Temporal::LocalDateTime(parse_local_date_time("1984-11-11T12:31").unwrap());
        assert_eq!(field(&ldt, "epochSeconds"), None);
        assert_eq!(field(&ldt, "dayOfQuarter"), Some(i(42)));
    }
}
