//! Quiver's value model: every value Cypher computes, the store holds, and Bolt or HTTP carries.
//!
//! One enum for all layers keeps conversions out of hot paths. Graph entities are carried as
//! ids with optionally materialised data (see [`graph`]): the executor moves ids around, and only
//! values that leave the server are filled in with labels and properties.

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
mod value;

pub use compare::{Comparison, compare, comparison, equals, equivalent, order};
pub use display::{to_cypher_literal, to_string_cypher};
pub use error::{ErrorClass, ErrorDetail, ValueError};
pub use functions::{Function, FunctionContext, call, lookup};
pub use graph::{Node, NodeData, Path, RelData, Relationship};
pub use hash_key::HashKey;
pub use property::property;
pub use spatial::Point;
pub use temporal::{Date, DateTime, Duration, LocalDateTime, LocalTime, Time, TimeZone};
pub use value::{Map, Value, ValueType};
