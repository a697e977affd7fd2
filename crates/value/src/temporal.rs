//! Temporal values. Each is stored in a canonical numeric form so that comparison is a
//! comparison of integers; formatting, parsing and arithmetic live here too.

use std::sync::Arc;

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
/// months and days have no fixed length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Duration {
    pub months: i64,
    pub days: i64,
    pub seconds: i64,
    pub nanos: i64,
}
