//! Planning property existence (`IS NOT NULL`) and property type (`IS :: type`) constraints.
//!
//! Storage owns their meaning and their check (see `quiver_storage::PropertyConstraintSpec`;
//! like Neo4j, the check runs when the transaction commits). Here the Cypher type is read into
//! the closed set of types Neo4j allows a property type constraint: the property types
//! (`BOOLEAN`, `STRING`, `INTEGER`, `FLOAT`, `DATE`, `LOCAL TIME`, `ZONED TIME`,
//! `LOCAL DATETIME`, `ZONED DATETIME`, `DURATION`, `POINT`, `UUID`), vectors of a coordinate
//! type and a dimension (`VECTOR<FLOAT32>(3)`, Neo4j 2025.10), lists of one property type
//! other than a vector without nulls (`LIST<INTEGER NOT NULL>`), and closed unions of those.
//! Any other type fails by name, as in Neo4j; so does a vector type that leaves out its
//! coordinate type or its dimension, or whose dimension no vector can have.

use std::sync::Arc;

use quiver_cypher::ast::{self, CypherType, TypeKind};
use quiver_cypher::{Detail, Status};
use quiver_storage::{PropertyConstraintSpec, PropertyType, PropertyTypes, ScalarType};
use quiver_value::{CoordinateType, VECTOR_DIMENSION_MAX};

use super::clauses::{Planner, Result};
use crate::ir::Command;

fn scalar(kind: &TypeKind) -> Option<ScalarType> {
    Some(match kind {
        TypeKind::Boolean => ScalarType::Boolean,
        TypeKind::String => ScalarType::String,
        TypeKind::Integer => ScalarType::Integer,
        TypeKind::Float => ScalarType::Float,
        TypeKind::Date => ScalarType::Date,
        TypeKind::LocalTime => ScalarType::LocalTime,
        TypeKind::ZonedTime => ScalarType::ZonedTime,
        TypeKind::LocalDateTime => ScalarType::LocalDateTime,
        TypeKind::ZonedDateTime => ScalarType::ZonedDateTime,
        TypeKind::Duration => ScalarType::Duration,
        TypeKind::Point => ScalarType::Point,
        TypeKind::Uuid => ScalarType::Uuid,
        _ => return None,
    })
}

/// Why a constraint's type is refused: the sentence after `Failed to create ... constraint: `.
fn invalid(ty: &CypherType, why: &str) -> String {
    format!("Invalid property type `{ty}`.{why}")
}

/// One member of a constraint's type, or why Neo4j does not allow it there.
fn member(ty: &CypherType) -> std::result::Result<PropertyType, String> {
    if ty.not_null {
        // A property is absent or holds a value; `NOT NULL` is an existence constraint's
        // business, which Neo4j keeps apart.
        return Err(invalid(ty, ""));
    }
    let allowed = match &ty.kind {
        TypeKind::List(inner) if inner.not_null => scalar(&inner.kind).map(PropertyType::List),
        TypeKind::Vector {
            coordinate,
            dimension,
        } => return vector(ty, *coordinate, *dimension),
        kind => scalar(kind).map(PropertyType::Scalar),
    };
    allowed.ok_or_else(|| invalid(ty, ""))
}

/// `VECTOR<coordinate>(dimension)`: Neo4j requires both in a constraint (GQL status 22NBA),
/// since a stored vector always has both, and a dimension a vector can have (22NBE).
fn vector(
    ty: &CypherType,
    coordinate: Option<&str>,
    dimension: Option<u32>,
) -> std::result::Result<PropertyType, String> {
    let (Some(coordinate), Some(dimension)) = (coordinate, dimension) else {
        return Err(invalid(
            ty,
            " Property type constraints for vectors need to define both coordinate type and dimension.",
        ));
    };
    let coordinate = CoordinateType::parse(coordinate).ok_or_else(|| invalid(ty, ""))?;
    PropertyType::vector(coordinate, u64::from(dimension)).ok_or_else(|| {
        invalid(
            ty,
            &format!(
                " The number of vector dimensions must be between 1 and {VECTOR_DIMENSION_MAX}, \
                 but is {dimension}."
            ),
        )
    })
}

/// The storage form of a constraint's type, or why Neo4j refuses the first member it does
/// not allow.
pub(crate) fn property_types(ty: &CypherType) -> std::result::Result<PropertyTypes, String> {
    let members: Vec<&CypherType> = match &ty.kind {
        TypeKind::Union(members) if !ty.not_null => members.iter().collect(),
        _ => vec![ty],
    };
    let mut out = Vec::with_capacity(members.len());
    for m in members {
        out.push(member(m)?);
    }
    PropertyTypes::new(out).ok_or_else(|| invalid(ty, ""))
}

impl Planner<'_> {
    /// `CREATE CONSTRAINT ... REQUIRE x.p IS NOT NULL` or `... IS :: type`.
    pub(super) fn property_constraint(&mut self, c: &ast::CreateConstraint) -> Result<Command> {
        let entity = &c.entity;
        let what = match (entity.relationship, c.kind) {
            (false, ast::ConstraintKind::NotNull) => "node property existence",
            (true, ast::ConstraintKind::NotNull) => "relationship property existence",
            (false, _) => "node property type",
            (true, _) => "relationship property type",
        };
        if c.properties.len() != 1 {
            return Err(self.err(
                Status::SyntaxError,
                Detail::UnexpectedSyntax,
                format!("Constraint type '{what}' does not allow multiple properties"),
                entity.label.span,
            ));
        }
        if let Some(options) = &c.options {
            return Err(self.err(
                Status::SyntaxError,
                Detail::UnexpectedSyntax,
                format!("Failed to create {what} constraint: `OPTIONS` cannot be used together with this command."),
                options.span,
            ));
        }
        let types = match (&c.property_type, c.kind) {
            (Some(ty), ast::ConstraintKind::Typed) => Some(property_types(ty).map_err(|why| {
                self.err(
                    Status::SyntaxError,
                    Detail::UnexpectedSyntax,
                    format!("Failed to create {what} constraint: {why}"),
                    entity.label.span,
                )
            })?),
            _ => None,
        };
        let token: Arc<str> = Arc::from(entity.label.name.as_str());
        let key: Arc<str> = Arc::from(c.properties[0].name.as_str());
        let name = PropertyConstraintSpec::default_name(
            entity.relationship,
            &token,
            &key,
            types.is_some(),
        );
        Ok(Command::CreatePropertyConstraint {
            name: c.name.as_ref().map(|n| self.schema_name(n)),
            spec: PropertyConstraintSpec {
                name,
                relationship: entity.relationship,
                token,
                key,
                types,
            },
            if_not_exists: c.if_not_exists,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(kind: TypeKind) -> CypherType {
        CypherType::nullable(kind)
    }

    fn vector(coordinate: Option<&'static str>, dimension: Option<u32>) -> CypherType {
        t(TypeKind::Vector {
            coordinate,
            dimension,
        })
    }

    #[test]
    fn only_neo4j_property_types_are_allowed() {
        let int = t(TypeKind::Integer);
        assert_eq!(property_types(&int).unwrap().to_string(), "INTEGER");
        let union = CypherType::union(vec![t(TypeKind::Integer), t(TypeKind::String)]);
        assert_eq!(
            property_types(&union).unwrap().to_string(),
            "STRING | INTEGER"
        );
        let list = t(TypeKind::List(Box::new(t(TypeKind::Float).not_null(true))));
        assert_eq!(
            property_types(&list).unwrap().to_string(),
            "LIST<FLOAT NOT NULL>"
        );
        let nullable_items = t(TypeKind::List(Box::new(t(TypeKind::Float))));
        assert_eq!(
            property_types(&nullable_items).unwrap_err(),
            "Invalid property type `LIST<FLOAT>`."
        );
        assert_eq!(
            property_types(&t(TypeKind::Map)).unwrap_err(),
            "Invalid property type `MAP`."
        );
        assert_eq!(
            property_types(&int.clone().not_null(true)).unwrap_err(),
            "Invalid property type `INTEGER NOT NULL`."
        );
        let with_map = CypherType::union(vec![int, t(TypeKind::Map)]);
        assert_eq!(
            property_types(&with_map).unwrap_err(),
            "Invalid property type `MAP`."
        );
    }

    #[test]
    fn a_vector_type_with_coordinate_type_and_dimension_is_allowed_alone_and_in_unions() {
        let v = vector(Some("INTEGER32"), Some(42));
        assert_eq!(
            property_types(&v).unwrap().to_string(),
            "VECTOR<INTEGER32 NOT NULL>(42)"
        );
        let union = CypherType::union(vec![
            t(TypeKind::List(Box::new(t(TypeKind::Float).not_null(true)))),
            vector(Some("FLOAT32"), Some(3)),
            vector(Some("INTEGER8"), Some(3)),
            t(TypeKind::String),
        ]);
        assert_eq!(
            property_types(&union).unwrap().to_string(),
            "STRING | VECTOR<INTEGER8 NOT NULL>(3) | VECTOR<FLOAT32 NOT NULL>(3) | \
             LIST<FLOAT NOT NULL>"
        );
    }

    #[test]
    fn a_vector_type_without_coordinate_type_or_dimension_is_refused() {
        let both = " Property type constraints for vectors need to define both coordinate \
                    type and dimension.";
        for (ty, printed) in [
            (vector(Some("INTEGER"), None), "VECTOR<INTEGER>"),
            (vector(None, Some(3)), "VECTOR(3)"),
            (vector(None, None), "VECTOR"),
        ] {
            assert_eq!(
                property_types(&ty).unwrap_err(),
                format!("Invalid property type `{printed}`.{both}")
            );
        }
    }

    #[test]
    fn a_vector_dimension_past_neo4j_limit_is_refused() {
        assert!(property_types(&vector(Some("FLOAT"), Some(4096))).is_ok());
        assert_eq!(
            property_types(&vector(Some("FLOAT"), Some(4097))).unwrap_err(),
            "Invalid property type `VECTOR<FLOAT>(4097)`. The number of vector dimensions \
             must be between 1 and 4096, but is 4097."
        );
        assert!(property_types(&vector(Some("FLOAT"), Some(0))).is_err());
    }

    #[test]
    fn a_list_of_vectors_is_refused() {
        let list = t(TypeKind::List(Box::new(
            vector(Some("FLOAT32"), Some(3)).not_null(true),
        )));
        assert_eq!(
            property_types(&list).unwrap_err(),
            "Invalid property type `LIST<VECTOR<FLOAT32>(3) NOT NULL>`."
        );
    }
}
