//! Spatial functions: `point`, `point.distance` and `point.withinBBox`.

use super::{FunctionContext, arg, bad_argument};
use crate::error::Result;
use crate::spatial::{self, Point};
use crate::value::Value;

fn point_arg<'a>(function: &str, v: &'a Value) -> Result<Option<&'a Point>> {
    match v {
        Value::Null => Ok(None),
        Value::Point(p) => Ok(Some(p)),
        other => Err(bad_argument(function, "a Point", other)),
    }
}

/// `point({x, y[, z][, crs|srid]})` or `point({longitude, latitude[, height]})`.
pub fn point(args: &[Value], _: &FunctionContext) -> Result<Value> {
    match arg(args, 0) {
        Value::Null => Ok(Value::Null),
        Value::Map(map) => Ok(spatial::point_from_map(map.iter().map(|(k, v)| (&**k, v)))?
            .map_or(Value::Null, |p| Value::Point(Box::new(p)))),
        other => Err(bad_argument("point", "a Map", other)),
    }
}

/// `point.distance(a, b)`: `null` for points in different coordinate systems.
pub fn distance(args: &[Value], _: &FunctionContext) -> Result<Value> {
    let a = point_arg("point.distance", arg(args, 0))?;
    let b = point_arg("point.distance", arg(args, 1))?;
    Ok(match (a, b) {
        (Some(a), Some(b)) => spatial::distance(a, b).map_or(Value::Null, Value::Float),
        _ => Value::Null,
    })
}

/// `point.withinBBox(point, lowerLeft, upperRight)`.
pub fn within_bbox(args: &[Value], _: &FunctionContext) -> Result<Value> {
    let p = point_arg("point.withinBBox", arg(args, 0))?;
    let lower = point_arg("point.withinBBox", arg(args, 1))?;
    let upper = point_arg("point.withinBBox", arg(args, 2))?;
    Ok(match (p, lower, upper) {
        (Some(p), Some(l), Some(u)) => {
            spatial::within_bbox(p, l, u).map_or(Value::Null, Value::Bool)
        }
        _ => Value::Null,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::functions::call;

    fn point_value(x: f64, y: f64, crs: &str) -> Value {
        let map = [
            (Arc::from("x"), Value::Float(x)),
            (Arc::from("y"), Value::Float(y)),
            (Arc::from("crs"), Value::from(crs)),
        ];
        call(
            "point",
            &[Value::map(map.into_iter().collect())],
            &FunctionContext::new(),
        )
        .unwrap()
    }

    #[test]
    fn distances_through_the_registry() {
        let ctx = FunctionContext::new();
        let a = point_value(0.0, 0.0, "cartesian");
        let b = point_value(3.0, 4.0, "cartesian");
        assert_eq!(
            call("point.distance", &[a.clone(), b.clone()], &ctx).unwrap(),
            Value::Float(5.0)
        );
        assert_eq!(
            call("distance", &[a.clone(), Value::Null], &ctx).unwrap(),
            Value::Null
        );
        let g = point_value(0.0, 0.0, "wgs-84");
        assert_eq!(
            call("point.distance", &[a.clone(), g], &ctx).unwrap(),
            Value::Null
        );
        assert_eq!(
            call("point.withinBBox", &[a.clone(), a.clone(), b], &ctx).unwrap(),
            Value::Bool(true)
        );
        assert!(call("point", &[Value::Int(1)], &ctx).is_err());
        assert!(call("point.distance", &[a, Value::Int(1)], &ctx).is_err());
    }
}
