//! Simulation time: the window the generator spreads creations over, and the texts the CSV
//! files carry for a date (`1985-03-02`) and a datetime (`2010-03-04T12:34:56.789Z`).

use crate::snb::ops::{Days, Millis};

pub const DAY: Millis = 86_400_000;
pub const HOUR: Millis = 3_600_000;
pub const MINUTE: Millis = 60_000;
pub const SECOND: Millis = 1_000;

/// Days since the epoch of a proleptic Gregorian date.
pub const fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = month as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date (year, month, day) of a day count since the epoch.
pub const fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + if month <= 2 { 1 } else { 0 };
    (year, month, day)
}

/// Milliseconds at midnight UTC of a date.
pub const fn millis(year: i64, month: u32, day: u32) -> Millis {
    days_from_civil(year, month, day) * DAY
}

/// The simulation window's start: 2010-01-01.
pub const WINDOW_START: Millis = millis(2010, 1, 1);
/// The simulation window's end (exclusive): 2013-01-01.
pub const WINDOW_END: Millis = millis(2013, 1, 1);
/// The bulk load holds what was created before this; the update stream the rest.
/// 2012-09-13, about 90% into the window, as Datagen splits it.
pub const BULK_CUTOFF: Millis = millis(2012, 9, 13);

/// Appends a date's text (`YYYY-MM-DD`).
pub fn push_date(out: &mut Vec<u8>, days: Days) {
    let (y, m, d) = civil_from_days(i64::from(days));
    push_padded(out, y as u64, 4);
    out.push(b'-');
    push_padded(out, u64::from(m), 2);
    out.push(b'-');
    push_padded(out, u64::from(d), 2);
}

/// Appends a UTC datetime's text to the millisecond (`YYYY-MM-DDTHH:MM:SS.mmmZ`).
pub fn push_datetime(out: &mut Vec<u8>, t: Millis) {
    let days = t.div_euclid(DAY);
    let rest = t.rem_euclid(DAY);
    push_date(out, days as Days);
    out.push(b'T');
    push_padded(out, (rest / HOUR) as u64, 2);
    out.push(b':');
    push_padded(out, (rest % HOUR / MINUTE) as u64, 2);
    out.push(b':');
    push_padded(out, (rest % MINUTE / SECOND) as u64, 2);
    out.push(b'.');
    push_padded(out, (rest % SECOND) as u64, 3);
    out.push(b'Z');
}

fn push_padded(out: &mut Vec<u8>, mut v: u64, width: usize) {
    let mut digits = [b'0'; 20];
    let mut n = 0;
    while v > 0 || n == 0 {
        digits[n] = b'0' + (v % 10) as u8;
        v /= 10;
        n += 1;
    }
    for _ in n..width {
        out.push(b'0');
    }
    out.extend(digits[..n].iter().rev());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip_and_print_as_iso() {
        for days in [-800_000, -1, 0, 1, 15_000, 15_706, 2_000_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        let mut out = Vec::new();
        push_datetime(
            &mut out,
            BULK_CUTOFF + 3 * HOUR + 4 * MINUTE + 5 * SECOND + 6,
        );
        assert_eq!(out, b"2012-09-13T03:04:05.006Z");
        out.clear();
        push_date(&mut out, 0);
        assert_eq!(out, b"1970-01-01");
        assert_eq!(WINDOW_START, 1_262_304_000_000);
    }
}
