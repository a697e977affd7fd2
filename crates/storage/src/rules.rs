//! Schema rules side by side: whether a new index or constraint may stand beside the ones the
//! store holds, and, when it may not, which existing rule stops it and how Neo4j 5 says so.
//!
//! Every kind of rule (range, text, point, full-text and vector indexes; uniqueness, key,
//! existence and property type constraints) is seen here as one [`Rule`]: a name, a kind and a
//! schema (the nodes of some labels or the relationships of some types, and property keys, in
//! the order written). One function, `Storage::check_new_rule` (in `ddl`, beside the store's
//! schema changes), decides for every kind, so the kinds cannot drift apart. Its checks are
//! Neo4j's, in Neo4j's order, and the first that applies answers:
//!
//! | new rule   | check                                                        | status                                |
//! |------------|--------------------------------------------------------------|---------------------------------------|
//! | index      | a plain index of its type over its schema, with its name     | `EquivalentSchemaRuleAlreadyExists`   |
//! | constraint | an equal constraint (kind, schema, types) with its name      | `EquivalentSchemaRuleAlreadyExists`   |
//! | either     | a constraint holds the name / an index holds the name        | `ConstraintWithNameAlreadyExists` / `IndexWithNameAlreadyExists` |
//! | index      | a constraint owning an index of its type over its schema     | `ConstraintAlreadyExists`             |
//! | constraint | a type constraint of other types on its property             | `ConstraintAlreadyExists` ("Conflicting constraint") |
//! | constraint | a constraint of its kind over its schema                     | `ConstraintAlreadyExists`             |
//! | index      | an index of its type over its schema                         | `IndexAlreadyExists`                  |
//! | constraint | an index of the type it would own over its schema            | `IndexAlreadyExists` ("A constraint cannot be created until the index has been dropped.") |
//!
//! Options never enter: a full-text index with another analyzer, or a vector index with other
//! dimensions, over the same schema is the same index to these checks, as in Neo4j (a rule is
//! its name, type and schema). Indexes of different types may share a schema (a range and a
//! text index over `(:L {p})`), and so may an existence and a type constraint.
//!
//! A rule replayed (recovery, a follower, a snapshot being loaded) was judged where it was
//! first made, under the rules of its day, and is not judged again: only its name is checked,
//! since two rules cannot share one, and the same rule again is still an equivalent rule,
//! which recovery passes over when a snapshot already holds it.
//!
//! `IF NOT EXISTS` does nothing, rather than fail, when Neo4j's would: for an index, when an
//! index of its type over its schema exists or an index holds its name (a uniqueness or key
//! constraint's index bears the constraint's name); for a constraint, when a constraint of its
//! kind (and types) over its schema exists or a constraint holds its name. Each refusal carries
//! that answer ([`crate::Error::schema_rule_present`]), worked out here beside the refusal.

use std::fmt::Write as _;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::schema::IndexKind;
use crate::spec::PropertyTypes;

/// Neo4j's index provider for full-text indexes.
pub const FULLTEXT_PROVIDER: &str = "fulltext-1.0";
/// Neo4j's index provider for vector indexes.
pub const VECTOR_PROVIDER: &str = "vector-2.0";

/// The type of an index, or of the index a constraint owns. A schema has at most one index of
/// each type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum IndexType {
    Range,
    Text,
    Point,
    Fulltext,
    Vector,
}

impl IndexType {
    /// Neo4j's name of the type (`SHOW INDEXES`' `type`).
    fn name(self) -> &'static str {
        match self {
            IndexType::Range => "RANGE",
            IndexType::Text => "TEXT",
            IndexType::Point => "POINT",
            IndexType::Fulltext => "FULLTEXT",
            IndexType::Vector => "VECTOR",
        }
    }

    fn provider(self) -> &'static str {
        match self {
            IndexType::Range => "range-1.0",
            IndexType::Text => "text-2.0",
            IndexType::Point => "point-1.0",
            IndexType::Fulltext => FULLTEXT_PROVIDER,
            IndexType::Vector => VECTOR_PROVIDER,
        }
    }
}

impl IndexKind {
    /// The index provider Neo4j names for an index of this kind (or the index a constraint of
    /// this kind owns).
    pub fn provider(self) -> &'static str {
        index_type_of(self).provider()
    }
}

fn index_type_of(kind: IndexKind) -> IndexType {
    match kind {
        IndexKind::Range | IndexKind::Unique | IndexKind::Key => IndexType::Range,
        IndexKind::Text => IndexType::Text,
        IndexKind::Point => IndexType::Point,
    }
}

/// What a rule is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RuleKind {
    /// A range, text or point index, or a uniqueness or key constraint (and its index).
    Property(IndexKind),
    Fulltext,
    Vector,
    /// A property existence constraint.
    Existence,
    /// A property type constraint, with its types.
    PropertyType(PropertyTypes),
}

impl RuleKind {
    fn is_constraint(&self) -> bool {
        match self {
            RuleKind::Property(kind) => kind.is_constraint(),
            RuleKind::Fulltext | RuleKind::Vector => false,
            RuleKind::Existence | RuleKind::PropertyType(_) => true,
        }
    }

    /// The type of the index the rule is or owns; `None` for a constraint that owns none.
    fn index_type(&self) -> Option<IndexType> {
        match self {
            RuleKind::Property(kind) => Some(index_type_of(*kind)),
            RuleKind::Fulltext => Some(IndexType::Fulltext),
            RuleKind::Vector => Some(IndexType::Vector),
            RuleKind::Existence | RuleKind::PropertyType(_) => None,
        }
    }

    /// Whether the rule is an index of its own, not one a constraint owns.
    fn is_plain_index(&self) -> bool {
        !self.is_constraint()
    }

    /// Whether two constraints are of one kind (existence and type constraints are of one kind
    /// whatever their types).
    fn same_constraint_kind(&self, other: &RuleKind) -> bool {
        match (self, other) {
            (RuleKind::Property(a), RuleKind::Property(b)) => a == b,
            (RuleKind::PropertyType(_), RuleKind::PropertyType(_)) => true,
            (a, b) => a == b,
        }
    }
}

/// One index or constraint, of any kind, by names.
#[derive(Clone, Debug)]
pub(crate) struct Rule {
    pub name: String,
    pub kind: RuleKind,
    /// Over relationships (of `tokens` types) rather than nodes (of `tokens` labels).
    pub relationship: bool,
    /// The labels or relationship types: one, except for a full-text index.
    pub tokens: Vec<Arc<str>>,
    /// The property keys, in the order written.
    pub keys: Vec<Arc<str>>,
}

impl Rule {
    fn same_schema(&self, other: &Rule) -> bool {
        self.relationship == other.relationship
            && self.tokens == other.tokens
            && self.keys == other.keys
    }

    /// Whether the rule is or owns an index of `ty`'s type over `other`'s schema.
    fn indexes_schema_of(&self, other: &Rule, ty: IndexType) -> bool {
        self.kind.index_type() == Some(ty) && self.same_schema(other)
    }

    /// Neo4j's description of the schema: `(:Person {name})`, `()-[:KNOWS {since, until}]-()`,
    /// `(:Doc:Note {title, text})`.
    fn schema(&self) -> String {
        let nice = |name: &str| {
            if name.contains(':') {
                format!("`{name}`")
            } else {
                name.to_string()
            }
        };
        let mut tokens = String::new();
        for t in &self.tokens {
            tokens.push(':');
            tokens.push_str(&nice(t));
        }
        let keys = self
            .keys
            .iter()
            .map(|k| nice(k))
            .collect::<Vec<_>>()
            .join(", ");
        if self.relationship {
            format!("()-[{tokens} {{{keys}}}]-()")
        } else {
            format!("({tokens} {{{keys}}})")
        }
    }

    /// Neo4j's description of the rule: `Index( name='i', type='RANGE', schema=(:L {p}),
    /// indexProvider='range-1.0' )` or `Constraint( name='c', type='UNIQUENESS',
    /// schema=(:L {p}) )`. Rules here have no ids, so none is shown.
    fn describe(&self) -> String {
        let mut out = String::new();
        if self.kind.is_constraint() {
            let entity = if self.relationship {
                "RELATIONSHIP"
            } else {
                "NODE"
            };
            let ty = match &self.kind {
                RuleKind::Property(IndexKind::Unique) if !self.relationship => {
                    "UNIQUENESS".to_string()
                }
                RuleKind::Property(IndexKind::Unique) => format!("{entity} UNIQUENESS"),
                RuleKind::Property(_) => format!("{entity} KEY"),
                RuleKind::Existence => format!("{entity} PROPERTY EXISTENCE"),
                _ => format!("{entity} PROPERTY TYPE"),
            };
            let _ = write!(
                out,
                "Constraint( name='{}', type='{ty}', schema={}",
                self.name,
                self.schema()
            );
            if let RuleKind::PropertyType(types) = &self.kind {
                let _ = write!(out, ", propertyType={types}");
            }
            out.push_str(" )");
        } else if let Some(ty) = self.kind.index_type() {
            let _ = write!(
                out,
                "Index( name='{}', type='{}', schema={}, indexProvider='{}' )",
                self.name,
                ty.name(),
                self.schema(),
                ty.provider()
            );
        }
        out
    }

    /// Whether Neo4j's `IF NOT EXISTS` would take `existing` for the rule being made, and do
    /// nothing: an index of its type over its schema, or an index named as it is (an index a
    /// constraint owns counts, and bears the constraint's name); for a constraint, a
    /// constraint of its kind and types over its schema, or a constraint named as it is.
    fn stands_in_for(&self, existing: &Rule) -> bool {
        if self.kind.is_constraint() {
            existing.kind.is_constraint()
                && ((existing.kind == self.kind && existing.same_schema(self))
                    || existing.name == self.name)
        } else {
            existing.kind.index_type().is_some()
                && ((existing.kind.index_type() == self.kind.index_type()
                    && existing.same_schema(self))
                    || existing.name == self.name)
        }
    }
}

/// Whether a new rule is judged whole, or replayed and judged by its name alone (see the
/// module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Judge {
    Whole,
    NameOnly,
}

impl Judge {
    /// How a transaction judges its schema changes: a replaying one by name alone.
    pub(crate) fn of(replay: bool) -> Judge {
        if replay {
            Judge::NameOnly
        } else {
            Judge::Whole
        }
    }
}

/// Fails, in Neo4j's words, unless `new` may be made beside `rules` (see the module doc).
pub(crate) fn refuse(rules: &[Rule], new: &Rule, judge: Judge) -> Result<()> {
    refusal(rules, new, judge).map_or(Ok(()), Err)
}

/// Why `new` may not be made beside `rules`, in Neo4j's order and words (see the module doc);
/// `None` when nothing stops it.
fn refusal(rules: &[Rule], new: &Rule, judge: Judge) -> Option<Error> {
    let present = rules.iter().any(|r| new.stands_in_for(r));
    let constraint = new.kind.is_constraint();
    let same_schema = || rules.iter().filter(|r| r.same_schema(new));
    // The same rule again.
    if let Some(existing) = same_schema().find(|r| {
        r.name == new.name
            && if constraint {
                r.kind == new.kind
            } else {
                r.kind.is_plain_index() && r.kind.index_type() == new.kind.index_type()
            }
    }) {
        return Some(Error::SchemaRuleExists {
            name: new.name.clone(),
            constraint,
            existing: existing.describe(),
        });
    }
    // One name space for indexes and constraints.
    if let Some(holder) = rules.iter().find(|r| r.name == new.name) {
        return Some(Error::SchemaNameTaken {
            name: new.name.clone(),
            constraint: holder.kind.is_constraint(),
            present,
        });
    }
    if judge == Judge::NameOnly {
        return None;
    }
    let schema = new.schema();
    if constraint {
        if let RuleKind::PropertyType(_) = new.kind
            && let Some(other) = same_schema()
                .find(|r| matches!(r.kind, RuleKind::PropertyType(_)) && r.kind != new.kind)
        {
            return Some(Error::SchemaConstrained {
                message: format!(
                    "Conflicting constraint already exists: {}",
                    other.describe()
                ),
                present,
            });
        }
        if let Some(other) = same_schema().find(|r| {
            r.kind.is_constraint() && {
                let owned = (r.kind.index_type(), new.kind.index_type());
                match owned {
                    (Some(a), Some(b)) => a == b,
                    (None, None) => r.kind.same_constraint_kind(&new.kind),
                    _ => false,
                }
            }
        }) {
            return Some(Error::SchemaConstrained {
                message: format!("Constraint already exists: {}", other.describe()),
                present,
            });
        }
        if let Some(ty) = new.kind.index_type()
            && rules
                .iter()
                .any(|r| r.kind.is_plain_index() && r.indexes_schema_of(new, ty))
        {
            return Some(Error::SchemaIndexed {
                message: format!(
                    "There already exists an index {schema}. A constraint cannot be created \
                     until the index has been dropped."
                ),
                present,
            });
        }
        return None;
    }
    let ty = new.kind.index_type()?;
    if rules
        .iter()
        .any(|r| r.kind.is_constraint() && r.indexes_schema_of(new, ty))
    {
        return Some(Error::SchemaConstrained {
            message: format!(
                "There is a uniqueness constraint on {schema}, so an index is already created \
                 that matches this."
            ),
            present,
        });
    }
    if rules.iter().any(|r| r.indexes_schema_of(new, ty)) {
        return Some(Error::SchemaIndexed {
            message: format!("There already exists an index {schema}."),
            present,
        });
    }
    None
}

impl Rule {
    pub(crate) fn fulltext(spec: &crate::spec::FulltextSpec) -> Rule {
        Rule {
            name: spec.name.clone(),
            kind: RuleKind::Fulltext,
            relationship: spec.entity == crate::spec::FulltextEntity::Relationship,
            tokens: spec.tokens.clone(),
            keys: spec.keys.clone(),
        }
    }

    pub(crate) fn property_constraint(spec: &crate::spec::PropertyConstraintSpec) -> Rule {
        Rule {
            name: spec.name.clone(),
            kind: spec
                .types
                .clone()
                .map_or(RuleKind::Existence, RuleKind::PropertyType),
            relationship: spec.relationship,
            tokens: vec![spec.token.clone()],
            keys: vec![spec.key.clone()],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraints::{PropertyType, ScalarType};

    fn rule(name: &str, kind: RuleKind, keys: &[&str]) -> Rule {
        Rule {
            name: name.to_string(),
            kind,
            relationship: false,
            tokens: vec![Arc::from("L")],
            keys: keys.iter().map(|k| Arc::from(*k)).collect(),
        }
    }

    fn range(name: &str) -> Rule {
        rule(name, RuleKind::Property(IndexKind::Range), &["p"])
    }

    fn unique(name: &str) -> Rule {
        rule(name, RuleKind::Property(IndexKind::Unique), &["p"])
    }

    fn typed(name: &str, t: ScalarType) -> Rule {
        let types = PropertyTypes::new(vec![PropertyType::Scalar(t)]).expect("one type");
        rule(name, RuleKind::PropertyType(types), &["p"])
    }

    #[test]
    fn schemas_are_described_as_neo4j_describes_them() {
        let mut r = rule("f", RuleKind::Fulltext, &["title", "text"]);
        r.tokens = vec![Arc::from("Doc"), Arc::from("Note")];
        assert_eq!(r.schema(), "(:Doc:Note {title, text})");
        r.relationship = true;
        r.tokens = vec![Arc::from("a:b")];
        assert_eq!(r.schema(), "()-[:`a:b` {title, text}]-()");
        assert_eq!(
            range("i").describe(),
            "Index( name='i', type='RANGE', schema=(:L {p}), indexProvider='range-1.0' )"
        );
        assert_eq!(
            typed("c", ScalarType::Integer).describe(),
            "Constraint( name='c', type='NODE PROPERTY TYPE', schema=(:L {p}), \
             propertyType=INTEGER )"
        );
    }

    #[test]
    fn the_first_check_that_applies_answers() {
        // Another name over a range index's schema: the index is there.
        let e = refusal(&[range("a")], &range("b"), Judge::Whole).expect("refused");
        assert!(
            matches!(e, Error::SchemaIndexed { present: true, .. }),
            "{e:?}"
        );
        // The name wins over the schema when both clash with different rules.
        let e = refusal(&[range("a"), unique("b")], &range("b"), Judge::Whole).expect("refused");
        assert!(
            matches!(
                e,
                Error::SchemaNameTaken {
                    constraint: true,
                    present: true,
                    ..
                }
            ),
            "{e:?}"
        );
        // A text index does not clash with a range index or a uniqueness constraint's index.
        let text = rule("t", RuleKind::Property(IndexKind::Text), &["p"]);
        assert!(refusal(&[range("a"), unique("u")], &text, Judge::Whole).is_none());
        // An existence and a type constraint share a property.
        let exists = rule("e", RuleKind::Existence, &["p"]);
        assert!(refusal(&[exists], &typed("c", ScalarType::String), Judge::Whole).is_none());
        // Two type constraints of different types conflict; IF NOT EXISTS does not hide it.
        let e = refusal(
            &[typed("a", ScalarType::Integer)],
            &typed("b", ScalarType::String),
            Judge::Whole,
        )
        .expect("refused");
        assert!(
            matches!(e, Error::SchemaConstrained { present: false, ref message } if message.starts_with("Conflicting")),
            "{e:?}"
        );
    }

    #[test]
    fn a_replayed_rule_is_judged_by_its_name_alone() {
        // Made before these checks, a range index and a uniqueness constraint over one schema
        // replay as they were made.
        assert!(refusal(&[range("a")], &unique("b"), Judge::NameOnly).is_none());
        let e = refusal(&[range("a")], &range("a"), Judge::NameOnly).expect("refused");
        assert!(matches!(e, Error::SchemaRuleExists { .. }), "{e:?}");
        let e = refusal(&[unique("a")], &range("a"), Judge::NameOnly).expect("refused");
        assert!(matches!(e, Error::SchemaNameTaken { .. }), "{e:?}");
    }
}
