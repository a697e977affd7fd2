//! User and role administration, as Neo4j 5 spells it: `CREATE USER`, `ALTER USER`,
//! `ALTER CURRENT USER`, `DROP USER`, `CREATE ROLE`, `DROP ROLE`, `GRANT ROLE`,
//! `REVOKE ROLE`, `GRANT`, `DENY` and `REVOKE` of privileges, and what `SHOW USERS`,
//! `SHOW ROLES` and `SHOW PRIVILEGES` list.
//!
//! A password is an expression (a string literal or a parameter). Printing a command writes
//! it as `'******'` unless it is a parameter, so a printed command never carries a password.

use std::fmt;

use super::{Expr, ExprKind, Ident, write_comma_separated};

#[derive(Clone, Debug, PartialEq)]
pub enum AdminCommand {
    CreateUser(CreateUser),
    AlterUser(AlterUser),
    /// `DROP USER name [IF EXISTS]`
    DropUser {
        name: AdminName,
        if_exists: bool,
    },
    /// `ALTER CURRENT USER SET PASSWORD FROM old TO new`
    AlterCurrentUser {
        old: Expr,
        new: Expr,
    },
    CreateRole(CreateRole),
    /// `DROP ROLE name [IF EXISTS]`
    DropRole {
        name: AdminName,
        if_exists: bool,
    },
    /// `GRANT ROLE[S] r1, r2 TO u1, u2`
    GrantRoles {
        roles: Vec<AdminName>,
        users: Vec<AdminName>,
    },
    /// `REVOKE ROLE[S] r1, r2 FROM u1, u2`
    RevokeRoles {
        roles: Vec<AdminName>,
        users: Vec<AdminName>,
    },
    /// `GRANT | DENY | REVOKE [GRANT | DENY] privilege ON ... TO | FROM r1, r2`
    Privilege(PrivilegeCommand),
}

/// `GRANT`, `DENY` or `REVOKE [GRANT | DENY]` of one privilege to or from roles.
#[derive(Clone, Debug, PartialEq)]
pub struct PrivilegeCommand {
    pub verb: PrivilegeVerb,
    pub privilege: Privilege,
    pub roles: Vec<AdminName>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrivilegeVerb {
    Grant,
    Deny,
    /// `REVOKE GRANT` (`Some(false)`), `REVOKE DENY` (`Some(true)`) or `REVOKE`, both.
    Revoke {
        denied: Option<bool>,
    },
}

/// What a privilege command grants, denies or revokes.
#[derive(Clone, Debug, PartialEq)]
pub enum Privilege {
    /// `action ON GRAPH[S] graphs [elements]`
    Graph {
        action: GraphAction,
        graphs: PrivilegeTarget,
        elements: Elements,
    },
    /// `action ON DATABASE[S] databases`
    Database {
        action: DatabaseAction,
        databases: PrivilegeTarget,
    },
    /// `action ON DBMS`
    Dbms(DbmsAction),
}

/// A user or role name in an administration command: written, or a parameter whose String
/// value is the name, as Neo4j 5 takes it (`CREATE USER $name`, `GRANT ROLE $role TO $user`)
/// so that tools creating users need not quote names into the text.
#[derive(Clone, Debug, PartialEq)]
pub enum AdminName {
    /// `name` or `` `a name` ``
    Literal(Ident),
    /// `$name`: the identifier is the parameter's name, its span the `$name` written.
    Parameter(Ident),
}

impl AdminName {
    /// The name written; for a parameter not yet bound (see [`AdminCommand::bind`]), `None`.
    pub fn literal(&self) -> Option<&str> {
        match self {
            AdminName::Literal(ident) => Some(&ident.name),
            AdminName::Parameter(_) => None,
        }
    }

    pub(super) fn bind(&mut self, value: &mut impl FnMut(&str) -> Option<String>) {
        if let AdminName::Parameter(param) = self
            && let Some(name) = value(&param.name)
        {
            *self = AdminName::Literal(Ident::with_span(name, param.span));
        }
    }
}

impl fmt::Display for AdminName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdminName::Literal(name) => write!(f, "{name}"),
            AdminName::Parameter(name) => super::expr::write_parameter(f, &name.name),
        }
    }
}

/// The parameters among `names`, each once, in order.
pub(super) fn parameters_among(names: Vec<&mut AdminName>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for name in names {
        if let AdminName::Parameter(param) = name
            && !out.contains(&param.name)
        {
            out.push(param.name.clone());
        }
    }
    out
}

/// Names or `*`: labels, types, properties, users.
#[derive(Clone, Debug, PartialEq)]
pub enum NameSet {
    All,
    Names(Vec<Ident>),
}

/// `GRAPH[S] * | names`, `HOME GRAPH`, `DEFAULT GRAPH` (or the same with `DATABASE`).
#[derive(Clone, Debug, PartialEq)]
pub enum PrivilegeTarget {
    All,
    Names(Vec<Ident>),
    Home,
    Default,
}

/// The graph elements a graph privilege covers.
#[derive(Clone, Debug, PartialEq)]
pub enum Elements {
    /// `NODE[S] labels`
    Nodes(NameSet),
    /// `RELATIONSHIP[S] types`
    Relationships(NameSet),
    /// `ELEMENT[S] names`, or nothing written: nodes and relationships.
    Elements(NameSet),
    /// `FOR (n[:A|B]) WHERE predicate`, `FOR (n[:A|B] WHERE predicate)` or
    /// `FOR ([n][:A|B] {p: value})` (read as `n.p = value`): nodes with one of the labels (any
    /// node when none is written) by their properties.
    Where {
        variable: Ident,
        labels: Vec<Ident>,
        predicate: Expr,
    },
}

/// How a property rule tests its property, as Neo4j 5 allows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PropertyTest {
    Eq,
    NotEq,
    Lt,
    Le,
    Gt,
    Ge,
    IsNull,
    IsNotNull,
    /// `IN [values]`
    In,
}

impl PropertyTest {
    /// The test as a predicate writes it after the property, before any value.
    pub fn symbol(self) -> &'static str {
        match self {
            PropertyTest::Eq => "=",
            PropertyTest::NotEq => "<>",
            PropertyTest::Lt => "<",
            PropertyTest::Le => "<=",
            PropertyTest::Gt => ">",
            PropertyTest::Ge => ">=",
            PropertyTest::IsNull => "IS NULL",
            PropertyTest::IsNotNull => "IS NOT NULL",
            PropertyTest::In => "IN",
        }
    }
}

/// A property rule's predicate taken apart: `[NOT] n.property test [value]`.
#[derive(Clone, Debug, PartialEq)]
pub struct PropertyPredicate<'a> {
    pub negated: bool,
    pub property: &'a Ident,
    pub test: PropertyTest,
    /// What the property is compared with (a list for `IN`); `None` for the null tests.
    pub value: Option<&'a Expr>,
}

impl<'a> PropertyPredicate<'a> {
    /// `predicate` taken apart, when it is one of the forms a property rule allows on
    /// `variable`: one property of it compared with a value (a literal, a parameter, a list
    /// of them, or a function of them), `IS [NOT] NULL`, `IN` a list, or `NOT` of one of
    /// these. `Err` says what is not allowed.
    pub fn of(variable: &Ident, predicate: &'a Expr) -> Result<PropertyPredicate<'a>, String> {
        let refuse = || {
            format!(
                "The property rule `{predicate}` (a rule tests one property of `{variable}`: \
                 [NOT] {variable}.p = | <> | < | <= | > | >= value, IS [NOT] NULL or IN [values])"
            )
        };
        let (negated, inner) = match &predicate.kind {
            ExprKind::Unary {
                op: super::UnaryOp::Not,
                operand,
            } => (true, &**operand),
            _ => (false, predicate),
        };
        let property_of = |e: &'a Expr| match &e.kind {
            ExprKind::Property { base, key } => match &base.kind {
                ExprKind::Variable(v) if v.name == variable.name => Some(key),
                _ => None,
            },
            _ => None,
        };
        let (property, test, value) = match &inner.kind {
            ExprKind::IsNull { operand, negated } => {
                let test = if *negated {
                    PropertyTest::IsNotNull
                } else {
                    PropertyTest::IsNull
                };
                (property_of(operand).ok_or_else(refuse)?, test, None)
            }
            ExprKind::Binary { op, left, right } => {
                use super::BinaryOp as B;
                let test = match op {
                    B::Eq => PropertyTest::Eq,
                    B::NotEq => PropertyTest::NotEq,
                    B::Lt => PropertyTest::Lt,
                    B::Le => PropertyTest::Le,
                    B::Gt => PropertyTest::Gt,
                    B::Ge => PropertyTest::Ge,
                    B::In => PropertyTest::In,
                    _ => return Err(refuse()),
                };
                if !is_value(right) {
                    return Err(refuse());
                }
                (property_of(left).ok_or_else(refuse)?, test, Some(&**right))
            }
            _ => return Err(refuse()),
        };
        Ok(PropertyPredicate {
            negated,
            property,
            test,
            value,
        })
    }
}

/// Whether `e` is a value a property rule may compare with: it names no variable.
fn is_value(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Literal(_) | ExprKind::Parameter(_) => true,
        ExprKind::List(items) => items.iter().all(is_value),
        ExprKind::Map(entries) => entries.iter().all(|e| is_value(&e.value)),
        ExprKind::Unary { operand, .. } => is_value(operand),
        ExprKind::FunctionCall(call) => call.args.iter().all(is_value),
        _ => false,
    }
}

impl Elements {
    /// The value expressions of a property rule (what its property is compared with), for
    /// the command to evaluate before it runs; none for other elements or a predicate
    /// outside the allowed forms (which the command refuses).
    pub fn rule_values(&self) -> Vec<&Expr> {
        match self {
            Elements::Where {
                variable,
                predicate,
                ..
            } => PropertyPredicate::of(variable, predicate)
                .ok()
                .and_then(|p| p.value)
                .into_iter()
                .collect(),
            _ => Vec::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum GraphAction {
    Traverse,
    /// `READ {properties}`
    Read(NameSet),
    /// `MATCH {properties}`: traverse and read.
    Match(NameSet),
    Write,
    Create,
    Delete,
    /// `SET LABEL labels`
    SetLabel(NameSet),
    /// `REMOVE LABEL labels`
    RemoveLabel(NameSet),
    /// `SET PROPERTY {properties}`
    SetProperty(NameSet),
    /// `MERGE {properties}`
    Merge(NameSet),
    /// `ALL [GRAPH] PRIVILEGES`
    All,
}

#[derive(Clone, Debug, PartialEq)]
pub enum DatabaseAction {
    Access,
    Start,
    Stop,
    /// `INDEX [MANAGEMENT]`
    Index,
    /// `CONSTRAINT [MANAGEMENT]`
    Constraint,
    /// `SHOW INDEX[ES]`
    ShowIndex,
    /// `SHOW CONSTRAINT[S]`
    ShowConstraint,
    /// `NAME [MANAGEMENT]`
    NameManagement,
    /// `TRANSACTION [MANAGEMENT] [(users)]`
    TransactionManagement(NameSet),
    /// `ALL [DATABASE] PRIVILEGES`
    All,
}

#[derive(Clone, Debug, PartialEq)]
pub enum DbmsAction {
    RoleManagement,
    UserManagement,
    PrivilegeManagement,
    DatabaseManagement,
    /// `EXECUTE PROCEDURE[S] globs`, e.g. `apoc.*`
    ExecuteProcedure(Vec<String>),
    /// `EXECUTE [USER [DEFINED]] FUNCTION[S] globs`
    ExecuteFunction(Vec<String>),
    /// `IMPERSONATE [(users)]`
    Impersonate(NameSet),
    /// `ALL [DBMS] PRIVILEGES`
    All,
}

impl AdminCommand {
    /// Every user or role name of the command, written or a parameter, in order.
    fn names_mut(&mut self) -> Vec<&mut AdminName> {
        match self {
            AdminCommand::CreateUser(c) => vec![&mut c.name],
            AdminCommand::AlterUser(a) => vec![&mut a.name],
            AdminCommand::DropUser { name, .. } | AdminCommand::DropRole { name, .. } => {
                vec![name]
            }
            AdminCommand::AlterCurrentUser { .. } => Vec::new(),
            AdminCommand::CreateRole(c) => {
                let mut names = vec![&mut c.name];
                names.extend(c.copy_of.as_mut());
                names
            }
            AdminCommand::GrantRoles { roles, users }
            | AdminCommand::RevokeRoles { roles, users } => {
                roles.iter_mut().chain(users.iter_mut()).collect()
            }
            AdminCommand::Privilege(command) => command.roles.iter_mut().collect(),
        }
    }

    /// The parameters naming users or roles (`CREATE USER $name`), each once.
    pub fn name_parameters(&self) -> Vec<String> {
        parameters_among(self.clone().names_mut())
    }

    /// The command with each user or role name parameter replaced by `value` of its name;
    /// a parameter `value` has nothing for stays a parameter.
    #[must_use]
    pub fn bind(&self, mut value: impl FnMut(&str) -> Option<String>) -> AdminCommand {
        let mut command = self.clone();
        for name in command.names_mut() {
            name.bind(&mut value);
        }
        command
    }

    /// Every expression the command reads (passwords, a property rule's value), for the
    /// semantic pass and to evaluate before the command runs.
    pub fn expressions(&self) -> Vec<&Expr> {
        match self {
            AdminCommand::CreateUser(c) => vec![&c.password.value],
            AdminCommand::AlterUser(a) => a.password.iter().map(|p| &p.value).collect(),
            AdminCommand::AlterCurrentUser { old, new } => vec![old, new],
            AdminCommand::Privilege(PrivilegeCommand {
                privilege: Privilege::Graph { elements, .. },
                ..
            }) => elements.rule_values(),
            _ => Vec::new(),
        }
    }
}

/// `SET [PLAINTEXT | ENCRYPTED] PASSWORD value`
#[derive(Clone, Debug, PartialEq)]
pub struct Password {
    pub value: Expr,
    /// `ENCRYPTED`: the value is already a hash.
    pub encrypted: bool,
}

/// `CREATE [OR REPLACE] USER name [IF NOT EXISTS] SET [PLAINTEXT|ENCRYPTED] PASSWORD 'x'
/// [CHANGE [NOT] REQUIRED] [SET STATUS ACTIVE|SUSPENDED] [SET HOME DATABASE db]`
#[derive(Clone, Debug, PartialEq)]
pub struct CreateUser {
    pub name: AdminName,
    pub replace: bool,
    pub if_not_exists: bool,
    pub password: Password,
    /// `CHANGE [NOT] REQUIRED`; Neo4j's default when unwritten is required.
    pub change_required: Option<bool>,
    /// `SET STATUS SUSPENDED` (`Some(true)`) or `ACTIVE`.
    pub suspended: Option<bool>,
    pub home: Option<Ident>,
}

/// `ALTER USER name [IF EXISTS] [SET [PLAINTEXT|ENCRYPTED] PASSWORD 'x' [CHANGE [NOT]
/// REQUIRED]] [SET PASSWORD CHANGE [NOT] REQUIRED] [SET STATUS ...] [SET HOME DATABASE db |
/// REMOVE HOME DATABASE]`
#[derive(Clone, Debug, PartialEq)]
pub struct AlterUser {
    pub name: AdminName,
    pub if_exists: bool,
    pub password: Option<Password>,
    pub change_required: Option<bool>,
    pub suspended: Option<bool>,
    /// `Some(Some(db))` sets the home database, `Some(None)` removes it.
    pub home: Option<Option<Ident>>,
}

/// `CREATE [OR REPLACE] ROLE name [IF NOT EXISTS] [AS COPY OF other]`
#[derive(Clone, Debug, PartialEq)]
pub struct CreateRole {
    pub name: AdminName,
    pub replace: bool,
    pub if_not_exists: bool,
    pub copy_of: Option<AdminName>,
}

/// What `SHOW ... PRIVILEGES` lists.
#[derive(Clone, Debug, PartialEq)]
pub enum PrivilegeScope {
    /// `SHOW [ALL] PRIVILEGES`
    All,
    /// `SHOW ROLE[S] r1, r2 PRIVILEGES`
    Roles(Vec<Ident>),
    /// `SHOW USER[S] [u1, u2] PRIVILEGES`; empty means the current user.
    Users(Vec<Ident>),
}

/// `SHOW ... PRIVILEGES [AS [REVOKE] COMMAND[S]]`
#[derive(Clone, Debug, PartialEq)]
pub struct ShowPrivileges {
    pub scope: PrivilegeScope,
    pub as_commands: bool,
    /// `AS REVOKE COMMANDS`: the commands that would revoke each privilege.
    pub as_revoke: bool,
}

/// A password as printed: parameters by name, anything else hidden.
struct Hidden<'a>(&'a Expr);

impl fmt::Display for Hidden<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0.kind {
            ExprKind::Parameter(_) => write!(f, "{}", self.0),
            _ => f.write_str("'******'"),
        }
    }
}

fn write_status(f: &mut fmt::Formatter<'_>, suspended: Option<bool>) -> fmt::Result {
    match suspended {
        Some(true) => f.write_str(" SET STATUS SUSPENDED"),
        Some(false) => f.write_str(" SET STATUS ACTIVE"),
        None => Ok(()),
    }
}

fn write_change(f: &mut fmt::Formatter<'_>, required: Option<bool>) -> fmt::Result {
    match required {
        Some(true) => f.write_str(" CHANGE REQUIRED"),
        Some(false) => f.write_str(" CHANGE NOT REQUIRED"),
        None => Ok(()),
    }
}

impl fmt::Display for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.encrypted {
            f.write_str("ENCRYPTED ")?;
        }
        write!(f, "PASSWORD {}", Hidden(&self.value))
    }
}

impl fmt::Display for AdminCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdminCommand::CreateUser(c) => {
                f.write_str(if c.replace {
                    "CREATE OR REPLACE USER "
                } else {
                    "CREATE USER "
                })?;
                write!(f, "{}", c.name)?;
                if c.if_not_exists {
                    f.write_str(" IF NOT EXISTS")?;
                }
                write!(f, " SET {}", c.password)?;
                write_change(f, c.change_required)?;
                write_status(f, c.suspended)?;
                if let Some(home) = &c.home {
                    write!(f, " SET HOME DATABASE {home}")?;
                }
                Ok(())
            }
            AdminCommand::AlterUser(a) => {
                write!(f, "ALTER USER {}", a.name)?;
                if a.if_exists {
                    f.write_str(" IF EXISTS")?;
                }
                match &a.password {
                    Some(p) => {
                        write!(f, " SET {p}")?;
                        write_change(f, a.change_required)?;
                    }
                    None if a.change_required.is_some() => {
                        f.write_str(" SET PASSWORD")?;
                        write_change(f, a.change_required)?;
                    }
                    None => {}
                }
                write_status(f, a.suspended)?;
                match &a.home {
                    Some(Some(home)) => write!(f, " SET HOME DATABASE {home}")?,
                    Some(None) => f.write_str(" REMOVE HOME DATABASE")?,
                    None => {}
                }
                Ok(())
            }
            AdminCommand::DropUser { name, if_exists } => {
                write!(f, "DROP USER {name}")?;
                if *if_exists {
                    f.write_str(" IF EXISTS")?;
                }
                Ok(())
            }
            AdminCommand::AlterCurrentUser { old, new } => write!(
                f,
                "ALTER CURRENT USER SET PASSWORD FROM {} TO {}",
                Hidden(old),
                Hidden(new)
            ),
            AdminCommand::CreateRole(c) => {
                f.write_str(if c.replace {
                    "CREATE OR REPLACE ROLE "
                } else {
                    "CREATE ROLE "
                })?;
                write!(f, "{}", c.name)?;
                if c.if_not_exists {
                    f.write_str(" IF NOT EXISTS")?;
                }
                if let Some(of) = &c.copy_of {
                    write!(f, " AS COPY OF {of}")?;
                }
                Ok(())
            }
            AdminCommand::DropRole { name, if_exists } => {
                write!(f, "DROP ROLE {name}")?;
                if *if_exists {
                    f.write_str(" IF EXISTS")?;
                }
                Ok(())
            }
            AdminCommand::GrantRoles { roles, users } => {
                f.write_str("GRANT ROLE ")?;
                write_comma_separated(f, roles)?;
                f.write_str(" TO ")?;
                write_comma_separated(f, users)
            }
            AdminCommand::RevokeRoles { roles, users } => {
                f.write_str("REVOKE ROLE ")?;
                write_comma_separated(f, roles)?;
                f.write_str(" FROM ")?;
                write_comma_separated(f, users)
            }
            AdminCommand::Privilege(command) => write!(f, "{command}"),
        }
    }
}

impl fmt::Display for ShowPrivileges {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.scope {
            PrivilegeScope::All => f.write_str("PRIVILEGES")?,
            PrivilegeScope::Roles(roles) => {
                f.write_str("ROLES ")?;
                write_comma_separated(f, roles)?;
                f.write_str(" PRIVILEGES")?;
            }
            PrivilegeScope::Users(users) => {
                f.write_str("USERS ")?;
                if !users.is_empty() {
                    write_comma_separated(f, users)?;
                    f.write_str(" ")?;
                }
                f.write_str("PRIVILEGES")?;
            }
        }
        if self.as_revoke {
            f.write_str(" AS REVOKE COMMANDS")?;
        } else if self.as_commands {
            f.write_str(" AS COMMANDS")?;
        }
        Ok(())
    }
}

impl fmt::Display for NameSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NameSet::All => f.write_str("*"),
            NameSet::Names(names) => write_comma_separated(f, names),
        }
    }
}

/// `{*}` or `{a, b}`
struct Braced<'a>(&'a NameSet);

impl fmt::Display for Braced<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{}}}", self.0)
    }
}

/// A target after `ON`: `GRAPH *`, `GRAPHS a, b`, `HOME GRAPH`, `DEFAULT DATABASE`.
struct On<'a>(&'a PrivilegeTarget, &'static str);

impl fmt::Display for On<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let On(target, word) = *self;
        match target {
            PrivilegeTarget::All => write!(f, "{word} *"),
            PrivilegeTarget::Names(names) => {
                write!(f, "{word} ")?;
                write_comma_separated(f, names)
            }
            PrivilegeTarget::Home => write!(f, "HOME {word}"),
            PrivilegeTarget::Default => write!(f, "DEFAULT {word}"),
        }
    }
}

impl fmt::Display for Elements {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Elements::Nodes(n) => write!(f, "NODES {n}"),
            Elements::Relationships(n) => write!(f, "RELATIONSHIPS {n}"),
            Elements::Elements(n) => write!(f, "ELEMENTS {n}"),
            Elements::Where {
                variable,
                labels,
                predicate,
            } => {
                write!(f, "FOR ({variable}")?;
                for (i, label) in labels.iter().enumerate() {
                    f.write_str(if i == 0 { ":" } else { "|" })?;
                    write!(f, "{label}")?;
                }
                write!(f, ") WHERE {predicate}")
            }
        }
    }
}

/// A procedure or function glob list.
fn write_globs(f: &mut fmt::Formatter<'_>, globs: &[String]) -> fmt::Result {
    f.write_str(&globs.join(", "))
}

impl fmt::Display for Privilege {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Privilege::Graph {
                action,
                graphs,
                elements,
            } => {
                match action {
                    GraphAction::Traverse => f.write_str("TRAVERSE")?,
                    GraphAction::Read(p) => write!(f, "READ {}", Braced(p))?,
                    GraphAction::Match(p) => write!(f, "MATCH {}", Braced(p))?,
                    GraphAction::Write => f.write_str("WRITE")?,
                    GraphAction::Create => f.write_str("CREATE")?,
                    GraphAction::Delete => f.write_str("DELETE")?,
                    GraphAction::SetLabel(l) => write!(f, "SET LABEL {l}")?,
                    GraphAction::RemoveLabel(l) => write!(f, "REMOVE LABEL {l}")?,
                    GraphAction::SetProperty(p) => write!(f, "SET PROPERTY {}", Braced(p))?,
                    GraphAction::Merge(p) => write!(f, "MERGE {}", Braced(p))?,
                    GraphAction::All => f.write_str("ALL GRAPH PRIVILEGES")?,
                }
                write!(f, " ON {}", On(graphs, "GRAPH"))?;
                match elements {
                    Elements::Elements(NameSet::All) => Ok(()),
                    other => write!(f, " {other}"),
                }
            }
            Privilege::Database { action, databases } => {
                match action {
                    DatabaseAction::Access => f.write_str("ACCESS")?,
                    DatabaseAction::Start => f.write_str("START")?,
                    DatabaseAction::Stop => f.write_str("STOP")?,
                    DatabaseAction::Index => f.write_str("INDEX MANAGEMENT")?,
                    DatabaseAction::Constraint => f.write_str("CONSTRAINT MANAGEMENT")?,
                    DatabaseAction::ShowIndex => f.write_str("SHOW INDEX")?,
                    DatabaseAction::ShowConstraint => f.write_str("SHOW CONSTRAINT")?,
                    DatabaseAction::NameManagement => f.write_str("NAME MANAGEMENT")?,
                    DatabaseAction::TransactionManagement(users) => {
                        write!(f, "TRANSACTION MANAGEMENT ({users})")?;
                    }
                    DatabaseAction::All => f.write_str("ALL DATABASE PRIVILEGES")?,
                }
                write!(f, " ON {}", On(databases, "DATABASE"))
            }
            Privilege::Dbms(action) => {
                match action {
                    DbmsAction::RoleManagement => f.write_str("ROLE MANAGEMENT")?,
                    DbmsAction::UserManagement => f.write_str("USER MANAGEMENT")?,
                    DbmsAction::PrivilegeManagement => f.write_str("PRIVILEGE MANAGEMENT")?,
                    DbmsAction::DatabaseManagement => f.write_str("DATABASE MANAGEMENT")?,
                    DbmsAction::ExecuteProcedure(globs) => {
                        f.write_str("EXECUTE PROCEDURE ")?;
                        write_globs(f, globs)?;
                    }
                    DbmsAction::ExecuteFunction(globs) => {
                        f.write_str("EXECUTE FUNCTION ")?;
                        write_globs(f, globs)?;
                    }
                    DbmsAction::Impersonate(users) => write!(f, "IMPERSONATE ({users})")?,
                    DbmsAction::All => f.write_str("ALL DBMS PRIVILEGES")?,
                }
                f.write_str(" ON DBMS")
            }
        }
    }
}

impl fmt::Display for PrivilegeCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let to = match self.verb {
            PrivilegeVerb::Grant => {
                f.write_str("GRANT ")?;
                "TO"
            }
            PrivilegeVerb::Deny => {
                f.write_str("DENY ")?;
                "TO"
            }
            PrivilegeVerb::Revoke { denied } => {
                f.write_str(match denied {
                    Some(false) => "REVOKE GRANT ",
                    Some(true) => "REVOKE DENY ",
                    None => "REVOKE ",
                })?;
                "FROM"
            }
        };
        write!(f, "{} {to} ", self.privilege)?;
        write_comma_separated(f, &self.roles)
    }
}
