//! Quiver's value model: every value Cypher computes, the store holds, and Bolt or HTTP carries.
//!
//! One enum for all layers keeps conversions out of hot paths. Graph entities are carried as
//! ids with optionally materialised data (see [`graph`]): the executor moves ids around, and only
//! values that leave the server are filled in with labels and properties.
//!
//! This crate is also the single home of Cypher's value semantics, as pure functions the
//! engine calls while evaluating expressions:
//! - [`mod@compare`]: ternary `=` ([`equals`]), the `<`-family ([`comparison`], [`compare::less_than`]
//!   and friends), the total order of `ORDER BY` ([`order`]) and the equivalence of `DISTINCT`
//!   ([`equivalent`], hashed by [`HashKey`]);
//! - [`ops`]: arithmetic, three-valued logic, `IN`, string predicates, indexing and slicing;
//! - [`functions`]: the scalar function library, resolved by name ([`lookup`], [`call`]);
//! - [`mod@property`]: `value.key` for maps, temporals, durations and points;
//! - [`temporal`] and [`spatial`]: construction, parsing, formatting and arithmetic of
//!   temporal values and points;
//! - [`mod@vector`]: the `VECTOR` type's coordinates, coercion and byte encoding;
//! - [`mod@uuid`]: the `UUID` type's bytes, text form and construction;
//! - [`display`]: `toString()` text ([`to_string_cypher`]) and TCK-style literals.
//!
//! Every failure is a [`ValueError`] whose class maps to a Neo4j status code; no input panics.

pub mod compare;
pub mod display;
pub mod error;
pub mod functions;
pub mod graph;
pub mod hash_key;
pub mod ops;
pub mod property;
pub mod spatial;
pub mod temporal;
pub mod uuid;
mod value;
pub mod vector;

pub use compare::{Comparison, compare, comparison, equals, equivalent, order};
pub use display::{to_cypher_literal, to_string_cypher};
pub use error::{ErrorClass, ErrorDetail, ValueError};
pub use functions::{Function, FunctionContext, call, lookup};
pub use graph::{Node, NodeData, Path, RelData, Relationship};
pub use hash_key::HashKey;
pub use property::property;
pub use spatial::Point;
pub use temporal::{Date, DateTime, Duration, LocalDateTime, LocalTime, Time, TimeZone};
pub use uuid::{UUID_BYTES, Uuid, UuidError};
pub use value::{Map, Value, ValueType};
pub use vector::{CoordinateType, VECTOR_DIMENSION_MAX, Vector, VectorError};
