//! Many databases on one server: the seam between the engine, which runs one database, and
//! the server that keeps many.
//!
//! A server that keeps several databases publishes a [`DatabaseCatalog`] on each one
//! ([`crate::Database::set_catalog`]). The engine reads it for `SHOW DATABASES` and
//! `SHOW ALIASES`, for what `USE` may name, and for which database is the default (a
//! privilege on `DEFAULT DATABASE`); and it hands the catalog the database management
//! commands (`CREATE DATABASE`, `STOP DATABASE`, `CREATE ALIAS`, ...) once it has checked
//! their privileges, evaluated their parameters and options and validated their names. The
//! catalog carries them out (opens the store, closes it, removes the directory) and answers
//! with a typed error when it cannot.
//!
//! Without a catalog the database is the server's only one, named [`DEFAULT_DATABASE`].

use std::sync::Arc;
use std::time::SystemTime;

use quiver_cypher::ast::{Access, AdminName, DatabaseCommand};
use quiver_status::Status;
use quiver_value::{Map, Value};

use crate::error::{Error, Result};
use crate::eval::Cx;
use crate::ir::{Expr, Row};

/// The database a server without a catalog serves, and a server's default database unless
/// configured otherwise.
pub const DEFAULT_DATABASE: &str = "neo4j";

/// The name administration commands are sent to (Neo4j's administration database).
pub const SYSTEM_DATABASE: &str = "system";

/// Whether a database is one of the server's own or holds its administration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DatabaseKind {
    Standard,
    System,
}

/// One database as `SHOW DATABASES` lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct DatabaseInfo {
    /// Its name, in lower case.
    pub name: String,
    pub kind: DatabaseKind,
    /// A stable id: the same across restarts, new for a database dropped and created again.
    pub id: String,
    pub read_only: bool,
    /// Whether it was last asked to be online (`START DATABASE`, or created) rather than
    /// offline (`STOP DATABASE`).
    pub requested_online: bool,
    /// `online`, `offline`, `starting`, `stopping` or `dirty` (it failed to start or stop:
    /// [`DatabaseInfo::status_message`] says why).
    pub current_status: &'static str,
    pub status_message: String,
    pub created: SystemTime,
    pub last_start: Option<SystemTime>,
    pub last_stop: Option<SystemTime>,
    /// The number of its last commit, while it is online.
    pub last_committed: Option<u64>,
    /// The options it was created with.
    pub options: Map,
}

/// A database alias: another name for a database.
#[derive(Clone, Debug, PartialEq)]
pub struct AliasInfo {
    /// Its name, in lower case.
    pub name: String,
    /// The database it names.
    pub database: String,
    pub properties: Map,
}

/// A change a database management command asks of the catalog, its names validated and
/// lower-cased, its values evaluated.
#[derive(Clone, Debug, PartialEq)]
pub enum CatalogChange {
    Create {
        name: String,
        if_not_exists: bool,
        replace: bool,
        options: Map,
    },
    Drop {
        name: String,
        if_exists: bool,
        /// `DUMP DATA`: keep the store's files (moved aside) rather than delete them.
        dump_data: bool,
    },
    Alter {
        name: String,
        if_exists: bool,
        read_only: Option<bool>,
        /// `SET OPTION key value` (`Some`) and `REMOVE OPTION key` (`None`).
        options: Vec<(String, Option<Value>)>,
    },
    Start {
        name: String,
    },
    Stop {
        name: String,
    },
    CreateAlias {
        name: String,
        target: String,
        if_not_exists: bool,
        replace: bool,
        properties: Map,
    },
    AlterAlias {
        name: String,
        if_exists: bool,
        target: Option<String>,
        properties: Option<Map>,
    },
    DropAlias {
        name: String,
        if_exists: bool,
    },
}

/// The databases of a server, as its databases see them. Shared by every database of the
/// server; each call answers from the catalog as it is now.
pub trait DatabaseCatalog: Send + Sync + 'static {
    /// Every database, `system` included, in name order.
    fn databases(&self) -> Vec<DatabaseInfo>;

    /// Every alias, in name order.
    fn aliases(&self) -> Vec<AliasInfo>;

    /// The database that serves `name` (lower case): itself, the database an alias names,
    /// or for `system` the database that keeps the users and roles; `None` when the server
    /// has no database or alias of that name.
    fn resolve(&self, name: &str) -> Option<String>;

    /// The database a session that names none uses (unless its user has a home database).
    fn default_database(&self) -> String;

    /// The databases open now (`SHOW TRANSACTIONS` lists theirs, `TERMINATE TRANSACTIONS`
    /// finds them there).
    fn open_databases(&self) -> Vec<Arc<crate::Database>>;

    /// Carries out `change`, returning once it is done (a created database is online, a
    /// stopped one closed), or fails with the status a client should see.
    fn change(&self, change: CatalogChange) -> Result<()>;
}

/// Database and alias names as Neo4j 5 takes them: 3 to 63 characters, ASCII letters,
/// digits, dots and dashes, beginning with a letter or digit and ending with neither a dot
/// nor a dash; not beginning with `_` or `system` (reserved, `system` itself aside).
/// Returned lower-cased: names are case-insensitive.
pub fn validate_name(name: &str, what: &str) -> Result<String> {
    let invalid = |why: &str| {
        Error::runtime(
            Status::ArgumentError,
            None,
            format!("The provided {what} name '{name}' is invalid: {why}."),
        )
    };
    let lower = name.to_ascii_lowercase();
    if !(3..=63).contains(&name.len()) {
        return Err(invalid("it must be 3 to 63 characters long"));
    }
    if !lower
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-')
    {
        return Err(invalid(
            "it may contain only ASCII letters, digits, dots and dashes",
        ));
    }
    if !lower.as_bytes()[0].is_ascii_alphanumeric() {
        return Err(invalid("it must begin with a letter or a digit"));
    }
    if lower.ends_with(['.', '-']) {
        return Err(invalid("it must not end with a dot or a dash"));
    }
    if lower.starts_with(SYSTEM_DATABASE) {
        return Err(invalid("names beginning with 'system' are reserved"));
    }
    Ok(lower)
}

/// The name a command names as the catalog keys it: lower case, not validated (a name that
/// could not have been created is simply not found).
pub fn key(name: &str) -> String {
    name.to_ascii_lowercase()
}

/// The failure for a database that is not there, in Neo4j's words for `action` (`delete`,
/// `start`, ...).
pub fn not_found(action: &str, name: &str) -> Error {
    Error::runtime(
        Status::DatabaseNotFound,
        None,
        format!("Failed to {action} the specified database '{name}': Database does not exist."),
    )
}

/// Runs database management command `command` (its name parameters at `names`, its
/// expressions `values` in [`DatabaseCommand::expressions`]' order) through the database's
/// catalog. Returns no rows.
pub(crate) fn run(
    command: &DatabaseCommand,
    values: &[Expr],
    names: &[(Arc<str>, usize)],
    row: &mut Row,
    cx: &mut Cx,
) -> Result<Vec<Vec<Value>>> {
    let Some(catalog) = cx.shared.catalog() else {
        return Err(Error::runtime(
            Status::NotSystemDatabaseError,
            None,
            format!(
                "{} needs a server that keeps several databases: this database is on its own.",
                command.name()
            ),
        ));
    };
    let command = bind_names(command, names, cx)?;
    let mut values = values
        .iter()
        .map(|e| e.eval(row, cx))
        .collect::<Result<Vec<_>>>()?
        .into_iter();
    let change = change_of(&command, &mut values)?;
    catalog.change(change)?;
    if !command.waits() {
        return Ok(Vec::new());
    }
    // The change is done when the catalog returns: the one server has caught up.
    Ok(vec![vec![
        Value::from(crate::metadata::show::advertised_address(cx)),
        Value::from("CaughtUp"),
        Value::from("caught up"),
        Value::Bool(true),
    ]])
}

/// The rows of a database command that waits: one per server, how the change went there.
pub(crate) const WAIT_COLUMNS: &[&str] = &["address", "state", "message", "success"];

/// The command with its name parameters replaced by their String values.
fn bind_names(
    command: &DatabaseCommand,
    names: &[(Arc<str>, usize)],
    cx: &Cx,
) -> Result<DatabaseCommand> {
    use crate::security::commands::{name_values, value_of};
    let values = name_values(names, cx, "a database or an alias")?;
    Ok(command.bind(|param| value_of(&values, param)))
}

/// The name written (every parameter is bound by now).
fn written(name: &AdminName) -> Result<&str> {
    name.literal().ok_or_else(|| {
        Error::runtime(
            Status::ParameterMissing,
            None,
            "a database or alias name parameter was not given",
        )
    })
}

/// A map value (`OPTIONS`, `PROPERTIES`): null is none.
fn map_of(value: Option<Value>, what: &str) -> Result<Map> {
    match value {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Map(map)) => Ok((*map).clone()),
        Some(other) => Err(Error::type_error(format!(
            "{what} must be a map, but it is {}",
            other.value_type().name()
        ))),
    }
}

/// What `command` asks of the catalog, its names validated, `values` consumed in
/// [`DatabaseCommand::expressions`]' order.
fn change_of(
    command: &DatabaseCommand,
    values: &mut impl Iterator<Item = Value>,
) -> Result<CatalogChange> {
    let refuse_system = |name: &str, action: &str| {
        if name == SYSTEM_DATABASE {
            Err(Error::runtime(
                Status::NotSystemDatabaseError,
                None,
                format!("Not allowed to {action} system database."),
            ))
        } else {
            Ok(())
        }
    };
    Ok(match command {
        DatabaseCommand::Create(c) => CatalogChange::Create {
            name: validate_name(written(&c.name)?, "database")?,
            if_not_exists: c.if_not_exists,
            replace: c.replace,
            options: map_of(c.options.as_ref().and_then(|_| values.next()), "OPTIONS")?,
        },
        DatabaseCommand::Drop(d) => {
            let name = key(written(&d.name)?);
            refuse_system(&name, "delete")?;
            CatalogChange::Drop {
                name,
                if_exists: d.if_exists,
                dump_data: d.dump_data,
            }
        }
        DatabaseCommand::Alter(a) => {
            let name = key(written(&a.name)?);
            if name == SYSTEM_DATABASE && a.access.is_some() {
                refuse_system(&name, "alter the access mode of")?;
            }
            let options = a
                .options
                .iter()
                .map(|(k, v)| (k.name.clone(), v.as_ref().and_then(|_| values.next())))
                .collect();
            CatalogChange::Alter {
                name,
                if_exists: a.if_exists,
                read_only: a.access.map(|access| access == Access::ReadOnly),
                options,
            }
        }
        DatabaseCommand::Start { name, .. } => CatalogChange::Start {
            name: key(written(name)?),
        },
        DatabaseCommand::Stop { name, .. } => {
            let name = key(written(name)?);
            refuse_system(&name, "stop")?;
            CatalogChange::Stop { name }
        }
        DatabaseCommand::CreateAlias(c) => CatalogChange::CreateAlias {
            name: validate_name(written(&c.name)?, "alias")?,
            target: key(written(&c.target)?),
            if_not_exists: c.if_not_exists,
            replace: c.replace,
            properties: map_of(
                c.properties.as_ref().and_then(|_| values.next()),
                "PROPERTIES",
            )?,
        },
        DatabaseCommand::AlterAlias(a) => CatalogChange::AlterAlias {
            name: key(written(&a.name)?),
            if_exists: a.if_exists,
            target: a.target.as_ref().map(written).transpose()?.map(key),
            properties: match &a.properties {
                Some(_) => Some(map_of(values.next(), "PROPERTIES")?),
                None => None,
            },
        },
        DatabaseCommand::DropAlias { name, if_exists } => CatalogChange::DropAlias {
            name: key(written(name)?),
            if_exists: *if_exists,
        },
    })
}

/// A query's leading words, read without parsing it: what a server needs to know of a query
/// before it begins its transaction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leading<'q> {
    /// The database its leading `USE name` clause names (after any `EXPLAIN` or `PROFILE`):
    /// a server routes the query there.
    pub database: Option<String>,
    /// Its first word after those (`MATCH`, `create`, ...), as written; empty when there is
    /// none. A trace names the query's operation by it.
    pub keyword: &'q str,
}

/// Reads `query`'s [`Leading`] words.
pub fn leading(query: &str) -> Leading<'_> {
    let mut rest = skip_blank(query);
    let mut database = None;
    loop {
        let word_end = rest
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(rest.len());
        let (word, after) = rest.split_at(word_end);
        if word.eq_ignore_ascii_case("EXPLAIN") || word.eq_ignore_ascii_case("PROFILE") {
            rest = skip_blank(after);
            continue;
        }
        if database.is_none()
            && word.eq_ignore_ascii_case("USE")
            && after.starts_with(|c: char| c.is_whitespace() || c == '/')
            && let Some((name, past)) = use_name(skip_blank(after))
        {
            database = Some(name);
            rest = skip_blank(past);
            continue;
        }
        return Leading {
            database,
            keyword: word,
        };
    }
}

/// A query's first keyword ([`Leading::keyword`]).
pub fn first_keyword(query: &str) -> &str {
    leading(query).keyword
}

/// The database a query's leading `USE name` clause names ([`Leading::database`]).
pub fn named_by_use(query: &str) -> Option<String> {
    leading(query).database
}

/// The name at the start of `text` (backticked, or a bare name that may hold dots and
/// dashes) and what follows it.
fn use_name(text: &str) -> Option<(String, &str)> {
    if let Some(quoted) = text.strip_prefix('`') {
        let end = quoted.find('`')?;
        Some((quoted[..end].to_owned(), &quoted[end + 1..]))
    } else {
        let end = text
            .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '-')))
            .unwrap_or(text.len());
        (end > 0).then(|| (text[..end].to_owned(), &text[end..]))
    }
}

/// `text` after its leading white space and comments.
fn skip_blank(mut text: &str) -> &str {
    loop {
        let trimmed = text.trim_start();
        if let Some(line) = trimmed.strip_prefix("//") {
            text = line.find('\n').map_or("", |end| &line[end..]);
        } else if let Some(block) = trimmed.strip_prefix("/*") {
            text = block.find("*/").map_or("", |end| &block[end + 2..]);
        } else {
            return trimmed;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leading_use_names_the_database_a_query_is_routed_to() {
        assert_eq!(
            named_by_use("USE movies MATCH (n) RETURN n").as_deref(),
            Some("movies")
        );
        assert_eq!(
            named_by_use("  use `my-db`\nRETURN 1").as_deref(),
            Some("my-db")
        );
        assert_eq!(
            named_by_use("// hi\nEXPLAIN USE main.db RETURN 1").as_deref(),
            Some("main.db")
        );
        assert_eq!(
            named_by_use("/* c */ PROFILE use x RETURN 1").as_deref(),
            Some("x")
        );
        assert_eq!(named_by_use("MATCH (n) USE x RETURN n"), None);
        assert_eq!(named_by_use("useful()"), None);
        assert_eq!(named_by_use("RETURN 1"), None);
        assert_eq!(named_by_use("USE"), None);
    }

    #[test]
    fn a_querys_first_keyword_is_read_past_explain_use_and_comments() {
        for (text, keyword) in [
            ("MATCH (n) RETURN n", "MATCH"),
            ("  optional match (n) return n", "optional"),
            ("USE movies MATCH (n) RETURN n", "MATCH"),
            ("EXPLAIN\nCREATE (n)", "CREATE"),
            ("// a comment\nCALL db.labels()", "CALL"),
            ("/* a comment */ USE `my-db` SHOW INDEXES", "SHOW"),
            ("CALL{ RETURN 1 }", "CALL"),
            ("", ""),
            ("{not cypher", ""),
        ] {
            assert_eq!(leading(text).keyword, keyword, "{text}");
        }
    }

    #[test]
    fn names_follow_neo4j_rules_and_compare_in_lower_case() {
        assert_eq!(validate_name("Movies", "database").unwrap(), "movies");
        assert_eq!(validate_name("main.db", "database").unwrap(), "main.db");
        assert_eq!(
            validate_name("2024-sales", "database").unwrap(),
            "2024-sales"
        );
        for bad in [
            "ab",
            "a_b_c",
            "-abc",
            "abc-",
            "abc.",
            "system2",
            "systemdb",
            &"a".repeat(64),
        ] {
            let error = validate_name(bad, "database").unwrap_err();
            assert_eq!(error.status_code(), Status::ArgumentError, "{bad}");
        }
    }
}
