//! Cypher's `VECTOR`: a fixed-length run of numbers of one coordinate type, stored and carried
//! as a unit (Bolt 6's Vector structure, a property, a parameter).
//!
//! A vector keeps its coordinates in their own width (`INTEGER8` takes one byte each,
//! `FLOAT32` four), so an embedding of 768 floats costs 3 KiB, not the 18 KiB of a list of
//! values. Reading one coordinate gives a Cypher `INTEGER` or `FLOAT`.

use std::fmt;

use crate::value::Value;

/// The most coordinates `vector()` builds, as Neo4j limits it.
pub const VECTOR_DIMENSION_MAX: usize = 4096;

/// The type of a vector's coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CoordinateType {
    Int8,
    Int16,
    Int32,
    Int64,
    Float32,
    Float64,
}

impl CoordinateType {
    pub const ALL: [CoordinateType; 6] = [
        CoordinateType::Int8,
        CoordinateType::Int16,
        CoordinateType::Int32,
        CoordinateType::Int64,
        CoordinateType::Float32,
        CoordinateType::Float64,
    ];

    /// The name Cypher gives the type (its default name, as `valueType()` shows it).
    pub fn name(self) -> &'static str {
        match self {
            CoordinateType::Int8 => "INTEGER8",
            CoordinateType::Int16 => "INTEGER16",
            CoordinateType::Int32 => "INTEGER32",
            CoordinateType::Int64 => "INTEGER",
            CoordinateType::Float32 => "FLOAT32",
            CoordinateType::Float64 => "FLOAT",
        }
    }

    /// Resolves a type name or one of its aliases, ignoring case and repeated spaces
    /// (`FLOAT64`, `INT8`, `SIGNED INTEGER`).
    pub fn parse(name: &str) -> Option<CoordinateType> {
        let words: Vec<String> = name
            .split_whitespace()
            .map(str::to_ascii_uppercase)
            .collect();
        Some(match words.join(" ").as_str() {
            "INTEGER8" | "INT8" => CoordinateType::Int8,
            "INTEGER16" | "INT16" => CoordinateType::Int16,
            "INTEGER32" | "INT32" => CoordinateType::Int32,
            "INTEGER" | "INT" | "INTEGER64" | "INT64" | "SIGNED INTEGER" => CoordinateType::Int64,
            "FLOAT32" => CoordinateType::Float32,
            "FLOAT" | "FLOAT64" => CoordinateType::Float64,
            _ => return None,
        })
    }

    /// Bytes per coordinate.
    pub fn width_bytes(self) -> usize {
        match self {
            CoordinateType::Int8 => 1,
            CoordinateType::Int16 => 2,
            CoordinateType::Int32 | CoordinateType::Float32 => 4,
            CoordinateType::Int64 | CoordinateType::Float64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, CoordinateType::Float32 | CoordinateType::Float64)
    }

    /// A one-byte code for storage encodings (stable: never renumber).
    pub fn code(self) -> u8 {
        match self {
            CoordinateType::Int8 => 0,
            CoordinateType::Int16 => 1,
            CoordinateType::Int32 => 2,
            CoordinateType::Int64 => 3,
            CoordinateType::Float32 => 4,
            CoordinateType::Float64 => 5,
        }
    }

    pub fn from_code(code: u8) -> Option<CoordinateType> {
        CoordinateType::ALL.get(usize::from(code)).copied()
    }
}

impl fmt::Display for CoordinateType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A vector's coordinates, each in its type's own width.
#[derive(Clone, Debug)]
pub enum Vector {
    Int8(Box<[i8]>),
    Int16(Box<[i16]>),
    Int32(Box<[i32]>),
    Int64(Box<[i64]>),
    Float32(Box<[f32]>),
    Float64(Box<[f64]>),
}

/// Why a vector could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VectorError {
    /// A coordinate is not a number (or is `null`).
    NotANumber { index: usize, type_name: String },
    /// `NaN` or an infinity: not allowed as a coordinate.
    NotFinite { index: usize },
    /// An integer coordinate does not fit the integer coordinate type.
    OutOfRange {
        index: usize,
        coordinate_type: CoordinateType,
    },
    /// Bytes whose length is not a whole number of coordinates.
    RaggedBytes {
        len: usize,
        coordinate_type: CoordinateType,
    },
    /// A vector's text that is not `[n, n, ...]`.
    BadText,
}

impl fmt::Display for VectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VectorError::NotANumber { index, type_name } => write!(
                f,
                "a vector's coordinates are numbers, but coordinate {index} is {type_name}"
            ),
            VectorError::NotFinite { index } => write!(
                f,
                "a vector's coordinates are finite numbers, but coordinate {index} is not"
            ),
            VectorError::OutOfRange {
                index,
                coordinate_type,
            } => write!(f, "coordinate {index} does not fit in {coordinate_type}"),
            VectorError::RaggedBytes {
                len,
                coordinate_type,
            } => write!(
                f,
                "{len} bytes are not a whole number of {coordinate_type} coordinates"
            ),
            VectorError::BadText => f.write_str(
                "a vector's text is comma-separated numbers in square brackets, like [1, 2.5]",
            ),
        }
    }
}

impl std::error::Error for VectorError {}

impl Vector {
    pub fn coordinate_type(&self) -> CoordinateType {
        match self {
            Vector::Int8(_) => CoordinateType::Int8,
            Vector::Int16(_) => CoordinateType::Int16,
            Vector::Int32(_) => CoordinateType::Int32,
            Vector::Int64(_) => CoordinateType::Int64,
            Vector::Float32(_) => CoordinateType::Float32,
            Vector::Float64(_) => CoordinateType::Float64,
        }
    }

    /// The dimension: how many coordinates.
    pub fn len(&self) -> usize {
        match self {
            Vector::Int8(c) => c.len(),
            Vector::Int16(c) => c.len(),
            Vector::Int32(c) => c.len(),
            Vector::Int64(c) => c.len(),
            Vector::Float32(c) => c.len(),
            Vector::Float64(c) => c.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Coordinate `i` as a Cypher value: an `INTEGER` or a `FLOAT`.
    pub fn get(&self, i: usize) -> Option<Value> {
        Some(match self {
            Vector::Int8(c) => Value::Int(i64::from(*c.get(i)?)),
            Vector::Int16(c) => Value::Int(i64::from(*c.get(i)?)),
            Vector::Int32(c) => Value::Int(i64::from(*c.get(i)?)),
            Vector::Int64(c) => Value::Int(*c.get(i)?),
            Vector::Float32(c) => Value::Float(f64::from(*c.get(i)?)),
            Vector::Float64(c) => Value::Float(*c.get(i)?),
        })
    }

    /// Every coordinate as a Cypher value, in order.
    pub fn values(&self) -> impl Iterator<Item = Value> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// Coordinate `i` as a float (integers exactly up to 2^53).
    pub fn get_f64(&self, i: usize) -> Option<f64> {
        Some(match self {
            Vector::Int8(c) => f64::from(*c.get(i)?),
            Vector::Int16(c) => f64::from(*c.get(i)?),
            Vector::Int32(c) => f64::from(*c.get(i)?),
            Vector::Int64(c) => *c.get(i)? as f64,
            Vector::Float32(c) => f64::from(*c.get(i)?),
            Vector::Float64(c) => *c.get(i)?,
        })
    }

    pub fn to_f64_vec(&self) -> Vec<f64> {
        (0..self.len()).filter_map(|i| self.get_f64(i)).collect()
    }

    /// The coordinates as `f32` (the precision vector indexes keep); wider values are rounded.
    pub fn to_f32_vec(&self) -> Vec<f32> {
        match self {
            Vector::Float32(c) => c.to_vec(),
            other => other.to_f64_vec().into_iter().map(|x| x as f32).collect(),
        }
    }

    /// Builds a vector of `coordinate_type` from Cypher values, coercing each number to the
    /// type (floats to integers by truncation toward zero, wide floats to `FLOAT32` by
    /// rounding, as Neo4j's lossy coercion does). Integers that do not fit an integer type, NaN,
    /// infinities, `null` and non-numbers are refused.
    pub fn from_values(
        values: &[Value],
        coordinate_type: CoordinateType,
    ) -> Result<Vector, VectorError> {
        let mut numbers = Vec::with_capacity(values.len());
        for (index, v) in values.iter().enumerate() {
            let n = match v {
                Value::Int(i) => Number::Int(*i),
                Value::Float(f) if f.is_finite() => Number::Float(*f),
                Value::Float(_) => return Err(VectorError::NotFinite { index }),
                other => {
                    return Err(VectorError::NotANumber {
                        index,
                        type_name: other.value_type().name().to_owned(),
                    });
                }
            };
            numbers.push(n);
        }
        Vector::from_numbers(&numbers, coordinate_type)
    }

    /// Parses `[1, -2.5, 3e2]` (decimal or scientific numbers, commas between, brackets around).
    pub fn parse_text(text: &str, coordinate_type: CoordinateType) -> Result<Vector, VectorError> {
        let inner = text
            .trim()
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .ok_or(VectorError::BadText)?;
        let mut numbers = Vec::new();
        if !inner.trim().is_empty() {
            for (index, part) in inner.split(',').enumerate() {
                let part = part.trim();
                let n = if let Ok(i) = part.parse::<i64>() {
                    Number::Int(i)
                } else {
                    let lower = part.to_ascii_lowercase();
                    // Rust's parser takes "inf" and "nan"; Cypher's numbers do not.
                    if lower.contains("inf") || lower.contains("nan") || part.is_empty() {
                        return Err(VectorError::BadText);
                    }
                    let f: f64 = part.parse().map_err(|_| VectorError::BadText)?;
                    if !f.is_finite() {
                        return Err(VectorError::NotFinite { index });
                    }
                    Number::Float(f)
                };
                numbers.push(n);
            }
        }
        Vector::from_numbers(&numbers, coordinate_type)
    }

    fn from_numbers(
        numbers: &[Number],
        coordinate_type: CoordinateType,
    ) -> Result<Vector, VectorError> {
        let int = |index: usize, n: Number| -> Result<i64, VectorError> {
            match n {
                Number::Int(i) => Ok(i),
                // Truncation toward zero; out of i64 range fails below.
                Number::Float(f) if f >= i64::MIN as f64 && f < -(i64::MIN as f64) => Ok(f as i64),
                Number::Float(_) => Err(VectorError::OutOfRange {
                    index,
                    coordinate_type,
                }),
            }
        };
        let out_of_range = |index: usize| VectorError::OutOfRange {
            index,
            coordinate_type,
        };
        let enumerate = numbers.iter().copied().enumerate();
        Ok(match coordinate_type {
            CoordinateType::Int8 => Vector::Int8(
                enumerate
                    .map(|(i, n)| i8::try_from(int(i, n)?).map_err(|_| out_of_range(i)))
                    .collect::<Result<_, _>>()?,
            ),
            CoordinateType::Int16 => Vector::Int16(
                enumerate
                    .map(|(i, n)| i16::try_from(int(i, n)?).map_err(|_| out_of_range(i)))
                    .collect::<Result<_, _>>()?,
            ),
            CoordinateType::Int32 => Vector::Int32(
                enumerate
                    .map(|(i, n)| i32::try_from(int(i, n)?).map_err(|_| out_of_range(i)))
                    .collect::<Result<_, _>>()?,
            ),
            CoordinateType::Int64 => Vector::Int64(
                enumerate
                    .map(|(i, n)| int(i, n))
                    .collect::<Result<_, _>>()?,
            ),
            CoordinateType::Float32 => {
                Vector::Float32(numbers.iter().map(|n| n.as_f64() as f32).collect())
            }
            CoordinateType::Float64 => {
                Vector::Float64(numbers.iter().copied().map(Number::as_f64).collect())
            }
        })
    }

    /// The coordinates as big-endian bytes, as Bolt's Vector structure carries them.
    pub fn to_be_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len() * self.coordinate_type().width_bytes());
        self.write_be_bytes(&mut out);
        out
    }

    /// Appends the coordinates as big-endian bytes.
    pub fn write_be_bytes(&self, out: &mut Vec<u8>) {
        match self {
            Vector::Int8(c) => out.extend(c.iter().flat_map(|x| x.to_be_bytes())),
            Vector::Int16(c) => out.extend(c.iter().flat_map(|x| x.to_be_bytes())),
            Vector::Int32(c) => out.extend(c.iter().flat_map(|x| x.to_be_bytes())),
            Vector::Int64(c) => out.extend(c.iter().flat_map(|x| x.to_be_bytes())),
            Vector::Float32(c) => out.extend(c.iter().flat_map(|x| x.to_be_bytes())),
            Vector::Float64(c) => out.extend(c.iter().flat_map(|x| x.to_be_bytes())),
        }
    }

    /// Reads big-endian coordinates of `coordinate_type`; the length must be a whole number
    /// of coordinates. Any bit pattern is accepted (a float may be NaN: the wire carries what
    /// the client sent).
    pub fn from_be_bytes(
        coordinate_type: CoordinateType,
        bytes: &[u8],
    ) -> Result<Vector, VectorError> {
        let width = coordinate_type.width_bytes();
        if !bytes.len().is_multiple_of(width) {
            return Err(VectorError::RaggedBytes {
                len: bytes.len(),
                coordinate_type,
            });
        }
        fn read<const N: usize, T>(bytes: &[u8], f: impl Fn([u8; N]) -> T) -> Box<[T]> {
            bytes
                .chunks_exact(N)
                .map(|c| {
                    let mut a = [0u8; N];
                    a.copy_from_slice(c);
                    f(a)
                })
                .collect()
        }
        Ok(match coordinate_type {
            CoordinateType::Int8 => Vector::Int8(read(bytes, i8::from_be_bytes)),
            CoordinateType::Int16 => Vector::Int16(read(bytes, i16::from_be_bytes)),
            CoordinateType::Int32 => Vector::Int32(read(bytes, i32::from_be_bytes)),
            CoordinateType::Int64 => Vector::Int64(read(bytes, i64::from_be_bytes)),
            CoordinateType::Float32 => Vector::Float32(read(bytes, f32::from_be_bytes)),
            CoordinateType::Float64 => Vector::Float64(read(bytes, f64::from_be_bytes)),
        })
    }

    /// Heap bytes the coordinates take.
    pub fn heap_bytes(&self) -> usize {
        self.len() * self.coordinate_type().width_bytes()
    }

    /// Same coordinate type and the same coordinates, bit for bit for floats except that
    /// `0.0` and `-0.0` are one coordinate (the structural equality of `Value`'s `PartialEq`;
    /// NaN equals NaN).
    pub fn same(&self, other: &Vector) -> bool {
        match (self, other) {
            (Vector::Float32(a), Vector::Float32(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b.iter())
                        .all(|(x, y)| x == y || (x.is_nan() && y.is_nan()))
            }
            (Vector::Float64(a), Vector::Float64(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b.iter())
                        .all(|(x, y)| x == y || (x.is_nan() && y.is_nan()))
            }
            (Vector::Int8(a), Vector::Int8(b)) => a == b,
            (Vector::Int16(a), Vector::Int16(b)) => a == b,
            (Vector::Int32(a), Vector::Int32(b)) => a == b,
            (Vector::Int64(a), Vector::Int64(b)) => a == b,
            _ => false,
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Number {
    Int(i64),
    Float(f64),
}

impl Number {
    fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(f) => f,
        }
    }
}

impl Value {
    /// A vector value of these coordinates.
    pub fn vector(v: Vector) -> Value {
        Value::Vector(std::sync::Arc::new(v))
    }

    /// The elements of a vector, or of a list of numbers, as `f32`: the one conversion vector
    /// indexes read embeddings through, so a `VECTOR` property and a `LIST<FLOAT>` property
    /// index alike. `None` for anything else (a list holding a non-number or `null` too).
    pub fn as_f32_vector(&self) -> Option<Vec<f32>> {
        match self {
            Value::Vector(v) => Some(v.to_f32_vec()),
            Value::List(items) => items
                .iter()
                .map(|item| match item {
                    Value::Int(i) => Some(*i as f32),
                    Value::Float(f) => Some(*f as f32),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    }

    /// As [`Value::as_f32_vector`], in `f64`.
    pub fn as_f64_vector(&self) -> Option<Vec<f64>> {
        match self {
            Value::Vector(v) => Some(v.to_f64_vec()),
            Value::List(items) => items
                .iter()
                .map(|item| match item {
                    Value::Int(i) => Some(*i as f64),
                    Value::Float(f) => Some(*f),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinate_type_names_and_aliases() {
        assert_eq!(
            CoordinateType::parse("float32"),
            Some(CoordinateType::Float32)
        );
        assert_eq!(
            CoordinateType::parse("FLOAT64"),
            Some(CoordinateType::Float64)
        );
        assert_eq!(
            CoordinateType::parse("Signed  Integer"),
            Some(CoordinateType::Int64)
        );
        assert_eq!(CoordinateType::parse("INT8"), Some(CoordinateType::Int8));
        assert_eq!(CoordinateType::parse("FLOAT16"), None);
        for t in CoordinateType::ALL {
            assert_eq!(CoordinateType::parse(t.name()), Some(t));
            assert_eq!(CoordinateType::from_code(t.code()), Some(t));
        }
    }

    #[test]
    fn builds_with_coercion_and_refuses_what_does_not_fit() {
        let v =
            Vector::from_values(&[Value::Int(1), Value::Float(2.9)], CoordinateType::Int8).unwrap();
        assert_eq!(
            v.values().collect::<Vec<_>>(),
            [Value::Int(1), Value::Int(2)]
        );
        let f = Vector::from_values(&[Value::Int(3)], CoordinateType::Float32).unwrap();
        assert_eq!(f.get(0), Some(Value::Float(3.0)));
        assert!(matches!(
            Vector::from_values(&[Value::Int(300)], CoordinateType::Int8),
            Err(VectorError::OutOfRange { index: 0, .. })
        ));
        assert!(matches!(
            Vector::from_values(&[Value::Float(f64::NAN)], CoordinateType::Float64),
            Err(VectorError::NotFinite { index: 0 })
        ));
        assert!(matches!(
            Vector::from_values(&[Value::Int(1), Value::Null], CoordinateType::Float64),
            Err(VectorError::NotANumber { index: 1, .. })
        ));
    }

    #[test]
    fn parses_text() {
        let v = Vector::parse_text("[1, -2.5, 3e2]", CoordinateType::Float64).unwrap();
        assert_eq!(v.to_f64_vec(), [1.0, -2.5, 300.0]);
        assert!(Vector::parse_text("1, 2", CoordinateType::Float64).is_err());
        assert!(Vector::parse_text("[1, inf]", CoordinateType::Float64).is_err());
        assert!(Vector::parse_text("[1,,2]", CoordinateType::Float64).is_err());
    }

    #[test]
    fn big_endian_bytes_round_trip() {
        let v = Vector::Int16(vec![1, -2, 300].into());
        assert_eq!(v.to_be_bytes(), [0, 1, 0xFF, 0xFE, 0x01, 0x2C]);
        for t in CoordinateType::ALL {
            let v =
                Vector::from_values(&[Value::Int(1), Value::Int(-7), Value::Int(100)], t).unwrap();
            let back = Vector::from_be_bytes(t, &v.to_be_bytes()).unwrap();
            assert!(back.same(&v), "{t}");
        }
        assert!(Vector::from_be_bytes(CoordinateType::Int32, &[0, 0, 1]).is_err());
    }

    #[test]
    fn index_conversion_reads_vectors_and_numeric_lists() {
        let v = Value::vector(Vector::Float32(vec![0.5, 1.0].into()));
        assert_eq!(v.as_f32_vector(), Some(vec![0.5, 1.0]));
        let l = Value::from(vec![Value::Int(1), Value::Float(0.25)]);
        assert_eq!(l.as_f64_vector(), Some(vec![1.0, 0.25]));
        assert_eq!(Value::from(vec![Value::from("x")]).as_f32_vector(), None);
        assert_eq!(Value::Int(1).as_f32_vector(), None);
    }
}
