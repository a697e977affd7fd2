//! What a user may write, folded from their write privileges (`CREATE`, `DELETE`, `SET
//! LABEL`, `REMOVE LABEL`, `SET PROPERTY`, and `MERGE`, `WRITE` and `ALL GRAPH PRIVILEGES`,
//! which hold some of them) on every or some labels, relationship types and property keys.
//!
//! Neo4j 5's rules, each write checked at the element it writes:
//! - creating or deleting a node needs the write on every one of its labels (or on `NODES *`)
//!   and no label of it denied; a node without labels needs it on `NODES *`;
//! - creating or deleting a relationship needs it on its type (or on `RELATIONSHIPS *`);
//! - setting or removing a label needs `SET LABEL` / `REMOVE LABEL` of that label (or `*`);
//! - setting or removing a property needs `SET PROPERTY` of its key on `*` or on a label of
//!   the node (the type of the relationship) as it is when written, and no denial covering it.
//!
//! `DENY` beats `GRANT`. `MERGE {props}` is `MATCH {props}` (a read rule), `CREATE` and `SET
//! PROPERTY {props}` on its elements; `WRITE` is every write on every element.
//!
//! A write held on every element with nothing of it denied is an [`Abilities`] bit: a user
//! whose writes are all whole pays one bit test per element written and holds no
//! [`WriteRules`] at all. Only a write held on some elements, or held with a narrower denial,
//! is looked up here by name.

use super::privilege::{Abilities, Ability};
use super::visibility::{Ruled, Tokens, Traversal};

impl Tokens<String> {
    fn contains(&self, name: &str) -> bool {
        self.every || self.some.iter().any(|s| s == name)
    }
}

/// One write on labels or on relationship types, granted less denied: the containers the
/// read rules use for traversal, asked as a write asks.
type Rule = Traversal<String>;

impl Traversal<String> {
    fn add(&mut self, denied: bool, name: Option<&str>) {
        let names = if denied {
            &mut self.denied
        } else {
            &mut self.granted
        };
        names.add(name.map(str::to_owned));
    }

    /// Held on every label (type) and denied on none.
    fn whole(&self) -> bool {
        self.granted.every && self.denied.is_empty()
    }

    /// Held on some of what it may be on: worth looking up.
    fn partial(&self) -> bool {
        !self.whole() && !self.denied.every && !self.granted.is_empty()
    }

    /// Whether the write is allowed on `name` (a label, or a relationship's type).
    fn allows_one(&self, name: &str) -> bool {
        !self.denied.contains(name) && self.granted.contains(name)
    }

    /// Whether the write is allowed on a node with `labels`: every one granted, none denied;
    /// a node without labels needs the write on every node.
    fn allows_each<S: AsRef<str>>(&self, labels: &[S]) -> bool {
        !self.denied.every
            && !labels.iter().any(|l| self.denied.contains(l.as_ref()))
            && (self.granted.every
                || (!labels.is_empty() && labels.iter().all(|l| self.granted.contains(l.as_ref()))))
    }
}

/// `SET PROPERTY` on elements with a label (type) or every one, of one key or every key.
type PropertyRule = (Option<String>, Option<String>);

/// Setting properties: the rules granted and those denied.
type Properties = Ruled<PropertyRule>;

impl Ruled<PropertyRule> {
    fn add_key(&mut self, denied: bool, token: Option<&str>, key: Option<&str>) {
        self.add(denied, (token.map(str::to_owned), key.map(str::to_owned)));
    }

    fn whole(&self) -> bool {
        self.granted.contains(&(None, None)) && self.denied.is_empty()
    }

    fn partial(&self) -> bool {
        !self.whole() && !self.granted.is_empty() && !self.denied.contains(&(None, None))
    }

    /// Whether `key` may be set on an element with `tokens` (a node's labels, or a
    /// relationship's one type): some grant covers it and no denial does.
    fn allows_key<S: AsRef<str>>(&self, tokens: &[S], key: &str) -> bool {
        let covers = |rules: &[PropertyRule]| {
            rules.iter().any(|(token, property)| {
                token
                    .as_deref()
                    .is_none_or(|t| tokens.iter().any(|s| s.as_ref() == t))
                    && property.as_deref().is_none_or(|p| p == key)
            })
        };
        covers(&self.granted) && !covers(&self.denied)
    }
}

/// A user's write privileges, by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct WriteRules {
    create_nodes: Rule,
    delete_nodes: Rule,
    set_labels: Rule,
    remove_labels: Rule,
    create_relationships: Rule,
    delete_relationships: Rule,
    node_properties: Properties,
    relationship_properties: Properties,
}

/// Which elements a write privilege row is on: nodes with a label (`None`: every node),
/// relationships of a type, or the whole graph.
#[derive(Clone, Copy)]
enum On<'a> {
    Nodes(Option<&'a str>),
    Relationships(Option<&'a str>),
    Graph,
}

impl WriteRules {
    /// Adds what write privilege row (`action`, `resource`, `segment`) on this database
    /// grants or denies; any other row adds nothing.
    pub fn add(&mut self, denied: bool, action: &str, resource: &str, segment: &str) {
        let argument = |kind| match super::privilege::segment_argument(segment, kind) {
            Some("*") => Some(None),
            Some(name) => Some(Some(name)),
            None => None,
        };
        let on = match (argument("NODE"), argument("RELATIONSHIP")) {
            (Some(label), _) => On::Nodes(label),
            (_, Some(ty)) => On::Relationships(ty),
            _ if segment == "database" => On::Graph,
            _ => return,
        };
        // `Some(None)`: every label or property; `Some(Some(name))`: one; `None`: neither.
        let named = |kind: &str, all: &str| match super::privilege::segment_argument(resource, kind)
        {
            Some(name) => Some(Some(name)),
            None if resource == all => Some(None),
            None => None,
        };
        match action {
            "write" => self.write(denied, on),
            "graph_actions" => self.write(denied, On::Graph),
            "create_element" => self.create(denied, on),
            "delete_element" => match on {
                On::Nodes(label) => self.delete_nodes.add(denied, label),
                On::Relationships(ty) => self.delete_relationships.add(denied, ty),
                On::Graph => {}
            },
            "set_label" => {
                if let Some(label) = named("label", "all_labels") {
                    self.set_labels.add(denied, label);
                }
            }
            "remove_label" => {
                if let Some(label) = named("label", "all_labels") {
                    self.remove_labels.add(denied, label);
                }
            }
            "set_property" => {
                if let Some(key) = named("property", "all_properties") {
                    self.set_property(denied, on, key);
                }
            }
            // MERGE creates its elements and sets their properties (and reads them, which
            // the read rules hold).
            "merge" => {
                if let Some(key) = named("property", "all_properties") {
                    self.create(denied, on);
                    self.set_property(denied, on, key);
                }
            }
            _ => {}
        }
    }

    fn write(&mut self, denied: bool, on: On<'_>) {
        if matches!(on, On::Nodes(_) | On::Graph) {
            let label = match on {
                On::Nodes(label) => label,
                _ => None,
            };
            self.create_nodes.add(denied, label);
            self.delete_nodes.add(denied, label);
            self.set_labels.add(denied, None);
            self.remove_labels.add(denied, None);
            self.node_properties.add_key(denied, label, None);
        }
        if matches!(on, On::Relationships(_) | On::Graph) {
            let ty = match on {
                On::Relationships(ty) => ty,
                _ => None,
            };
            self.create_relationships.add(denied, ty);
            self.delete_relationships.add(denied, ty);
            self.relationship_properties.add_key(denied, ty, None);
        }
    }

    fn create(&mut self, denied: bool, on: On<'_>) {
        match on {
            On::Nodes(label) => self.create_nodes.add(denied, label),
            On::Relationships(ty) => self.create_relationships.add(denied, ty),
            On::Graph => {}
        }
    }

    fn set_property(&mut self, denied: bool, on: On<'_>, key: Option<&str>) {
        match on {
            On::Nodes(label) => self.node_properties.add_key(denied, label, key),
            On::Relationships(ty) => self.relationship_properties.add_key(denied, ty, key),
            On::Graph => {}
        }
    }

    /// The writes held whole: on every element, nothing of them denied.
    pub fn whole(&self) -> Abilities {
        let mut whole = Abilities::NONE;
        for (held, ability) in [
            (self.create_nodes.whole(), Ability::CreateNodes),
            (self.delete_nodes.whole(), Ability::DeleteNodes),
            (self.set_labels.whole(), Ability::SetLabel),
            (self.remove_labels.whole(), Ability::RemoveLabel),
            (
                self.create_relationships.whole(),
                Ability::CreateRelationships,
            ),
            (
                self.delete_relationships.whole(),
                Ability::DeleteRelationships,
            ),
            (self.node_properties.whole(), Ability::SetNodeProperty),
            (
                self.relationship_properties.whole(),
                Ability::SetRelationshipProperty,
            ),
        ] {
            if held {
                whole = whole.with(Abilities::of(&[ability]));
            }
        }
        whole
    }

    /// Whether some write is held on some elements only: the rules must then be kept and
    /// looked up.
    pub fn partial(&self) -> bool {
        [
            &self.create_nodes,
            &self.delete_nodes,
            &self.set_labels,
            &self.remove_labels,
            &self.create_relationships,
            &self.delete_relationships,
        ]
        .iter()
        .any(|r| r.partial())
            || self.node_properties.partial()
            || self.relationship_properties.partial()
    }

    /// Whether a node with `labels` may be created.
    pub fn create_node<S: AsRef<str>>(&self, labels: &[S]) -> bool {
        self.create_nodes.allows_each(labels)
    }

    /// Whether a node with `labels` may be deleted.
    pub fn delete_node<S: AsRef<str>>(&self, labels: &[S]) -> bool {
        self.delete_nodes.allows_each(labels)
    }

    /// Whether label `label` may be set on a node.
    pub fn set_label(&self, label: &str) -> bool {
        self.set_labels.allows_one(label)
    }

    /// Whether label `label` may be removed from a node.
    pub fn remove_label(&self, label: &str) -> bool {
        self.remove_labels.allows_one(label)
    }

    /// Whether a relationship of type `ty` may be created.
    pub fn create_relationship(&self, ty: &str) -> bool {
        self.create_relationships.allows_one(ty)
    }

    /// Whether a relationship of type `ty` may be deleted.
    pub fn delete_relationship(&self, ty: &str) -> bool {
        self.delete_relationships.allows_one(ty)
    }

    /// Whether property `key` may be set on (or removed from) a node with `labels`.
    pub fn set_node_property<S: AsRef<str>>(&self, labels: &[S], key: &str) -> bool {
        self.node_properties.allows_key(labels, key)
    }

    /// Whether property `key` may be set on (or removed from) a relationship of type `ty`.
    pub fn set_relationship_property(&self, ty: &str, key: &str) -> bool {
        self.relationship_properties.allows_key(&[ty], key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(rows: &[(bool, &str, &str, &str)]) -> WriteRules {
        let mut rules = WriteRules::default();
        for (denied, action, resource, segment) in rows {
            rules.add(*denied, action, resource, segment);
        }
        rules
    }

    #[test]
    fn a_node_is_created_when_every_label_is_granted_and_none_denied() {
        let r = rules(&[
            (false, "create_element", "graph", "NODE(Person)"),
            (false, "create_element", "graph", "NODE(Admin)"),
        ]);
        assert!(r.create_node(&["Person"]) && r.create_node(&["Person", "Admin"]));
        assert!(!r.create_node(&["Person", "Secret"]));
        // A node without labels needs CREATE on every node.
        assert!(!r.create_node::<&str>(&[]));
        assert!(r.partial() && !r.whole().has(Ability::CreateNodes));
        let r = rules(&[
            (false, "write", "graph", "NODE(*)"),
            (true, "create_element", "graph", "NODE(Secret)"),
        ]);
        assert!(r.create_node::<&str>(&[]) && r.create_node(&["Person"]));
        assert!(!r.create_node(&["Person", "Secret"]));
        // The denial takes the bit: every creation is looked up.
        assert!(!r.whole().has(Ability::CreateNodes) && r.whole().has(Ability::DeleteNodes));
    }

    #[test]
    fn a_property_is_set_when_some_grant_covers_it_and_no_denial_does() {
        let r = rules(&[
            (false, "set_property", "all_properties", "NODE(Person)"),
            (true, "set_property", "property(salary)", "NODE(*)"),
            (false, "merge", "property(since)", "RELATIONSHIP(KNOWS)"),
        ]);
        assert!(r.set_node_property(&["Person", "Row"], "name"));
        assert!(!r.set_node_property(&["Person"], "salary"));
        assert!(!r.set_node_property(&["Row"], "name"));
        assert!(r.set_relationship_property("KNOWS", "since"));
        assert!(!r.set_relationship_property("KNOWS", "weight"));
        // MERGE creates its elements too.
        assert!(r.create_relationship("KNOWS") && !r.create_relationship("LIKES"));
    }

    #[test]
    fn whole_graph_writes_are_bits_and_keep_no_rules() {
        let r = rules(&[
            (false, "write", "graph", "NODE(*)"),
            (false, "write", "graph", "RELATIONSHIP(*)"),
        ]);
        assert!(r.whole().contains(super::super::privilege::WRITE_GRAPH));
        assert!(!r.partial());
        let r = rules(&[
            (false, "graph_actions", "database", "database"),
            (true, "write", "graph", "RELATIONSHIP(*)"),
        ]);
        assert!(!r.partial() && !r.whole().has(Ability::CreateRelationships));
        assert!(r.whole().has(Ability::SetLabel));
    }
}
