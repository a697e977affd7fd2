//! Time zones: fixed offsets and named IANA zones, resolved through the tz database.
//!
//! The database comes from `jiff`, which prefers the system copy and falls back to a copy
//! bundled into the binary, so named zones work on machines without system tzdata. The
//! database covers years -9999 to 9999; instants outside that span use the offset in force at
//! its nearest edge.

use std::sync::Arc;

use jiff::tz::AmbiguousOffset;

use super::TimeZone;
use super::calendar::{SECONDS_PER_DAY, ymd_from_days};
use crate::error::{Result, ValueError};

/// The largest offset Cypher (like Java) accepts: eighteen hours either way.
pub const OFFSET_SECONDS_MAX: i32 = 18 * 3600;

/// Zone names longer than this are rejected before any lookup: no IANA name comes close.
const ZONE_NAME_BYTES_MAX: usize = 64;

/// Parses a zone as Cypher accepts it in maps and in `[...]` suffixes: an offset (`Z`,
/// `+01`, `+0100`, `+01:00`, `-02:05:07`) or an IANA zone name, case-insensitively, with
/// spaces standing for underscores.
pub fn parse_zone(text: &str) -> Result<TimeZone> {
    if let Some(offset) = parse_offset(text) {
        return offset.map(TimeZone::Offset);
    }
    named_zone(text)
}

/// Looks up a named zone and returns it under its canonical spelling.
pub fn named_zone(text: &str) -> Result<TimeZone> {
    let invalid =
        || ValueError::invalid_value(format!("Invalid value for TimeZone: '{}'", shown(text)));
    if text.is_empty() || text.len() > ZONE_NAME_BYTES_MAX {
        return Err(invalid());
    }
    let name = text.replace(' ', "_");
    let tz = jiff::tz::db().get(&name).map_err(|_| invalid())?;
    let canonical = tz.iana_name().unwrap_or(&name);
    Ok(TimeZone::Named(Arc::from(canonical)))
}

/// Parses an offset: `None` if the text does not look like one, `Some(Err)` if it does but is
/// out of range.
pub fn parse_offset(text: &str) -> Option<Result<i32>> {
    if text.eq_ignore_ascii_case("z") {
        return Some(Ok(0));
    }
    let bytes = text.as_bytes();
    let sign = match bytes.first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let rest = &bytes[1..];
    let mut fields = [0_i32; 3];
    let mut count = 0;
    let mut i = 0;
    while i < rest.len() {
        if count == 3 {
            return None;
        }
        if count > 0 && rest[i] == b':' {
            i += 1;
        }
        let pair = rest.get(i..i + 2)?;
        if !pair.iter().all(u8::is_ascii_digit) {
            return None;
        }
        fields[count] = i32::from(pair[0] - b'0') * 10 + i32::from(pair[1] - b'0');
        count += 1;
        i += 2;
    }
    if count == 0 {
        return None;
    }
    let [hours, minutes, seconds] = fields;
    if minutes > 59 || seconds > 59 {
        return Some(Err(invalid_offset(text)));
    }
    let total = sign * (hours * 3600 + minutes * 60 + seconds);
    if total.abs() > OFFSET_SECONDS_MAX {
        return Some(Err(invalid_offset(text)));
    }
    Some(Ok(total))
}

fn invalid_offset(text: &str) -> ValueError {
    ValueError::invalid_value(format!("Invalid value for offset: '{}'", shown(text)))
}

fn shown(text: &str) -> String {
    text.chars().take(ZONE_NAME_BYTES_MAX).collect()
}

fn jiff_zone(name: &str) -> Result<jiff::tz::TimeZone> {
    jiff::tz::db()
        .get(name)
        .map_err(|_| ValueError::invalid_value(format!("Unknown time zone '{}'", shown(name))))
}

fn clamp_timestamp(utc_seconds: i64) -> jiff::Timestamp {
    let min = jiff::Timestamp::MIN.as_second();
    let max = jiff::Timestamp::MAX.as_second();
    jiff::Timestamp::from_second(utc_seconds.clamp(min, max)).unwrap_or(jiff::Timestamp::UNIX_EPOCH)
}

/// The offset in force in a zone at an instant.
pub fn offset_at(zone: &TimeZone, utc_seconds: i64) -> Result<i32> {
    match zone {
        TimeZone::Offset(offset) => Ok(*offset),
        TimeZone::Named(name) => Ok(jiff_zone(name)?
            .to_offset(clamp_timestamp(utc_seconds))
            .seconds()),
    }
}

/// The instant a wall-clock time denotes in a zone, as UTC seconds.
///
/// Follows Java's rules, which Cypher inherits: a time in a gap (clocks jumping forward) moves
/// later by the length of the gap; a time in an overlap takes `preferred` if it is one of the
/// two valid offsets, otherwise the earlier offset.
pub fn resolve_local(zone: &TimeZone, local_seconds: i64, preferred: Option<i32>) -> Result<i64> {
    resolve_local_with_offset(zone, local_seconds, preferred).map(|(utc, _)| utc)
}

/// [`resolve_local`], also returning the offset in force at the resulting instant (after a gap
/// this differs from the offset used to resolve), with one zone lookup.
pub fn resolve_local_with_offset(
    zone: &TimeZone,
    local_seconds: i64,
    preferred: Option<i32>,
) -> Result<(i64, i32)> {
    let overflow = || ValueError::invalid_value("Date time overflow");
    match zone {
        TimeZone::Offset(offset) => {
            let utc = local_seconds
                .checked_sub(i64::from(*offset))
                .ok_or_else(overflow)?;
            Ok((utc, *offset))
        }
        TimeZone::Named(name) => {
            let tz = jiff_zone(name)?;
            let offset = match civil(local_seconds) {
                Some(dt) => match tz.to_ambiguous_timestamp(dt).offset() {
                    AmbiguousOffset::Unambiguous { offset } => offset.seconds(),
                    AmbiguousOffset::Gap { before, .. } => before.seconds(),
                    AmbiguousOffset::Fold { before, after } => match preferred {
                        Some(p) if p == after.seconds() => after.seconds(),
                        _ => before.seconds(),
                    },
                },
                // Beyond the database's span: use the offset at its nearest edge.
                None => tz.to_offset(clamp_timestamp(local_seconds)).seconds(),
            };
            let utc = local_seconds
                .checked_sub(i64::from(offset))
                .ok_or_else(overflow)?;
            Ok((utc, tz.to_offset(clamp_timestamp(utc)).seconds()))
        }
    }
}

fn civil(local_seconds: i64) -> Option<jiff::civil::DateTime> {
    let days = local_seconds.div_euclid(SECONDS_PER_DAY);
    let secs = local_seconds.rem_euclid(SECONDS_PER_DAY);
    let ymd = ymd_from_days(days);
    let year = i16::try_from(ymd.year).ok()?;
    let date = jiff::civil::Date::new(year, ymd.month as i8, ymd.day as i8).ok()?;
    let time = jiff::civil::Time::new(
        (secs / 3600) as i8,
        (secs / 60 % 60) as i8,
        (secs % 60) as i8,
        0,
    )
    .ok()?;
    Some(date.to_datetime(time))
}

/// The text Cypher shows for a zone: `Z`, `+01:00`, or the zone's name.
pub fn zone_name(zone: &TimeZone) -> String {
    match zone {
        TimeZone::Offset(offset) => super::format::offset_text(*offset),
        TimeZone::Named(name) => name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_parse_in_every_spelling() {
        assert_eq!(parse_offset("Z").unwrap().unwrap(), 0);
        assert_eq!(parse_offset("+01").unwrap().unwrap(), 3600);
        assert_eq!(parse_offset("+0100").unwrap().unwrap(), 3600);
        assert_eq!(parse_offset("-01:30").unwrap().unwrap(), -5400);
        assert_eq!(
            parse_offset("-02:05:07").unwrap().unwrap(),
            -(2 * 3600 + 5 * 60 + 7)
        );
        assert_eq!(parse_offset("+18:00").unwrap().unwrap(), 18 * 3600);
        assert!(parse_offset("+18:01").unwrap().is_err());
        assert!(parse_offset("+01:75").unwrap().is_err());
        assert!(parse_offset("Europe/Stockholm").is_none());
        assert!(parse_offset("+1").is_none());
        assert!(parse_offset("+").is_none());
    }

    #[test]
    fn the_bundled_database_covers_machines_without_tzdata() {
        let bundled = jiff::tz::TimeZoneDatabase::bundled();
        for name in [
            "Europe/Stockholm",
            "Pacific/Honolulu",
            "America/New_York",
            "UTC",
        ] {
            assert!(bundled.get(name).is_ok(), "{name}");
        }
    }

    #[test]
    fn named_zones_are_canonicalised() {
        assert_eq!(
            parse_zone("europe/stockholm").unwrap(),
            TimeZone::Named("Europe/Stockholm".into())
        );
        assert_eq!(
            parse_zone("America/New York").unwrap(),
            TimeZone::Named("America/New_York".into())
        );
        assert!(parse_zone("Mars/Olympus_Mons").is_err());
        assert!(parse_zone("").is_err());
    }

    #[test]
    fn daylight_saving_gaps_and_folds_follow_java() {
        let zone = parse_zone("Europe/Stockholm").unwrap();
        let local = |y, m, d, h: i64, min: i64| {
            super::super::calendar::days_from_ymd(y, m, d) * SECONDS_PER_DAY + h * 3600 + min * 60
        };
        // 2017-03-26 02:30 does not exist: it becomes 03:30+02:00, i.e. 01:30Z.
        let utc = resolve_local(&zone, local(2017, 3, 26, 2, 30), None).unwrap();
        assert_eq!(utc, local(2017, 3, 26, 1, 30));
        assert_eq!(offset_at(&zone, utc).unwrap(), 7200);
        // 2017-10-29 02:30 happens twice: the earlier (+02:00) wins unless +01:00 is preferred.
        let utc = resolve_local(&zone, local(2017, 10, 29, 2, 30), None).unwrap();
        assert_eq!(utc, local(2017, 10, 29, 0, 30));
        let utc = resolve_local(&zone, local(2017, 10, 29, 2, 30), Some(3600)).unwrap();
        assert_eq!(utc, local(2017, 10, 29, 1, 30));
    }
}
