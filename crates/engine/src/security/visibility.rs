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
//! Property rules (`FOR (n:L) WHERE n.p = v`, see [`super::pattern`]) grant or deny the same
//! on the nodes they apply to, judged by the node's current value of the property, whether
//! or not the user may read that property (as Neo4j documents): a node is found when no
//! label of it is denied and no denying rule applies to it, and some label of it is granted
//! or some granting rule applies; a property read likewise. A user without property rules
//! is judged by labels alone: no property of a node is read to judge it.
//!
//! A user who may find and read everything has no [`ReadRules`] at all, so their queries read
//! through the unrestricted transaction and pay nothing for this.

use std::sync::Arc;

use quiver_storage::{NodeProperty, ReadRestriction, Storage};

use super::pattern::NodeRule;

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
    pub(crate) fn add(&mut self, token: Option<T>) {
        match token {
            None => self.every = true,
            Some(t) if !self.some.contains(&t) => self.some.push(t),
            Some(_) => {}
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
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
pub(crate) type Reads<T> = Ruled<PropertyRule<T>>;

/// Whether some rule of `rules` covers `key` of an element with `tokens`.
fn covers(rules: &[PropertyRule<u32>], tokens: &[u32], key: u32) -> bool {
    rules.iter().any(|(token, property)| {
        token.is_none_or(|t| tokens.contains(&t)) && property.is_none_or(|p| p == key)
    })
}

impl Reads<u32> {
    /// Whether `key` of an element with `tokens` may be read.
    fn allows(&self, tokens: &[u32], key: u32) -> bool {
        covers(&self.granted, tokens, key) && !covers(&self.denied, tokens, key)
    }
}

/// A property rule as a read privilege holds it: the property it tests is `None`, once
/// resolved, when no node has it yet.
pub(crate) type Rule<T> = NodeRule<T, Option<T>>;

impl Rule<u32> {
    /// Whether the rule applies to a node with `labels` whose properties `property` reads:
    /// the labels first, so a rule about other nodes reads nothing.
    fn applies(&self, labels: &[u32], property: NodeProperty<'_>) -> bool {
        (self.labels.is_empty() || self.labels.iter().any(|l| labels.contains(l)))
            && self.holds(self.property.and_then(property).as_ref())
    }
}

/// Rules granted and denied, each with what it is about (`A`): a property rule, or a
/// property by label (type) for [`Reads`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Ruled<A> {
    pub granted: Vec<A>,
    pub denied: Vec<A>,
}

impl<A> Default for Ruled<A> {
    fn default() -> Self {
        Ruled {
            granted: Vec::new(),
            denied: Vec::new(),
        }
    }
}

impl<A: PartialEq> Ruled<A> {
    pub(crate) fn add(&mut self, denied: bool, rule: A) {
        let rules = if denied {
            &mut self.denied
        } else {
            &mut self.granted
        };
        if !rules.contains(&rule) {
            rules.push(rule);
        }
    }

    fn is_empty(&self) -> bool {
        self.granted.is_empty() && self.denied.is_empty()
    }
}

/// The property rules on nodes: which let nodes be found, and which let a property (`None`:
/// every one) be read.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct NodeRules<T> {
    pub traverse: Ruled<Rule<T>>,
    pub read: Ruled<(Option<T>, Rule<T>)>,
}

impl<T> Default for NodeRules<T> {
    fn default() -> Self {
        NodeRules {
            traverse: Ruled::default(),
            read: Ruled::default(),
        }
    }
}

/// A user's read privileges, by name, for nodes and relationships.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ReadRules<T = String> {
    pub nodes: Traversal<T>,
    pub relationships: Traversal<T>,
    pub node_properties: Reads<T>,
    pub relationship_properties: Reads<T>,
    pub node_rules: NodeRules<T>,
}

/// Which elements a read privilege row is on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum On<'a> {
    Nodes(Option<&'a str>),
    Relationships(Option<&'a str>),
    /// The nodes a property rule applies to.
    NodesWhere(&'a NodeRule),
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
            && self.node_rules.traverse.denied.is_empty()
            && self.node_rules.read.denied.is_empty()
    }
}

/// A named rule as a privilege holds it.
fn named(rule: &NodeRule) -> Rule<String> {
    NodeRule {
        labels: rule.labels.clone(),
        property: Some(rule.property.clone()),
        negated: rule.negated,
        test: rule.test,
        value: rule.value.clone(),
    }
}

impl ReadRules<String> {
    /// Adds a `TRAVERSE` grant or denial.
    pub fn traverse(&mut self, denied: bool, on: On<'_>) {
        let (traversal, token) = match on {
            On::Nodes(label) => (&mut self.nodes, label),
            On::Relationships(ty) => (&mut self.relationships, ty),
            On::NodesWhere(rule) => {
                self.node_rules.traverse.add(denied, named(rule));
                return;
            }
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
            On::NodesWhere(rule) => {
                let property = property.map(str::to_owned);
                self.node_rules.read.add(denied, (property, named(rule)));
                return;
            }
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
            node_rules: node_rules(&self.node_rules, label, key),
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

fn node_rules(
    names: &NodeRules<String>,
    label: impl Fn(&String) -> Option<u32>,
    key: impl Fn(&String) -> Option<u32>,
) -> NodeRules<u32> {
    // A rule naming only labels that do not exist applies to nothing and is dropped; one
    // testing a property no node has yet is kept (to it every node lacks the property).
    let rule = |r: &Rule<String>| -> Option<Rule<u32>> {
        let labels: Vec<u32> = r.labels.iter().filter_map(&label).collect();
        if labels.is_empty() && !r.labels.is_empty() {
            return None;
        }
        Some(NodeRule {
            labels,
            property: r.property.as_ref().and_then(&key),
            negated: r.negated,
            test: r.test,
            value: r.value.clone(),
        })
    };
    let traverse = |rules: &[Rule<String>]| rules.iter().filter_map(rule).collect();
    // A read of a property that does not exist covers nothing and is dropped too.
    let read = |rules: &[(Option<String>, Rule<String>)]| {
        rules
            .iter()
            .filter_map(|(p, r)| {
                let p = match p {
                    Some(p) => Some(key(p)?),
                    None => None,
                };
                Some((p, rule(r)?))
            })
            .collect()
    };
    NodeRules {
        traverse: Ruled {
            granted: traverse(&names.traverse.granted),
            denied: traverse(&names.traverse.denied),
        },
        read: Ruled {
            granted: read(&names.read.granted),
            denied: read(&names.read.denied),
        },
    }
}

/// A user's read rules in one query's token ids: what the storage hides from them.
#[derive(Debug)]
pub(crate) struct Visibility(ReadRules<u32>);

impl ReadRestriction for Visibility {
    fn node_visible(&self, labels: &[u32], property: NodeProperty<'_>) -> bool {
        let nodes = &self.0.nodes;
        let rules = &self.0.node_rules.traverse;
        if rules.is_empty() {
            return nodes.allows(labels);
        }
        let denied = &nodes.denied;
        if denied.every || labels.iter().any(|t| denied.some.contains(t)) {
            return false;
        }
        if rules.denied.iter().any(|r| r.applies(labels, property)) {
            return false;
        }
        let granted = &nodes.granted;
        granted.every
            || labels.iter().any(|t| granted.some.contains(t))
            || rules.granted.iter().any(|r| r.applies(labels, property))
    }

    fn type_visible(&self, ty: u32) -> bool {
        self.0.relationships.allows(&[ty])
    }

    fn node_key_readable(&self, labels: &[u32], key: u32, property: NodeProperty<'_>) -> bool {
        let reads = &self.0.node_properties;
        let rules = &self.0.node_rules.read;
        if rules.is_empty() {
            return reads.allows(labels, key);
        }
        let ruled = |rules: &[(Option<u32>, Rule<u32>)]| {
            rules
                .iter()
                .any(|(p, r)| p.is_none_or(|p| p == key) && r.applies(labels, property))
        };
        let denied = covers(&reads.denied, labels, key) || ruled(&rules.denied);
        !denied && (covers(&reads.granted, labels, key) || ruled(&rules.granted))
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

    /// A node without properties, as the storage would show it.
    fn none(_: u32) -> Option<quiver_value::Value> {
        None
    }

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
        assert!(v.node_visible(&[person, row], &none));
        assert!(!v.node_visible(&[person, secret], &none));
        assert!(!v.node_visible(&[row], &none));
        // A node without labels needs traversal of every node.
        assert!(!v.node_visible(&[], &none));
        rules.traverse(false, On::Nodes(None));
        let v = rules.resolve(&storage).expect("restricted");
        assert!(v.node_visible(&[], &none));
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
        assert!(v.node_key_readable(&employee, name, &none));
        assert!(!v.node_key_readable(&employee, salary, &none));
        assert!(v.node_key_readable(&boss, salary, &none));
        assert!(!rules.reads_everything());
        // Readable on some nodes, a key is listed; denied on every node, it is not.
        assert!(v.lists_key(salary));
        rules.read(true, On::Nodes(None), Some("salary"));
        let v = rules.resolve(&storage).expect("restricted");
        assert!(!v.lists_key(salary) && v.lists_key(name));
    }

    #[test]
    fn a_node_is_read_only_for_a_property_rule_about_its_labels() {
        let storage = Storage::new();
        let (person, robot) = match ids(&storage, &["Person", "Robot"])[..] {
            [p, r] => (p, r),
            _ => unreachable!("two labels"),
        };
        let level = storage.get_or_create_property_key("level").expect("key").0;
        let reads = std::cell::Cell::new(0);
        let at_level_3 = |key: u32| {
            reads.set(reads.get() + 1);
            (key == level).then_some(quiver_value::Value::Int(3))
        };
        // Rules by labels alone never read a property to judge a node.
        let mut rules = ReadRules::default();
        rules.traverse(false, On::Nodes(None));
        rules.traverse(true, On::Nodes(Some("Robot")));
        rules.read(false, On::Nodes(None), None);
        let v = rules.resolve(&storage).expect("restricted");
        assert!(v.node_visible(&[person], &at_level_3));
        assert!(v.node_key_readable(&[person], level, &at_level_3));
        assert_eq!(reads.get(), 0);
        // A denial by property on people reads a person's level, not a robot's.
        let rule = super::super::pattern::NodeRule::of_segment("FOR (n:Person) WHERE n.level > 2")
            .expect("a rule");
        rules.traverse(true, On::NodesWhere(&rule));
        let v = rules.resolve(&storage).expect("restricted");
        assert!(!v.node_visible(&[robot], &at_level_3));
        assert_eq!(reads.get(), 0);
        assert!(!v.node_visible(&[person], &at_level_3));
        assert_eq!(reads.get(), 1);
        assert!(v.node_visible(&[person], &none));
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
