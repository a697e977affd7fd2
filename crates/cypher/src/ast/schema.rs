//! Administration: indexes, constraints, `SHOW ...` and `TERMINATE TRANSACTIONS`.

use std::fmt;

use super::{Expr, Ident, Projection, Return, write_comma_separated};

#[derive(Clone, Debug, PartialEq)]
pub enum SchemaCommand {
    CreateIndex(CreateIndex),
    /// `DROP INDEX name [IF EXISTS]`
    DropIndex {
        name: SchemaName,
        if_exists: bool,
    },
    CreateConstraint(CreateConstraint),
    /// `DROP CONSTRAINT name [IF EXISTS]`
    DropConstraint {
        name: SchemaName,
        if_exists: bool,
    },
    CreateFulltextIndex(CreateFulltextIndex),
}

/// The name an index or constraint command gives or drops: written in the command, or a
/// parameter whose String value is the name. Neo4j 5 takes `$name` in every index and
/// constraint command, and tools that create their indexes on connect send the name that way,
/// so the plan of such a statement serves any name.
#[derive(Clone, Debug, PartialEq)]
pub enum SchemaName {
    /// `name` or `` `a name` ``
    Literal(Ident),
    /// `$name`: the identifier is the parameter's name, its span the `$name` written.
    Parameter(Ident),
}

impl SchemaName {
    pub fn span(&self) -> super::Span {
        match self {
            SchemaName::Literal(ident) | SchemaName::Parameter(ident) => ident.span,
        }
    }
}

impl fmt::Display for SchemaName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchemaName::Literal(name) => write!(f, "{name}"),
            SchemaName::Parameter(name) => super::expr::write_parameter(f, &name.name),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexKind {
    Range,
    Text,
    Point,
    Lookup,
    /// `CREATE VECTOR INDEX`: approximate nearest neighbours over one property.
    Vector,
}

impl IndexKind {
    pub fn keyword(self) -> &'static str {
        match self {
            IndexKind::Range => "RANGE",
            IndexKind::Text => "TEXT",
            IndexKind::Point => "POINT",
            IndexKind::Lookup => "LOOKUP",
            IndexKind::Vector => "VECTOR",
        }
    }
}

/// `CREATE [kind] INDEX [name] [IF NOT EXISTS] FOR ... ON ... [OPTIONS {...}]`
#[derive(Clone, Debug, PartialEq)]
pub struct CreateIndex {
    /// `RANGE` when not written.
    pub kind: IndexKind,
    pub name: Option<SchemaName>,
    pub if_not_exists: bool,
    pub target: IndexTarget,
    /// A vector index's `WITH [n.a, n.b]`: the properties a search may filter on inside the
    /// index (`SEARCH ... WHERE`). Empty for every other index and when not written.
    pub with_properties: Vec<Ident>,
    pub options: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum IndexTarget {
    /// `FOR (n:Label) ON (n.a, n.b)` or `FOR ()-[r:TYPE]-() ON (r.a)`
    Properties {
        entity: SchemaEntity,
        properties: Vec<Ident>,
    },
    /// `FOR (n) ON EACH labels(n)` or `FOR ()-[r]-() ON EACH type(r)`
    Lookup { variable: Ident, relationship: bool },
}

/// The `(n:Label)` or `()-[r:TYPE]-()` a schema command is about.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemaEntity {
    pub variable: Ident,
    pub relationship: bool,
    /// The label, or the relationship type.
    pub label: Ident,
}

/// `CREATE CONSTRAINT [name] [IF NOT EXISTS] FOR entity REQUIRE properties IS ... [OPTIONS]`
#[derive(Clone, Debug, PartialEq)]
pub struct CreateConstraint {
    pub name: Option<SchemaName>,
    pub if_not_exists: bool,
    pub entity: SchemaEntity,
    pub properties: Vec<Ident>,
    pub kind: ConstraintKind,
    /// The type of `IS :: type` / `IS TYPED type` ([`ConstraintKind::Typed`]).
    pub property_type: Option<super::CypherType>,
    pub options: Option<Expr>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConstraintKind {
    /// `IS UNIQUE`
    Unique,
    /// `IS NODE KEY` / `IS RELATIONSHIP KEY`: unique and present.
    Key,
    /// `IS NOT NULL`
    NotNull,
    /// `IS :: type` (also `IS TYPED type`): a property type constraint.
    Typed,
}

/// `SHOW ... [WHERE ... | YIELD ...]`
#[derive(Clone, Debug, PartialEq)]
pub struct ShowCommand {
    pub kind: ShowKind,
    pub filter: Option<ShowFilter>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ShowKind {
    Indexes(ShowIndexType),
    Constraints(ShowConstraintType),
    /// `SHOW TRANSACTIONS [ids]`; empty means every transaction.
    Transactions(Vec<Expr>),
    Procedures,
    Functions,
    /// `SHOW DATABASES`, `SHOW DATABASE name`, `SHOW DEFAULT DATABASE`, `SHOW HOME DATABASE`.
    Databases(ShowDatabases),
    /// `SHOW ALIAS[ES] [name] FOR DATABASE[S]`: every database alias, or the one named.
    Aliases(Option<super::AdminName>),
    /// `SHOW SETTINGS [names]`: each expression a String or a list of Strings; empty means
    /// every setting.
    Settings(Vec<Expr>),
    /// `SHOW CURRENT USER`
    CurrentUser,
    /// `SHOW SERVERS`: the servers of the DBMS, a cluster's members or the one server.
    Servers,
    /// `SHOW USERS`
    Users,
    /// `SHOW [ALL | POPULATED] ROLES [WITH USERS]`
    Roles {
        with_users: bool,
        /// `POPULATED`: only roles some user has.
        populated: bool,
    },
    /// `SHOW [ALL | ROLE r | USER u] PRIVILEGES [AS COMMANDS]`
    Privileges(super::ShowPrivileges),
}

/// Which databases `SHOW ... DATABASE[S]` lists.
#[derive(Clone, Debug, PartialEq)]
pub enum ShowDatabases {
    All,
    /// `SHOW DATABASE name`
    Named(Ident),
    /// `SHOW DEFAULT DATABASE`
    Default,
    /// `SHOW HOME DATABASE`: the current user's.
    Home,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ShowIndexType {
    #[default]
    All,
    Range,
    Text,
    Point,
    Lookup,
    Fulltext,
    Vector,
}

/// Which constraints `SHOW ... CONSTRAINTS` lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct ShowConstraintType {
    /// `None` for every kind.
    pub kind: Option<ConstraintKind>,
    /// `Some(false)` for `NODE ...`, `Some(true)` for `RELATIONSHIP ...`.
    pub relationship: Option<bool>,
}

/// What follows a `SHOW` or `TERMINATE` command.
#[derive(Clone, Debug, PartialEq)]
pub enum ShowFilter {
    /// `WHERE predicate`
    Where(Expr),
    /// `YIELD items [ORDER BY ...] [SKIP n] [LIMIT n] [WHERE predicate] [RETURN ...]`
    Yield {
        projection: Projection,
        filter: Option<Expr>,
        returns: Option<Return>,
    },
}

/// `TERMINATE TRANSACTIONS ids [YIELD ...]`
#[derive(Clone, Debug, PartialEq)]
pub struct TerminateTransactions {
    pub ids: Vec<Expr>,
    pub filter: Option<ShowFilter>,
}

impl fmt::Display for SchemaCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchemaCommand::CreateIndex(index) => write!(f, "{index}"),
            SchemaCommand::DropIndex { name, if_exists } => {
                write!(f, "DROP INDEX {name}")?;
                if *if_exists {
                    f.write_str(" IF EXISTS")?;
                }
                Ok(())
            }
            SchemaCommand::CreateConstraint(constraint) => write!(f, "{constraint}"),
            SchemaCommand::CreateFulltextIndex(index) => write!(f, "{index}"),
            SchemaCommand::DropConstraint { name, if_exists } => {
                write!(f, "DROP CONSTRAINT {name}")?;
                if *if_exists {
                    f.write_str(" IF EXISTS")?;
                }
                Ok(())
            }
        }
    }
}

fn write_name_and_guard(
    f: &mut fmt::Formatter<'_>,
    name: Option<&SchemaName>,
    if_not_exists: bool,
) -> fmt::Result {
    if let Some(name) = name {
        write!(f, " {name}")?;
    }
    if if_not_exists {
        f.write_str(" IF NOT EXISTS")?;
    }
    Ok(())
}

impl fmt::Display for CreateIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CREATE {} INDEX", self.kind.keyword())?;
        write_name_and_guard(f, self.name.as_ref(), self.if_not_exists)?;
        match &self.target {
            IndexTarget::Properties { entity, properties } => {
                write!(f, " FOR {entity} ON (")?;
                write_properties(f, &entity.variable, properties)?;
                f.write_str(")")?;
                if !self.with_properties.is_empty() {
                    f.write_str(" WITH [")?;
                    write_properties(f, &entity.variable, &self.with_properties)?;
                    f.write_str("]")?;
                }
            }
            IndexTarget::Lookup {
                variable,
                relationship: false,
            } => {
                let v = variable.as_variable();
                write!(f, " FOR ({v}) ON EACH labels({v})")?;
            }
            IndexTarget::Lookup {
                variable,
                relationship: true,
            } => {
                let v = variable.as_variable();
                write!(f, " FOR ()-[{v}]-() ON EACH type({v})")?;
            }
        }
        if let Some(options) = &self.options {
            write!(f, " OPTIONS {options}")?;
        }
        Ok(())
    }
}

fn write_properties(
    f: &mut fmt::Formatter<'_>,
    variable: &Ident,
    properties: &[Ident],
) -> fmt::Result {
    for (i, property) in properties.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{}.{property}", variable.as_variable())?;
    }
    Ok(())
}

impl fmt::Display for SchemaEntity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.variable.as_variable();
        if self.relationship {
            write!(f, "()-[{v}:{}]-()", self.label)
        } else {
            write!(f, "({v}:{})", self.label)
        }
    }
}

impl fmt::Display for CreateConstraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CREATE CONSTRAINT")?;
        write_name_and_guard(f, self.name.as_ref(), self.if_not_exists)?;
        write!(f, " FOR {} REQUIRE ", self.entity)?;
        if self.properties.len() == 1 {
            write_properties(f, &self.entity.variable, &self.properties)?;
        } else {
            f.write_str("(")?;
            write_properties(f, &self.entity.variable, &self.properties)?;
            f.write_str(")")?;
        }
        f.write_str(match (self.kind, self.entity.relationship) {
            (ConstraintKind::Unique, _) => " IS UNIQUE",
            (ConstraintKind::Key, false) => " IS NODE KEY",
            (ConstraintKind::Key, true) => " IS RELATIONSHIP KEY",
            (ConstraintKind::NotNull, _) => " IS NOT NULL",
            (ConstraintKind::Typed, _) => " IS ::",
        })?;
        if let Some(ty) = &self.property_type {
            write!(f, " {ty}")?;
        }
        if let Some(options) = &self.options {
            write!(f, " OPTIONS {options}")?;
        }
        Ok(())
    }
}

impl fmt::Display for ShowCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SHOW ")?;
        match &self.kind {
            ShowKind::Indexes(kind) => {
                f.write_str(match kind {
                    ShowIndexType::All => "INDEXES",
                    ShowIndexType::Range => "RANGE INDEXES",
                    ShowIndexType::Text => "TEXT INDEXES",
                    ShowIndexType::Point => "POINT INDEXES",
                    ShowIndexType::Lookup => "LOOKUP INDEXES",
                    ShowIndexType::Fulltext => "FULLTEXT INDEXES",
                    ShowIndexType::Vector => "VECTOR INDEXES",
                })?;
            }
            ShowKind::Constraints(kind) => {
                match kind.relationship {
                    None => {}
                    Some(false) => f.write_str("NODE ")?,
                    Some(true) => f.write_str("RELATIONSHIP ")?,
                }
                f.write_str(match kind.kind {
                    None => "CONSTRAINTS",
                    Some(ConstraintKind::Unique) => "UNIQUE CONSTRAINTS",
                    Some(ConstraintKind::Key) => "KEY CONSTRAINTS",
                    Some(ConstraintKind::NotNull) => "EXISTENCE CONSTRAINTS",
                    Some(ConstraintKind::Typed) => "PROPERTY TYPE CONSTRAINTS",
                })?;
            }
            ShowKind::Transactions(ids) => {
                f.write_str("TRANSACTIONS")?;
                if !ids.is_empty() {
                    f.write_str(" ")?;
                    write_comma_separated(f, ids)?;
                }
            }
            ShowKind::Procedures => f.write_str("PROCEDURES")?,
            ShowKind::Functions => f.write_str("FUNCTIONS")?,
            ShowKind::Databases(which) => match which {
                ShowDatabases::All => f.write_str("DATABASES")?,
                ShowDatabases::Named(name) => write!(f, "DATABASE {name}")?,
                ShowDatabases::Default => f.write_str("DEFAULT DATABASE")?,
                ShowDatabases::Home => f.write_str("HOME DATABASE")?,
            },
            ShowKind::Aliases(None) => f.write_str("ALIASES FOR DATABASES")?,
            ShowKind::Aliases(Some(name)) => write!(f, "ALIAS {name} FOR DATABASE")?,
            ShowKind::Settings(names) => {
                f.write_str("SETTINGS")?;
                if !names.is_empty() {
                    f.write_str(" ")?;
                    write_comma_separated(f, names)?;
                }
            }
            ShowKind::CurrentUser => f.write_str("CURRENT USER")?,
            ShowKind::Servers => f.write_str("SERVERS")?,
            ShowKind::Users => f.write_str("USERS")?,
            ShowKind::Roles {
                with_users,
                populated,
            } => {
                if *populated {
                    f.write_str("POPULATED ")?;
                }
                f.write_str(if *with_users {
                    "ROLES WITH USERS"
                } else {
                    "ROLES"
                })?;
            }
            ShowKind::Privileges(privileges) => write!(f, "{privileges}")?,
        }
        if let Some(filter) = &self.filter {
            write!(f, " {filter}")?;
        }
        Ok(())
    }
}

impl fmt::Display for ShowFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShowFilter::Where(predicate) => write!(f, "WHERE {predicate}"),
            ShowFilter::Yield {
                projection,
                filter,
                returns,
            } => {
                write!(f, "YIELD {projection}")?;
                if let Some(filter) = filter {
                    write!(f, " WHERE {filter}")?;
                }
                if let Some(returns) = returns {
                    write!(f, " RETURN {}", returns.projection)?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for TerminateTransactions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TERMINATE TRANSACTIONS ")?;
        write_comma_separated(f, &self.ids)?;
        if let Some(filter) = &self.filter {
            write!(f, " {filter}")?;
        }
        Ok(())
    }
}

/// `CREATE FULLTEXT INDEX [name] [IF NOT EXISTS] FOR (n:A|B) ON EACH [n.a, n.b] [OPTIONS {...}]`,
/// or `FOR ()-[r:T1|T2]-() ON EACH [r.a]`.
#[derive(Clone, Debug, PartialEq)]
pub struct CreateFulltextIndex {
    pub name: Option<SchemaName>,
    pub if_not_exists: bool,
    pub variable: Ident,
    pub relationship: bool,
    /// The labels or relationship types, at least one.
    pub tokens: Vec<Ident>,
    pub properties: Vec<Ident>,
    pub options: Option<Expr>,
}

impl fmt::Display for CreateFulltextIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CREATE FULLTEXT INDEX")?;
        write_name_and_guard(f, self.name.as_ref(), self.if_not_exists)?;
        let v = self.variable.as_variable();
        let tokens = self
            .tokens
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("|");
        if self.relationship {
            write!(f, " FOR ()-[{v}:{tokens}]-() ON EACH [")?;
        } else {
            write!(f, " FOR ({v}:{tokens}) ON EACH [")?;
        }
        write_properties(f, &self.variable, &self.properties)?;
        f.write_str("]")?;
        if let Some(options) = &self.options {
            write!(f, " OPTIONS {options}")?;
        }
        Ok(())
    }
}
