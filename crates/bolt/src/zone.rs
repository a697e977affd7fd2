//! Named time zones at the codec boundary.
//!
//! A `DateTimeZoneId` carries an IANA name and an instant; Quiver's `DateTime` also keeps the
//! offset in force, which takes a time-zone database to compute. The codec asks a
//! [`ZoneResolver`] for it so the tz database stays in one place (the value layer).

/// Finds the UTC offset of a named zone.
pub trait ZoneResolver {
    /// The offset in force in `zone` at the instant `utc_seconds` after the epoch.
    fn offset_at_utc(&self, zone: &str, utc_seconds: i64) -> Option<i32>;
    /// The offset in force in `zone` when its wall clock reads `local_seconds` after the
    /// epoch (Bolt 4.x sends local seconds). In a gap or overlap, the earlier offset.
    fn offset_at_local(&self, zone: &str, local_seconds: i64) -> Option<i32>;
}

/// Knows only the zones whose offset is always zero; any other name is an unknown zone.
#[derive(Clone, Copy, Debug, Default)]
pub struct UtcOnly;

impl UtcOnly {
    fn offset(zone: &str) -> Option<i32> {
        matches!(
            zone,
            "UTC" | "Etc/UTC" | "Etc/UCT" | "UCT" | "Etc/GMT" | "GMT" | "Z" | "Zulu" | "Etc/Zulu"
        )
        .then_some(0)
    }
}

impl ZoneResolver for UtcOnly {
    fn offset_at_utc(&self, zone: &str, _utc_seconds: i64) -> Option<i32> {
        UtcOnly::offset(zone)
    }
    fn offset_at_local(&self, zone: &str, _local_seconds: i64) -> Option<i32> {
        UtcOnly::offset(zone)
    }
}
