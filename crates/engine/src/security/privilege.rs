//! Privileges in Neo4j 5's terms: each role holds a set of granted and denied privileges,
//! stored as the rows `SHOW PRIVILEGES` lists ([`quiver_storage::PrivilegeRecord`]), and a
//! user may do what some role of theirs grants and none denies.
//!
//! A role whose privileges were never set has its default ones: a built-in role Neo4j's set
//! for it ([`DEFAULTS`]), a role created before privileges could be set the set of the role
//! it was copied from, any other created role none. `GRANT`, `DENY` and `REVOKE` store the
//! role's whole set from then on.
//!
//! What is enforced, folded once per user and security catalogue into [`Permissions`]:
//! - per statement, as [`Abilities`]: database access, name, index, constraint and
//!   transaction management, and the DBMS privileges;
//! - reads, as the query runs: `TRAVERSE`, `READ {props}` and `MATCH {props}` on every or
//!   some labels, relationship types and properties, or by a property rule on nodes
//!   (`FOR (n:L) WHERE n.p = v`, see [`super::pattern`]), and `ALL GRAPH PRIVILEGES` and
//!   `MERGE`, which read, fold into [`ReadRules`]. What a user may not traverse is invisible (not an
//!   error) to scans, seeks, expands, path searches, counts, procedures and full-text and
//!   vector searches, and a property they may not read reads as null; see
//!   [`super::visibility`]. A user holding no read privilege sees an empty graph. Only a user
//!   who may find and read everything has [`READ_GRAPH`], which the count store and other
//!   fast counts require; their queries read unrestricted, at no cost;
//! - per element written, the finer writes (`CREATE`, `DELETE`, `SET LABEL`, `REMOVE LABEL`,
//!   `SET PROPERTY`, `MERGE`, which `WRITE` is all of) on every or some labels, relationship
//!   types and properties: a write held whole is an [`Abilities`] bit, one held on some
//!   elements a [`WriteRules`] lookup by name; see [`super::writes`];
//! - per procedure call, the `EXECUTE PROCEDURE` globs.
//!
//! A privilege the server cannot enforce (a write by property rule, a property rule whose
//! predicate is none of the forms Neo4j allows) is refused as unsupported by
//! [`records_with`] rather than stored: a stored `DENY` is always obeyed.

use quiver_cypher::ast::{
    DatabaseAction, DbmsAction, Elements, GraphAction, NameSet, Privilege, PrivilegeTarget,
};
use std::sync::Arc;

use quiver_storage::{PrivilegeRecord, Security};

use super::Level;
use super::pattern::NodeRule;
use super::visibility::{On, ReadRules, Visibility};
use super::writes::WriteRules;

/// The database privileges are resolved for: a privilege on `GRAPH name`, `DATABASE name`,
/// `DEFAULT` or `HOME` covers it when it is that database; one on `*` covers every database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scope<'a> {
    /// Its name, in lower case.
    pub name: &'a str,
    /// Whether it is the server's default database.
    pub default: bool,
    /// Whether it is the user's home database (their own, else the default).
    pub home: bool,
}

impl Scope<'static> {
    /// A server's only database, `neo4j`: the default and every user's home.
    pub const ONLY: Scope<'static> = Scope {
        name: crate::catalog::DEFAULT_DATABASE,
        default: true,
        home: true,
    };
}

/// One thing a statement may need, as a bit of [`Abilities`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Ability {
    Access,
    TraverseNodes,
    TraverseRelationships,
    ReadNodes,
    ReadRelationships,
    CreateNodes,
    CreateRelationships,
    DeleteNodes,
    DeleteRelationships,
    SetLabel,
    RemoveLabel,
    SetNodeProperty,
    SetRelationshipProperty,
    NameManagement,
    IndexManagement,
    ConstraintManagement,
    ShowIndex,
    ShowConstraint,
    TransactionManagement,
    StartDatabase,
    StopDatabase,
    UserManagement,
    RoleManagement,
    PrivilegeManagement,
    DatabaseManagement,
    Impersonate,
    /// `SHOW SETTINGS`: part of `ALL DBMS PRIVILEGES` only.
    ShowSettings,
    /// `SHOW SERVERS`: part of `SERVER MANAGEMENT`, which only `ALL DBMS PRIVILEGES` grants
    /// here (the parser refuses `SERVER MANAGEMENT` and `SHOW SERVERS` as privileges).
    ShowServers,
}

/// A set of [`Ability`]s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Abilities(u32);

const _: () = assert!((Ability::ShowServers as u32) < u32::BITS);

impl Abilities {
    pub const NONE: Abilities = Abilities(0);

    pub const fn of(abilities: &[Ability]) -> Abilities {
        let mut bits = 0;
        let mut i = 0;
        while i < abilities.len() {
            bits |= 1 << abilities[i] as u32;
            i += 1;
        }
        Abilities(bits)
    }

    pub const fn with(self, other: Abilities) -> Abilities {
        Abilities(self.0 | other.0)
    }

    pub const fn without(self, other: Abilities) -> Abilities {
        Abilities(self.0 & !other.0)
    }

    pub const fn contains(self, other: Abilities) -> bool {
        self.0 & other.0 == other.0
    }

    pub const fn has(self, ability: Ability) -> bool {
        self.0 & (1 << ability as u32) != 0
    }
}

impl From<Level> for Abilities {
    /// What the built-in role at `level` may do (with `PUBLIC`'s), before any change to it.
    fn from(level: Level) -> Abilities {
        Permissions::of_level(level).abilities
    }
}

/// Reading the graph: traversing and reading every node and relationship.
pub(crate) const READ_GRAPH: Abilities = Abilities::of(&[
    Ability::TraverseNodes,
    Ability::TraverseRelationships,
    Ability::ReadNodes,
    Ability::ReadRelationships,
]);

/// Writing nodes: `WRITE ON GRAPH * NODES *`.
const WRITE_NODES: Abilities = Abilities::of(&[
    Ability::CreateNodes,
    Ability::DeleteNodes,
    Ability::SetLabel,
    Ability::RemoveLabel,
    Ability::SetNodeProperty,
]);

/// Writing relationships: `WRITE ON GRAPH * RELATIONSHIPS *`.
const WRITE_RELATIONSHIPS: Abilities = Abilities::of(&[
    Ability::CreateRelationships,
    Ability::DeleteRelationships,
    Ability::SetRelationshipProperty,
]);

/// Writing the graph: every node and relationship, each kind of write.
pub(crate) const WRITE_GRAPH: Abilities = WRITE_NODES.with(WRITE_RELATIONSHIPS);

/// What `ALL DATABASE PRIVILEGES` covers.
const DATABASE_ACTIONS: Abilities = Abilities::of(&[
    Ability::Access,
    Ability::StartDatabase,
    Ability::StopDatabase,
    Ability::IndexManagement,
    Ability::ShowIndex,
    Ability::ConstraintManagement,
    Ability::ShowConstraint,
    Ability::NameManagement,
    Ability::TransactionManagement,
]);

/// What `ALL DBMS PRIVILEGES` covers.
const DBMS_ACTIONS: Abilities = Abilities::of(&[
    Ability::UserManagement,
    Ability::RoleManagement,
    Ability::PrivilegeManagement,
    Ability::DatabaseManagement,
    Ability::Impersonate,
    Ability::ShowSettings,
    Ability::ShowServers,
]);

/// The built-in roles' privileges, each row at the level that first has it, as Neo4j 5 lists
/// them: (level, action, resource, graph, segment). A role at a level has the rows above
/// `PUBLIC` up to its level; `PUBLIC` has its own.
pub(crate) const DEFAULTS: &[(Level, &str, &str, &str, &str)] = &[
    (Level::Public, "execute", "database", "*", "PROCEDURE(*)"),
    (
        Level::Public,
        "execute_function",
        "database",
        "*",
        "FUNCTION(*)",
    ),
    (Level::Public, "access", "database", "DEFAULT", "database"),
    (Level::Reader, "access", "database", "*", "database"),
    (Level::Reader, "match", "all_properties", "*", "NODE(*)"),
    (
        Level::Reader,
        "match",
        "all_properties",
        "*",
        "RELATIONSHIP(*)",
    ),
    (
        Level::Reader,
        "show_constraint",
        "database",
        "*",
        "database",
    ),
    (Level::Reader, "show_index", "database", "*", "database"),
    (Level::Editor, "write", "graph", "*", "NODE(*)"),
    (Level::Editor, "write", "graph", "*", "RELATIONSHIP(*)"),
    (Level::Publisher, "token", "database", "*", "database"),
    (Level::Architect, "index", "database", "*", "database"),
    (Level::Architect, "constraint", "database", "*", "database"),
    (Level::Admin, "start_database", "database", "*", "database"),
    (Level::Admin, "stop_database", "database", "*", "database"),
    (
        Level::Admin,
        "transaction_management",
        "database",
        "*",
        "USER(*)",
    ),
    (Level::Admin, "dbms_actions", "database", "*", "database"),
];

fn record(
    denied: bool,
    action: &str,
    resource: &str,
    graph: &str,
    segment: &str,
) -> PrivilegeRecord {
    PrivilegeRecord {
        denied,
        action: action.to_owned(),
        resource: resource.to_owned(),
        graph: graph.to_owned(),
        segment: segment.to_owned(),
    }
}

/// The default privileges of a built-in role at `level` (`public`: of `PUBLIC` itself).
pub(crate) fn built_in(level: Level, public: bool) -> Vec<PrivilegeRecord> {
    DEFAULTS
        .iter()
        .filter(|(at, ..)| {
            if public {
                *at == Level::Public
            } else {
                *at > Level::Public && *at <= level
            }
        })
        .map(|(_, action, resource, graph, segment)| {
            record(false, action, resource, graph, segment)
        })
        .collect()
}

/// The privileges of role `role` now: stored, or its defaults (see the module doc).
pub(crate) fn of_role(role: &str, catalogue: &Security) -> Vec<PrivilegeRecord> {
    if let Some(stored) = catalogue.privileges.get(role) {
        return stored.iter().cloned().collect();
    }
    if role == "PUBLIC" {
        return built_in(Level::Public, true);
    }
    match Level::of_role(role, catalogue) {
        Some(level) => built_in(level, false),
        None => Vec::new(),
    }
}

/// Whether a privilege on graph or database `graph` (`*`, a name, `DEFAULT`, `HOME`) covers
/// the database `scope`. Database names are case-insensitive, as in Neo4j: `DENY WRITE ON
/// GRAPH NEO4J` denies.
fn covers_database(graph: &str, scope: Scope<'_>) -> bool {
    match graph {
        "*" => true,
        "DEFAULT" => scope.default,
        "HOME" => scope.home,
        name => name.eq_ignore_ascii_case(scope.name),
    }
}

/// A privilege row as read, stored or built in, without copying its words.
#[derive(Clone, Copy)]
struct Row<'a> {
    denied: bool,
    action: &'a str,
    resource: &'a str,
    graph: &'a str,
    segment: &'a str,
}

impl<'a> From<&'a PrivilegeRecord> for Row<'a> {
    fn from(p: &'a PrivilegeRecord) -> Row<'a> {
        Row {
            denied: p.denied,
            action: &p.action,
            resource: &p.resource,
            graph: &p.graph,
            segment: &p.segment,
        }
    }
}

/// Calls `f` with each privilege row of role `role` now (as [`of_role`] lists them), copying
/// nothing: this runs at every statement.
fn visit_role<'a>(role: &str, catalogue: &'a Security, f: &mut impl FnMut(Row<'a>)) {
    if let Some(stored) = catalogue.privileges.get(role) {
        for p in stored {
            f(Row::from(p));
        }
        return;
    }
    let (level, public) = if role == "PUBLIC" {
        (Level::Public, true)
    } else {
        match Level::of_role(role, catalogue) {
            Some(level) => (level, false),
            None => return,
        }
    };
    visit_built_in(level, public, f);
}

fn visit_built_in<'a>(level: Level, public: bool, f: &mut impl FnMut(Row<'a>)) {
    for (at, action, resource, graph, segment) in DEFAULTS {
        let has = if public {
            *at == Level::Public
        } else {
            *at > Level::Public && *at <= level
        };
        if has {
            f(Row {
                denied: false,
                action,
                resource,
                graph,
                segment,
            });
        }
    }
}

/// The abilities one privilege row gives (or takes, when denied).
fn abilities_of(p: Row<'_>, scope: Scope<'_>) -> Abilities {
    use Ability as A;
    if !covers_database(p.graph, scope) {
        return Abilities::NONE;
    }
    let nodes = p.segment == "NODE(*)";
    let relationships = p.segment == "RELATIONSHIP(*)";
    let on_elements = |node: Ability, relationship: Ability| match (nodes, relationships) {
        (true, _) => Abilities::of(&[node]),
        (_, true) => Abilities::of(&[relationship]),
        _ => Abilities::NONE,
    };
    let all_properties = p.resource == "all_properties";
    let matching = || {
        on_elements(A::TraverseNodes, A::TraverseRelationships)
            .with(on_elements(A::ReadNodes, A::ReadRelationships))
    };
    // The writes (`WRITE`, `CREATE`, ..., and those of `MERGE` and `ALL GRAPH PRIVILEGES`)
    // are folded as write rules, which give their bits.
    match p.action {
        "traverse" => on_elements(A::TraverseNodes, A::TraverseRelationships),
        "read" if all_properties => on_elements(A::ReadNodes, A::ReadRelationships),
        "match" | "merge" if all_properties => matching(),
        "graph_actions" => READ_GRAPH,
        "access" => Abilities::of(&[A::Access]),
        "start_database" => Abilities::of(&[A::StartDatabase]),
        "stop_database" => Abilities::of(&[A::StopDatabase]),
        "index" => Abilities::of(&[A::IndexManagement, A::ShowIndex]),
        "constraint" => Abilities::of(&[A::ConstraintManagement, A::ShowConstraint]),
        "show_index" => Abilities::of(&[A::ShowIndex]),
        "show_constraint" => Abilities::of(&[A::ShowConstraint]),
        "token" => Abilities::of(&[A::NameManagement]),
        "transaction_management" if p.segment == "USER(*)" => {
            Abilities::of(&[A::TransactionManagement])
        }
        "database_actions" => DATABASE_ACTIONS,
        "user_management" => Abilities::of(&[A::UserManagement]),
        "role_management" => Abilities::of(&[A::RoleManagement]),
        "privilege_management" => Abilities::of(&[A::PrivilegeManagement]),
        "database_management" => Abilities::of(&[A::DatabaseManagement]),
        "impersonate" => Abilities::of(&[A::Impersonate]),
        "dbms_actions" => DBMS_ACTIONS,
        _ => Abilities::NONE,
    }
}

/// What a user may do: granted by some role of theirs and denied by none.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Permissions {
    pub abilities: Abilities,
    /// The `EXECUTE PROCEDURE` globs.
    procedures: Globs,
    /// The `EXECUTE FUNCTION` globs: user-defined (library) functions only, as in Neo4j;
    /// Cypher's built-in functions need no privilege.
    functions: Globs,
    /// The read rules of a user who may not find or read some of the graph; `None` when they
    /// read all of it ([`READ_GRAPH`] in `abilities`) or none of it.
    reads: Option<Arc<ReadRules>>,
    /// The write rules of a user who holds some write on some elements only; `None` when
    /// each write is held whole (its bit in `abilities`) or not at all.
    pub writes: Option<Arc<WriteRules>>,
}

/// `EXECUTE PROCEDURE` or `EXECUTE FUNCTION` globs granted and denied.
#[derive(Clone, Debug, Default, PartialEq)]
struct Globs {
    /// `*` granted (every user has it from `PUBLIC` unless revoked): kept apart so the
    /// common case stores no glob and a call pays one flag test.
    every: bool,
    /// Other globs granted, and those denied.
    granted: Vec<String>,
    denied: Vec<String>,
}

impl Globs {
    fn add(&mut self, denied: bool, glob: &str) {
        if denied {
            self.denied.push(glob.to_owned());
        } else if glob == "*" {
            self.every = true;
        } else {
            self.granted.push(glob.to_owned());
        }
    }

    /// Whether `name` may run: some granted glob matches it and no denied one.
    fn allows(&self, name: &str) -> bool {
        if self.every && self.denied.is_empty() {
            return true;
        }
        (self.every || self.granted.iter().any(|g| glob_matches(g, name)))
            && !self.denied.iter().any(|g| glob_matches(g, name))
    }
}

/// Folds privilege rows into [`Permissions`] on one database.
struct Fold<'s> {
    scope: Scope<'s>,
    granted: Abilities,
    denied: Abilities,
    reads: ReadRules,
    writes: WriteRules,
    permissions: Permissions,
}

impl<'s> Fold<'s> {
    fn new(scope: Scope<'s>) -> Fold<'s> {
        Fold {
            scope,
            granted: Abilities::NONE,
            denied: Abilities::NONE,
            reads: ReadRules::default(),
            writes: WriteRules::default(),
            permissions: Permissions::default(),
        }
    }

    fn add(&mut self, row: Row<'_>) {
        add_read_rule(&mut self.reads, row, self.scope);
        if covers_database(row.graph, self.scope) {
            self.writes
                .add(row.denied, row.action, row.resource, row.segment);
        }
        if row.denied {
            self.denied = self.denied.with(abilities_of(row, self.scope));
        } else {
            self.granted = self.granted.with(abilities_of(row, self.scope));
        }
        let p = &mut self.permissions;
        let globs = match row.action {
            "execute" => segment_argument(row.segment, "PROCEDURE").map(|g| (g, &mut p.procedures)),
            "execute_function" => {
                segment_argument(row.segment, "FUNCTION").map(|g| (g, &mut p.functions))
            }
            _ => None,
        };
        if let Some((glob, globs)) = globs {
            globs.add(row.denied, glob);
        }
    }

    fn finish(mut self) -> Permissions {
        // Reading the whole graph is what the read rules say, fine-grained ones included.
        let abilities = self.granted.without(self.denied).without(READ_GRAPH);
        // Each write held whole is a bit; one held on some elements is looked up by name.
        let abilities = abilities.without(WRITE_GRAPH).with(self.writes.whole());
        if self.writes.partial() {
            self.permissions.writes = Some(Arc::new(self.writes));
        }
        if self.reads.reads_everything() {
            self.permissions.abilities = abilities.with(READ_GRAPH);
        } else {
            self.permissions.abilities = abilities;
            if self.reads != ReadRules::default() {
                self.permissions.reads = Some(Arc::new(self.reads));
            }
        }
        self.permissions
    }
}

/// Adds what read privilege row `row` grants or denies (`TRAVERSE`, `READ`, `MATCH`, `MERGE`
/// and `ALL GRAPH PRIVILEGES`, which read) to `rules`.
fn add_read_rule(rules: &mut ReadRules, row: Row<'_>, scope: Scope<'_>) {
    if !covers_database(row.graph, scope) {
        return;
    }
    let name = |arg: &'static str| match segment_argument(row.segment, arg) {
        Some("*") => Some(None),
        Some(name) => Some(Some(name)),
        None => None,
    };
    let rule = NodeRule::of_segment(row.segment);
    let on: Vec<On<'_>> = match (name("NODE"), name("RELATIONSHIP"), &rule) {
        (Some(label), ..) => vec![On::Nodes(label)],
        (_, Some(ty), _) => vec![On::Relationships(ty)],
        (.., Some(rule)) => vec![On::NodesWhere(rule)],
        _ if row.segment == "database" => vec![On::Nodes(None), On::Relationships(None)],
        _ => return,
    };
    // `Some(None)`: every property; `Some(Some(p))`: one; `None`: a traversal only.
    let property = match segment_argument(row.resource, "property") {
        Some(p) => Some(Some(p)),
        None if row.resource == "all_properties" => Some(None),
        None => None,
    };
    let denied = row.denied;
    for on in on {
        match (row.action, property) {
            ("traverse", _) => rules.traverse(denied, on),
            ("read", Some(p)) => rules.read(denied, on, p),
            ("match" | "merge", Some(p)) => {
                rules.read(denied, on, p);
                // Denying MATCH of some properties denies reading them, not finding the
                // elements that hold them.
                if !(denied && p.is_some()) {
                    rules.traverse(denied, on);
                }
            }
            ("graph_actions", _) => {
                rules.traverse(denied, on);
                rules.read(denied, on, None);
            }
            _ => {}
        }
    }
}

impl Permissions {
    /// The permissions the privileges `rows` (of all a user's roles) give.
    #[cfg(test)]
    fn from_rows<'a>(rows: impl IntoIterator<Item = &'a PrivilegeRecord>) -> Permissions {
        Self::from_rows_on(rows, Scope::ONLY)
    }

    /// The permissions the privileges `rows` give on database `scope`.
    #[cfg(test)]
    fn from_rows_on<'a>(
        rows: impl IntoIterator<Item = &'a PrivilegeRecord>,
        scope: Scope<'_>,
    ) -> Permissions {
        let mut fold = Fold::new(scope);
        rows.into_iter().for_each(|row| fold.add(Row::from(row)));
        fold.finish()
    }

    /// The permissions on database `scope` of a user with `roles` (`PUBLIC` is added).
    pub fn of_roles<'a>(
        roles: impl IntoIterator<Item = &'a str>,
        catalogue: &Security,
        scope: Scope<'_>,
    ) -> Permissions {
        let mut fold = Fold::new(scope);
        let mut add = |row| fold.add(row);
        visit_role("PUBLIC", catalogue, &mut add);
        for role in roles {
            if role != "PUBLIC" {
                visit_role(role, catalogue, &mut add);
            }
        }
        fold.finish()
    }

    /// The permissions of a built-in role at `level`, with `PUBLIC`'s defaults.
    pub fn of_level(level: Level) -> Permissions {
        let mut fold = Fold::new(Scope::ONLY);
        let mut add = |row| fold.add(row);
        visit_built_in(Level::Public, true, &mut add);
        visit_built_in(level, false, &mut add);
        fold.finish()
    }

    /// What the user may find and read, in `storage`'s token ids for one query; `None` when
    /// they read the whole graph, which costs their queries nothing.
    pub fn visibility(&self, storage: &quiver_storage::Storage) -> Option<Arc<Visibility>> {
        if self.abilities.contains(READ_GRAPH) {
            return None;
        }
        match &self.reads {
            Some(rules) => rules.resolve(storage),
            // No read privilege at all: the graph looks empty.
            None => ReadRules::default().resolve(storage),
        }
    }

    /// Whether procedure `name` may run (`EXECUTE PROCEDURE` globs).
    pub fn may_execute(&self, name: &str) -> bool {
        self.procedures.allows(name)
    }

    /// Whether user-defined function `name` may be called (`EXECUTE FUNCTION` globs).
    pub fn may_call(&self, name: &str) -> bool {
        self.functions.allows(name)
    }
}

/// `PROCEDURE(apoc.*)` → `apoc.*` for `kind` `PROCEDURE`.
pub(crate) fn segment_argument<'a>(segment: &'a str, kind: &str) -> Option<&'a str> {
    segment
        .strip_prefix(kind)?
        .strip_prefix('(')?
        .strip_suffix(')')
}

/// A procedure glob: `*` any run of characters, `?` one, anything else itself.
pub(crate) fn glob_matches(glob: &str, name: &str) -> bool {
    let (glob, name): (Vec<char>, Vec<char>) = (glob.chars().collect(), name.chars().collect());
    // Iterative matching with one backtrack point: linear in practice, never exponential.
    let (mut g, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if g < glob.len() && (glob[g] == '?' || glob[g] == name[n]) {
            g += 1;
            n += 1;
        } else if g < glob.len() && glob[g] == '*' {
            star = Some((g, n));
            g += 1;
        } else if let Some((sg, sn)) = star {
            g = sg + 1;
            n = sn + 1;
            star = Some((sg, sn + 1));
        } else {
            return false;
        }
    }
    glob[g..].iter().all(|c| *c == '*')
}

/// The privilege rows a command grants, denies or revokes; `Err` names a form the server
/// does not enforce, which must fail as unsupported rather than be stored.
#[cfg(test)]
pub(crate) fn records_of(
    privilege: &Privilege,
    denied: bool,
) -> Result<Vec<PrivilegeRecord>, String> {
    records_with(privilege, denied, None)
}

/// As [`records_of`], a property rule's value taken from `values` (its value expressions as
/// the command evaluated them, see [`quiver_cypher::ast::Elements::rule_values`]) when given,
/// else from the literal written.
pub(crate) fn records_with(
    privilege: &Privilege,
    denied: bool,
    values: Option<&[quiver_value::Value]>,
) -> Result<Vec<PrivilegeRecord>, String> {
    let rows = Rows { denied };
    match privilege {
        Privilege::Graph {
            action,
            graphs,
            elements,
        } => graph_records(&rows, action, graphs, elements, values),
        Privilege::Database { action, databases } => database_records(&rows, action, databases),
        Privilege::Dbms(action) => Ok(dbms_records(&rows, action)),
    }
}

/// Makes a row per graph and segment.
struct Rows {
    denied: bool,
}

impl Rows {
    fn make(
        &self,
        action: &str,
        resource: &str,
        graphs: &[String],
        segments: &[String],
    ) -> Vec<PrivilegeRecord> {
        let mut out = Vec::new();
        for graph in graphs {
            for segment in segments {
                out.push(record(self.denied, action, resource, graph, segment));
            }
        }
        out
    }
}

fn graph_records(
    rows: &Rows,
    action: &GraphAction,
    graphs: &PrivilegeTarget,
    elements: &Elements,
    values: Option<&[quiver_value::Value]>,
) -> Result<Vec<PrivilegeRecord>, String> {
    let rows = |action: &str, resource: &str, graphs: &[String], segments: &[String]| {
        rows.make(action, resource, graphs, segments)
    };
    let graphs = target_names(graphs);
    // Reads are enforced on every or some labels, types and properties, and by property
    // rules; writes on every or some labels, types and properties.
    let read_segments = || match NodeRule::of(elements, values)? {
        Some(rule) => Ok(vec![rule.segment()]),
        None => named_elements(elements).ok_or_else(|| format!("A read privilege on ({elements})")),
    };
    let segments = || match elements {
        Elements::Where { .. } => Err(format!(
            "A write privilege by property ({elements}) (only on labels and types is)"
        )),
        _ => named_elements(elements).ok_or_else(|| {
            format!("A write privilege on {elements} (only on labels and types is)")
        }),
    };
    let reads = |action: &str, p: &NameSet| -> Result<Vec<PrivilegeRecord>, String> {
        let segments = read_segments()?;
        Ok(property_resources(p)
            .iter()
            .flat_map(|resource| rows(action, resource, &graphs, &segments))
            .collect())
    };
    let writes = |action: &str, p: &NameSet| -> Result<Vec<PrivilegeRecord>, String> {
        let segments = segments()?;
        Ok(property_resources(p)
            .iter()
            .flat_map(|resource| rows(action, resource, &graphs, &segments))
            .collect())
    };
    // Labels are on nodes only: `SET LABEL A ON GRAPH *` is a row per label, on every node.
    let node_segment = ["NODE(*)".to_owned()];
    let labels = |action: &str, labels: &NameSet| -> Vec<PrivilegeRecord> {
        label_resources(labels)
            .iter()
            .flat_map(|resource| rows(action, resource, &graphs, &node_segment))
            .collect()
    };
    Ok(match action {
        GraphAction::Traverse => rows("traverse", "graph", &graphs, &read_segments()?),
        GraphAction::Read(p) => reads("read", p)?,
        GraphAction::Match(p) => reads("match", p)?,
        GraphAction::Write => rows(
            "write",
            "graph",
            &graphs,
            &["NODE(*)".to_owned(), "RELATIONSHIP(*)".to_owned()],
        ),
        GraphAction::All => rows(
            "graph_actions",
            "database",
            &graphs,
            &["database".to_owned()],
        ),
        GraphAction::Create => rows("create_element", "graph", &graphs, &segments()?),
        GraphAction::Delete => rows("delete_element", "graph", &graphs, &segments()?),
        GraphAction::SetLabel(names) => labels("set_label", names),
        GraphAction::RemoveLabel(names) => labels("remove_label", names),
        GraphAction::SetProperty(p) => writes("set_property", p)?,
        GraphAction::Merge(p) => writes("merge", p)?,
    })
}

fn database_records(
    rows: &Rows,
    action: &DatabaseAction,
    databases: &PrivilegeTarget,
) -> Result<Vec<PrivilegeRecord>, String> {
    let rows = |action: &str, resource: &str, graphs: &[String], segments: &[String]| {
        rows.make(action, resource, graphs, segments)
    };
    let graphs = target_names(databases);
    let database = ["database".to_owned()];
    let name = match action {
        DatabaseAction::Access => "access",
        DatabaseAction::Start => "start_database",
        DatabaseAction::Stop => "stop_database",
        DatabaseAction::Index => "index",
        DatabaseAction::Constraint => "constraint",
        DatabaseAction::ShowIndex => "show_index",
        DatabaseAction::ShowConstraint => "show_constraint",
        DatabaseAction::NameManagement => "token",
        DatabaseAction::All => "database_actions",
        DatabaseAction::TransactionManagement(NameSet::All) => {
            return Ok(rows(
                "transaction_management",
                "database",
                &graphs,
                &["USER(*)".to_owned()],
            ));
        }
        DatabaseAction::TransactionManagement(NameSet::Names(_)) => {
            return Err(
                "TRANSACTION MANAGEMENT of some users (only (*), every user's, is)".to_owned(),
            );
        }
    };
    Ok(rows(name, "database", &graphs, &database))
}

fn dbms_records(rows: &Rows, action: &DbmsAction) -> Vec<PrivilegeRecord> {
    let rows = |action: &str, resource: &str, graphs: &[String], segments: &[String]| {
        rows.make(action, resource, graphs, segments)
    };
    let all = ["*".to_owned()];
    let database = ["database".to_owned()];
    let name = match action {
        DbmsAction::RoleManagement => "role_management",
        DbmsAction::UserManagement => "user_management",
        DbmsAction::PrivilegeManagement => "privilege_management",
        DbmsAction::DatabaseManagement => "database_management",
        DbmsAction::All => "dbms_actions",
        DbmsAction::ExecuteProcedure(globs) => {
            let segments: Vec<String> = globs.iter().map(|g| format!("PROCEDURE({g})")).collect();
            return rows("execute", "database", &all, &segments);
        }
        DbmsAction::ExecuteFunction(globs) => {
            let segments: Vec<String> = globs.iter().map(|g| format!("FUNCTION({g})")).collect();
            return rows("execute_function", "database", &all, &segments);
        }
        DbmsAction::Impersonate(users) => {
            let segments: Vec<String> = match users {
                NameSet::All => vec!["USER(*)".to_owned()],
                NameSet::Names(names) => {
                    names.iter().map(|u| format!("USER({})", u.name)).collect()
                }
            };
            return rows("impersonate", "database", &all, &segments);
        }
    };
    rows(name, "database", &all, &database)
}

/// The graph column of a target: `*`, each name, `HOME` or `DEFAULT`.
fn target_names(target: &PrivilegeTarget) -> Vec<String> {
    match target {
        PrivilegeTarget::All => vec!["*".to_owned()],
        PrivilegeTarget::Names(names) => names.iter().map(|n| n.name.clone()).collect(),
        PrivilegeTarget::Home => vec!["HOME".to_owned()],
        PrivilegeTarget::Default => vec!["DEFAULT".to_owned()],
    }
}

/// The segments of elements named by labels or types as well as `*`: a row per label or
/// type (`NODE(Person)`), on nodes and relationships for `ELEMENTS`; `None` for a property
/// rule.
fn named_elements(elements: &Elements) -> Option<Vec<String>> {
    let each = |kinds: &[&str], names: &NameSet| -> Vec<String> {
        let names: Vec<&str> = match names {
            NameSet::All => vec!["*"],
            NameSet::Names(names) => names.iter().map(|n| n.name.as_str()).collect(),
        };
        kinds
            .iter()
            .flat_map(|kind| names.iter().map(move |n| format!("{kind}({n})")))
            .collect()
    };
    match elements {
        Elements::Nodes(names) => Some(each(&["NODE"], names)),
        Elements::Relationships(names) => Some(each(&["RELATIONSHIP"], names)),
        Elements::Elements(names) => Some(each(&["NODE", "RELATIONSHIP"], names)),
        Elements::Where { .. } => None,
    }
}

/// The resource column of a read of `properties`: `all_properties`, or a row per property
/// (`property(salary)`).
fn property_resources(properties: &NameSet) -> Vec<String> {
    match properties {
        NameSet::All => vec!["all_properties".to_owned()],
        NameSet::Names(names) => names
            .iter()
            .map(|n| format!("property({})", n.name))
            .collect(),
    }
}

/// The resource column of a label write on `labels`: `all_labels`, or a row per label
/// (`label(Archived)`).
fn label_resources(labels: &NameSet) -> Vec<String> {
    match labels {
        NameSet::All => vec!["all_labels".to_owned()],
        NameSet::Names(names) => names.iter().map(|n| format!("label({})", n.name)).collect(),
    }
}

/// A name as a command writes it: in backticks.
pub(crate) fn quoted(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// `ON` and what follows, for a graph or database privilege on `graph`.
fn on(graph: &str, word: &str) -> String {
    match graph {
        "*" => format!("{word} *"),
        "HOME" | "DEFAULT" => format!("{graph} {word}"),
        name => format!("{word} {}", quoted(name)),
    }
}

/// ` NODE *`, ` RELATIONSHIP `T``, ` FOR (n:L) WHERE n.p = 1` (a property rule's segment is
/// its pattern as a command writes it), or nothing, for a graph privilege's segment.
fn element_suffix(segment: &str) -> String {
    if segment.starts_with("FOR (") {
        return format!(" {segment}");
    }
    for (kind, word) in [("NODE", "NODE"), ("RELATIONSHIP", "RELATIONSHIP")] {
        if let Some(arg) = segment_argument(segment, kind) {
            return match arg {
                "*" => format!(" {word} *"),
                name => format!(" {word} {}", quoted(name)),
            };
        }
    }
    String::new()
}

/// `{*}` or `{`p`}` for a property resource.
fn properties(resource: &str) -> String {
    match segment_argument(resource, "property") {
        Some(p) => format!("{{{}}}", quoted(p)),
        None => "{*}".to_owned(),
    }
}

/// `*` or `` `L` `` for a label resource.
fn labels(resource: &str) -> String {
    segment_argument(resource, "label").map_or_else(|| "*".to_owned(), quoted)
}

/// The command that grants or denies row `p` to `role` (`revoke`: that revokes it), as
/// `SHOW PRIVILEGES AS [REVOKE] COMMANDS` prints it.
pub(crate) fn command(p: &PrivilegeRecord, role: &str, revoke: bool) -> String {
    let verb = match (revoke, p.denied) {
        (false, false) => "GRANT",
        (false, true) => "DENY",
        (true, false) => "REVOKE GRANT",
        (true, true) => "REVOKE DENY",
    };
    let graph = || on(&p.graph, "GRAPH");
    let database = || on(&p.graph, "DATABASE");
    let elements = element_suffix(&p.segment);
    let argument = |kind| segment_argument(&p.segment, kind).unwrap_or("*").to_owned();
    let body = match p.action.as_str() {
        "traverse" => format!("TRAVERSE ON {}{elements}", graph()),
        "read" => format!("READ {} ON {}{elements}", properties(&p.resource), graph()),
        "match" => format!("MATCH {} ON {}{elements}", properties(&p.resource), graph()),
        "write" => format!("WRITE ON {}{elements}", graph()),
        "create_element" => format!("CREATE ON {}{elements}", graph()),
        "delete_element" => format!("DELETE ON {}{elements}", graph()),
        "set_label" => format!("SET LABEL {} ON {}", labels(&p.resource), graph()),
        "remove_label" => format!("REMOVE LABEL {} ON {}", labels(&p.resource), graph()),
        "set_property" => format!(
            "SET PROPERTY {} ON {}{elements}",
            properties(&p.resource),
            graph()
        ),
        "merge" => format!("MERGE {} ON {}{elements}", properties(&p.resource), graph()),
        "graph_actions" => format!("ALL GRAPH PRIVILEGES ON {}", graph()),
        "access" => format!("ACCESS ON {}", database()),
        "start_database" => format!("START ON {}", database()),
        "stop_database" => format!("STOP ON {}", database()),
        "index" => format!("INDEX MANAGEMENT ON {}", database()),
        "constraint" => format!("CONSTRAINT MANAGEMENT ON {}", database()),
        "show_index" => format!("SHOW INDEX ON {}", database()),
        "show_constraint" => format!("SHOW CONSTRAINT ON {}", database()),
        "token" => format!("NAME MANAGEMENT ON {}", database()),
        "transaction_management" => format!(
            "TRANSACTION MANAGEMENT ({}) ON {}",
            argument("USER"),
            database()
        ),
        "database_actions" => format!("ALL DATABASE PRIVILEGES ON {}", database()),
        "user_management" => "USER MANAGEMENT ON DBMS".to_owned(),
        "role_management" => "ROLE MANAGEMENT ON DBMS".to_owned(),
        "privilege_management" => "PRIVILEGE MANAGEMENT ON DBMS".to_owned(),
        "database_management" => "DATABASE MANAGEMENT ON DBMS".to_owned(),
        "execute" => format!("EXECUTE PROCEDURE {} ON DBMS", argument("PROCEDURE")),
        "execute_function" => format!("EXECUTE FUNCTION {} ON DBMS", argument("FUNCTION")),
        "impersonate" => format!("IMPERSONATE ({}) ON DBMS", argument("USER")),
        "dbms_actions" => "ALL DBMS PRIVILEGES ON DBMS".to_owned(),
        other => format!("{} ON {}", other.to_uppercase(), database()),
    };
    let to = if revoke { "FROM" } else { "TO" };
    format!("{verb} {body} {to} {}", quoted(role))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_as_neo4j_documents_them() {
        assert!(glob_matches("*", "apoc.text.join"));
        assert!(glob_matches("apoc.*", "apoc.text.join"));
        assert!(!glob_matches("apoc.*", "db.labels"));
        assert!(glob_matches(
            "db.index.*.query*",
            "db.index.fulltext.queryNodes"
        ));
        assert!(glob_matches("db.label?", "db.labels"));
        assert!(!glob_matches("db.labels", "db.labelsx"));
    }

    #[test]
    fn built_in_roles_nest_as_privilege_sets() {
        let reader = Permissions::of_level(Level::Reader).abilities;
        assert!(reader.contains(READ_GRAPH) && reader.has(Ability::Access));
        assert!(!reader.contains(WRITE_GRAPH));
        let editor = Permissions::of_level(Level::Editor).abilities;
        assert!(editor.contains(WRITE_GRAPH) && !editor.has(Ability::NameManagement));
        assert!(
            Permissions::of_level(Level::Publisher)
                .abilities
                .has(Ability::NameManagement)
        );
        let architect = Permissions::of_level(Level::Architect).abilities;
        assert!(architect.has(Ability::IndexManagement) && !architect.has(Ability::UserManagement));
        let admin = Permissions::of_level(Level::Admin);
        assert!(admin.abilities.contains(DBMS_ACTIONS));
        assert!(admin.abilities.has(Ability::TransactionManagement));
        let public = Permissions::of_level(Level::Public);
        assert!(public.abilities.has(Ability::Access) && !public.abilities.contains(READ_GRAPH));
        assert!(public.may_execute("db.labels"));
    }

    #[test]
    fn a_privilege_counts_on_the_database_it_names_and_default_and_home_follow_the_server() {
        let on = |name, default, home| Scope {
            name,
            default,
            home,
        };
        let rows = [
            record(false, "access", "database", "movies", "database"),
            record(false, "match", "all_properties", "movies", "NODE(*)"),
            record(
                false,
                "match",
                "all_properties",
                "movies",
                "RELATIONSHIP(*)",
            ),
            record(false, "write", "graph", "HOME", "NODE(*)"),
            record(false, "access", "database", "DEFAULT", "database"),
        ];
        let movies = Permissions::from_rows_on(&rows, on("movies", false, false)).abilities;
        assert!(movies.has(Ability::Access) && movies.contains(READ_GRAPH));
        assert!(!movies.has(Ability::CreateNodes));
        let shop = Permissions::from_rows_on(&rows, on("shop", false, true)).abilities;
        assert!(!shop.has(Ability::Access) && !shop.contains(READ_GRAPH));
        assert!(shop.has(Ability::CreateNodes));
        let neo4j = Permissions::from_rows_on(&rows, on("neo4j", true, false)).abilities;
        assert!(neo4j.has(Ability::Access) && !neo4j.contains(READ_GRAPH));
        // Names compare case-insensitively, as Neo4j's do.
        let upper = Permissions::from_rows_on(&rows, on("MOVIES", false, false)).abilities;
        assert!(upper.has(Ability::Access));
    }

    #[test]
    fn a_denial_beats_any_grant() {
        let mut rows = built_in(Level::Admin, false);
        rows.push(record(true, "write", "graph", "*", "RELATIONSHIP(*)"));
        rows.push(record(
            true,
            "execute",
            "database",
            "*",
            "PROCEDURE(apoc.*)",
        ));
        rows.push(record(false, "execute", "database", "*", "PROCEDURE(*)"));
        let p = Permissions::from_rows(&rows);
        assert!(!p.abilities.contains(WRITE_GRAPH));
        assert!(p.abilities.has(Ability::CreateNodes));
        assert!(p.may_execute("db.labels") && !p.may_execute("apoc.meta.schema"));
        // A database's name in any case is the database.
        let mut rows = built_in(Level::Editor, false);
        rows.push(record(true, "write", "graph", "NEO4J", "NODE(*)"));
        assert!(
            !Permissions::from_rows(&rows)
                .abilities
                .contains(WRITE_GRAPH)
        );
        // A denial on another database takes nothing here.
        let mut rows = built_in(Level::Reader, false);
        rows.push(record(true, "match", "all_properties", "other", "NODE(*)"));
        assert!(Permissions::from_rows(&rows).abilities.contains(READ_GRAPH));
    }

    #[test]
    fn finer_writes_fold_into_their_own_abilities_and_write_is_all_of_them() {
        let rows = [
            record(false, "create_element", "graph", "*", "NODE(*)"),
            record(false, "set_property", "all_properties", "*", "NODE(*)"),
            record(false, "set_label", "all_labels", "*", "NODE(*)"),
        ];
        let p = Permissions::from_rows(&rows).abilities;
        assert!(p.has(Ability::CreateNodes) && p.has(Ability::SetNodeProperty));
        assert!(p.has(Ability::SetLabel) && !p.has(Ability::RemoveLabel));
        assert!(!p.has(Ability::CreateRelationships) && !p.has(Ability::DeleteNodes));
        let merge = [record(
            false,
            "merge",
            "all_properties",
            "*",
            "RELATIONSHIP(*)",
        )];
        let merging = Permissions::from_rows(&merge);
        let p = merging.abilities;
        assert!(p.has(Ability::CreateRelationships) && p.has(Ability::SetRelationshipProperty));
        assert!(!p.has(Ability::CreateNodes));
        // It finds and reads relationships, not nodes: not the whole graph.
        let reads = merging.reads.expect("some of the graph is read");
        assert!(reads.relationships.granted.every && !reads.nodes.granted.every);
        assert!(!p.has(Ability::TraverseRelationships));
        // WRITE is every finer write; denying one of them leaves the others.
        let mut rows = built_in(Level::Editor, false);
        rows.push(record(true, "delete_element", "graph", "*", "NODE(*)"));
        let p = Permissions::from_rows(&rows).abilities;
        assert!(!p.has(Ability::DeleteNodes) && !p.contains(WRITE_GRAPH));
        assert!(p.contains(WRITE_GRAPH.without(Abilities::of(&[Ability::DeleteNodes]))));
    }

    #[test]
    fn commands_print_each_row_as_neo4j_does() {
        let rows: Vec<String> = built_in(Level::Admin, false)
            .iter()
            .map(|p| command(p, "admin", false))
            .collect();
        for expected in [
            "GRANT ACCESS ON DATABASE * TO `admin`",
            "GRANT MATCH {*} ON GRAPH * NODE * TO `admin`",
            "GRANT WRITE ON GRAPH * RELATIONSHIP * TO `admin`",
            "GRANT NAME MANAGEMENT ON DATABASE * TO `admin`",
            "GRANT TRANSACTION MANAGEMENT (*) ON DATABASE * TO `admin`",
            "GRANT ALL DBMS PRIVILEGES ON DBMS TO `admin`",
        ] {
            assert!(rows.iter().any(|r| r == expected), "{expected}: {rows:?}");
        }
        let public: Vec<String> = built_in(Level::Public, true)
            .iter()
            .map(|p| command(p, "PUBLIC", true))
            .collect();
        assert!(
            public.contains(&"REVOKE GRANT ACCESS ON DEFAULT DATABASE FROM `PUBLIC`".to_owned())
        );
        assert!(
            public.contains(&"REVOKE GRANT EXECUTE PROCEDURE * ON DBMS FROM `PUBLIC`".to_owned())
        );
    }

    #[test]
    fn every_printed_command_parses_back_to_its_rows() {
        let mut rows = built_in(Level::Admin, false);
        rows.extend(built_in(Level::Public, true));
        rows.push(record(true, "traverse", "graph", "neo4j", "NODE(*)"));
        rows.push(record(
            true,
            "read",
            "all_properties",
            "HOME",
            "RELATIONSHIP(*)",
        ));
        rows.push(record(false, "graph_actions", "database", "*", "database"));
        rows.push(record(false, "impersonate", "database", "*", "USER(ann)"));
        rows.push(record(false, "create_element", "graph", "*", "NODE(*)"));
        rows.push(record(
            true,
            "delete_element",
            "graph",
            "*",
            "RELATIONSHIP(*)",
        ));
        rows.push(record(false, "set_label", "all_labels", "*", "NODE(*)"));
        rows.push(record(
            true,
            "remove_label",
            "all_labels",
            "neo4j",
            "NODE(*)",
        ));
        rows.push(record(
            false,
            "set_property",
            "all_properties",
            "*",
            "NODE(*)",
        ));
        rows.push(record(
            false,
            "merge",
            "all_properties",
            "*",
            "RELATIONSHIP(*)",
        ));
        rows.push(record(
            false,
            "create_element",
            "graph",
            "*",
            "NODE(Person)",
        ));
        rows.push(record(
            true,
            "delete_element",
            "graph",
            "*",
            "RELATIONSHIP(KNOWS)",
        ));
        rows.push(record(
            false,
            "set_label",
            "label(Archived)",
            "*",
            "NODE(*)",
        ));
        rows.push(record(
            true,
            "remove_label",
            "label(Person)",
            "*",
            "NODE(*)",
        ));
        rows.push(record(
            true,
            "set_property",
            "property(salary)",
            "*",
            "RELATIONSHIP(*)",
        ));
        rows.push(record(
            false,
            "merge",
            "property(name)",
            "*",
            "NODE(Person)",
        ));
        for row in rows {
            let text = command(&row, "r", false);
            let statement = quiver_cypher::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            let quiver_cypher::ast::StatementKind::Admin(
                quiver_cypher::ast::AdminCommand::Privilege(c),
            ) = statement.kind
            else {
                panic!("{text}: not a privilege command");
            };
            let again =
                records_of(&c.privilege, row.denied).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert!(again.contains(&row), "{text}: {again:?}");
        }
    }
}
