//! Planning property existence (`IS NOT NULL`) and property type (`IS :: type`) constraints.
//!
//! Storage owns their meaning and their check (see `quiver_storage::PropertyConstraintSpec`;
//! like Neo4j, the check runs when the transaction commits). Here the Cypher type is read into
//! the closed set of types Neo4j allows a property type constraint: the property types
//! (`BOOLEAN`, `STRING`, `INTEGER`, `FLOAT`, `DATE`, `LOCAL TIME`, `ZONED TIME`,
//! `LOCAL DATETIME`, `ZONED DATETIME`, `DURATION`, `POINT`, `UUID`), lists of one of them
//! without nulls (`LIST<INTEGER NOT NULL>`), and closed unions of those. Any other type fails
//! by name, as in Neo4j.

use std::sync::Arc;

use quiver_cypher::ast::{self, CypherType, TypeKind};
use quiver_cypher::{Detail, Status};
use quiver_storage::{PropertyConstraintSpec, PropertyType, PropertyTypes, ScalarType};

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

/// One member of a constraint's type; `None` when Neo4j does not allow it there.
fn member(ty: &CypherType) -> Option<PropertyType> {
    if ty.not_null {
        // A property is absent or holds a value; `NOT NULL` is an existence constraint's
        // business, which Neo4j keeps apart.
        return None;
    }
    match &ty.kind {
        TypeKind::List(inner) if inner.not_null => scalar(&inner.kind).map(PropertyType::List),
        kind => scalar(kind).map(PropertyType::Scalar),
    }
}

/// The storage form of a constraint's type, or the first member Neo4j does not allow.
pub(crate) fn property_types(ty: &CypherType) -> std::result::Result<PropertyTypes, String> {
    let members: Vec<&CypherType> = match &ty.kind {
        TypeKind::Union(members) if !ty.not_null => members.iter().collect(),
        _ => vec![ty],
    };
    let mut out = Vec::with_capacity(members.len());
    for m in members {
        out.push(member(m).ok_or_else(|| m.to_string())?);
    }
    PropertyTypes::new(out).ok_or_else(|| ty.to_string())
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
            (Some(ty), ast::ConstraintKind::Typed) => Some(property_types(ty).map_err(|bad| {
                self.err(
                    Status::SyntaxError,
                    Detail::UnexpectedSyntax,
                    format!("Failed to create {what} constraint: Invalid property type `{bad}`."),
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
        assert_eq!(property_types(&nullable_items).unwrap_err(), "LIST<FLOAT>");
        assert_eq!(property_types(&t(TypeKind::Map)).unwrap_err(), "MAP");
        assert_eq!(
            property_types(&int.clone().not_null(true)).unwrap_err(),
            "INTEGER NOT NULL"
        );
        let with_map = CypherType::union(vec![int, t(TypeKind::Map)]);
        assert_eq!(property_types(&with_map).unwrap_err(), "MAP");
    }
}
