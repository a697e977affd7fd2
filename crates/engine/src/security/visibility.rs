//! What a user may find and read of the graph, folded from their read privileges (`TRAVERSE`,
//! `READ {props}`, `MATCH {props}`, on every or some labels, types and properties), and
//! resolved to token ids for one query as the storage's [`ReadRestriction`].
//!
//! Neo4j 5's rules: a node may be found when some label of it is granted `TRAVERSE` and none
//! is denied it (a node without labels needs `TRAVERSE` on `NODES *`); a relationship when its
//! type is granted and not denied, and both its ends may be found; a property read when some
//! grant covers it (on `*` or a label of the node, the type of the relationship) and no denial
//! does. `DENY` beats `GRANT`. `MATCH` is `TRAVERSE` and `READ`; denying `MATCH` of some
//! properties denies reading them only, denying `MATCH {*}` denies traversal as well.
//!
//! A user who may find and read everything has no [`ReadRules`] at all, so their queries read
//! through the unrestricted transaction and pay nothing for this.

use std::sync::Arc;

use quiver_storage::{ReadRestriction, Storage};

/// Every token, or some by name (or id, once resolved).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tokens<T> {
    pub every: bool,
    pub some: Vec<T>,
}

impl<T> Default for Tokens<T> {
    fn default() -> Self {
        Tokens {
            every: false,
            some: Vec::new(),
        }
    }
}

impl<T: PartialEq> Tokens<T> {
    fn add(&mut self, token: Option<T>) {
        match token {
            None => self.every = true,
            Some(t) if !self.some.contains(&t) => self.some.push(t),
            Some(_) => {}
        }
    }

    fn is_empty(&self) -> bool {
        !self.every && self.some.is_empty()
    }
}

/// Which labels (or types) may be traversed: granted, less denied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Traversal<T> {
    pub granted: Tokens<T>,
    pub denied: Tokens<T>,
}

impl<T> Default for Traversal<T> {
    fn default() -> Self {
        Traversal {
            granted: Tokens::default(),
            denied: Tokens::default(),
        }
    }
}

impl Traversal<u32> {
    /// Whether an element with `tokens` (a node's labels, a relationship's one type) may be
    /// found: no token of it denied, and every token or one of its own granted.
    fn allows(&self, tokens: &[u32]) -> bool {
        !self.denied.every
            && !tokens.iter().any(|t| self.denied.some.contains(t))
            && (self.granted.every || tokens.iter().any(|t| self.granted.some.contains(t)))
    }
}

/// A read rule: on every element or those with a label (type), of every property or one.
type PropertyRule<T> = (Option<T>, Option<T>);

/// Which properties may be read: granted, less denied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Reads<T> {
    pub granted: Vec<PropertyRule<T>>,
    pub denied: Vec<PropertyRule<T>>,
}

impl<T> Default for Reads<T> {
    fn default() -> Self {
        Reads {
            granted: Vec::new(),
            denied: Vec::new(),
        }
    }
}

impl<T: PartialEq> Reads<T> {
    fn add(&mut self, denied: bool, rule: PropertyRule<T>) {
        let rules = if denied {
            &mut self.denied
        } else {
            &mut self.granted
        };
        if !rules.contains(&rule) {
            rules.push(rule);
        }
    }
}

impl Reads<u32> {
    /// Whether `key` of an element with `tokens` may be read.
    fn allows(&self, tokens: &[u32], key: u32) -> bool {
        let covers = |rules: &[PropertyRule<u32>]| {
            rules.iter().any(|(token, property)| {
                token.is_none_or(|t| tokens.contains(&t)) && property.is_none_or(|p| p == key)
            })
        };
        covers(&self.granted) && !covers(&self.denied)
    }
}

/// A user's read privileges, by name, for nodes and relationships.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ReadRules<T = String> {
    pub nodes: Traversal<T>,
    pub relationships: Traversal<T>,
    pub node_properties: Reads<T>,
    pub relationship_properties: Reads<T>,
}

/// Which elements a read privilege row is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum On<'a> {
    Nodes(Option<&'a str>),
    Relationships(Option<&'a str>),
}

impl<T: PartialEq> ReadRules<T> {
    /// Whether these rules let every element be found and every property read: the user
    /// reads the whole graph and needs no restriction.
    pub fn reads_everything(&self) -> bool {
        self.nodes.granted.every
            && self.nodes.denied.is_empty()
            && self.relationships.granted.every
            && self.relationships.denied.is_empty()
            && self.node_properties.granted.contains(&(None, None))
            && self.node_properties.denied.is_empty()
            && self.relationship_properties.granted.contains(&(None, None))
            && self.relationship_properties.denied.is_empty()
    }
}

impl ReadRules<String> {
    /// Adds a `TRAVERSE` grant or denial.
    pub fn traverse(&mut self, denied: bool, on: On<'_>) {
        let (traversal, token) = match on {
            On::Nodes(label) => (&mut self.nodes, label),
            On::Relationships(ty) => (&mut self.relationships, ty),
        };
        let tokens = if denied {
            &mut traversal.denied
        } else {
            &mut traversal.granted
        };
        tokens.add(token.map(str::to_owned));
    }

    /// Adds a `READ` grant or denial of `property` (`None`: every one).
    pub fn read(&mut self, denied: bool, on: On<'_>, property: Option<&str>) {
        let (reads, token) = match on {
            On::Nodes(label) => (&mut self.node_properties, label),
            On::Relationships(ty) => (&mut self.relationship_properties, ty),
        };
        reads.add(
            denied,
            (token.map(str::to_owned), property.map(str::to_owned)),
        );
    }

    /// These rules in `storage`'s token ids, as one query reads through them. A rule naming
    /// a label, type or property that does not exist yet matches nothing in this query.
    ///
    /// `None` when, so resolved, they hide nothing (every denial names what does not exist):
    /// the query then reads unrestricted, its fast paths included.
    pub fn resolve(&self, storage: &Storage) -> Option<Arc<Visibility>> {
        let label = |name: &String| storage.label_id(name).map(|l| l.0);
        let ty = |name: &String| storage.rel_type_id(name).map(|t| t.0);
        let key = |name: &String| storage.property_key_id(name).map(|k| k.0);
        let rules = ReadRules {
            nodes: traversal(&self.nodes, label),
            relationships: traversal(&self.relationships, ty),
            node_properties: reads(&self.node_properties, label, key),
            relationship_properties: reads(&self.relationship_properties, ty, key),
        };
        (!rules.reads_everything()).then(|| Arc::new(Visibility(rules)))
    }
}

fn tokens(names: &Tokens<String>, id: impl Fn(&String) -> Option<u32>) -> Tokens<u32> {
    Tokens {
        every: names.every,
        some: names.some.iter().filter_map(id).collect(),
    }
}

fn traversal(names: &Traversal<String>, id: impl Fn(&String) -> Option<u32>) -> Traversal<u32> {
    Traversal {
        granted: tokens(&names.granted, &id),
        denied: tokens(&names.denied, &id),
    }
}

fn reads(
    names: &Reads<String>,
    token: impl Fn(&String) -> Option<u32>,
    key: impl Fn(&String) -> Option<u32>,
) -> Reads<u32> {
    // A rule on a missing token or key is dropped: it covers nothing that exists.
    let rules = |rules: &[PropertyRule<String>]| -> Vec<PropertyRule<u32>> {
        rules
            .iter()
            .filter_map(|(t, p)| {
                let t = match t {
                    Some(t) => Some(token(t)?),
                    None => None,
                };
                let p = match p {
                    Some(p) => Some(key(p)?),
                    None => None,
                };
                Some((t, p))
            })
            .collect()
    };
    Reads {
        granted: rules(&names.granted),
        denied: rules(&names.denied),
    }
}

/// A user's read rules in one query's token ids: what the storage hides from them.
#[derive(Debug)]
pub(crate) struct Visibility(ReadRules<u32>);

impl ReadRestriction for Visibility {
    fn node_visible(&self, labels: &[u32]) -> bool {
        self.0.nodes.allows(labels)
    }

    fn type_visible(&self, ty: u32) -> bool {
        self.0.relationships.allows(&[ty])
    }

    fn node_key_readable(&self, labels: &[u32], key: u32) -> bool {
        self.0.node_properties.allows(labels, key)
    }

    fn rel_key_readable(&self, ty: u32, key: u32) -> bool {
        self.0.relationship_properties.allows(&[ty], key)
    }
}

impl Visibility {
    /// Whether `db.propertyKeys()` lists `key` to this reader: some grant lets it be read on
    /// some element, and no denial hides it on every one.
    pub(crate) fn lists_key(&self, key: u32) -> bool {
        let lists = |reads: &Reads<u32>| {
            reads
                .granted
                .iter()
                .any(|(_, property)| property.is_none_or(|p| p == key))
                && !reads
                    .denied
                    .iter()
                    .any(|(token, property)| token.is_none() && property.is_none_or(|p| p == key))
        };
        lists(&self.0.node_properties) || lists(&self.0.relationship_properties)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(storage: &Storage, labels: &[&str]) -> Vec<u32> {
        labels
            .iter()
            .map(|l| storage.get_or_create_label(l).map(|id| id.0))
            .collect::<Result<_, _>>()
            .expect("labels")
    }

    #[test]
    fn a_node_is_found_when_one_label_is_granted_and_none_denied() {
        let storage = Storage::new();
        let (person, row, secret) = match ids(&storage, &["Person", "Row", "Secret"])[..] {
            [p, r, s] => (p, r, s),
            _ => unreachable!("three labels"),
        };
        let mut rules = ReadRules::default();
        rules.traverse(false, On::Nodes(Some("Person")));
        rules.traverse(true, On::Nodes(Some("Secret")));
        // A rule on a label that does not exist covers nothing.
        rules.traverse(false, On::Nodes(Some("Missing")));
        let v = rules.resolve(&storage).expect("restricted");
        assert!(v.node_visible(&[person, row]));
        assert!(!v.node_visible(&[person, secret]));
        assert!(!v.node_visible(&[row]));
        // A node without labels needs traversal of every node.
        assert!(!v.node_visible(&[]));
        rules.traverse(false, On::Nodes(None));
        let v = rules.resolve(&storage).expect("restricted");
        assert!(v.node_visible(&[]));
    }

    #[test]
    fn a_property_is_read_when_some_grant_covers_it_and_no_denial_does() {
        let storage = Storage::new();
        let key = |k: &str| storage.get_or_create_property_key(k).map(|id| id.0);
        let (name, salary) = (key("name").expect("key"), key("salary").expect("key"));
        let (employee, boss) = (ids(&storage, &["Employee"]), ids(&storage, &["Boss"]));
        let mut rules = ReadRules::default();
        rules.read(false, On::Nodes(None), None);
        rules.read(true, On::Nodes(Some("Employee")), Some("salary"));
        let v = rules.resolve(&storage).expect("restricted");
        assert!(v.node_key_readable(&employee, name));
        assert!(!v.node_key_readable(&employee, salary));
        assert!(v.node_key_readable(&boss, salary));
        assert!(!rules.reads_everything());
        // Readable on some nodes, a key is listed; denied on every node, it is not.
        assert!(v.lists_key(salary));
        rules.read(true, On::Nodes(None), Some("salary"));
        let v = rules.resolve(&storage).expect("restricted");
        assert!(!v.lists_key(salary) && v.lists_key(name));
    }

    #[test]
    fn denials_of_what_does_not_exist_restrict_nothing() {
        let storage = Storage::new();
        let mut rules = ReadRules::default();
        for on in [On::Nodes(None), On::Relationships(None)] {
            rules.traverse(false, on);
            rules.read(false, on, None);
        }
        assert!(rules.reads_everything());
        rules.traverse(true, On::Nodes(Some("Missing")));
        rules.read(true, On::Relationships(None), Some("missing"));
        assert!(!rules.reads_everything());
        assert!(rules.resolve(&storage).is_none());
        storage.get_or_create_label("Missing").expect("label");
        assert!(rules.resolve(&storage).is_some());
    }
}
