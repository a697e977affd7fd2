//! The proleptic Gregorian calendar over days since 1970-01-01.
//!
//! Cypher dates span years -999,999,999 to 999,999,999, far beyond what general date libraries
//! cover, so the calendar arithmetic is done here on plain integers: a day number is an `i64`
//! and every conversion is exact.

use crate::error::{Result, ValueError};

pub const YEAR_MIN: i64 = -999_999_999;
pub const YEAR_MAX: i64 = 999_999_999;

pub const SECONDS_PER_DAY: i64 = 86_400;
pub const NANOS_PER_SECOND: i64 = 1_000_000_000;
pub const NANOS_PER_DAY: i64 = SECONDS_PER_DAY * NANOS_PER_SECOND;

/// Days in a 400-year Gregorian cycle.
const DAYS_PER_ERA: i64 = 146_097;
/// Days from 0000-03-01 (the start of the era arithmetic below) to 1970-01-01.
const EPOCH_SHIFT_DAYS: i64 = 719_468;

/// A calendar date split into its fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ymd {
    pub year: i64,
    pub month: u32,
    pub day: u32,
}

pub fn is_leap(year: i64) -> bool {
    year.rem_euclid(4) == 0 && (year.rem_euclid(100) != 0 || year.rem_euclid(400) == 0)
}

pub fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        _ => 28,
    }
}

pub fn days_in_year(year: i64) -> u32 {
    if is_leap(year) { 366 } else { 365 }
}

/// Day number of a calendar date. Fields are trusted to be valid (see [`checked_days`]);
/// years far outside Cypher's range saturate rather than overflow.
pub fn days_from_ymd(year: i64, month: u32, day: u32) -> i64 {
    // Count years from March so that the leap day is the last day of the counted year.
    let y = i128::from(year) - i128::from(month <= 2);
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let m = i128::from(month);
    let shifted_month = if m > 2 { m - 3 } else { m + 9 };
    let day_of_year = (153 * shifted_month + 2) / 5 + i128::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * i128::from(DAYS_PER_ERA) + day_of_era - i128::from(EPOCH_SHIFT_DAYS);
    days.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// Calendar fields of a day number. Exact for every `i64`, including day numbers far outside
/// Cypher's range (which only malformed input can produce).
pub fn ymd_from_days(days: i64) -> Ymd {
    let z = i128::from(days) + i128::from(EPOCH_SHIFT_DAYS);
    let era = z.div_euclid(i128::from(DAYS_PER_ERA));
    let day_of_era = z - era * i128::from(DAYS_PER_ERA);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524
        - day_of_era / (i128::from(DAYS_PER_ERA) - 1))
        / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * shifted_month + 2) / 5 + 1) as u32;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    } as u32;
    let year = year_of_era + era * 400 + i128::from(month <= 2);
    Ymd {
        year: year as i64,
        month,
        day,
    }
}

/// Fails unless the year is one Cypher can represent.
pub fn check_year(year: i64) -> Result<()> {
    if (YEAR_MIN..=YEAR_MAX).contains(&year) {
        Ok(())
    } else {
        Err(ValueError::invalid_value(format!(
            "Invalid value for Year: {year} (valid values {YEAR_MIN} - {YEAR_MAX})"
        )))
    }
}

/// Day number of a date given by possibly invalid fields.
pub fn checked_days(year: i64, month: i64, day: i64) -> Result<i64> {
    check_year(year)?;
    if !(1..=12).contains(&month) {
        return Err(ValueError::invalid_value(format!(
            "Invalid value for MonthOfYear: {month} (valid values 1 - 12)"
        )));
    }
    let month = month as u32;
    let last = days_in_month(year, month);
    if !(1..=i64::from(last)).contains(&day) {
        return Err(ValueError::invalid_value(format!(
            "Invalid value for DayOfMonth: {day} (valid values 1 - {last} for month {month} of {year})"
        )));
    }
    Ok(days_from_ymd(year, month, day as u32))
}

/// Fails unless the day number lies within the years Cypher can represent.
pub fn check_days(days: i64) -> Result<i64> {
    if (days_from_ymd(YEAR_MIN, 1, 1)..=days_from_ymd(YEAR_MAX, 12, 31)).contains(&days) {
        Ok(days)
    } else {
        Err(ValueError::invalid_value(
            "Date is out of the supported range",
        ))
    }
}

/// ISO day of week: 1 = Monday ... 7 = Sunday.
pub fn weekday(days: i64) -> u32 {
    // 1970-01-01 was a Thursday.
    ((days.rem_euclid(7) + 3) % 7 + 1) as u32
}

/// Day of the year, 1-based.
pub fn ordinal_day(days: i64) -> u32 {
    let ymd = ymd_from_days(days);
    (i128::from(days) - i128::from(days_from_ymd(ymd.year, 1, 1)) + 1) as u32
}

/// The Monday that starts ISO week 1 of a week-based year (the week holding January 4th).
pub fn week_one_monday(week_year: i64) -> i64 {
    let jan4 = days_from_ymd(week_year, 1, 4);
    jan4.saturating_sub(i64::from(weekday(jan4)))
        .saturating_add(1)
}

/// Number of ISO weeks (52 or 53) in a week-based year.
pub fn weeks_in_year(week_year: i64) -> u32 {
    let next = week_one_monday(week_year.saturating_add(1));
    ((i128::from(next) - i128::from(week_one_monday(week_year))) / 7) as u32
}

/// The ISO week date of a day: (week-based year, week, day of week).
pub fn week_date(days: i64) -> (i64, u32, u32) {
    let year = ymd_from_days(days).year;
    let week_year = if days >= week_one_monday(year.saturating_add(1)) {
        year.saturating_add(1)
    } else if days < week_one_monday(year) {
        year.saturating_sub(1)
    } else {
        year
    };
    let week = ((i128::from(days) - i128::from(week_one_monday(week_year))) / 7 + 1) as u32;
    (week_year, week, weekday(days))
}

pub fn quarter_of_month(month: u32) -> u32 {
    month.saturating_sub(1) / 3 + 1
}

/// First day of a quarter.
pub fn quarter_start(year: i64, quarter: u32) -> i64 {
    days_from_ymd(year, quarter.saturating_sub(1) * 3 + 1, 1)
}

/// Number of days in a quarter (90 to 92).
pub fn days_in_quarter(year: i64, quarter: u32) -> u32 {
    let start = quarter_start(year, quarter);
    let end = if quarter == 4 {
        days_from_ymd(year + 1, 1, 1)
    } else {
        quarter_start(year, quarter + 1)
    };
    (end - start) as u32
}

/// Day of the quarter, 1-based.
pub fn day_of_quarter(days: i64) -> u32 {
    let ymd = ymd_from_days(days);
    (i128::from(days) - i128::from(quarter_start(ymd.year, quarter_of_month(ymd.month))) + 1) as u32
}

/// Adds months to a date, clamping the day to the last day of the resulting month (so that
/// January 31st plus one month is the last day of February).
pub fn add_months(days: i64, months: i64) -> Result<i64> {
    let ymd = ymd_from_days(days);
    let month_index = (ymd.year as i128) * 12 + i128::from(ymd.month - 1) + i128::from(months);
    let year = month_index.div_euclid(12);
    let month = (month_index.rem_euclid(12) + 1) as u32;
    let year = i64::try_from(year).map_err(|_| ValueError::invalid_value("Date overflow"))?;
    check_year(year)?;
    let day = ymd.day.min(days_in_month(year, month));
    Ok(days_from_ymd(year, month, day))
}

/// Adds days to a date, failing outside the supported range.
pub fn add_days(days: i64, delta: i64) -> Result<i64> {
    let sum = days
        .checked_add(delta)
        .ok_or_else(|| ValueError::invalid_value("Date overflow"))?;
    check_days(sum)
}

/// Whole months from one date to another, as Java's `LocalDate.until(.., MONTHS)` counts them:
/// the partial month at the end does not count, in either direction.
pub fn months_between(from: i64, to: i64) -> i64 {
    let a = ymd_from_days(from);
    let b = ymd_from_days(to);
    let packed = |ymd: Ymd| {
        (i128::from(ymd.year) * 12 + i128::from(ymd.month) - 1) * 32 + i128::from(ymd.day)
    };
    ((packed(b) - packed(a)) / 32).clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_across_the_whole_range() {
        for days in [
            -1_000_000_000_i64,
            -719_528,
            -1,
            0,
            1,
            59,
            60,
            365,
            10_957,
            2_932_896,
        ] {
            let ymd = ymd_from_days(days);
            assert_eq!(days_from_ymd(ymd.year, ymd.month, ymd.day), days, "{ymd:?}");
        }
        assert_eq!(
            ymd_from_days(0),
            Ymd {
                year: 1970,
                month: 1,
                day: 1
            }
        );
        assert_eq!(days_from_ymd(2000, 2, 29), 11_016);
        let min = days_from_ymd(YEAR_MIN, 1, 1);
        assert_eq!(
            ymd_from_days(min),
            Ymd {
                year: YEAR_MIN,
                month: 1,
                day: 1
            }
        );
        let max = days_from_ymd(YEAR_MAX, 12, 31);
        assert_eq!(
            ymd_from_days(max),
            Ymd {
                year: YEAR_MAX,
                month: 12,
                day: 31
            }
        );
    }

    #[test]
    fn every_day_of_four_centuries_round_trips() {
        let start = days_from_ymd(1600, 1, 1);
        let mut expected = Ymd {
            year: 1600,
            month: 1,
            day: 1,
        };
        for days in start..start + 146_097 {
            assert_eq!(ymd_from_days(days), expected);
            expected.day += 1;
            if expected.day > days_in_month(expected.year, expected.month) {
                expected.day = 1;
                expected.month += 1;
                if expected.month > 12 {
                    expected.month = 1;
                    expected.year += 1;
                }
            }
        }
    }

    #[test]
    fn week_dates() {
        // 1984-10-11 is a Thursday in week 41; 1984-01-01 belongs to week 52 of 1983.
        let d = days_from_ymd(1984, 10, 11);
        assert_eq!(week_date(d), (1984, 41, 4));
        assert_eq!(week_date(days_from_ymd(1984, 1, 1)), (1983, 52, 7));
        assert_eq!(
            ymd_from_days(week_one_monday(1817)),
            Ymd {
                year: 1816,
                month: 12,
                day: 30
            }
        );
        assert_eq!(weeks_in_year(1818), 53);
        assert_eq!(weeks_in_year(1817), 52);
    }

    #[test]
    fn quarters_and_ordinals() {
        let d = days_from_ymd(1984, 11, 11);
        assert_eq!(day_of_quarter(d), 42);
        assert_eq!(ordinal_day(d), 316);
        assert_eq!(days_in_quarter(1984, 1), 91);
        assert_eq!(days_in_quarter(1983, 1), 90);
    }

    #[test]
    fn month_arithmetic_clamps() {
        let jan31 = days_from_ymd(2001, 1, 31);
        assert_eq!(
            ymd_from_days(add_months(jan31, 1).unwrap()),
            Ymd {
                year: 2001,
                month: 2,
                day: 28
            }
        );
        assert_eq!(
            months_between(days_from_ymd(1984, 10, 11), days_from_ymd(2015, 6, 24)),
            368
        );
        assert_eq!(
            months_between(days_from_ymd(2018, 3, 11), days_from_ymd(2016, 6, 24)),
            -20
        );
        assert!(add_months(days_from_ymd(YEAR_MAX, 12, 1), 1).is_err());
    }
}
