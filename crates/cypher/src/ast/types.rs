//! The types of type predicate expressions (`x IS :: INTEGER NOT NULL`), as Neo4j 5 names them.

use std::fmt;

/// A type as written in a type predicate; synonyms (`INT`, `BOOL`, `TIMESTAMP WITH TIME ZONE`,
/// `ANY NODE`, ...) are read into one canonical kind, printed by its Neo4j name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CypherType {
    pub kind: TypeKind,
    /// `NOT NULL`: the type leaves out `null`.
    pub not_null: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    /// Every value, `null` included.
    Any,
    /// No value at all (not even `null`).
    Nothing,
    /// Only `null`.
    Null,
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
    /// A 128-bit identifier (`uuid('...')`), a property type of its own.
    Uuid,
    Node,
    Relationship,
    Map,
    Path,
    /// What a property may hold: a boolean, string, number, temporal value or point, or a
    /// list of one of those types without nulls.
    PropertyValue,
    List(Box<CypherType>),
    /// `VECTOR`, `VECTOR<FLOAT32>`, `VECTOR(3)` or `VECTOR<INTEGER8>(3)`: a vector, of the
    /// coordinate type (by its canonical name, `INTEGER8` ... `INTEGER`, `FLOAT32`, `FLOAT`)
    /// and dimension given, each any when left out.
    Vector {
        coordinate: Option<&'static str>,
        dimension: Option<u32>,
    },
    /// A closed dynamic union, `INTEGER | FLOAT` (also `ANY<INTEGER | FLOAT>`): two or more
    /// members, any one suffices.
    Union(Vec<CypherType>),
}

impl CypherType {
    /// `kind` including `null` (the default in Cypher: every type holds `null` unless it says
    /// `NOT NULL`).
    pub fn nullable(kind: TypeKind) -> Self {
        CypherType {
            kind,
            not_null: false,
        }
    }

    pub fn not_null(mut self, not_null: bool) -> Self {
        self.not_null = not_null;
        self
    }

    /// One member as itself, more as a union.
    pub fn union(mut members: Vec<CypherType>) -> Self {
        if members.len() == 1 {
            members.remove(0)
        } else {
            CypherType::nullable(TypeKind::Union(members))
        }
    }

    /// Whether `null` belongs to the type.
    pub fn accepts_null(&self) -> bool {
        if self.not_null {
            return false;
        }
        match &self.kind {
            TypeKind::Nothing => false,
            TypeKind::Union(members) => members.iter().any(CypherType::accepts_null),
            _ => true,
        }
    }
}

impl TypeKind {
    /// Neo4j's name of a type without arguments.
    fn name(&self) -> &'static str {
        match self {
            TypeKind::Any => "ANY",
            TypeKind::Nothing => "NOTHING",
            TypeKind::Null => "NULL",
            TypeKind::Boolean => "BOOLEAN",
            TypeKind::String => "STRING",
            TypeKind::Integer => "INTEGER",
            TypeKind::Float => "FLOAT",
            TypeKind::Date => "DATE",
            TypeKind::LocalTime => "LOCAL TIME",
            TypeKind::ZonedTime => "ZONED TIME",
            TypeKind::LocalDateTime => "LOCAL DATETIME",
            TypeKind::ZonedDateTime => "ZONED DATETIME",
            TypeKind::Duration => "DURATION",
            TypeKind::Point => "POINT",
            TypeKind::Uuid => "UUID",
            TypeKind::Node => "NODE",
            TypeKind::Relationship => "RELATIONSHIP",
            TypeKind::Map => "MAP",
            TypeKind::Path => "PATH",
            TypeKind::PropertyValue => "PROPERTY VALUE",
            TypeKind::List(_) => "LIST",
            TypeKind::Vector { .. } => "VECTOR",
            TypeKind::Union(_) => "ANY",
        }
    }
}

impl fmt::Display for CypherType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            TypeKind::List(inner) => write!(f, "LIST<{inner}>")?,
            TypeKind::Vector {
                coordinate,
                dimension,
            } => {
                f.write_str("VECTOR")?;
                if let Some(coordinate) = coordinate {
                    write!(f, "<{coordinate}>")?;
                }
                if let Some(dimension) = dimension {
                    write!(f, "({dimension})")?;
                }
            }
            // Printed in the `ANY<...>` form, whose `|` cannot end a comprehension's filter.
            TypeKind::Union(members) => {
                f.write_str("ANY<")?;
                for (i, member) in members.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" | ")?;
                    }
                    write!(f, "{member}")?;
                }
                f.write_str(">")?;
            }
            kind => f.write_str(kind.name())?,
        }
        if self.not_null {
            f.write_str(" NOT NULL")?;
        }
        Ok(())
    }
}

/// The canonical name of a vector coordinate type written in a type (`INT8` is `INTEGER8`,
/// `FLOAT64` is `FLOAT`), as `valueType()` prints it; `None` for a name that is not one.
pub fn vector_coordinate_name(written: &str) -> Option<&'static str> {
    const NAMES: [(&str, &str); 13] = [
        ("INTEGER8", "INTEGER8"),
        ("INT8", "INTEGER8"),
        ("INTEGER16", "INTEGER16"),
        ("INT16", "INTEGER16"),
        ("INTEGER32", "INTEGER32"),
        ("INT32", "INTEGER32"),
        ("INTEGER64", "INTEGER"),
        ("INT64", "INTEGER"),
        ("INTEGER", "INTEGER"),
        ("INT", "INTEGER"),
        ("FLOAT32", "FLOAT32"),
        ("FLOAT64", "FLOAT"),
        ("FLOAT", "FLOAT"),
    ];
    NAMES
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(written))
        .map(|(_, canonical)| *canonical)
}
