//! Spatial points.

/// Coordinate reference systems Cypher knows, by SRID.
pub const SRID_CARTESIAN: u32 = 7203;
pub const SRID_CARTESIAN_3D: u32 = 9157;
pub const SRID_WGS84: u32 = 4326;
pub const SRID_WGS84_3D: u32 = 4979;

/// A 2D or 3D point. For WGS-84, `x` is longitude and `y` latitude (degrees), `z` height (metres).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub srid: u32,
    pub x: f64,
    pub y: f64,
    pub z: Option<f64>,
}
