//! User and role administration, as Neo4j 5 spells it: `CREATE USER`, `ALTER USER`,
//! `ALTER CURRENT USER`, `DROP USER`, `CREATE ROLE`, `DROP ROLE`, `GRANT ROLE`,
//! `REVOKE ROLE`, and what `SHOW USERS`, `SHOW ROLES` and `SHOW PRIVILEGES` list.
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
        name: Ident,
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
        name: Ident,
        if_exists: bool,
    },
    /// `GRANT ROLE[S] r1, r2 TO u1, u2`
    GrantRoles {
        roles: Vec<Ident>,
        users: Vec<Ident>,
    },
    /// `REVOKE ROLE[S] r1, r2 FROM u1, u2`
    RevokeRoles {
        roles: Vec<Ident>,
        users: Vec<Ident>,
    },
}

impl AdminCommand {
    /// Every expression the command reads (passwords), for the semantic pass.
    pub fn expressions(&self) -> Vec<&Expr> {
        match self {
            AdminCommand::CreateUser(c) => vec![&c.password.value],
            AdminCommand::AlterUser(a) => a.password.iter().map(|p| &p.value).collect(),
            AdminCommand::AlterCurrentUser { old, new } => vec![old, new],
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
    pub name: Ident,
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
    pub name: Ident,
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
    pub name: Ident,
    pub replace: bool,
    pub if_not_exists: bool,
    pub copy_of: Option<Ident>,
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
        if self.as_commands {
            f.write_str(" AS COMMANDS")?;
        }
        Ok(())
    }
}
