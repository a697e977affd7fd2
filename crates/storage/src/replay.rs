//! The one interpreter of redo operations.
//!
//! A redo op means one thing wherever it is read: [`RedoOpRef::apply_to`] is the only match
//! over the op kinds, and it hands each op to a [`RedoSink`] as a call with the op's fields.
//! The sinks decide what the op does where they stand:
//!
//! - the transactional replayer (`write.rs`): through a transaction, with undo deltas and
//!   index maintenance, for cluster followers and records that change the schema;
//! - the unobserved loader (`bulk.rs`): in place, for recovery with no transaction open;
//! - the snapshot loader (`quiver-durability`): creations only, each in its own section;
//! - a `Vec<RedoOp>`: the owned op, for [`RedoOpRef::to_op`].
//!
//! A new record kind costs one arm below and one method on [`RedoSink`], which every sink
//! must then answer: no sink can silently ignore a kind it was never taught.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::redo::{NamesRef, PropsRef, RawDocument, RawValue, RedoOp, RedoOpRef};
use crate::schema::{IndexKind, IndexSpec};
use crate::security::Security;
use crate::spec::{
    FulltextEntity, FulltextSpec, PropertyConstraintSpec, PropertyTypes, VectorConfig,
};
use crate::storage::Storage;

/// What a redo op does where it is applied: one method per op kind (a removal is a set to
/// `None`, a label removal `add == false`), with names and values still as the record holds
/// them, so each sink resolves and copies only what it keeps.
pub trait RedoSink {
    fn create_node(&mut self, id: u64, labels: NamesRef<'_>, props: PropsRef<'_>) -> Result<()>;
    fn delete_node(&mut self, id: u64) -> Result<()>;
    fn set_node_property(&mut self, id: u64, key: &str, value: Option<RawValue<'_>>) -> Result<()>;
    fn set_label(&mut self, id: u64, label: &str, add: bool) -> Result<()>;
    fn create_relationship(
        &mut self,
        id: u64,
        ends: (u64, u64),
        rel_type: &str,
        props: PropsRef<'_>,
    ) -> Result<()>;
    fn delete_relationship(&mut self, id: u64) -> Result<()>;
    fn set_relationship_property(
        &mut self,
        id: u64,
        key: &str,
        value: Option<RawValue<'_>>,
    ) -> Result<()>;
    /// A single-key label index, or with `unique` its uniqueness constraint (kinds 11, 12).
    fn create_index(&mut self, name: &str, label: &str, key: &str, unique: bool) -> Result<()>;
    fn create_schema_index(&mut self, name: &str, index: SchemaIndexRef<'_>) -> Result<()>;
    /// `with_properties`: the keys a search may filter on inside the index.
    fn create_vector_index(
        &mut self,
        name: &str,
        relationship: bool,
        token_and_key: (&str, &str),
        with_properties: &[&str],
        config: VectorConfig,
    ) -> Result<()>;
    fn create_fulltext_index(&mut self, spec: FulltextSpec) -> Result<()>;
    fn create_property_constraint(&mut self, spec: PropertyConstraintSpec) -> Result<()>;
    fn drop_index(&mut self, name: &str) -> Result<()>;
    fn drop_constraint(&mut self, name: &str) -> Result<()>;
    /// The users and roles after the transaction, whole.
    fn security(&mut self, catalogue: Security) -> Result<()>;
    /// When the transaction committed, in Unix microseconds: no change, but a store that
    /// replays it keeps its commit clock from running backwards.
    fn commit_time(&mut self, micros: i64) -> Result<()>;

    /// A captured change or its transaction's context (see `change`): no change to a store,
    /// so only a sink that keeps records takes it.
    fn captured(&mut self, change: bool, document: RawDocument<'_>) -> Result<()> {
        let _ = (change, document);
        Ok(())
    }
}

/// A `CreateSchemaIndex` op's rule, by name.
#[derive(Clone, Copy, Debug)]
pub struct SchemaIndexRef<'a> {
    pub relationship: bool,
    /// The label, or the relationship type.
    pub token: &'a str,
    pub keys: NamesRef<'a>,
    pub kind: IndexKind,
}

impl SchemaIndexRef<'_> {
    /// The rule with its names resolved to `storage`'s token ids (created if new).
    pub fn resolve(&self, storage: &Storage) -> Result<IndexSpec> {
        let token = if self.relationship {
            storage.get_or_create_rel_type(self.token)?.0
        } else {
            storage.get_or_create_label(self.token)?.0
        };
        let keys = self
            .keys
            .iter()
            .map(|k| Ok(storage.get_or_create_property_key(k)?.0))
            .collect::<Result<Vec<_>>>()?;
        Ok(IndexSpec {
            relationship: self.relationship,
            token,
            keys,
            kind: self.kind,
        })
    }
}

impl RedoOpRef<'_> {
    /// Applies the op to `sink`: the one place an op kind is told from another.
    pub fn apply_to(&self, sink: &mut impl RedoSink) -> Result<()> {
        match *self {
            RedoOpRef::CreateNode { id, labels, props } => sink.create_node(id, labels, props),
            RedoOpRef::DeleteNode { id } => sink.delete_node(id),
            RedoOpRef::SetNodeProperty { id, key, value } => {
                sink.set_node_property(id, key, Some(value))
            }
            RedoOpRef::RemoveNodeProperty { id, key } => sink.set_node_property(id, key, None),
            RedoOpRef::AddLabel { id, label } => sink.set_label(id, label, true),
            RedoOpRef::RemoveLabel { id, label } => sink.set_label(id, label, false),
            RedoOpRef::CreateRelationship {
                id,
                start,
                end,
                rel_type,
                props,
            } => sink.create_relationship(id, (start, end), rel_type, props),
            RedoOpRef::DeleteRelationship { id } => sink.delete_relationship(id),
            RedoOpRef::SetRelationshipProperty { id, key, value } => {
                sink.set_relationship_property(id, key, Some(value))
            }
            RedoOpRef::RemoveRelationshipProperty { id, key } => {
                sink.set_relationship_property(id, key, None)
            }
            RedoOpRef::CreateIndex { name, label, key } => {
                sink.create_index(name, label, key, false)
            }
            RedoOpRef::CreateUniqueConstraint { name, label, key } => {
                sink.create_index(name, label, key, true)
            }
            RedoOpRef::CreateSchemaIndex {
                name,
                relationship,
                token,
                keys,
                kind,
            } => sink.create_schema_index(
                name,
                SchemaIndexRef {
                    relationship,
                    token,
                    keys,
                    kind,
                },
            ),
            RedoOpRef::CreateVectorIndex {
                name,
                relationship,
                token,
                key,
                config,
                with_properties,
            } => {
                let with: Vec<&str> = with_properties.iter().collect();
                sink.create_vector_index(name, relationship, (token, key), &with, config)
            }
            RedoOpRef::CreateFulltextIndex {
                name,
                relationships,
                tokens,
                keys,
                analyzer,
                eventually_consistent,
            } => sink.create_fulltext_index(FulltextSpec {
                name: name.to_string(),
                entity: if relationships {
                    FulltextEntity::Relationship
                } else {
                    FulltextEntity::Node
                },
                tokens: tokens.iter().map(Arc::from).collect(),
                keys: keys.iter().map(Arc::from).collect(),
                analyzer: analyzer.to_string(),
                eventually_consistent,
            }),
            RedoOpRef::CreatePropertyConstraint {
                name,
                relationship,
                token,
                key,
                types,
            } => sink.create_property_constraint(PropertyConstraintSpec {
                name: name.to_string(),
                relationship,
                token: token.into(),
                key: key.into(),
                types: types.map(property_types).transpose()?,
            }),
            RedoOpRef::DropIndex { name } => sink.drop_index(name),
            RedoOpRef::DropConstraint { name } => sink.drop_constraint(name),
            RedoOpRef::Security { catalogue } => sink.security(Security::decode(catalogue)?),
            RedoOpRef::CommitTime { micros } => sink.commit_time(micros),
            RedoOpRef::TxContext { document } => sink.captured(false, document),
            RedoOpRef::Change { document } => sink.captured(true, document),
        }
    }

    /// The owned op.
    pub fn to_op(&self) -> Result<RedoOp> {
        let mut owned = Vec::with_capacity(1);
        self.apply_to(&mut owned)?;
        owned.pop().ok_or(Error::Corrupt {
            offset: 0,
            reason: "an op that applies as nothing",
        })
    }
}

/// `IS :: types` as the record prints it (checked when the record was decoded).
fn property_types(printed: &str) -> Result<PropertyTypes> {
    PropertyTypes::parse(printed).ok_or(Error::Corrupt {
        offset: 0,
        reason: "unknown property type",
    })
}

/// Collects each op it is given as an owned [`RedoOp`].
impl RedoSink for Vec<RedoOp> {
    fn create_node(&mut self, id: u64, labels: NamesRef<'_>, props: PropsRef<'_>) -> Result<()> {
        self.push(RedoOp::CreateNode {
            id,
            labels: labels.iter().map(Arc::from).collect(),
            props: props.to_props()?,
        });
        Ok(())
    }

    fn delete_node(&mut self, id: u64) -> Result<()> {
        self.push(RedoOp::DeleteNode { id });
        Ok(())
    }

    fn set_node_property(&mut self, id: u64, key: &str, value: Option<RawValue<'_>>) -> Result<()> {
        let key = key.into();
        self.push(match value {
            Some(value) => RedoOp::SetNodeProperty {
                id,
                key,
                value: value.value()?,
            },
            None => RedoOp::RemoveNodeProperty { id, key },
        });
        Ok(())
    }

    fn set_label(&mut self, id: u64, label: &str, add: bool) -> Result<()> {
        let label = label.into();
        self.push(if add {
            RedoOp::AddLabel { id, label }
        } else {
            RedoOp::RemoveLabel { id, label }
        });
        Ok(())
    }

    fn create_relationship(
        &mut self,
        id: u64,
        (start, end): (u64, u64),
        rel_type: &str,
        props: PropsRef<'_>,
    ) -> Result<()> {
        self.push(RedoOp::CreateRelationship {
            id,
            start,
            end,
            rel_type: rel_type.into(),
            props: props.to_props()?,
        });
        Ok(())
    }

    fn delete_relationship(&mut self, id: u64) -> Result<()> {
        self.push(RedoOp::DeleteRelationship { id });
        Ok(())
    }

    fn set_relationship_property(
        &mut self,
        id: u64,
        key: &str,
        value: Option<RawValue<'_>>,
    ) -> Result<()> {
        let key = key.into();
        self.push(match value {
            Some(value) => RedoOp::SetRelationshipProperty {
                id,
                key,
                value: value.value()?,
            },
            None => RedoOp::RemoveRelationshipProperty { id, key },
        });
        Ok(())
    }

    fn create_index(&mut self, name: &str, label: &str, key: &str, unique: bool) -> Result<()> {
        let (name, label, key) = (name.to_string(), label.into(), key.into());
        self.push(if unique {
            RedoOp::CreateUniqueConstraint { name, label, key }
        } else {
            RedoOp::CreateIndex { name, label, key }
        });
        Ok(())
    }

    fn create_schema_index(&mut self, name: &str, index: SchemaIndexRef<'_>) -> Result<()> {
        self.push(RedoOp::CreateSchemaIndex {
            name: name.to_string(),
            relationship: index.relationship,
            token: index.token.into(),
            keys: index.keys.iter().map(Arc::from).collect(),
            kind: index.kind,
        });
        Ok(())
    }

    fn create_vector_index(
        &mut self,
        name: &str,
        relationship: bool,
        (token, key): (&str, &str),
        with_properties: &[&str],
        config: VectorConfig,
    ) -> Result<()> {
        self.push(RedoOp::CreateVectorIndex {
            name: name.to_string(),
            relationship,
            token: token.into(),
            key: key.into(),
            config,
            with_properties: with_properties.iter().map(|&k| k.into()).collect(),
        });
        Ok(())
    }

    fn create_fulltext_index(&mut self, spec: FulltextSpec) -> Result<()> {
        self.push(RedoOp::CreateFulltextIndex(spec));
        Ok(())
    }

    fn create_property_constraint(&mut self, spec: PropertyConstraintSpec) -> Result<()> {
        self.push(RedoOp::CreatePropertyConstraint(spec));
        Ok(())
    }

    fn drop_index(&mut self, name: &str) -> Result<()> {
        self.push(RedoOp::DropIndex {
            name: name.to_string(),
        });
        Ok(())
    }

    fn drop_constraint(&mut self, name: &str) -> Result<()> {
        self.push(RedoOp::DropConstraint {
            name: name.to_string(),
        });
        Ok(())
    }

    fn security(&mut self, catalogue: Security) -> Result<()> {
        self.push(RedoOp::Security {
            catalogue: Arc::new(catalogue),
        });
        Ok(())
    }

    fn commit_time(&mut self, micros: i64) -> Result<()> {
        self.push(RedoOp::CommitTime { micros });
        Ok(())
    }

    fn captured(&mut self, change: bool, document: RawDocument<'_>) -> Result<()> {
        let document = document.value()?;
        self.push(if change {
            RedoOp::Change { document }
        } else {
            RedoOp::TxContext { document }
        });
        Ok(())
    }
}
