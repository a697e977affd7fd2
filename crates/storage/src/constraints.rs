//! Property existence and property type constraints.
//!
//! Unlike a uniqueness constraint these need no index: whether an entity satisfies one is a
//! question about that entity alone. So they live beside the index schema, copy-on-write
//! behind an `Arc` like it, and are checked over a commit's write set (every node and
//! relationship the transaction touched), under the commit lock.
//!
//! **When the check runs.** Neo4j checks existence and type constraints when the transaction
//! commits, not when a statement ends: an explicit transaction may `CREATE (:Person)` in one
//! statement and `SET` its `name` in the next, and only an entity still in violation at
//! `COMMIT` fails it. Quiver follows Neo4j: an auto-commit statement fails at its end (its
//! commit), an explicit transaction at its commit. Every write path (Cypher, `LOAD CSV`, APOC,
//! `CALL { } IN TRANSACTIONS` batches, each its own commit) ends in the one commit, so none
//! can skip the check. A replayed commit (recovery, a follower) is not checked again: it was
//! checked where it was first committed.
//!
//! The definitions travel by name (redo ops 36 and 37, and the snapshot's schema section), so
//! they mean the same in any store.

use std::sync::Arc;

use quiver_value::Value;

use crate::error::{EntityKind, Error, Result};
use crate::mvcc::View;
use crate::read;
use crate::redo::RedoOp;
use crate::rules::{Judge, Rule};
use crate::storage::Storage;
use crate::txn::{SchemaOp, Transaction};

pub(crate) use crate::spec::{PropertyConstraint, PropertyConstraints};
pub use crate::spec::{
    PropertyConstraintSpec, PropertyType, PropertyTypes, ScalarType, stored_type_name,
};

/// What a violation names: the entity and the constraint it breaks.
fn violation(c: &PropertyConstraint, id: u64, value: Option<&Value>) -> Option<Error> {
    let kind = if c.spec.relationship {
        EntityKind::Relationship
    } else {
        EntityKind::Node
    };
    match (&c.spec.types, value) {
        (None, None) => Some(Error::PropertyExistenceViolation {
            kind,
            id,
            token: c.spec.token.clone(),
            key: c.spec.key.clone(),
        }),
        (Some(types), Some(v)) if !types.accepts(v) => Some(Error::PropertyTypeViolation {
            kind,
            id,
            token: c.spec.token.clone(),
            key: c.spec.key.clone(),
            expected: types.to_string(),
            actual: stored_type_name(v),
        }),
        _ => None,
    }
}

impl Storage {
    pub(crate) fn property_constraint_defs(&self) -> PropertyConstraints {
        self.property_constraints.read().clone()
    }

    /// Every property existence and type constraint, in creation order.
    pub fn property_constraints(&self) -> Vec<PropertyConstraintSpec> {
        self.property_constraint_defs()
            .iter()
            .map(|c| c.spec.clone())
            .collect()
    }

    pub(crate) fn property_constraint_by_name(
        &self,
        name: &str,
    ) -> Option<Arc<PropertyConstraint>> {
        self.property_constraint_defs()
            .iter()
            .find(|c| c.spec.name == name)
            .cloned()
    }

    fn resolve(&self, spec: &PropertyConstraintSpec) -> Result<PropertyConstraint> {
        let token = if spec.relationship {
            self.get_or_create_rel_type(&spec.token)?.0
        } else {
            self.get_or_create_label(&spec.token)?.0
        };
        let key = self.get_or_create_property_key(&spec.key)?.0;
        Ok(PropertyConstraint {
            spec: spec.clone(),
            token,
            key,
        })
    }

    fn publish_property_constraint(&self, c: Arc<PropertyConstraint>) {
        let mut w = self.property_constraints.write();
        let mut all: Vec<_> = (**w).clone();
        all.push(c);
        *w = Arc::new(all);
        drop(w);
        self.schema_replaced();
    }

    pub(crate) fn unpublish_property_constraint(&self, c: &Arc<PropertyConstraint>) {
        let mut w = self.property_constraints.write();
        let all: Vec<_> = w.iter().filter(|d| !Arc::ptr_eq(d, c)).cloned().collect();
        *w = Arc::new(all);
        drop(w);
        self.schema_replaced();
    }

    /// Defines a constraint without checking the data: a snapshot's schema section, loaded
    /// before the data it was checked against.
    pub fn define_property_constraint_unobserved(
        &self,
        spec: PropertyConstraintSpec,
    ) -> Result<()> {
        // A snapshot holds rules judged when they were made.
        self.check_new_rule(&Rule::property_constraint(&spec), &[], Judge::NameOnly)?;
        let c = self.resolve(&spec)?;
        self.publish_property_constraint(Arc::new(c));
        Ok(())
    }

    /// The redo ops that recreate every property constraint (a snapshot's schema section).
    pub fn property_constraint_ops(&self) -> Vec<RedoOp> {
        self.property_constraints()
            .into_iter()
            .map(RedoOp::CreatePropertyConstraint)
            .collect()
    }

    /// The first violation among `nodes` and `rels`, read at `view` (a commit reads the
    /// newest committed data plus its own changes). Deleted entities are skipped.
    pub(crate) fn check_property_constraints(
        &self,
        view: &View,
        nodes: &[u64],
        rels: &[u64],
    ) -> Result<()> {
        let all = self.property_constraint_defs();
        if all.is_empty() {
            return Ok(());
        }
        if all.iter().any(|c| !c.spec.relationship) {
            for &id in nodes {
                self.check_node(&all, view, id)?;
            }
        }
        if all.iter().any(|c| c.spec.relationship) {
            for &id in rels {
                self.check_rel(&all, view, id)?;
            }
        }
        Ok(())
    }

    fn check_node(&self, all: &[Arc<PropertyConstraint>], view: &View, id: u64) -> Result<()> {
        let Some(slot) = self.nodes.get(id) else {
            return Ok(());
        };
        let g = slot.lock();
        let Some(labels) = read::node_labels(&g, view)? else {
            return Ok(());
        };
        for c in all
            .iter()
            .filter(|c| !c.spec.relationship && labels.contains(&c.token))
        {
            let value = read::node_prop(&g, view, c.key)?.flatten();
            if let Some(e) = violation(c, id, value.as_ref()) {
                return Err(e);
            }
        }
        Ok(())
    }

    fn check_rel(&self, all: &[Arc<PropertyConstraint>], view: &View, id: u64) -> Result<()> {
        let Some(slot) = self.rels.get(id) else {
            return Ok(());
        };
        let g = slot.lock();
        if !read::rel_exists(&g, view) {
            return Ok(());
        }
        let ty = g.ty();
        for c in all.iter().filter(|c| c.spec.relationship && c.token == ty) {
            let value = read::rel_prop(&g, view, c.key)?.flatten();
            if let Some(e) = violation(c, id, value.as_ref()) {
                return Err(e);
            }
        }
        Ok(())
    }

    /// Fails, naming the first offender, unless every entity the constraint covers in `view`
    /// satisfies it.
    fn verify_property_constraint(&self, c: &PropertyConstraint, view: &View) -> Result<()> {
        let one = [Arc::new(PropertyConstraint {
            spec: c.spec.clone(),
            token: c.token,
            key: c.key,
        })];
        let failed = |e: Error| Error::ConstraintCreationFailed {
            name: c.spec.name.clone(),
            reason: e.to_string(),
        };
        if c.spec.relationship {
            let end = self.next_rel.load(std::sync::atomic::Ordering::Acquire);
            for id in 0..end {
                self.check_rel(&one, view, id).map_err(failed)?;
            }
        } else if let Some(bits) = self.label_bitmap_if_any(c.token) {
            bits.try_for_each(|id| self.check_node(&one, view, id).map_err(failed))?;
        }
        Ok(())
    }
}

impl Transaction {
    /// Creates a property existence or type constraint, applied at commit; the commit fails
    /// with [`Error::ConstraintCreationFailed`], naming an offender, if existing data violates
    /// it.
    pub fn create_property_constraint(&self, spec: PropertyConstraintSpec) -> Result<()> {
        let mut st = self.schema_write()?;
        let storage = &self.inner.storage;
        storage.check_new_rule(
            &Rule::property_constraint(&spec),
            &st.schema_ops,
            Judge::of(self.inner.replay),
        )?;
        st.schema_ops.push(SchemaOp::CreateProperty(spec));
        Ok(())
    }

    /// Records `DROP CONSTRAINT name` of a property constraint; `false` when no property
    /// constraint has that name (it may name another kind of constraint).
    pub(crate) fn drop_property_constraint(&self, name: &str) -> Result<bool> {
        if self
            .inner
            .storage
            .property_constraint_by_name(name)
            .is_none()
        {
            return Ok(false);
        }
        let mut st = self.schema_write()?;
        st.schema_ops.push(SchemaOp::DropProperty {
            name: name.to_string(),
        });
        Ok(true)
    }

    /// Publishes a constraint under the commit lock after checking the newest committed data
    /// (no commit can fall between the check and the publication), and logs it.
    pub(crate) fn apply_create_property(
        &self,
        spec: &PropertyConstraintSpec,
        redo: &mut Vec<RedoOp>,
    ) -> Result<Arc<PropertyConstraint>> {
        let storage = &self.inner.storage;
        storage.check_new_rule(
            &Rule::property_constraint(spec),
            &[],
            Judge::of(self.inner.replay),
        )?;
        let c = storage.resolve(spec)?;
        let view = View {
            snapshot: storage.last_committed(),
            txid: self.inner.txid,
            command: u32::MAX,
        };
        storage.verify_property_constraint(&c, &view)?;
        let c = Arc::new(c);
        storage.publish_property_constraint(c.clone());
        if self.inner.log {
            redo.push(RedoOp::CreatePropertyConstraint(spec.clone()));
        }
        Ok(c)
    }

    /// Takes a dropped constraint out at commit and logs the drop.
    pub(crate) fn apply_drop_property(
        &self,
        name: &str,
        redo: &mut Vec<RedoOp>,
    ) -> Result<Arc<PropertyConstraint>> {
        let storage = &self.inner.storage;
        let Some(c) = storage.property_constraint_by_name(name) else {
            return Err(Error::SchemaRuleNotFound {
                name: name.to_string(),
            });
        };
        storage.unpublish_property_constraint(&c);
        if self.inner.log {
            redo.push(RedoOp::DropConstraint {
                name: name.to_string(),
            });
        }
        Ok(c)
    }

    /// Puts back a constraint a failed commit dropped.
    pub(crate) fn restore_property_constraint(&self, c: Arc<PropertyConstraint>) {
        self.inner.storage.publish_property_constraint(c);
    }
}

#[cfg(test)]
mod tests {
    use quiver_value::{CoordinateType, Vector};

    use super::*;

    #[test]
    fn unions_normalise_and_roundtrip() {
        let t = PropertyTypes::parse("LIST<INTEGER NOT NULL> | INTEGER | STRING").unwrap();
        assert_eq!(t.to_string(), "STRING | INTEGER | LIST<INTEGER NOT NULL>");
        assert_eq!(PropertyTypes::parse(&t.to_string()), Some(t.clone()));
        assert!(t.accepts(&Value::Int(1)));
        assert!(t.accepts(&Value::from("a")));
        assert!(!t.accepts(&Value::Float(1.0)));
        assert!(t.accepts(&Value::from(vec![Value::Int(1)])));
        assert!(t.accepts(&Value::from(Vec::<Value>::new())));
        assert!(!t.accepts(&Value::from(vec![Value::from("a")])));
        assert!(PropertyTypes::parse("MAP").is_none());
        assert!(PropertyTypes::parse("").is_none());
    }

    #[test]
    fn uuids_are_a_property_type_of_their_own() {
        let uuid = Value::Uuid(quiver_value::Uuid::from_bytes([7; 16]));
        let t = PropertyTypes::parse("UUID | LIST<UUID NOT NULL> | STRING").unwrap();
        assert_eq!(t.to_string(), "STRING | UUID | LIST<UUID NOT NULL>");
        assert_eq!(PropertyTypes::parse(&t.to_string()), Some(t.clone()));
        assert!(t.accepts(&uuid));
        assert!(t.accepts(&Value::from(vec![uuid.clone(), uuid.clone()])));
        assert!(!t.accepts(&Value::from(vec![uuid.clone(), Value::from("a")])));
        assert!(!t.accepts(&Value::Int(1)));
        let only = PropertyTypes::parse("UUID").unwrap();
        assert!(!only.accepts(&Value::from("07070707-0707-0707-0707-070707070707")));
        assert_eq!(stored_type_name(&uuid), "UUID");
    }

    fn vector(coordinate: CoordinateType, items: &[i64]) -> Value {
        let items: Vec<Value> = items.iter().map(|&i| Value::Int(i)).collect();
        Value::Vector(std::sync::Arc::new(
            Vector::from_values(&items, coordinate).unwrap(),
        ))
    }

    #[test]
    fn a_vector_type_prints_as_neo4j_shows_it_and_reads_back() {
        let t = PropertyTypes::parse("VECTOR<INTEGER32 NOT NULL>(42)").unwrap();
        assert_eq!(
            t.members(),
            [PropertyType::vector(CoordinateType::Int32, 42).unwrap()]
        );
        assert_eq!(t.to_string(), "VECTOR<INTEGER32 NOT NULL>(42)");
        let union =
            PropertyTypes::parse("LIST<FLOAT NOT NULL> | VECTOR<FLOAT NOT NULL>(2) | STRING")
                .unwrap();
        assert_eq!(
            union.to_string(),
            "STRING | VECTOR<FLOAT NOT NULL>(2) | LIST<FLOAT NOT NULL>"
        );
        assert_eq!(PropertyTypes::parse(&union.to_string()), Some(union));
        for bad in [
            "VECTOR<INT32 NOT NULL>(42)",
            "VECTOR<INTEGER32>(42)",
            "VECTOR<INTEGER32 NOT NULL>(0)",
            "VECTOR<INTEGER32 NOT NULL>(4097)",
            "VECTOR<INTEGER32 NOT NULL>(x)",
            "VECTOR<INTEGER32 NOT NULL>",
            "VECTOR",
        ] {
            assert!(PropertyTypes::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn a_vector_dimension_is_one_to_neo4j_limit() {
        assert!(PropertyType::vector(CoordinateType::Float32, 0).is_none());
        assert!(PropertyType::vector(CoordinateType::Float32, 1).is_some());
        assert!(PropertyType::vector(CoordinateType::Float32, 4096).is_some());
        assert!(PropertyType::vector(CoordinateType::Float32, 4097).is_none());
        assert!(PropertyType::vector(CoordinateType::Float32, u64::MAX).is_none());
    }

    #[test]
    fn a_vector_type_accepts_only_vectors_of_its_coordinate_type_and_dimension() {
        let t = PropertyTypes::parse("VECTOR<FLOAT32 NOT NULL>(3)").unwrap();
        assert!(t.accepts(&vector(CoordinateType::Float32, &[1, 2, 3])));
        assert!(!t.accepts(&vector(CoordinateType::Float32, &[1, 2])));
        assert!(!t.accepts(&vector(CoordinateType::Float64, &[1, 2, 3])));
        assert!(!t.accepts(&vector(CoordinateType::Int8, &[1, 2, 3])));
        let floats = Value::from(vec![
            Value::Float(1.0),
            Value::Float(2.0),
            Value::Float(3.0),
        ]);
        assert!(!t.accepts(&floats), "a list is not a vector");
        assert!(!t.accepts(&Value::Float(1.0)));
        assert_eq!(
            stored_type_name(&vector(CoordinateType::Int8, &[1, 2])),
            "VECTOR<INTEGER8 NOT NULL>(2)"
        );
    }

    fn spec(
        name: &str,
        relationship: bool,
        token: &str,
        types: Option<&str>,
    ) -> PropertyConstraintSpec {
        PropertyConstraintSpec {
            name: name.into(),
            relationship,
            token: token.into(),
            key: "p".into(),
            types: types.and_then(PropertyTypes::parse),
        }
    }

    #[test]
    fn commits_are_checked_on_nodes_and_relationships() {
        let s = Storage::new();
        let tx = s.begin_write();
        tx.create_property_constraint(spec("e", false, "L", None))
            .unwrap();
        tx.create_property_constraint(spec("t", true, "T", Some("INTEGER")))
            .unwrap();
        tx.commit().unwrap();
        let l = s.get_or_create_label("L").unwrap();
        let t = s.get_or_create_rel_type("T").unwrap();
        let p = s.get_or_create_property_key("p").unwrap();

        let tx = s.begin_write();
        tx.create_node(&[l], &[]).unwrap();
        let e = tx.commit().unwrap_err();
        assert!(matches!(e, Error::PropertyExistenceViolation { .. }), "{e}");
        assert!(
            e.to_string()
                .ends_with("with label `L` must have the property `p`")
        );

        let tx = s.begin_write();
        let a = tx.create_node(&[l], &[(p, Value::Int(1))]).unwrap();
        tx.create_relationship(a, a, t, &[(p, Value::from("x"))])
            .unwrap();
        let e = tx.commit().unwrap_err();
        assert!(e.to_string().ends_with(
            "with type `T` required the property `p` to be of type `INTEGER`, but was of type `STRING`"
        ));

        let tx = s.begin_write();
        let a = tx.create_node(&[l], &[(p, Value::Int(1))]).unwrap();
        tx.create_relationship(a, a, t, &[]).unwrap();
        tx.commit().unwrap();
        assert_eq!(s.property_constraints().len(), 2);

        // Over existing data: the node above has `p`, a new constraint on a missing key fails.
        let tx = s.begin_write();
        let mut other = spec("f", false, "L", None);
        other.key = "q".into();
        tx.create_property_constraint(other).unwrap();
        assert!(matches!(
            tx.commit(),
            Err(Error::ConstraintCreationFailed { .. })
        ));
        assert_eq!(s.property_constraints().len(), 2);

        let tx = s.begin_write();
        tx.drop_constraint("e").unwrap();
        tx.commit().unwrap();
        let tx = s.begin_write();
        tx.create_node(&[l], &[]).unwrap();
        tx.commit().unwrap();
    }

    #[test]
    fn a_bulk_load_is_refused_on_a_store_with_a_property_constraint() {
        let s = Storage::new();
        s.define_property_constraint_unobserved(spec("e", false, "L", None))
            .unwrap();
        assert!(matches!(s.bulk_load(), Err(Error::BulkLoadRefused(_))));
    }

    #[test]
    fn stored_types_are_named_as_neo4j_names_them() {
        assert_eq!(stored_type_name(&Value::Int(1)), "INTEGER");
        assert_eq!(
            stored_type_name(&Value::from(vec![Value::Float(1.0)])),
            "LIST<FLOAT NOT NULL>"
        );
        assert_eq!(
            stored_type_name(&Value::from(Vec::<Value>::new())),
            "LIST<NOTHING>"
        );
    }
}
