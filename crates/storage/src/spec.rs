//! How indexes and constraints are written down: the definitions by name that DDL gives, redo
//! records and snapshots carry, and the index structures are built from. They depend on
//! values alone, so a record's format can name them without reaching the structures that
//! use them.

use std::fmt;
use std::sync::Arc;

use quiver_value::{CoordinateType, VECTOR_DIMENSION_MAX, Value};

// Vector indexes.

/// The largest `vector.dimensions` an index accepts (Neo4j's limit).
pub const VECTOR_DIMENSIONS_MAX: usize = 4096;
/// The largest `vector.hnsw.m` (Neo4j's limit). Each point keeps up to twice as many links
/// on its base layer, so a large `m` costs more memory a point than a small vector does.
pub const HNSW_M_MAX: usize = 512;
/// The largest `vector.hnsw.ef_construction` (Neo4j's limit).
pub const HNSW_EF_CONSTRUCTION_MAX: usize = 3200;
/// Neo4j's default `vector.hnsw.m`.
pub const HNSW_M_DEFAULT: usize = 16;
/// Neo4j's default `vector.hnsw.ef_construction`.
pub const HNSW_EF_CONSTRUCTION_DEFAULT: usize = 100;
/// The largest `vector.hnsw.ef_search`: a search list past it costs more than comparing a
/// large share of a graph outright.
pub const HNSW_EF_SEARCH_MAX: usize = 10_000;
/// The default `vector.hnsw.ef_search`, the candidate list a search keeps (HNSW's `ef`): below
/// it recall falls quickly. A search for more candidates than this keeps as many as it asks for.
pub const HNSW_EF_SEARCH_DEFAULT: usize = 64;
/// How an index compares vectors; the score of each lies in `[0, 1]`, 1 the most similar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Similarity {
    /// `(1 + cos θ) / 2`
    Cosine,
    /// `1 / (1 + d²)` for the squared Euclidean distance `d²`
    Euclidean,
}

impl Similarity {
    /// The name `SHOW INDEXES` gives, as Neo4j spells it.
    pub fn name(self) -> &'static str {
        match self {
            Similarity::Cosine => "COSINE",
            Similarity::Euclidean => "EUCLIDEAN",
        }
    }

    /// Reads `vector.similarity_function`, in any case.
    pub fn parse(name: &str) -> Option<Similarity> {
        if name.eq_ignore_ascii_case("cosine") {
            Some(Similarity::Cosine)
        } else if name.eq_ignore_ascii_case("euclidean") {
            Some(Similarity::Euclidean)
        } else {
            None
        }
    }

    /// Neo4j's score of two vectors of one length, the same formulas as the
    /// `vector.similarity.*` functions; `None` for a cosine with a zero vector (no direction).
    pub fn score(self, a: &[f64], b: &[f64]) -> Option<f64> {
        let pairs = a.iter().zip(b);
        match self {
            Similarity::Euclidean => {
                let squared: f64 = pairs.map(|(x, y)| (x - y) * (x - y)).sum();
                Some(1.0 / (1.0 + squared))
            }
            Similarity::Cosine => {
                let dot: f64 = pairs.map(|(x, y)| x * y).sum();
                let norms = a.iter().map(|x| x * x).sum::<f64>().sqrt()
                    * b.iter().map(|x| x * x).sum::<f64>().sqrt();
                (norms != 0.0).then(|| f64::midpoint(1.0, (dot / norms).clamp(-1.0, 1.0)))
            }
        }
    }
}

/// A vector index's `indexConfig`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VectorConfig {
    pub dimensions: usize,
    pub similarity: Similarity,
    /// `vector.quantization.enabled`: the graph holds its points in fewer bits (8-bit
    /// integers for cosine, 16-bit brain floats for Euclidean) and a search re-ranks more
    /// candidates by the stored 32-bit vectors; off, the graph holds 32-bit floats.
    pub quantization: bool,
    /// `vector.hnsw.m`: the links each point keeps per layer.
    pub hnsw_m: usize,
    /// `vector.hnsw.ef_construction`: the candidate list an insertion searches.
    pub hnsw_ef_construction: usize,
    /// `vector.hnsw.ef_search`: the candidate list a search keeps, Quiver's own setting.
    /// Recall at a given list falls as the graph grows, so a large index trades speed for
    /// recall here.
    pub hnsw_ef_search: usize,
}

// Full-text indexes.

/// Whether an index covers nodes or relationships.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FulltextEntity {
    Node,
    Relationship,
}

/// A full-text index's definition, by names (as DDL and redo records give it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FulltextSpec {
    pub name: String,
    pub entity: FulltextEntity,
    /// Labels (nodes) or relationship types: an entity with any of them is indexed.
    pub tokens: Vec<Arc<str>>,
    /// Property keys: each is a field of the index.
    pub keys: Vec<Arc<str>>,
    pub analyzer: String,
    /// Kept and shown; every index here is updated at commit either way.
    pub eventually_consistent: bool,
}

impl FulltextEntity {
    pub(crate) fn noun(self) -> &'static str {
        match self {
            FulltextEntity::Node => "nodes",
            FulltextEntity::Relationship => "relationships",
        }
    }
}

// Property existence and type constraints.

/// A type a property may be constrained to: the scalar property types, vectors of one
/// coordinate type and dimension, and lists of one scalar type without nulls (the only lists
/// a property can hold). Ordered as Neo4j orders a union's members when it normalises one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PropertyType {
    Scalar(ScalarType),
    /// `VECTOR<T NOT NULL>(n)`: Neo4j constrains a vector to both, never to one alone. Build it
    /// with [`PropertyType::vector`], which keeps the dimension within a vector's limits.
    Vector {
        coordinate: CoordinateType,
        dimension: u16,
    },
    /// `LIST<T NOT NULL>`.
    List(ScalarType),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ScalarType {
    Boolean,
    String,
    Integer,
    Float,
    Date,
    LocalTime,
    ZonedTime,
    LocalDateTime,
    ZonedDateTime,
    Duration,
    Point,
    /// Neo4j 2026.08's 128-bit identifier, the newest property type: after the others.
    Uuid,
}

impl ScalarType {
    const ALL: [ScalarType; 12] = [
        ScalarType::Boolean,
        ScalarType::String,
        ScalarType::Integer,
        ScalarType::Float,
        ScalarType::Date,
        ScalarType::LocalTime,
        ScalarType::ZonedTime,
        ScalarType::LocalDateTime,
        ScalarType::ZonedDateTime,
        ScalarType::Duration,
        ScalarType::Point,
        ScalarType::Uuid,
    ];

    /// Neo4j's name of the type.
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::Boolean => "BOOLEAN",
            ScalarType::String => "STRING",
            ScalarType::Integer => "INTEGER",
            ScalarType::Float => "FLOAT",
            ScalarType::Date => "DATE",
            ScalarType::LocalTime => "LOCAL TIME",
            ScalarType::ZonedTime => "ZONED TIME",
            ScalarType::LocalDateTime => "LOCAL DATETIME",
            ScalarType::ZonedDateTime => "ZONED DATETIME",
            ScalarType::Duration => "DURATION",
            ScalarType::Point => "POINT",
            ScalarType::Uuid => "UUID",
        }
    }

    fn parse(text: &str) -> Option<ScalarType> {
        ScalarType::ALL.into_iter().find(|t| t.name() == text)
    }

    /// The scalar type of a stored value, if it has one.
    fn of(value: &Value) -> Option<ScalarType> {
        Some(match value {
            Value::Bool(_) => ScalarType::Boolean,
            Value::String(_) => ScalarType::String,
            Value::Int(_) => ScalarType::Integer,
            Value::Float(_) => ScalarType::Float,
            Value::Date(_) => ScalarType::Date,
            Value::LocalTime(_) => ScalarType::LocalTime,
            Value::Time(_) => ScalarType::ZonedTime,
            Value::LocalDateTime(_) => ScalarType::LocalDateTime,
            Value::DateTime(_) => ScalarType::ZonedDateTime,
            Value::Duration(_) => ScalarType::Duration,
            Value::Point(_) => ScalarType::Point,
            Value::Uuid(_) => ScalarType::Uuid,
            _ => return None,
        })
    }
}

impl fmt::Display for PropertyType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PropertyType::Scalar(t) => f.write_str(t.name()),
            PropertyType::Vector {
                coordinate,
                dimension,
            } => f.write_str(&vector_name(*coordinate, usize::from(*dimension))),
            PropertyType::List(t) => write!(f, "LIST<{} NOT NULL>", t.name()),
        }
    }
}

/// A vector type as Neo4j prints it in `SHOW CONSTRAINTS` (`VECTOR<INTEGER32 NOT NULL>(42)`):
/// coordinates are never null, and the type says so.
fn vector_name(coordinate: CoordinateType, dimension: usize) -> String {
    format!("VECTOR<{} NOT NULL>({dimension})", coordinate.name())
}

impl PropertyType {
    /// `VECTOR<coordinate NOT NULL>(dimension)`; `None` for a dimension no vector can have
    /// (0, or past [`VECTOR_DIMENSION_MAX`]).
    pub fn vector(coordinate: CoordinateType, dimension: u64) -> Option<PropertyType> {
        let dimension = u16::try_from(dimension).ok()?;
        let allowed = 1..=VECTOR_DIMENSION_MAX;
        allowed
            .contains(&usize::from(dimension))
            .then_some(PropertyType::Vector {
                coordinate,
                dimension,
            })
    }

    /// Reads one member of [`PropertyTypes`]' printed form.
    fn parse(text: &str) -> Option<PropertyType> {
        if let Some(inner) = text
            .strip_prefix("LIST<")
            .and_then(|r| r.strip_suffix(" NOT NULL>"))
        {
            return Some(PropertyType::List(ScalarType::parse(inner)?));
        }
        if let Some((name, dimension)) = text
            .strip_prefix("VECTOR<")
            .and_then(|r| r.strip_suffix(')'))
            .and_then(|r| r.split_once(" NOT NULL>("))
        {
            let coordinate = CoordinateType::ALL.into_iter().find(|c| c.name() == name)?;
            return PropertyType::vector(coordinate, dimension.parse().ok()?);
        }
        ScalarType::parse(text).map(PropertyType::Scalar)
    }

    /// Whether a stored value belongs to the type. A list is never a vector, whatever its
    /// numbers: a vector type holds `VECTOR` values, as `IS :: VECTOR<...>(n)` does.
    fn accepts(self, value: &Value) -> bool {
        match (self, value) {
            (PropertyType::List(t), Value::List(items)) => {
                items.iter().all(|v| ScalarType::of(v) == Some(t))
            }
            (
                PropertyType::Vector {
                    coordinate,
                    dimension,
                },
                Value::Vector(v),
            ) => v.coordinate_type() == coordinate && v.len() == usize::from(dimension),
            (PropertyType::Scalar(t), v) => ScalarType::of(v) == Some(t),
            _ => false,
        }
    }
}

/// The type of a property type constraint: one type or a closed union of them, sorted and
/// without repeats (so `INTEGER | STRING` and `STRING | INTEGER` are one constraint).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PropertyTypes(Vec<PropertyType>);

impl PropertyTypes {
    /// The union of `members`; `None` when there are none.
    pub fn new(mut members: Vec<PropertyType>) -> Option<Self> {
        members.sort_unstable();
        members.dedup();
        (!members.is_empty()).then_some(PropertyTypes(members))
    }

    pub fn members(&self) -> &[PropertyType] {
        &self.0
    }

    /// Reads [`PropertyTypes`]'s `Display` form back (the redo and snapshot encoding).
    pub fn parse(text: &str) -> Option<Self> {
        let members = text
            .split(" | ")
            .map(PropertyType::parse)
            .collect::<Option<Vec<_>>>()?;
        PropertyTypes::new(members)
    }

    /// Whether a stored (non-null) value belongs to the type.
    pub fn accepts(&self, value: &Value) -> bool {
        self.0.iter().any(|t| t.accepts(value))
    }
}

impl fmt::Display for PropertyTypes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, t) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" | ")?;
            }
            write!(f, "{t}")?;
        }
        Ok(())
    }
}

/// Neo4j's name of a stored value's type, as a type violation reports it.
pub fn stored_type_name(value: &Value) -> String {
    match value {
        Value::List(items) => match items.first() {
            None => "LIST<NOTHING>".to_string(),
            Some(first) => match ScalarType::of(first) {
                Some(t) => format!("LIST<{} NOT NULL>", t.name()),
                None => "LIST<ANY>".to_string(),
            },
        },
        Value::Bytes(_) => "BYTE ARRAY".to_string(),
        Value::Vector(v) => vector_name(v.coordinate_type(), v.len()),
        v => ScalarType::of(v).map_or_else(|| "ANY".to_string(), |t| t.name().to_string()),
    }
}

/// A property existence or property type constraint, by name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PropertyConstraintSpec {
    pub name: String,
    /// Over the relationships of type `token`; else over the nodes with label `token`.
    pub relationship: bool,
    pub token: Arc<str>,
    pub key: Arc<str>,
    /// `IS :: types`; `None` for `IS NOT NULL`.
    pub types: Option<PropertyTypes>,
}

impl PropertyConstraintSpec {
    /// The `type` column of `SHOW CONSTRAINTS`.
    pub fn kind_name(&self) -> &'static str {
        match (self.relationship, self.types.is_some()) {
            (false, false) => "NODE_PROPERTY_EXISTENCE",
            (true, false) => "RELATIONSHIP_PROPERTY_EXISTENCE",
            (false, true) => "NODE_PROPERTY_TYPE",
            (true, true) => "RELATIONSHIP_PROPERTY_TYPE",
        }
    }

    /// The name given to a constraint created without one, in Neo4j's shape.
    pub fn default_name(relationship: bool, token: &str, key: &str, typed: bool) -> String {
        let kind = match (relationship, typed) {
            (false, false) => "node_property_existence",
            (true, false) => "relationship_property_existence",
            (false, true) => "node_property_type",
            (true, true) => "relationship_property_type",
        };
        format!("constraint_{kind}_{token}_{key}")
    }

    /// The statement that creates the constraint (`SHOW CONSTRAINTS`' `createStatement`).
    pub fn create_statement(&self) -> String {
        let quote = |s: &str| format!("`{}`", s.replace('`', "``"));
        let (open, var) = if self.relationship {
            (format!("()-[r:{}]-()", quote(&self.token)), "r")
        } else {
            (format!("(n:{})", quote(&self.token)), "n")
        };
        let require = match &self.types {
            None => "IS NOT NULL".to_string(),
            Some(t) => format!("IS :: {t}"),
        };
        format!(
            "CREATE CONSTRAINT {} FOR {open} REQUIRE ({var}.{}) {require}",
            quote(&self.name),
            quote(&self.key)
        )
    }
}

/// A published constraint: the spec and its token ids.
#[derive(Debug)]
pub(crate) struct PropertyConstraint {
    pub spec: PropertyConstraintSpec,
    pub token: u32,
    pub key: u32,
}

/// The published constraints, replaced whole when one is created or dropped.
pub(crate) type PropertyConstraints = Arc<Vec<Arc<PropertyConstraint>>>;
