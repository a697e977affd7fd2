//! Property indexes: an order-preserving key encoding over storable values, and the entries.
//!
//! An index holds `(key, node)` pairs for every version of a node that some transaction may
//! still see, so it can hold entries a given reader must ignore. Readers therefore treat an
//! index as a source of candidates and confirm each against their snapshot with the exact
//! predicate; that also lets the key encoding be approximate where exactness is expensive
//! (integers beyond 2^53 share keys with their nearest float). Garbage collection removes
//! entries no version needs.

use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::ops::Bound;

use parking_lot::RwLock;
use quiver_value::spatial::{self, EARTH_RADIUS_METRES};
use quiver_value::{Point, Value};

const CLASS_BOOL: u8 = 0x10;
const CLASS_NUMBER: u8 = 0x20;
const CLASS_STRING: u8 = 0x30;
const CLASS_BYTES: u8 = 0x40;
const CLASS_DATE: u8 = 0x50;
const CLASS_LOCAL_TIME: u8 = 0x51;
const CLASS_TIME: u8 = 0x52;
const CLASS_LOCAL_DATETIME: u8 = 0x53;
const CLASS_DATETIME: u8 = 0x54;
const CLASS_DURATION: u8 = 0x60;
const CLASS_POINT: u8 = 0x70;
const CLASS_LIST: u8 = 0x80;
const CLASS_VECTOR: u8 = 0x90;
const CLASS_UUID: u8 = 0xA0;

const NANOS_PER_SECOND: i64 = 1_000_000_000;

fn put_i64(out: &mut Vec<u8>, v: i64) {
    out.extend_from_slice(&((v as u64) ^ (1 << 63)).to_be_bytes());
}

fn put_f64(out: &mut Vec<u8>, v: f64) {
    // -0.0 equals 0.0 in Cypher, so they must share a key.
    let v = if v == 0.0 { 0.0 } else { v };
    let bits = v.to_bits();
    let ordered = if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    };
    out.extend_from_slice(&ordered.to_be_bytes());
}

fn time_utc_nanos(nanos: i64, offset_seconds: i32) -> i64 {
    nanos.wrapping_sub(i64::from(offset_seconds).wrapping_mul(NANOS_PER_SECOND))
}

/// Appends the index key of a storable value. Keys of one class sort as the values do.
pub(crate) fn put_key(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Bool(b) => {
            out.push(CLASS_BOOL);
            out.push(u8::from(*b));
        }
        Value::Int(i) => {
            out.push(CLASS_NUMBER);
            put_f64(out, *i as f64);
        }
        Value::Float(f) => {
            out.push(CLASS_NUMBER);
            put_f64(out, *f);
        }
        Value::String(s) => {
            out.push(CLASS_STRING);
            out.extend_from_slice(s.as_bytes());
        }
        Value::Bytes(b) => {
            out.push(CLASS_BYTES);
            out.extend_from_slice(b);
        }
        Value::Date(d) => {
            out.push(CLASS_DATE);
            put_i64(out, d.days);
        }
        Value::LocalTime(t) => {
            out.push(CLASS_LOCAL_TIME);
            put_i64(out, t.nanos);
        }
        Value::Time(t) => {
            out.push(CLASS_TIME);
            put_i64(out, time_utc_nanos(t.nanos, t.offset_seconds));
        }
        Value::LocalDateTime(t) => {
            out.push(CLASS_LOCAL_DATETIME);
            put_i64(out, t.seconds);
            out.extend_from_slice(&t.nanos.to_be_bytes());
        }
        Value::DateTime(t) => {
            out.push(CLASS_DATETIME);
            put_i64(out, t.seconds);
            out.extend_from_slice(&t.nanos.to_be_bytes());
        }
        Value::Duration(d) => {
            out.push(CLASS_DURATION);
            for c in [d.months, d.days, d.seconds, d.nanos] {
                put_i64(out, c);
            }
        }
        Value::Point(p) => {
            out.push(CLASS_POINT);
            out.extend_from_slice(&p.srid.to_be_bytes());
            put_f64(out, p.x);
            put_f64(out, p.y);
            if let Some(z) = p.z {
                put_f64(out, z);
            }
        }
        Value::List(items) => {
            out.push(CLASS_LIST);
            for item in items.iter() {
                let mut k = Vec::new();
                put_key(&mut k, item);
                out.extend_from_slice(&(k.len() as u32).to_be_bytes());
                out.extend_from_slice(&k);
            }
        }
        Value::Vector(v) => {
            // Equal vectors share a coordinate type; `-0.0` is keyed as `0.0`, which it equals.
            out.push(CLASS_VECTOR);
            out.push(v.coordinate_type().code());
            for i in 0..v.len() {
                match v.get(i) {
                    Some(Value::Int(x)) => put_i64(out, x),
                    Some(Value::Float(x)) => put_f64(out, if x == 0.0 { 0.0 } else { x }),
                    _ => {}
                }
            }
        }
        Value::Uuid(u) => {
            // Big-endian bytes sort as the UUIDs do.
            out.push(CLASS_UUID);
            out.extend_from_slice(u.as_bytes());
        }
        Value::Null | Value::Map(_) | Value::Node(_) | Value::Relationship(_) | Value::Path(_) => {}
    }
}

pub(crate) fn key_of(v: &Value) -> Box<[u8]> {
    let mut out = Vec::with_capacity(16);
    put_key(&mut out, v);
    out.into_boxed_slice()
}

/// Appends a component of a composite key that other components follow: its key with every
/// zero byte escaped (`00` → `00 ff`), then `00 01`. Escaped keys of one class still sort as
/// their values do, and a shorter key sorts before the keys it is a prefix of.
fn put_component(out: &mut Vec<u8>, v: &Value) {
    let mut k = Vec::with_capacity(16);
    put_key(&mut k, v);
    for b in k {
        out.push(b);
        if b == 0 {
            out.push(0xff);
        }
    }
    out.extend_from_slice(&[0, 1]);
}

/// The key of a composite index entry: every component but the last escaped and terminated,
/// the last as it is, so a single-key index's keys are [`key_of`]'s, and a seek with
/// equalities on the leading keys scans one contiguous run ([`prefix_key`]) where the last key
/// is ordered as in a single-key index.
pub(crate) fn composite_key(values: &[&Value]) -> Box<[u8]> {
    let mut out = Vec::with_capacity(16 * values.len());
    if let Some((last, leading)) = values.split_last() {
        for v in leading {
            put_component(&mut out, v);
        }
        put_key(&mut out, last);
    }
    out.into_boxed_slice()
}

/// The bytes every composite key with `values` as its leading components starts with.
pub(crate) fn prefix_key(values: &[Value]) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 * values.len());
    for v in values {
        put_component(&mut out, v);
    }
    out
}

fn cmp_int_float(i: i64, f: f64) -> Option<Ordering> {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if f.is_nan() {
        return None;
    }
    if f >= TWO_63 {
        return Some(Ordering::Less);
    }
    if f < -TWO_63 {
        return Some(Ordering::Greater);
    }
    let t = f.trunc();
    match i.cmp(&(t as i64)) {
        Ordering::Equal => (0.0).partial_cmp(&(f - t)),
        o => Some(o),
    }
}

/// Cypher's ordering between two storable values of one comparable kind; `None` when the
/// values are of different kinds, unordered kinds, or NaN is involved.
pub fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    use Value::*;
    match (a, b) {
        (Int(x), Int(y)) => Some(x.cmp(y)),
        (Float(x), Float(y)) => x.partial_cmp(y),
        (Int(x), Float(y)) => cmp_int_float(*x, *y),
        (Float(x), Int(y)) => cmp_int_float(*y, *x).map(Ordering::reverse),
        (String(x), String(y)) => Some(x.cmp(y)),
        (Bool(x), Bool(y)) => Some(x.cmp(y)),
        (Uuid(x), Uuid(y)) => Some(x.cmp(y)),
        (Date(x), Date(y)) => Some(x.cmp(y)),
        (LocalTime(x), LocalTime(y)) => Some(x.cmp(y)),
        (LocalDateTime(x), LocalDateTime(y)) => Some(x.cmp(y)),
        (Time(x), Time(y)) => Some(
            time_utc_nanos(x.nanos, x.offset_seconds)
                .cmp(&time_utc_nanos(y.nanos, y.offset_seconds)),
        ),
        (DateTime(x), DateTime(y)) => Some((x.seconds, x.nanos).cmp(&(y.seconds, y.nanos))),
        _ => None,
    }
}

/// Cypher equality between storable values (numbers compare by value across Int and Float).
pub fn equal(a: &Value, b: &Value) -> bool {
    use Value::*;
    match (a, b) {
        (Bytes(x), Bytes(y)) => x == y,
        (Duration(x), Duration(y)) => x == y,
        (Point(x), Point(y)) => x == y,
        (Vector(x), Vector(y)) => quiver_value::equals(a, b) == Some(true) && x.len() == y.len(),
        (List(x), List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| equal(p, q))
        }
        _ => compare(a, b) == Some(Ordering::Equal),
    }
}

/// What an index seek looks for.
#[derive(Clone, Debug)]
pub enum IndexQuery {
    /// `n.key = value`
    Equals(Value),
    /// `n.key IN [values]`
    In(Vec<Value>),
    /// `lower < / <= n.key < / <= upper`; values of another kind than the bounds never match.
    Range {
        lower: Bound<Value>,
        upper: Bound<Value>,
    },
    /// `n.key STARTS WITH prefix`
    Prefix(String),
    /// `n.key CONTAINS part`
    Contains(String),
    /// `n.key ENDS WITH suffix`
    EndsWith(String),
    /// `point.distance(n.key, center) < radius` (`<=` when `inclusive`); points of another
    /// coordinate system than `center` never match.
    Distance {
        center: Point,
        radius: f64,
        inclusive: bool,
    },
    /// `point.withinBBox(n.key, lower, upper)`; corners of different coordinate systems
    /// match nothing.
    BBox { lower: Point, upper: Point },
    /// `n.key IS NOT NULL`
    Exists,
}

/// How far past a computed bound a spatial candidate range reaches, relative to its size:
/// the bounds come from trigonometry whose rounding must never exclude a true match (the
/// exact predicate settles every candidate).
const SPATIAL_SLACK_RATIO: f64 = 1e-9;

/// The box (lower and upper corner, one coordinate per dimension) that holds every point of
/// a coordinate system within `radius` of `center`, and whether its first axis is all of
/// it (geographic, near a pole or across the antimeridian).
fn distance_box(center: &Point, radius: f64) -> (Vec<f64>, Vec<f64>, bool) {
    let slack = |d: f64| d + d.abs() * SPATIAL_SLACK_RATIO + f64::EPSILON;
    let mut lower = Vec::with_capacity(3);
    let mut upper = Vec::with_capacity(3);
    let mut whole_x = false;
    if spatial::is_geographic(center.srid) {
        // The height difference only adds to a distance, so the surface part of a match is
        // within `radius` as well.
        let angle = radius / EARTH_RADIUS_METRES;
        let dlat = slack(angle.to_degrees());
        let (lat_lo, lat_hi) = (center.y - dlat, center.y + dlat);
        let near_pole = lat_lo <= -90.0 || lat_hi >= 90.0 || angle >= std::f64::consts::FRAC_PI_2;
        let dlon = if near_pole {
            None
        } else {
            let s = angle.sin() / center.y.to_radians().cos();
            (s < 1.0).then(|| slack(s.asin().to_degrees()))
        };
        match dlon {
            Some(d) if center.x - d >= -180.0 && center.x + d <= 180.0 => {
                lower.push(center.x - d);
                upper.push(center.x + d);
            }
            _ => {
                whole_x = true;
                lower.push(f64::NEG_INFINITY);
                upper.push(f64::INFINITY);
            }
        }
        lower.push(lat_lo);
        upper.push(lat_hi);
        // Heights differ by at most the radius.
        if let Some(z) = center.z {
            lower.push(z - slack(radius));
            upper.push(z + slack(radius));
        }
    } else {
        let r = slack(radius);
        for c in [Some(center.x), Some(center.y), center.z]
            .into_iter()
            .flatten()
        {
            lower.push(c - r);
            upper.push(c + r);
        }
    }
    (lower, upper, whole_x)
}

/// The coordinates a point key holds after its class byte and SRID.
fn key_coordinates(key: &[u8]) -> Option<(u32, Vec<f64>)> {
    let (&class, rest) = key.split_first()?;
    if class != CLASS_POINT || rest.len() < 4 {
        return None;
    }
    let (srid, mut rest) = rest.split_at(4);
    let srid = u32::from_be_bytes(srid.try_into().ok()?);
    let mut coords = Vec::with_capacity(3);
    while rest.len() >= 8 {
        let (c, tail) = rest.split_at(8);
        coords.push(get_f64(c.try_into().ok()?));
        rest = tail;
    }
    Some((srid, coords))
}

/// The value [`put_f64`] encoded (zero for either zero).
fn get_f64(bytes: [u8; 8]) -> f64 {
    let ordered = u64::from_be_bytes(bytes);
    let bits = if ordered >> 63 == 1 {
        ordered & !(1 << 63)
    } else {
        !ordered
    };
    f64::from_bits(bits)
}

/// The key of a point of `srid` whose first coordinate is `x`, the coordinates after it
/// left out: where the keys of such points start.
fn point_key_start(srid: u32, x: f64) -> Vec<u8> {
    let mut k = vec![CLASS_POINT];
    k.extend_from_slice(&srid.to_be_bytes());
    put_f64(&mut k, x);
    k
}

/// An inclusive end past every key of a point of `srid` whose first coordinate is `x`.
fn point_key_end(srid: u32, x: f64) -> Box<[u8]> {
    let mut k = point_key_start(srid, x);
    k.extend_from_slice(&[0xff; 24]);
    k.into_boxed_slice()
}

/// Key intervals over the first axis of the points of `srid`: `[lo, hi]`, or, when `lo`
/// exceeds `hi` on a geographic system (a box across the antimeridian), `[lo, end]` and
/// `[start, hi]`. Geographic longitudes outside [-180, 180] (which a point need not be
/// refused for) are scanned too when the interval does not already cover them.
fn x_ranges(srid: u32, lo: f64, hi: f64) -> Vec<(Box<[u8]>, Option<Box<[u8]>>)> {
    let range = |a: f64, b: f64| {
        (
            point_key_start(srid, a).into_boxed_slice(),
            Some(point_key_end(srid, b)),
        )
    };
    let geographic = spatial::is_geographic(srid);
    let mut out = Vec::new();
    if lo <= hi {
        out.push(range(lo, hi));
    } else if geographic {
        out.push(range(f64::NEG_INFINITY, hi));
        out.push(range(lo, f64::INFINITY));
    }
    if geographic && !out.is_empty() {
        if lo > -180.0 && lo <= hi {
            out.insert(0, range(f64::NEG_INFINITY, -180.0));
        }
        if hi < 180.0 && lo <= hi {
            out.push(range(180.0, f64::INFINITY));
        }
    }
    out
}

impl IndexQuery {
    /// Whether a value satisfies the query exactly: the test that confirms an index's
    /// candidates, and the one a seek falls back to when its index went away after planning
    /// (so both paths give the same rows).
    pub fn matches(&self, v: &Value) -> bool {
        match self {
            IndexQuery::Equals(x) => equal(v, x),
            IndexQuery::In(xs) => xs.iter().any(|x| equal(v, x)),
            IndexQuery::Range { lower, upper } => {
                let lo = match lower {
                    Bound::Unbounded => true,
                    Bound::Included(b) => {
                        matches!(compare(v, b), Some(Ordering::Greater | Ordering::Equal))
                    }
                    Bound::Excluded(b) => compare(v, b) == Some(Ordering::Greater),
                };
                let hi = match upper {
                    Bound::Unbounded => true,
                    Bound::Included(b) => {
                        matches!(compare(v, b), Some(Ordering::Less | Ordering::Equal))
                    }
                    Bound::Excluded(b) => compare(v, b) == Some(Ordering::Less),
                };
                lo && hi && !matches!((lower, upper), (Bound::Unbounded, Bound::Unbounded))
            }
            IndexQuery::Prefix(p) => v.as_str().is_some_and(|s| s.starts_with(p.as_str())),
            IndexQuery::Contains(p) => v.as_str().is_some_and(|s| s.contains(p.as_str())),
            IndexQuery::EndsWith(p) => v.as_str().is_some_and(|s| s.ends_with(p.as_str())),
            IndexQuery::Distance {
                center,
                radius,
                inclusive,
            } => match v {
                Value::Point(p) => spatial::distance(p, center).is_some_and(|d| {
                    if *inclusive {
                        d <= *radius
                    } else {
                        d < *radius
                    }
                }),
                _ => false,
            },
            IndexQuery::BBox { lower, upper } => match v {
                Value::Point(p) => spatial::within_bbox(p, lower, upper) == Some(true),
                _ => false,
            },
            IndexQuery::Exists => true,
        }
    }

    /// Whether an entry keyed `key` (a single-key index's key, or the last component of a
    /// composite one) may satisfy the query, judged from the key's bytes alone: a string key
    /// is the string's UTF-8 after its class byte, a point key its SRID and coordinates.
    /// `true` means "read the entity and check"; `false` is final.
    pub(crate) fn key_may_match(&self, key: &[u8]) -> bool {
        match self {
            IndexQuery::Contains(p) | IndexQuery::EndsWith(p) => {
                let Some((&CLASS_STRING, text)) = key.split_first() else {
                    return false;
                };
                let p = p.as_bytes();
                // UTF-8 is self-synchronising: a byte match of a whole string's encoding is
                // a match of the characters.
                match self {
                    IndexQuery::EndsWith(_) => text.ends_with(p),
                    _ => p.is_empty() || text.windows(p.len()).any(|w| w == p),
                }
            }
            IndexQuery::Distance { center, radius, .. } => {
                let Some((srid, coords)) = key_coordinates(key) else {
                    return false;
                };
                if srid != center.srid || !radius.is_finite() || *radius < 0.0 {
                    return false;
                }
                let (lower, upper, whole_x) = distance_box(center, *radius);
                let geographic = spatial::is_geographic(srid);
                coords.iter().enumerate().all(|(axis, c)| {
                    let (Some(lo), Some(hi)) = (lower.get(axis), upper.get(axis)) else {
                        return true;
                    };
                    // Out-of-range longitudes and latitudes are left to the exact check.
                    let unusual = geographic
                        && ((axis == 0 && !(-180.0..=180.0).contains(c))
                            || (axis == 1 && !(-90.0..=90.0).contains(c)));
                    (axis == 0 && whole_x) || unusual || (*lo..=*hi).contains(c)
                })
            }
            IndexQuery::BBox { lower, upper } => match key_coordinates(key) {
                Some((srid, coords)) if srid == lower.srid && srid == upper.srid => {
                    let p = Point {
                        srid,
                        x: coords.first().copied().unwrap_or(f64::NAN),
                        y: coords.get(1).copied().unwrap_or(f64::NAN),
                        z: coords.get(2).copied(),
                    };
                    spatial::within_bbox(&p, lower, upper) == Some(true)
                }
                _ => false,
            },
            _ => true,
        }
    }

    /// Key intervals (inclusive, in key order) that hold every candidate. Each is scanned in
    /// turn; `None` as an upper end means "to the end of the index".
    pub(crate) fn key_ranges(&self) -> Vec<(Box<[u8]>, Option<Box<[u8]>>)> {
        match self {
            IndexQuery::Equals(v) => {
                let k = key_of(v);
                vec![(k.clone(), Some(k))]
            }
            IndexQuery::In(vs) => {
                let mut keys: Vec<Box<[u8]>> = vs
                    .iter()
                    .filter(|v| crate::codec::check_storable(v).is_ok())
                    .map(key_of)
                    .collect();
                keys.sort();
                keys.dedup();
                keys.into_iter().map(|k| (k.clone(), Some(k))).collect()
            }
            IndexQuery::Range { lower, upper } => {
                let bound_value = |b: &Bound<Value>| match b {
                    Bound::Included(v) | Bound::Excluded(v) => Some(v.clone()),
                    Bound::Unbounded => None,
                };
                let (lo, hi) = (bound_value(lower), bound_value(upper));
                let class_of = |v: &Value| key_of(v).first().copied();
                let class = match (&lo, &hi) {
                    (Some(a), Some(b)) => {
                        let (ca, cb) = (class_of(a), class_of(b));
                        if ca != cb {
                            return Vec::new();
                        }
                        ca
                    }
                    (Some(a), None) => class_of(a),
                    (None, Some(b)) => class_of(b),
                    (None, None) => return Vec::new(),
                };
                let Some(class) = class else {
                    return Vec::new();
                };
                let start = lo.map_or_else(|| Box::from([class].as_slice()), |v| key_of(&v));
                let end = match hi {
                    Some(v) => Some(key_of(&v)),
                    None => Some(Box::from([class, 0xff, 0xff, 0xff, 0xff, 0xff].as_slice())),
                };
                // Integers past 2^53 round when keyed, so widen by a key on each side: exact
                // checks happen on the candidates anyway.
                vec![(start, end.map(|e| widen_end(&e)))]
            }
            IndexQuery::Prefix(p) => {
                let mut start = vec![CLASS_STRING];
                start.extend_from_slice(p.as_bytes());
                let mut end = start.clone();
                end.extend_from_slice(&[0xff; 4]);
                vec![(start.into_boxed_slice(), Some(end.into_boxed_slice()))]
            }
            // Every string: UTF-8 never holds 0xff, so `[class, ff]` ends them all.
            IndexQuery::Contains(_) | IndexQuery::EndsWith(_) => vec![(
                Box::from([CLASS_STRING].as_slice()),
                Some(Box::from([CLASS_STRING, 0xff].as_slice())),
            )],
            IndexQuery::Distance { center, radius, .. } => {
                if !radius.is_finite() || *radius < 0.0 {
                    return Vec::new();
                }
                let (lower, upper, _) = distance_box(center, *radius);
                x_ranges(center.srid, lower[0], upper[0])
            }
            IndexQuery::BBox { lower, upper } => {
                if lower.srid != upper.srid {
                    return Vec::new();
                }
                x_ranges(lower.srid, lower.x, upper.x)
            }
            IndexQuery::Exists => vec![(Box::from([].as_slice()), None)],
        }
    }
}

/// An inclusive end that also admits every key having `end` as a prefix.
fn widen_end(end: &[u8]) -> Box<[u8]> {
    let mut e = end.to_vec();
    e.extend_from_slice(&[0xff; 8]);
    e.into_boxed_slice()
}

/// The entries of one index.
#[derive(Default)]
pub(crate) struct IndexData {
    entries: RwLock<BTreeSet<(Box<[u8]>, u64)>>,
}

impl IndexData {
    pub(crate) fn insert(&self, key: Box<[u8]>, node: u64) {
        // An entry already there stays as it is.
        self.entries.write().insert((key, node));
    }

    /// Adds many entries at once; an empty index builds its tree from them in one pass
    /// (they are sorted first, which costs little when they come in a few sorted runs).
    pub(crate) fn extend(&self, entries: Vec<(Box<[u8]>, u64)>) {
        let mut e = self.entries.write();
        if e.is_empty() {
            *e = entries.into_iter().collect();
        } else {
            e.extend(entries);
        }
    }

    pub(crate) fn remove(&self, key: &[u8], node: u64) {
        self.entries.write().remove(&(Box::from(key), node));
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.read().len()
    }

    /// Collects up to `max` entries with `start <= key <= end`, after `resume` when given.
    /// Returns whether more may follow.
    pub(crate) fn collect(
        &self,
        start: &[u8],
        end: Option<&[u8]>,
        resume: Option<&(Box<[u8]>, u64)>,
        max: usize,
        out: &mut Vec<(Box<[u8]>, u64)>,
    ) -> bool {
        let entries = self.entries.read();
        let lower = match resume {
            Some(r) => Bound::Excluded(r.clone()),
            None => Bound::Included((Box::from(start), 0)),
        };
        for (k, n) in entries.range((lower, Bound::Unbounded)) {
            if end.is_some_and(|e| k.as_ref() > e) {
                return false;
            }
            if out.len() == max {
                return true;
            }
            out.push((k.clone(), *n));
        }
        false
    }

    /// Entity ids holding exactly `key` (uniqueness checks).
    pub(crate) fn nodes_with_key(&self, key: &[u8]) -> Vec<u64> {
        let entries = self.entries.read();
        entries
            .range((Box::from(key), 0)..=(Box::from(key), u64::MAX))
            .map(|(_, n)| *n)
            .collect()
    }

    /// Groups of two or more entities sharing a key (constraint creation).
    pub(crate) fn duplicate_keys(&self) -> Vec<(Box<[u8]>, Vec<u64>)> {
        let entries = self.entries.read();
        let mut out: Vec<(Box<[u8]>, Vec<u64>)> = Vec::new();
        let mut prev: Option<&Box<[u8]>> = None;
        let mut group = Vec::new();
        for (k, n) in entries.iter() {
            if prev != Some(k) {
                if group.len() > 1
                    && let Some(p) = prev
                {
                    out.push((p.clone(), std::mem::take(&mut group)));
                }
                group.clear();
                prev = Some(k);
            }
            group.push(*n);
        }
        if group.len() > 1
            && let Some(p) = prev
        {
            out.push((p.clone(), group));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(v: impl Into<Value>) -> Box<[u8]> {
        key_of(&v.into())
    }

    #[test]
    fn keys_sort_like_values() {
        assert!(k(-5i64) < k(-1.5f64));
        assert!(k(-1.5f64) < k(0i64));
        assert_eq!(k(0.0f64), k(-0.0f64));
        assert_eq!(k(1i64), k(1.0f64));
        assert!(k(2i64) < k(f64::INFINITY));
        assert!(k("a") < k("ab"));
        assert!(k("ab") < k("b"));
    }

    #[test]
    fn comparisons_are_exact() {
        let big = Value::Int((1 << 53) + 1);
        let near = Value::Float((1u64 << 53) as f64);
        assert_eq!(compare(&big, &near), Some(Ordering::Greater));
        assert!(equal(&Value::Int(3), &Value::Float(3.0)));
        assert!(!equal(&Value::Int(3), &Value::Float(3.5)));
        assert_eq!(compare(&Value::Int(1), &Value::from("1")), None);
        assert_eq!(compare(&Value::Float(f64::NAN), &Value::Float(1.0)), None);
        assert!(equal(
            &Value::from(vec![Value::Int(1)]),
            &Value::from(vec![Value::Float(1.0)])
        ));
    }

    #[test]
    fn range_queries_match_exactly() {
        let q = IndexQuery::Range {
            lower: Bound::Excluded(Value::Int(1)),
            upper: Bound::Included(Value::Float(3.0)),
        };
        assert!(!q.matches(&Value::Int(1)));
        assert!(q.matches(&Value::Float(1.5)));
        assert!(q.matches(&Value::Int(3)));
        assert!(!q.matches(&Value::from("2")));
        let mixed = IndexQuery::Range {
            lower: Bound::Included(Value::Int(1)),
            upper: Bound::Included(Value::from("z")),
        };
        assert!(mixed.key_ranges().is_empty());
    }

    #[test]
    fn index_collects_in_batches() {
        let idx = IndexData::default();
        for n in 0..10u64 {
            idx.insert(k(n as i64 % 3), n);
        }
        let mut out = Vec::new();
        let more = idx.collect(&k(1i64), Some(&k(1i64)), None, 2, &mut out);
        assert!(more);
        assert_eq!(out.iter().map(|e| e.1).collect::<Vec<_>>(), vec![1, 4]);
        let last = out.last().cloned();
        out.clear();
        let more = idx.collect(&k(1i64), Some(&k(1i64)), last.as_ref(), 10, &mut out);
        assert!(!more);
        assert_eq!(out.iter().map(|e| e.1).collect::<Vec<_>>(), vec![7]);
        assert_eq!(idx.duplicate_keys().len(), 3);
        idx.remove(&k(0i64), 0);
        assert_eq!(idx.len(), 9);
    }

    #[test]
    fn point_keys_give_back_their_coordinates() {
        for x in [
            0.0,
            -0.0,
            1.5,
            -1.5,
            180.0,
            -180.0,
            1e300,
            f64::MIN_POSITIVE,
        ] {
            let mut k = Vec::new();
            put_f64(&mut k, x);
            let bytes: [u8; 8] = k.as_slice().try_into().unwrap();
            assert_eq!(get_f64(bytes), if x == 0.0 { 0.0 } else { x });
        }
        let p = Point {
            srid: spatial::SRID_CARTESIAN_3D,
            x: -2.0,
            y: 3.5,
            z: Some(7.0),
        };
        let key = key_of(&Value::Point(Box::new(p)));
        assert_eq!(key_coordinates(&key), Some((p.srid, vec![-2.0, 3.5, 7.0])));
        assert_eq!(key_coordinates(&k("text")), None);
    }

    #[test]
    fn text_keys_are_judged_by_their_bytes() {
        let contains = IndexQuery::Contains("é a".into());
        assert!(contains.key_may_match(&k("café au lait")));
        assert!(!contains.key_may_match(&k("cafe au lait")));
        assert!(!contains.key_may_match(&k(3i64)));
        assert!(IndexQuery::Contains(String::new()).key_may_match(&k("")));
        let ends = IndexQuery::EndsWith("lait".into());
        assert!(ends.key_may_match(&k("au lait")));
        assert!(!ends.key_may_match(&k("lait au")));
        // Every string key lies in the one range CONTAINS and ENDS WITH scan.
        let ranges = contains.key_ranges();
        let (start, end) = &ranges[0];
        for s in ["", "a", "\u{10FFFF}\u{10FFFF}"] {
            let key = k(s);
            assert!(
                key >= *start && end.as_ref().is_some_and(|e| key <= *e),
                "{s:?}"
            );
        }
    }

    #[test]
    fn spatial_candidates_cover_every_match() {
        let geo = |x: f64, y: f64| Point {
            srid: spatial::SRID_WGS84,
            x,
            y,
            z: None,
        };
        let in_ranges = |q: &IndexQuery, p: Point| {
            let key = key_of(&Value::Point(Box::new(p)));
            q.key_ranges()
                .iter()
                .any(|(s, e)| key >= *s && e.as_ref().is_some_and(|e| key <= *e))
                && q.key_may_match(&key)
        };
        let cases = [
            (geo(179.5, 0.0), geo(-179.5, 0.5), 200_000.0),
            (geo(0.0, 89.9), geo(180.0, 89.9), 50_000.0),
            (geo(10.0, 45.0), geo(10.9, 45.3), 100_000.0),
            (geo(-75.0, -60.0), geo(-74.0, -60.4), 100_000.0),
        ];
        for (center, p, radius) in cases {
            let q = IndexQuery::Distance {
                center,
                radius,
                inclusive: true,
            };
            assert!(q.matches(&Value::Point(Box::new(p))), "{p:?}");
            assert!(in_ranges(&q, p), "{center:?} {p:?}");
        }
        // A box across the antimeridian takes both ends.
        let q = IndexQuery::BBox {
            lower: geo(170.0, -1.0),
            upper: geo(-170.0, 1.0),
        };
        assert!(in_ranges(&q, geo(175.0, 0.0)) && in_ranges(&q, geo(-175.0, 0.0)));
        assert!(!in_ranges(&q, geo(0.0, 0.0)));
        // Corners of different systems match nothing.
        let cartesian = Point {
            srid: spatial::SRID_CARTESIAN,
            x: 1.0,
            y: 1.0,
            z: None,
        };
        let mixed = IndexQuery::BBox {
            lower: cartesian,
            upper: geo(2.0, 2.0),
        };
        assert!(mixed.key_ranges().is_empty());
    }

    #[test]
    fn composite_keys_sort_by_leading_component_first() {
        let key = |a: Value, b: Value| composite_key(&[&a, &b]);
        let (a, ab, b) = (Value::from("a"), Value::from("ab"), Value::from("b"));
        assert!(key(a.clone(), Value::Int(9)) < key(ab.clone(), Value::Int(0)));
        assert!(key(ab.clone(), Value::Int(9)) < key(b.clone(), Value::Int(0)));
        assert!(key(a.clone(), Value::Int(1)) < key(a.clone(), Value::Int(2)));
        // Zero bytes inside a component do not end it.
        let zero = Value::from("a\u{0}b");
        assert!(key(a.clone(), Value::Int(9)) < key(zero.clone(), Value::Int(0)));
        assert!(key(zero, Value::Int(9)) < key(ab, Value::Int(0)));
        assert_eq!(composite_key(&[&Value::Int(3)]), k(3i64));
        assert!(key(a.clone(), Value::Int(1)).starts_with(&prefix_key(&[a])));
    }
}
