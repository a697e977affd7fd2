//! RFC 1123 dates for `transaction.expires`, written as Java's `RFC_1123_DATE_TIME` does
//! (`Thu, 3 Aug 2023 11:45:10 GMT`: the day of the month unpadded).

use std::time::{SystemTime, UNIX_EPOCH};

use quiver_value::temporal::calendar::{Ymd, ymd_from_days};

const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

pub fn rfc1123(time: SystemTime) -> String {
    let seconds = time
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
        .min(253_402_300_799); // 9999-12-31T23:59:59Z: keeps the year four digits.
    let days = (seconds / 86_400) as i64;
    let of_day = seconds % 86_400;
    let Ymd { year, month, day } = ymd_from_days(days);
    let weekday = WEEKDAYS[(days % 7) as usize];
    let month_name = MONTHS[(month - 1) as usize];
    format!(
        "{weekday}, {day} {month_name} {year} {:02}:{:02}:{:02} GMT",
        of_day / 3600,
        (of_day / 60) % 60,
        of_day % 60
    )
}

/// ISO 8601 in UTC to the second (`2024-10-22T15:48:29Z`), the Query API's
/// `transaction.expires`.
pub fn iso8601(time: SystemTime) -> String {
    let seconds = time
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
        .min(253_402_300_799);
    let Ymd { year, month, day } = ymd_from_days((seconds / 86_400) as i64);
    let of_day = seconds % 86_400;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        of_day / 3600,
        (of_day / 60) % 60,
        of_day % 60
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn formats_like_java() {
        let at = |s| UNIX_EPOCH + Duration::from_secs(s);
        assert_eq!(rfc1123(at(0)), "Thu, 1 Jan 1970 00:00:00 GMT");
        assert_eq!(rfc1123(at(1_691_063_110)), "Thu, 3 Aug 2023 11:45:10 GMT");
        assert_eq!(rfc1123(at(951_782_400)), "Tue, 29 Feb 2000 00:00:00 GMT");
        assert_eq!(rfc1123(at(u64::MAX / 2)), "Fri, 31 Dec 9999 23:59:59 GMT");
    }

    #[test]
    fn iso_dates_are_utc_to_the_second() {
        let at = |s| UNIX_EPOCH + Duration::from_secs(s);
        assert_eq!(iso8601(at(0)), "1970-01-01T00:00:00Z");
        assert_eq!(iso8601(at(1_729_612_109)), "2024-10-22T15:48:29Z");
    }
}
