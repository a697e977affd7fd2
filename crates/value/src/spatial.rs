//! Spatial points: construction from maps, accessors and distances.
//!
//! Cypher knows four coordinate reference systems: 2D and 3D cartesian (`x`, `y`, `z`) and
//! 2D and 3D WGS-84 (`longitude`, `latitude`, `height`). Distances are Euclidean for cartesian
//! points and great-circle (haversine on a spherical Earth) for geographic ones; points in
//! different systems have no distance.

use crate::error::{Result, ValueError};
use crate::value::Value;

/// Coordinate reference systems Cypher knows, by SRID.
pub const SRID_CARTESIAN: u32 = 7203;
pub const SRID_CARTESIAN_3D: u32 = 9157;
pub const SRID_WGS84: u32 = 4326;
pub const SRID_WGS84_3D: u32 = 4979;

/// The Earth's radius used for geographic distances, in metres (as Neo4j uses).
pub const EARTH_RADIUS_METRES: f64 = 6_378_140.0;

/// A 2D or 3D point. For WGS-84, `x` is longitude and `y` latitude (degrees), `z` height (metres).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub srid: u32,
    pub x: f64,
    pub y: f64,
    pub z: Option<f64>,
}

pub fn is_geographic(srid: u32) -> bool {
    srid == SRID_WGS84 || srid == SRID_WGS84_3D
}

/// The CRS name Cypher shows (`p.crs`).
pub fn crs_name(srid: u32) -> &'static str {
    match srid {
        SRID_CARTESIAN_3D => "cartesian-3d",
        SRID_WGS84 => "wgs-84",
        SRID_WGS84_3D => "wgs-84-3d",
        _ => "cartesian",
    }
}

/// The SRID of a CRS name, case-insensitively.
pub fn srid_of_crs(name: &str) -> Option<u32> {
    [
        ("cartesian", SRID_CARTESIAN),
        ("cartesian-3d", SRID_CARTESIAN_3D),
        ("wgs-84", SRID_WGS84),
        ("wgs-84-3d", SRID_WGS84_3D),
    ]
    .iter()
    .find(|(n, _)| n.eq_ignore_ascii_case(name))
    .map(|(_, srid)| *srid)
}

fn dimension(srid: u32) -> usize {
    if srid == SRID_CARTESIAN_3D || srid == SRID_WGS84_3D {
        3
    } else {
        2
    }
}

/// The coordinates a point map may name.
#[derive(Default)]
struct PointFields {
    x: Option<f64>,
    y: Option<f64>,
    z: Option<f64>,
    longitude: Option<f64>,
    latitude: Option<f64>,
    height: Option<f64>,
    crs: Option<String>,
    srid: Option<i64>,
}

fn coordinate(key: &str, value: &Value) -> Result<f64> {
    match value {
        Value::Int(i) => Ok(*i as f64),
        Value::Float(f) => Ok(*f),
        other => Err(ValueError::invalid_type(format!(
            "Point coordinate '{key}' must be a number, got {}",
            other.value_type()
        ))),
    }
}

/// `point({x, y[, z][, crs|srid]})` or `point({longitude, latitude[, height][, crs|srid]})`.
/// `Ok(None)` when a coordinate is `null`, as Cypher returns `null` then.
pub fn point_from_map<'a>(
    entries: impl IntoIterator<Item = (&'a str, &'a Value)>,
) -> Result<Option<Point>> {
    let mut f = PointFields::default();
    for (key, value) in entries {
        if value.is_null() {
            return Ok(None);
        }
        match key.to_ascii_lowercase().as_str() {
            "x" => f.x = Some(coordinate(key, value)?),
            "y" => f.y = Some(coordinate(key, value)?),
            "z" => f.z = Some(coordinate(key, value)?),
            "longitude" => f.longitude = Some(coordinate(key, value)?),
            "latitude" => f.latitude = Some(coordinate(key, value)?),
            "height" => f.height = Some(coordinate(key, value)?),
            "crs" => match value {
                Value::String(s) => f.crs = Some(s.to_string()),
                other => {
                    return Err(ValueError::invalid_type(format!(
                        "crs must be a string, got {}",
                        other.value_type()
                    )));
                }
            },
            "srid" => match value {
                Value::Int(i) => f.srid = Some(*i),
                other => {
                    return Err(ValueError::invalid_type(format!(
                        "srid must be an integer, got {}",
                        other.value_type()
                    )));
                }
            },
            _ => {
                return Err(ValueError::invalid_value(format!(
                    "Unknown key '{key}' for creating a point"
                )));
            }
        }
    }
    build_point(&f).map(Some)
}

fn build_point(f: &PointFields) -> Result<Point> {
    let cartesian = f.x.is_some() || f.y.is_some() || f.z.is_some();
    let geographic = f.longitude.is_some() || f.latitude.is_some() || f.height.is_some();
    if cartesian && geographic {
        return Err(ValueError::invalid_value(
            "A point cannot mix x/y/z with longitude/latitude/height",
        ));
    }
    let (x, y, z) = if geographic {
        let (Some(lon), Some(lat)) = (f.longitude, f.latitude) else {
            return Err(ValueError::invalid_value(
                "A geographic point needs both longitude and latitude",
            ));
        };
        (lon, lat, f.height)
    } else {
        let (Some(x), Some(y)) = (f.x, f.y) else {
            return Err(ValueError::invalid_value(
                "A point needs x and y, or longitude and latitude",
            ));
        };
        (x, y, f.z)
    };
    let explicit = match (&f.crs, f.srid) {
        (Some(_), Some(_)) => {
            return Err(ValueError::invalid_value(
                "A point cannot have both crs and srid",
            ));
        }
        (Some(name), None) => Some(srid_of_crs(name).ok_or_else(|| {
            ValueError::invalid_value(format!("Unknown coordinate reference system '{name}'"))
        })?),
        (None, Some(srid)) => Some(
            u32::try_from(srid)
                .ok()
                .filter(|s| {
                    [SRID_CARTESIAN, SRID_CARTESIAN_3D, SRID_WGS84, SRID_WGS84_3D].contains(s)
                })
                .ok_or_else(|| ValueError::invalid_value(format!("Unknown SRID {srid}")))?,
        ),
        (None, None) => None,
    };
    let srid = match explicit {
        Some(srid) => srid,
        None => match (geographic, z.is_some()) {
            (true, true) => SRID_WGS84_3D,
            (true, false) => SRID_WGS84,
            (false, true) => SRID_CARTESIAN_3D,
            (false, false) => SRID_CARTESIAN,
        },
    };
    if geographic && !is_geographic(srid) {
        return Err(ValueError::invalid_value(
            "longitude/latitude need a geographic coordinate reference system",
        ));
    }
    if dimension(srid) != if z.is_some() { 3 } else { 2 } {
        return Err(ValueError::invalid_value(format!(
            "Coordinate reference system '{}' needs {} coordinates",
            crs_name(srid),
            dimension(srid)
        )));
    }
    if is_geographic(srid) && !(-90.0..=90.0).contains(&y) {
        return Err(ValueError::invalid_value(format!(
            "Latitude {y} is out of range [-90, 90]"
        )));
    }
    if !x.is_finite() || !y.is_finite() || z.is_some_and(|z| !z.is_finite()) {
        return Err(ValueError::invalid_value(
            "Point coordinates must be finite",
        ));
    }
    Ok(Point { srid, x, y, z })
}

/// Reads a component of a point (`p.x`, `p.latitude`, `p.crs`, ...); `None` for names points
/// do not have or that do not apply to its CRS.
pub fn field(p: &Point, name: &str) -> Option<Value> {
    let geographic = is_geographic(p.srid);
    Some(match name {
        "x" => Value::Float(p.x),
        "y" => Value::Float(p.y),
        "z" => Value::Float(p.z?),
        "longitude" if geographic => Value::Float(p.x),
        "latitude" if geographic => Value::Float(p.y),
        "height" if geographic => Value::Float(p.z?),
        "crs" => Value::from(crs_name(p.srid)),
        "srid" => Value::Int(i64::from(p.srid)),
        _ => return None,
    })
}

/// The distance between two points; `None` when they are in different systems.
pub fn distance(a: &Point, b: &Point) -> Option<f64> {
    if a.srid != b.srid {
        return None;
    }
    let dz = match (a.z, b.z) {
        (Some(p), Some(q)) => q - p,
        _ => 0.0,
    };
    if is_geographic(a.srid) {
        let (lat1, lat2) = (a.y.to_radians(), b.y.to_radians());
        let dlat = lat2 - lat1;
        let dlon = (b.x - a.x).to_radians();
        let h = (dlat / 2.0).sin().powi(2) + lat1.cos() * lat2.cos() * (dlon / 2.0).sin().powi(2);
        let surface = 2.0 * EARTH_RADIUS_METRES * h.sqrt().min(1.0).asin();
        Some(if dz == 0.0 {
            surface
        } else {
            surface.hypot(dz)
        })
    } else {
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        Some((dx * dx + dy * dy + dz * dz).sqrt())
    }
}

/// Whether a point lies in the box spanned by two corners; `None` across systems. For
/// geographic boxes whose lower-left longitude exceeds the upper-right one, the box crosses
/// the antimeridian.
pub fn within_bbox(p: &Point, lower_left: &Point, upper_right: &Point) -> Option<bool> {
    if p.srid != lower_left.srid || p.srid != upper_right.srid {
        return None;
    }
    let x_inside = if is_geographic(p.srid) && lower_left.x > upper_right.x {
        p.x >= lower_left.x || p.x <= upper_right.x
    } else {
        (lower_left.x..=upper_right.x).contains(&p.x)
    };
    let y_inside = (lower_left.y..=upper_right.y).contains(&p.y);
    let z_inside = match (p.z, lower_left.z, upper_right.z) {
        (Some(z), Some(lo), Some(hi)) => (lo..=hi).contains(&z),
        _ => true,
    };
    Some(x_inside && y_inside && z_inside)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(entries: &[(&str, Value)]) -> Result<Option<Point>> {
        point_from_map(entries.iter().map(|(k, v)| (*k, v)))
    }

    #[test]
    fn construction_picks_the_crs() {
        let p = point(&[("x", Value::Int(1)), ("y", Value::Float(2.0))])
            .unwrap()
            .unwrap();
        assert_eq!((p.srid, p.x, p.y, p.z), (SRID_CARTESIAN, 1.0, 2.0, None));
        let p = point(&[
            ("longitude", Value::Float(12.0)),
            ("latitude", Value::Float(56.0)),
            ("height", Value::Int(3)),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(p.srid, SRID_WGS84_3D);
        let p = point(&[
            ("x", Value::Int(1)),
            ("y", Value::Int(2)),
            ("crs", Value::from("WGS-84")),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(p.srid, SRID_WGS84);
        let p = point(&[
            ("x", Value::Int(1)),
            ("y", Value::Int(2)),
            ("z", Value::Int(3)),
            ("srid", Value::Int(9157)),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(p.srid, SRID_CARTESIAN_3D);
        assert_eq!(
            point(&[("x", Value::Null), ("y", Value::Int(2))]).unwrap(),
            None
        );
    }

    #[test]
    fn invalid_points_are_errors() {
        assert!(point(&[("x", Value::Int(1))]).is_err());
        assert!(point(&[("x", Value::Int(1)), ("latitude", Value::Int(2))]).is_err());
        assert!(point(&[("longitude", Value::Int(1)), ("latitude", Value::Int(91))]).is_err());
        assert!(
            point(&[
                ("x", Value::Int(1)),
                ("y", Value::Int(2)),
                ("crs", Value::from("mars"))
            ])
            .is_err()
        );
        assert!(
            point(&[
                ("x", Value::Int(1)),
                ("y", Value::Int(2)),
                ("crs", Value::from("cartesian-3d"))
            ])
            .is_err()
        );
        assert!(point(&[("x", Value::from("1")), ("y", Value::Int(2))]).is_err());
        assert!(
            point(&[
                ("x", Value::Int(1)),
                ("y", Value::Int(2)),
                ("w", Value::Int(2))
            ])
            .is_err()
        );
    }

    #[test]
    fn distances() {
        let a = Point {
            srid: SRID_CARTESIAN,
            x: 0.0,
            y: 0.0,
            z: None,
        };
        let b = Point {
            srid: SRID_CARTESIAN,
            x: 3.0,
            y: 4.0,
            z: None,
        };
        assert_eq!(distance(&a, &b), Some(5.0));
        let origin = Point {
            srid: SRID_WGS84,
            x: 0.0,
            y: 0.0,
            z: None,
        };
        let one_degree_east = Point {
            srid: SRID_WGS84,
            x: 1.0,
            y: 0.0,
            z: None,
        };
        let d = distance(&origin, &one_degree_east).unwrap();
        assert!(
            (d - EARTH_RADIUS_METRES * std::f64::consts::PI / 180.0).abs() < 1e-6,
            "{d}"
        );
        let pole = Point {
            srid: SRID_WGS84,
            x: 45.0,
            y: 90.0,
            z: None,
        };
        let quarter = distance(&origin, &pole).unwrap();
        assert!((quarter - EARTH_RADIUS_METRES * std::f64::consts::FRAC_PI_2).abs() < 1e-6);
        let malmo = origin;
        assert_eq!(distance(&a, &malmo), None);
    }

    #[test]
    fn bounding_boxes() {
        let p = |x, y| Point {
            srid: SRID_CARTESIAN,
            x,
            y,
            z: None,
        };
        assert_eq!(
            within_bbox(&p(1.0, 1.0), &p(0.0, 0.0), &p(2.0, 2.0)),
            Some(true)
        );
        assert_eq!(
            within_bbox(&p(3.0, 1.0), &p(0.0, 0.0), &p(2.0, 2.0)),
            Some(false)
        );
        let g = |x, y| Point {
            srid: SRID_WGS84,
            x,
            y,
            z: None,
        };
        assert_eq!(
            within_bbox(&g(179.0, 0.0), &g(170.0, -10.0), &g(-170.0, 10.0)),
            Some(true)
        );
    }

    #[test]
    fn accessors() {
        let g = Point {
            srid: SRID_WGS84,
            x: 12.0,
            y: 56.0,
            z: None,
        };
        assert_eq!(field(&g, "latitude"), Some(Value::Float(56.0)));
        assert_eq!(field(&g, "crs"), Some(Value::from("wgs-84")));
        assert_eq!(field(&g, "srid"), Some(Value::Int(4326)));
        let c = Point {
            srid: SRID_CARTESIAN,
            x: 1.0,
            y: 2.0,
            z: None,
        };
        assert_eq!(field(&c, "latitude"), None);
        assert_eq!(field(&c, "z"), None);
    }
}
