//! Database management, as Neo4j 5 spells it: `CREATE`, `DROP`, `ALTER`, `START` and `STOP
//! DATABASE`, and database aliases (`CREATE`, `ALTER` and `DROP ALIAS`). `SHOW DATABASES`
//! and `SHOW ALIASES` are [`super::ShowKind`]s.
//!
//! A database or alias name is an [`AdminName`]: written (dots need no quotes in a database
//! name: `main.db` is one name) or a parameter whose String value is the name. Printed, a
//! name that is not a plain word is quoted (`` `main.db` ``), which reads back as the same name.

use std::fmt;

use super::{AdminName, Expr};

#[derive(Clone, Debug, PartialEq)]
pub enum DatabaseCommand {
    Create(CreateDatabase),
    Drop(DropDatabase),
    Alter(AlterDatabase),
    /// `START DATABASE name [WAIT | NOWAIT]`
    Start {
        name: AdminName,
        wait: Wait,
    },
    /// `STOP DATABASE name [WAIT | NOWAIT]`
    Stop {
        name: AdminName,
        wait: Wait,
    },
    CreateAlias(CreateAlias),
    AlterAlias(AlterAlias),
    /// `DROP ALIAS name [IF EXISTS] FOR DATABASE`
    DropAlias {
        name: AdminName,
        if_exists: bool,
    },
}

/// `CREATE [OR REPLACE] DATABASE name [IF NOT EXISTS] [TOPOLOGY n PRIMARIES [m SECONDARIES]]
/// [OPTIONS {...}] [WAIT [n [SEC[OND[S]]]] | NOWAIT]`
#[derive(Clone, Debug, PartialEq)]
pub struct CreateDatabase {
    pub name: AdminName,
    pub replace: bool,
    pub if_not_exists: bool,
    pub topology: Option<Topology>,
    /// The `OPTIONS` map, a map literal or a parameter.
    pub options: Option<Expr>,
    pub wait: Wait,
}

/// `DROP DATABASE name [IF EXISTS] [DUMP DATA | DESTROY DATA] [WAIT | NOWAIT]`
#[derive(Clone, Debug, PartialEq)]
pub struct DropDatabase {
    pub name: AdminName,
    pub if_exists: bool,
    /// `DUMP DATA`: keep a dump of the store; `DESTROY DATA` (the default) does not.
    pub dump_data: bool,
    pub wait: Wait,
}

/// `ALTER DATABASE name [IF EXISTS] SET ACCESS READ ONLY | READ WRITE | SET TOPOLOGY ... |
/// SET OPTION key value | REMOVE OPTION key [WAIT | NOWAIT]`: one or more of the settings, each
/// at most once.
#[derive(Clone, Debug, PartialEq)]
pub struct AlterDatabase {
    pub name: AdminName,
    pub if_exists: bool,
    pub access: Option<Access>,
    pub topology: Option<Topology>,
    /// `SET OPTION key value` (`Some(value)`) and `REMOVE OPTION key` (`None`), in the order
    /// written.
    pub options: Vec<(super::Ident, Option<Expr>)>,
    pub wait: Wait,
}

/// `READ ONLY` or `READ WRITE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    ReadOnly,
    ReadWrite,
}

/// `TOPOLOGY n PRIMAR{Y|IES} [m SECONDAR{Y|IES}]` (either part may come first; at least one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Topology {
    pub primaries: Option<u32>,
    pub secondaries: Option<u32>,
}

/// Whether a command waits for the databases it changes to reach their new state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Wait {
    /// Nothing written: Neo4j 5 does not wait.
    #[default]
    Unwritten,
    /// `NOWAIT`
    NoWait,
    /// `WAIT` (`None`: the server's default time) or `WAIT n [SEC[OND[S]]]`.
    Wait(Option<u64>),
}

/// `CREATE [OR REPLACE] ALIAS name [IF NOT EXISTS] FOR DATABASE target [PROPERTIES {...}]`
#[derive(Clone, Debug, PartialEq)]
pub struct CreateAlias {
    pub name: AdminName,
    pub replace: bool,
    pub if_not_exists: bool,
    pub target: AdminName,
    /// The `PROPERTIES` map, a map literal or a parameter.
    pub properties: Option<Expr>,
}

/// `ALTER ALIAS name [IF EXISTS] SET DATABASE [TARGET target] [PROPERTIES {...}]`
#[derive(Clone, Debug, PartialEq)]
pub struct AlterAlias {
    pub name: AdminName,
    pub if_exists: bool,
    pub target: Option<AdminName>,
    pub properties: Option<Expr>,
}

impl DatabaseCommand {
    /// Whether the command waits (`WAIT [n SECONDS]`) for what it changes: Neo4j then
    /// answers with a row per server saying how the change went.
    pub fn waits(&self) -> bool {
        matches!(self.wait(), Wait::Wait(_))
    }

    /// What the command says of waiting (an alias command says nothing).
    pub fn wait(&self) -> Wait {
        match self {
            DatabaseCommand::Create(c) => c.wait,
            DatabaseCommand::Drop(d) => d.wait,
            DatabaseCommand::Alter(a) => a.wait,
            DatabaseCommand::Start { wait, .. } | DatabaseCommand::Stop { wait, .. } => *wait,
            DatabaseCommand::CreateAlias(_)
            | DatabaseCommand::AlterAlias(_)
            | DatabaseCommand::DropAlias { .. } => Wait::Unwritten,
        }
    }

    /// The command's keywords, for messages and plans (`CREATE DATABASE`, `DROP ALIAS`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            DatabaseCommand::Create(_) => "CREATE DATABASE",
            DatabaseCommand::Drop(_) => "DROP DATABASE",
            DatabaseCommand::Alter(_) => "ALTER DATABASE",
            DatabaseCommand::Start { .. } => "START DATABASE",
            DatabaseCommand::Stop { .. } => "STOP DATABASE",
            DatabaseCommand::CreateAlias(_) => "CREATE ALIAS",
            DatabaseCommand::AlterAlias(_) => "ALTER ALIAS",
            DatabaseCommand::DropAlias { .. } => "DROP ALIAS",
        }
    }
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Access::ReadOnly => "READ ONLY",
            Access::ReadWrite => "READ WRITE",
        })
    }
}

impl DatabaseCommand {
    fn names_mut(&mut self) -> Vec<&mut AdminName> {
        match self {
            DatabaseCommand::Create(c) => vec![&mut c.name],
            DatabaseCommand::Drop(d) => vec![&mut d.name],
            DatabaseCommand::Alter(a) => vec![&mut a.name],
            DatabaseCommand::Start { name, .. }
            | DatabaseCommand::Stop { name, .. }
            | DatabaseCommand::DropAlias { name, .. } => vec![name],
            DatabaseCommand::CreateAlias(c) => vec![&mut c.name, &mut c.target],
            DatabaseCommand::AlterAlias(a) => {
                let mut names = vec![&mut a.name];
                names.extend(a.target.as_mut());
                names
            }
        }
    }

    /// The parameters naming databases or aliases (`CREATE DATABASE $name`), each once.
    pub fn name_parameters(&self) -> Vec<String> {
        super::admin::parameters_among(self.clone().names_mut())
    }

    /// The command with each database or alias name parameter replaced by `value` of its
    /// name; a parameter `value` has nothing for stays a parameter.
    #[must_use]
    pub fn bind(&self, mut value: impl FnMut(&str) -> Option<String>) -> DatabaseCommand {
        let mut command = self.clone();
        for name in command.names_mut() {
            name.bind(&mut value);
        }
        command
    }

    /// Every expression the command reads (the `OPTIONS` and `PROPERTIES` maps or
    /// parameters, the values of `SET OPTION`), for the semantic pass and to evaluate before
    /// the command runs.
    pub fn expressions(&self) -> Vec<&Expr> {
        match self {
            DatabaseCommand::Create(c) => c.options.iter().collect(),
            DatabaseCommand::Alter(a) => a.options.iter().filter_map(|(_, v)| v.as_ref()).collect(),
            DatabaseCommand::CreateAlias(c) => c.properties.iter().collect(),
            DatabaseCommand::AlterAlias(a) => a.properties.iter().collect(),
            DatabaseCommand::Drop(_)
            | DatabaseCommand::Start { .. }
            | DatabaseCommand::Stop { .. }
            | DatabaseCommand::DropAlias { .. } => Vec::new(),
        }
    }
}

impl Topology {
    /// Whether the topology says nothing (never parsed: `TOPOLOGY` takes at least one part).
    pub fn is_empty(&self) -> bool {
        self.primaries.is_none() && self.secondaries.is_none()
    }
}

impl Wait {
    /// Whether `WAIT` or `NOWAIT` was written.
    pub fn is_written(&self) -> bool {
        *self != Wait::Unwritten
    }
}

impl fmt::Display for Topology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TOPOLOGY")?;
        if let Some(n) = self.primaries {
            write!(f, " {n} {}", if n == 1 { "PRIMARY" } else { "PRIMARIES" })?;
        }
        if let Some(n) = self.secondaries {
            write!(
                f,
                " {n} {}",
                if n == 1 { "SECONDARY" } else { "SECONDARIES" }
            )?;
        }
        Ok(())
    }
}

/// Prints nothing for [`Wait::Unwritten`], else `NOWAIT`, `WAIT` or `WAIT n SECONDS`.
impl fmt::Display for Wait {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Wait::Unwritten => Ok(()),
            Wait::NoWait => f.write_str("NOWAIT"),
            Wait::Wait(None) => f.write_str("WAIT"),
            Wait::Wait(Some(seconds)) => write!(f, "WAIT {seconds} SECONDS"),
        }
    }
}

/// ` WAIT ...` or ` NOWAIT` after a command, nothing when neither was written.
fn write_wait(f: &mut fmt::Formatter<'_>, wait: Wait) -> fmt::Result {
    if wait.is_written() {
        write!(f, " {wait}")?;
    }
    Ok(())
}

fn write_flag(f: &mut fmt::Formatter<'_>, flag: bool, text: &str) -> fmt::Result {
    if flag {
        f.write_str(text)?;
    }
    Ok(())
}

impl fmt::Display for CreateDatabase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CREATE ")?;
        write_flag(f, self.replace, "OR REPLACE ")?;
        write!(f, "DATABASE {}", self.name)?;
        write_flag(f, self.if_not_exists, " IF NOT EXISTS")?;
        if let Some(topology) = &self.topology {
            write!(f, " {topology}")?;
        }
        if let Some(options) = &self.options {
            write!(f, " OPTIONS {options}")?;
        }
        write_wait(f, self.wait)
    }
}

impl fmt::Display for DropDatabase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DROP DATABASE {}", self.name)?;
        write_flag(f, self.if_exists, " IF EXISTS")?;
        write_flag(f, self.dump_data, " DUMP DATA")?;
        write_wait(f, self.wait)
    }
}

impl fmt::Display for AlterDatabase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ALTER DATABASE {}", self.name)?;
        write_flag(f, self.if_exists, " IF EXISTS")?;
        if let Some(access) = self.access {
            write!(f, " SET ACCESS {access}")?;
        }
        if let Some(topology) = &self.topology {
            write!(f, " SET {topology}")?;
        }
        for (key, value) in &self.options {
            match value {
                Some(value) => write!(f, " SET OPTION {key} {value}")?,
                None => write!(f, " REMOVE OPTION {key}")?,
            }
        }
        write_wait(f, self.wait)
    }
}

impl fmt::Display for CreateAlias {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CREATE ")?;
        write_flag(f, self.replace, "OR REPLACE ")?;
        write!(f, "ALIAS {}", self.name)?;
        write_flag(f, self.if_not_exists, " IF NOT EXISTS")?;
        write!(f, " FOR DATABASE {}", self.target)?;
        if let Some(properties) = &self.properties {
            write!(f, " PROPERTIES {properties}")?;
        }
        Ok(())
    }
}

impl fmt::Display for AlterAlias {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ALTER ALIAS {}", self.name)?;
        write_flag(f, self.if_exists, " IF EXISTS")?;
        f.write_str(" SET DATABASE")?;
        if let Some(target) = &self.target {
            write!(f, " TARGET {target}")?;
        }
        if let Some(properties) = &self.properties {
            write!(f, " PROPERTIES {properties}")?;
        }
        Ok(())
    }
}

impl fmt::Display for DatabaseCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DatabaseCommand::Create(c) => write!(f, "{c}"),
            DatabaseCommand::Drop(d) => write!(f, "{d}"),
            DatabaseCommand::Alter(a) => write!(f, "{a}"),
            DatabaseCommand::Start { name, wait } => {
                write!(f, "START DATABASE {name}")?;
                write_wait(f, *wait)
            }
            DatabaseCommand::Stop { name, wait } => {
                write!(f, "STOP DATABASE {name}")?;
                write_wait(f, *wait)
            }
            DatabaseCommand::CreateAlias(c) => write!(f, "{c}"),
            DatabaseCommand::AlterAlias(a) => write!(f, "{a}"),
            DatabaseCommand::DropAlias { name, if_exists } => {
                write!(f, "DROP ALIAS {name}")?;
                write_flag(f, *if_exists, " IF EXISTS")?;
                f.write_str(" FOR DATABASE")
            }
        }
    }
}
