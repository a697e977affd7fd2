//! `SHOW DATABASES`, `SHOW ALIASES`, `SHOW PROCEDURES`, `SHOW FUNCTIONS`, `SHOW SETTINGS`,
//! `SHOW CURRENT USER`, `SHOW USERS`, `SHOW ROLES`, `SHOW PRIVILEGES` and `SHOW SERVERS`, in
//! Neo4j 5's columns.
//!
//! Each command has all its columns (what `YIELD *` returns, and what `WHERE` and `YIELD` may
//! name) and a subset shown by default, both Neo4j's; the planner projects the default subset
//! unless the command has a `YIELD`.

use std::fmt::Write;

use quiver_cypher::semantic::{FunctionSignature, Type, builtin_functions};
use quiver_value::Value;

use super::servers::{SERVER_COLUMNS, SERVER_DEFAULT_COLUMNS, servers};
use super::values::{
    DATABASE_NAME, DEFAULT_BOLT_ADDRESS, Named, database_id, entries, field, map, utc,
};
use crate::catalog::{DatabaseInfo, DatabaseKind};
use crate::error::{Error, Result};
use crate::eval::Cx;
use crate::ir::{Expr, Row};
use crate::procedures::{FieldType, Procedure};
use crate::security::show::{PrivilegesOf, privilege_columns};

/// Which databases `SHOW ... DATABASE[S]` lists.
#[derive(Debug)]
pub(crate) enum Databases {
    All,
    Named(String),
    Default,
    Home,
}

/// A `SHOW` command answered from the database's registries.
#[derive(Debug)]
pub(crate) enum ShowTable {
    Databases(Databases),
    /// `SHOW ALIASES [name] FOR DATABASES`
    Aliases(Option<String>),
    Procedures,
    Functions,
    /// The names asked for (each a String or a list of Strings); none for every setting.
    Settings(Vec<Expr>),
    CurrentUser,
    /// `SHOW SERVERS`
    Servers,
    /// `SHOW USERS`
    Users,
    /// `SHOW [POPULATED] ROLES [WITH USERS]`
    Roles {
        with_users: bool,
        populated: bool,
    },
    /// `SHOW ... PRIVILEGES [AS [REVOKE] COMMANDS]`
    Privileges {
        of: PrivilegesOf,
        commands: crate::security::show::Commands,
    },
}

const DATABASE_COLUMNS: &[&str] = &[
    "name",
    "type",
    "aliases",
    "access",
    "databaseID",
    "serverID",
    "address",
    "role",
    "writer",
    "requestedStatus",
    "currentStatus",
    "statusMessage",
    "default",
    "home",
    "currentPrimariesCount",
    "currentSecondariesCount",
    "requestedPrimariesCount",
    "requestedSecondariesCount",
    "creationTime",
    "lastStartTime",
    "lastStopTime",
    "store",
    "lastCommittedTxn",
    "replicationLag",
    "constituents",
    "options",
];
/// `SHOW ALIASES`' columns in Neo4j 5's order; the first six are shown without `YIELD`.
const ALIAS_COLUMNS: &[&str] = &[
    "name",
    "composite",
    "database",
    "location",
    "url",
    "user",
    "driver",
    "defaultLanguage",
    "properties",
];
const DATABASE_DEFAULT_COLUMNS: &[&str] = &[
    "name",
    "type",
    "aliases",
    "access",
    "address",
    "role",
    "writer",
    "requestedStatus",
    "currentStatus",
    "statusMessage",
    "default",
    "home",
    "constituents",
];
/// `SHOW DEFAULT DATABASE` and `SHOW HOME DATABASE` leave out `default` and `home`.
const ONE_DATABASE_COLUMNS: &[&str] = &[
    "name",
    "type",
    "aliases",
    "access",
    "databaseID",
    "serverID",
    "address",
    "role",
    "writer",
    "requestedStatus",
    "currentStatus",
    "statusMessage",
    "currentPrimariesCount",
    "currentSecondariesCount",
    "requestedPrimariesCount",
    "requestedSecondariesCount",
    "creationTime",
    "lastStartTime",
    "lastStopTime",
    "store",
    "lastCommittedTxn",
    "replicationLag",
    "constituents",
    "options",
];
const ONE_DATABASE_DEFAULT_COLUMNS: &[&str] = &[
    "name",
    "type",
    "aliases",
    "access",
    "address",
    "role",
    "writer",
    "requestedStatus",
    "currentStatus",
    "statusMessage",
    "constituents",
];
const PROCEDURE_COLUMNS: &[&str] = &[
    "name",
    "description",
    "mode",
    "worksOnSystem",
    "signature",
    "argumentDescription",
    "returnDescription",
    "admin",
    "rolesExecution",
    "rolesBoostedExecution",
    "isDeprecated",
    "deprecatedBy",
    "option",
];
const FUNCTION_COLUMNS: &[&str] = &[
    "name",
    "category",
    "description",
    "signature",
    "isBuiltIn",
    "argumentDescription",
    "returnDescription",
    "aggregating",
    "rolesExecution",
    "rolesBoostedExecution",
    "isDeprecated",
    "deprecatedBy",
];
const SETTING_COLUMNS: &[&str] = &[
    "name",
    "value",
    "isDynamic",
    "defaultValue",
    "description",
    "startupValue",
    "isExplicitlySet",
    "validValues",
    "isDeprecated",
];
/// Every column of `SHOW TRANSACTIONS YIELD *`, in Neo4j 5's order.
pub(crate) const TRANSACTION_COLUMNS: &[&str] = &[
    "database",
    "transactionId",
    "currentQueryId",
    "outerTransactionId",
    "connectionId",
    "clientAddress",
    "username",
    "metaData",
    "currentQuery",
    "parameters",
    "planner",
    "runtime",
    "indexes",
    "startTime",
    "currentQueryStartTime",
    "protocol",
    "requestUri",
    "status",
    "currentQueryStatus",
    "statusDetails",
    "resourceInformation",
    "activeLockCount",
    "currentQueryActiveLockCount",
    "elapsedTime",
    "cpuTime",
    "waitTime",
    "idleTime",
    "currentQueryElapsedTime",
    "currentQueryCpuTime",
    "currentQueryWaitTime",
    "currentQueryIdleTime",
    "currentQueryAllocatedBytes",
    "allocatedDirectBytes",
    "estimatedUsedHeapMemory",
    "pageHits",
    "pageFaults",
    "currentQueryPageHits",
    "currentQueryPageFaults",
    "initializationStackTrace",
];
/// The columns `SHOW TRANSACTIONS` shows without a `YIELD`.
pub(crate) const TRANSACTION_DEFAULT_COLUMNS: &[&str] = &[
    "database",
    "transactionId",
    "currentQueryId",
    "connectionId",
    "clientAddress",
    "username",
    "currentQuery",
    "startTime",
    "status",
    "elapsedTime",
];

const CURRENT_USER_COLUMNS: &[&str] = &[
    "user",
    "roles",
    "passwordChangeRequired",
    "suspended",
    "home",
];

impl ShowTable {
    /// Every column, in Neo4j's order.
    pub fn columns(&self) -> &'static [&'static str] {
        match self {
            ShowTable::Databases(Databases::Default | Databases::Home) => ONE_DATABASE_COLUMNS,
            ShowTable::Databases(_) => DATABASE_COLUMNS,
            ShowTable::Aliases(_) => ALIAS_COLUMNS,
            ShowTable::Procedures => PROCEDURE_COLUMNS,
            ShowTable::Functions => FUNCTION_COLUMNS,
            ShowTable::Settings(_) => SETTING_COLUMNS,
            ShowTable::CurrentUser | ShowTable::Users => CURRENT_USER_COLUMNS,
            ShowTable::Servers => SERVER_COLUMNS,
            ShowTable::Roles {
                with_users: false, ..
            } => &["role"],
            ShowTable::Roles {
                with_users: true, ..
            } => &["role", "member"],
            ShowTable::Privileges { of, commands } => {
                privilege_columns(of, *commands != crate::security::show::Commands::No)
            }
        }
    }

    /// The columns shown without a `YIELD`.
    pub fn default_columns(&self) -> &'static [&'static str] {
        match self {
            ShowTable::Databases(Databases::Default | Databases::Home) => {
                ONE_DATABASE_DEFAULT_COLUMNS
            }
            ShowTable::Databases(_) => DATABASE_DEFAULT_COLUMNS,
            ShowTable::Aliases(_) => &ALIAS_COLUMNS[..6],
            ShowTable::Procedures => &PROCEDURE_COLUMNS[..4],
            ShowTable::Functions => &FUNCTION_COLUMNS[..3],
            ShowTable::Settings(_) => &SETTING_COLUMNS[..5],
            ShowTable::CurrentUser | ShowTable::Users => CURRENT_USER_COLUMNS,
            ShowTable::Servers => SERVER_DEFAULT_COLUMNS,
            ShowTable::Roles { .. } | ShowTable::Privileges { .. } => self.columns(),
        }
    }

    /// The operator's name in plans.
    pub fn operator_name(&self) -> &'static str {
        match self {
            ShowTable::Databases(_) => "ShowDatabases",
            ShowTable::Aliases(_) => "ShowAliases",
            ShowTable::Procedures => "ShowProcedures",
            ShowTable::Functions => "ShowFunctions",
            ShowTable::Settings(_) => "ShowSettings",
            ShowTable::CurrentUser => "ShowCurrentUser",
            ShowTable::Servers => "ShowServers",
            ShowTable::Users => "ShowUsers",
            ShowTable::Roles { .. } => "ShowRoles",
            ShowTable::Privileges { .. } => "ShowPrivileges",
        }
    }

    /// The rows, every column in [`ShowTable::columns`]' order.
    pub fn rows(&self, row: &mut Row, cx: &mut Cx) -> Result<Vec<Vec<Value>>> {
        let rows = match self {
            ShowTable::Databases(which) => databases(which, cx),
            ShowTable::Aliases(name) => aliases(name.as_deref(), cx),
            ShowTable::Procedures => procedures(cx),
            ShowTable::Functions => functions(),
            ShowTable::Settings(names) => settings(names, row, cx)?,
            ShowTable::CurrentUser => current_user(cx),
            ShowTable::Servers => {
                let hosted: Vec<String> = match cx.shared.catalog() {
                    Some(catalog) => catalog
                        .databases()
                        .into_iter()
                        .filter(|d| d.current_status == "online")
                        .map(|d| d.name)
                        .collect(),
                    None => vec![DATABASE_NAME.to_owned()],
                };
                servers(cx.shared.servers(), &cx.shared.settings(), &hosted)
            }
            ShowTable::Users => crate::security::show::users(cx),
            ShowTable::Roles {
                with_users,
                populated,
            } => crate::security::show::roles(cx, *with_users, *populated),
            ShowTable::Privileges { of, commands } => {
                crate::security::show::privileges(cx, of, *commands)?
            }
        };
        let columns = self.columns();
        Ok(rows
            .into_iter()
            .map(|named| in_order(&named, columns))
            .collect())
    }
}

/// A row's values in `columns`' order, null where the row leaves a column out.
pub(crate) fn in_order(named: &Named, columns: &[&str]) -> Vec<Value> {
    columns
        .iter()
        .map(|c| field(named, c).cloned().unwrap_or(Value::Null))
        .collect()
}

/// A running transaction as `SHOW TRANSACTIONS` lists it, run by `user`. What the engine does
/// not track (connections, planner, locks, CPU, page cache) is left null; the engine has no
/// connection of its own, so `connectionId` is empty, as Neo4j's is for embedded use.
pub(crate) fn transaction_row(
    t: crate::TransactionInfo,
    user: Option<&str>,
    database: &str,
) -> Named {
    let elapsed = t.started.elapsed().unwrap_or_default();
    let started = t
        .started
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let start_time = utc(quiver_value::temporal::Instant {
        seconds: i64::try_from(started.as_secs()).unwrap_or(i64::MAX),
        nanos: started.subsec_nanos(),
    });
    let elapsed = quiver_value::Duration::new(
        0,
        0,
        i128::from(elapsed.as_secs()),
        i128::from(elapsed.subsec_nanos()),
    )
    .map_or(Value::Null, |d| Value::Duration(Box::new(d)));
    vec![
        ("database", Value::from(database)),
        ("transactionId", Value::from(t.id.as_str())),
        ("outerTransactionId", Value::from("")),
        ("connectionId", Value::from("")),
        ("username", Value::from(user.unwrap_or(""))),
        ("metaData", Value::map(t.metadata)),
        ("currentQuery", t.query.map_or(Value::Null, Value::from)),
        (
            "startTime",
            Value::from(quiver_value::to_string_cypher(&start_time)),
        ),
        ("status", Value::from("Running")),
        ("statusDetails", Value::from("")),
        ("elapsedTime", elapsed),
        ("initializationStackTrace", Value::from("")),
    ]
}

/// The databases `which` names: the catalog's (see [`crate::catalog`]), or, for a server's
/// only database, `neo4j`, the default and every user's home (without a catalog `USE system`
/// fails, so `system` is not listed: a tool offered it would fail on choosing it).
fn databases(which: &Databases, cx: &Cx) -> Vec<Named> {
    let names = cx.shared.names();
    let (listed, aliases) = match cx.shared.catalog() {
        Some(catalog) => (catalog.databases(), catalog.aliases()),
        None => (vec![only_database(cx)], Vec::new()),
    };
    let home = home_database(cx).unwrap_or_else(|| names.default.to_string());
    let target = match which {
        Databases::All => None,
        Databases::Named(name) => {
            let name = crate::catalog::key(name);
            // An alias lists the database it names.
            Some(
                aliases
                    .iter()
                    .find(|a| a.name == name)
                    .map_or(name, |a| a.database.clone()),
            )
        }
        Databases::Default => Some(names.default.to_string()),
        Databases::Home => Some(home.clone()),
    };
    let address = advertised_address(cx);
    let may_access = |d: &DatabaseInfo| may_access(cx, &d.name, &names.default);
    listed
        .into_iter()
        .filter(|d| target.as_ref().is_none_or(|t| *t == d.name))
        .filter(|d| may_access(d))
        .map(|d| {
            let of = aliases
                .iter()
                .filter(|a| a.database == d.name)
                .map(|a| Value::from(a.name.as_str()))
                .collect::<Vec<_>>();
            // A cluster member that does not lead does not take this database's writes.
            let writes_here = d.name != *names.name || cx.shared.accepts_writes();
            database_row(&d, of, &address, (&names.default, &home), writes_here)
        })
        .collect()
}

/// Whether the user running the query has access to database `name` (`system` to everyone,
/// as administration goes there): `SHOW DATABASES` lists only those, as Neo4j does, so a
/// database's name is not shown to who may not use it.
fn may_access(cx: &Cx, name: &str, default: &str) -> bool {
    if name == crate::catalog::SYSTEM_DATABASE {
        return true;
    }
    let crate::security::Subject::User(user) = &*cx.subject else {
        return true;
    };
    let auth = cx.shared.authentication();
    match crate::security::Subject::resolve(
        auth.as_deref(),
        &cx.security(),
        Some(&user.name),
        name,
        default,
    ) {
        Ok(crate::security::Subject::User(there)) => there
            .permissions
            .abilities
            .has(crate::security::privilege::Ability::Access),
        Ok(crate::security::Subject::Unrestricted) => true,
        Err(_) => false,
    }
}

/// A server's only database as a catalog would list it.
fn only_database(cx: &Cx) -> DatabaseInfo {
    let opened = std::time::UNIX_EPOCH
        + std::time::Duration::new(
            u64::try_from(cx.shared.opened.seconds).unwrap_or(0),
            cx.shared.opened.nanos,
        );
    DatabaseInfo {
        name: DATABASE_NAME.to_owned(),
        kind: DatabaseKind::Standard,
        id: database_id(),
        read_only: false,
        requested_online: true,
        current_status: "online",
        status_message: String::new(),
        created: opened,
        last_start: Some(opened),
        last_stop: None,
        last_committed: Some(cx.storage.last_committed()),
        options: quiver_value::Map::new(),
    }
}

/// The current user's own home database, when they have one.
fn home_database(cx: &Cx) -> Option<String> {
    let user = cx.shared.tx_user(cx.tx_id).filter(|u| !u.is_empty())?;
    cx.security()
        .users
        .get(&*user)
        .and_then(|u| u.home.as_deref())
        .map(crate::catalog::key)
}

/// Where clients reach this server: its advertised Bolt address.
pub(crate) fn advertised_address(cx: &Cx) -> String {
    cx.shared
        .settings()
        .iter()
        .find(|s| s.name == "server.bolt.advertised_address")
        .and_then(|s| s.value.clone())
        .unwrap_or_else(|| DEFAULT_BOLT_ADDRESS.to_owned())
}

/// `d`'s row; `(default, home)` are the server's default database and the user's home,
/// `writes_here` whether the server answering takes its writes.
fn database_row(
    d: &DatabaseInfo,
    aliases: Vec<Value>,
    address: &str,
    (default, home): (&str, &str),
    writes_here: bool,
) -> Named {
    let time = |t: std::time::SystemTime| {
        let since = t.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        utc(quiver_value::temporal::Instant {
            seconds: i64::try_from(since.as_secs()).unwrap_or(i64::MAX),
            nanos: since.subsec_nanos(),
        })
    };
    let online = d.current_status == "online";
    let system = d.kind == DatabaseKind::System;
    vec![
        ("name", Value::from(d.name.as_str())),
        (
            "type",
            Value::from(if system { "system" } else { "standard" }),
        ),
        ("aliases", Value::from(aliases)),
        (
            "access",
            Value::from(if d.read_only {
                "read-only"
            } else {
                "read-write"
            }),
        ),
        ("databaseID", Value::from(d.id.as_str())),
        ("serverID", Value::Null),
        ("address", Value::from(address)),
        (
            "role",
            if online {
                Value::from("primary")
            } else {
                Value::Null
            },
        ),
        ("writer", Value::Bool(online && !d.read_only && writes_here)),
        (
            "requestedStatus",
            Value::from(if d.requested_online {
                "online"
            } else {
                "offline"
            }),
        ),
        ("currentStatus", Value::from(d.current_status)),
        ("statusMessage", Value::from(d.status_message.as_str())),
        ("default", Value::Bool(!system && d.name == default)),
        ("home", Value::Bool(!system && d.name == home)),
        ("currentPrimariesCount", Value::Int(i64::from(online))),
        ("currentSecondariesCount", Value::Int(0)),
        ("requestedPrimariesCount", Value::Null),
        ("requestedSecondariesCount", Value::Null),
        ("creationTime", time(d.created)),
        ("lastStartTime", d.last_start.map_or(Value::Null, time)),
        ("lastStopTime", d.last_stop.map_or(Value::Null, time)),
        ("store", Value::from("quiver-1.0")),
        (
            "lastCommittedTxn",
            d.last_committed.map_or(Value::Null, |n| {
                Value::Int(i64::try_from(n).unwrap_or(i64::MAX))
            }),
        ),
        ("replicationLag", Value::Int(0)),
        ("constituents", Value::from(Vec::<Value>::new())),
        ("options", Value::map(d.options.clone())),
    ]
}

/// `SHOW ALIASES [name] FOR DATABASES`: the catalog's aliases (none without one).
fn aliases(name: Option<&str>, cx: &Cx) -> Vec<Named> {
    let Some(catalog) = cx.shared.catalog() else {
        return Vec::new();
    };
    let name = name.map(crate::catalog::key);
    catalog
        .aliases()
        .into_iter()
        .filter(|a| name.as_ref().is_none_or(|n| *n == a.name))
        .map(|a| {
            vec![
                ("name", Value::from(a.name.as_str())),
                ("composite", Value::Null),
                ("database", Value::from(a.database.as_str())),
                ("location", Value::from("local")),
                ("properties", Value::map(a.properties)),
            ]
        })
        .collect()
}

/// A declared type as Neo4j 5 writes it in signatures (`STRING`, `LIST<STRING>`).
fn field_type(t: &FieldType) -> String {
    match t {
        FieldType::List(inner) => format!("LIST<{}>", field_type(inner)),
        other => other.name(),
    }
}

fn value_type(t: &Type) -> String {
    match t {
        Type::Any | Type::Null => "ANY".to_owned(),
        Type::Boolean => "BOOLEAN".to_owned(),
        Type::Integer => "INTEGER".to_owned(),
        Type::Float => "FLOAT".to_owned(),
        Type::String => "STRING".to_owned(),
        Type::List(inner) => format!("LIST<{}>", value_type(inner)),
        Type::Map => "MAP".to_owned(),
        Type::Node => "NODE".to_owned(),
        Type::Relationship => "RELATIONSHIP".to_owned(),
        Type::Path => "PATH".to_owned(),
    }
}

/// Descriptions of the engine's original procedures, which predate [`Procedure::description`].
fn known_description(name: &str) -> &'static str {
    match name {
        "db.labels" => "Lists the labels some node in the database has.",
        "db.relationshipTypes" => "Lists the types some relationship in the database has.",
        "db.propertyKeys" => "Lists every property key the database has used.",
        "db.ping" => "Answers true: lets a client check that it reaches a database.",
        "dbms.components" => "Lists the server's components with their versions and edition.",
        _ => "",
    }
}

fn procedure_row(p: &dyn Procedure) -> Named {
    let s = p.signature();
    let description = match p.description() {
        "" => known_description(&s.name),
        d => d,
    };
    let mut args = Vec::new();
    let mut arg_texts = Vec::new();
    for f in &s.inputs {
        let ty = field_type(&f.ty);
        let default = f.default.clone();
        let text = match &default {
            Some(d) => format!("{} = {} :: {ty}", f.name, quiver_value::to_string_cypher(d)),
            None => format!("{} :: {ty}", f.name),
        };
        let mut entry = vec![
            ("name".to_owned(), Value::from(f.name.as_str())),
            ("type".to_owned(), Value::from(ty.as_str())),
            ("description".to_owned(), Value::from(text.as_str())),
            ("isDeprecated".to_owned(), Value::Bool(false)),
        ];
        if let Some(d) = &default {
            entry.push((
                "default".to_owned(),
                Value::from(format!(
                    "DefaultParameterValue{{value={}, type={ty}}}",
                    quiver_value::to_string_cypher(d)
                )),
            ));
        }
        args.push(map(entry));
        arg_texts.push(text);
    }
    let mut returns = Vec::new();
    let mut return_texts = Vec::new();
    for f in &s.outputs {
        let ty = field_type(&f.ty);
        let text = format!("{} :: {ty}", f.name);
        returns.push(map([
            ("name".to_owned(), Value::from(f.name.as_str())),
            ("type".to_owned(), Value::from(ty.as_str())),
            ("description".to_owned(), Value::from(text.as_str())),
            ("isDeprecated".to_owned(), Value::Bool(false)),
        ]));
        return_texts.push(text);
    }
    let mut signature = format!("{}({})", s.name, arg_texts.join(", "));
    if !return_texts.is_empty() {
        let _ = write!(signature, " :: ({})", return_texts.join(", "));
    }
    let dbms = s.name.starts_with("dbms.") || s.name.starts_with("tx.");
    let mode = if s.writes {
        "WRITE"
    } else if dbms {
        "DBMS"
    } else {
        "READ"
    };
    vec![
        ("name", Value::from(s.name.as_str())),
        ("description", Value::from(description)),
        ("mode", Value::from(mode)),
        ("worksOnSystem", Value::Bool(dbms)),
        ("signature", Value::from(signature)),
        ("argumentDescription", Value::from(args)),
        ("returnDescription", Value::from(returns)),
        ("admin", Value::Bool(false)),
        ("rolesExecution", Value::Null),
        ("rolesBoostedExecution", Value::Null),
        ("isDeprecated", Value::Bool(false)),
        ("deprecatedBy", Value::Null),
        (
            "option",
            Value::map(entries([("deprecated".to_owned(), Value::Bool(false))])),
        ),
    ]
}

/// Every registered procedure, by name.
fn procedures(cx: &Cx) -> Vec<Named> {
    procedure_rows(&cx.shared.procedures())
}

/// `SHOW PROCEDURES`' rows for every procedure in `registry`, by name.
pub(super) fn procedure_rows(registry: &crate::procedures::Procedures) -> Vec<Named> {
    registry
        .names()
        .iter()
        .filter_map(|n| registry.get(n))
        .map(|p| procedure_row(&*p))
        .collect()
}

/// The category Neo4j files a function under.
fn category(f: &FunctionSignature) -> &'static str {
    let name = f.name.to_ascii_lowercase();
    let name = name.as_str();
    if f.aggregate {
        return "Aggregating";
    }
    let family = name.split('.').next().unwrap_or(name);
    match family {
        "date" | "datetime" | "localdatetime" | "localtime" | "time" | "duration" => "Temporal",
        "point" | "distance" => "Spatial",
        "vector" => "Vector",
        "uuid" => "UUID",
        "apoc" | "gds" => "Other",
        "acos" | "asin" | "atan" | "atan2" | "cos" | "cosh" | "cot" | "coth" | "degrees"
        | "haversin" | "pi" | "radians" | "sin" | "sinh" | "tan" | "tanh" => "Trigonometric",
        "e" | "exp" | "log" | "log10" | "sqrt" => "Logarithmic",
        "abs" | "ceil" | "floor" | "isnan" | "rand" | "round" | "sign" => "Numeric",
        "btrim" | "char_length" | "character_length" | "left" | "lower" | "ltrim" | "normalize"
        | "replace" | "reverse" | "right" | "rtrim" | "split" | "substring" | "tolower"
        | "tostring" | "toupper" | "trim" | "upper" => "String",
        "keys" | "labels" | "nodes" | "range" | "relationships" | "tail" | "tobooleanlist"
        | "tofloatlist" | "tointegerlist" | "tostringlist" => "List",
        "exists" | "isempty" => "Predicate",
        "timestamp" => "Temporal",
        "file" | "linenumber" => "LOAD CSV",
        _ => "Scalar",
    }
}

/// What a function does, in a line, by category where the name says the rest.
fn function_description(f: &FunctionSignature) -> String {
    let name = f.name;
    let lower = name.to_ascii_lowercase();
    let text = match lower.as_str() {
        "avg" => "Returns the average of a set of numbers or durations.",
        "collect" => "Returns a list of the non-null values of an expression.",
        "count" => "Returns the number of rows or of non-null values.",
        "max" => "Returns the largest of a set of values.",
        "min" => "Returns the smallest of a set of values.",
        "percentilecont" => "Returns a percentile of a set of numbers, interpolating.",
        "percentiledisc" => "Returns a percentile of a set of numbers, rounding to a value.",
        "stdev" => "Returns the standard deviation of a sample of numbers.",
        "stdevp" => "Returns the standard deviation of a population of numbers.",
        "sum" => "Returns the sum of a set of numbers or durations.",
        "coalesce" => "Returns its first non-null argument.",
        "elementid" => "Returns the element id of a node or relationship.",
        "endnode" => "Returns the end node of a relationship.",
        "startnode" => "Returns the start node of a relationship.",
        "head" => "Returns the first element of a list.",
        "last" => "Returns the last element of a list.",
        "tail" => "Returns a list without its first element.",
        "id" => "Returns the id of a node or relationship.",
        "length" => "Returns the length of a path.",
        "size" => "Returns the number of elements of a list or characters of a string.",
        "nullif" => "Returns null when its two arguments are equal, the first otherwise.",
        "properties" => "Returns a map of the properties of a node, relationship or map.",
        "keys" => "Returns the property keys of a node, relationship or map.",
        "labels" => "Returns the labels of a node.",
        "nodes" => "Returns the nodes of a path.",
        "relationships" => "Returns the relationships of a path.",
        "range" => "Returns the integers between two bounds, with an optional step.",
        "type" => "Returns the type of a relationship.",
        "valuetype" => "Returns the name of the type of a value.",
        "exists" => "Returns whether a property or pattern exists.",
        "isempty" => "Returns whether a list, map or string is empty.",
        "randomuuid" => "Returns a random UUID string.",
        "uuid" => "Returns a random UUID, or converts a STRING or two INTEGERs to a UUID.",
        "uuid.mostsignificantbits" => "Returns the most significant 64 bits of a UUID.",
        "uuid.leastsignificantbits" => "Returns the least significant 64 bits of a UUID.",
        "rand" => "Returns a random float in [0, 1).",
        "timestamp" => "Returns the milliseconds since the epoch at the statement's start.",
        "linenumber" => "Returns the line number LOAD CSV is currently reading.",
        "file" => "Returns the path of the file LOAD CSV is reading.",
        "apoc.version" => "Returns the APOC version Quiver answers for.",
        "gds.version" => "Returns the Graph Data Science version Quiver's gds procedures follow.",
        "gds.util.asnode" => "Returns the node with the given id, or null.",
        "gds.util.asnodes" => "Returns the nodes with the given ids.",
        "gds.util.nan" => "Returns NaN.",
        "gds.util.infinity" => "Returns positive infinity.",
        "gds.util.isfinite" => "Returns whether a number is finite.",
        "gds.util.isinfinite" => "Returns whether a number is infinite.",
        _ => "",
    };
    if !text.is_empty() {
        return text.to_owned();
    }
    let family = lower.split('.').next().unwrap_or(&lower);
    let variant = lower.split('.').nth(1).unwrap_or("");
    match category(f) {
        "Temporal" => match variant {
            "" => format!("Creates a {family} from a string or map, or returns the current one."),
            "realtime" => format!("Returns the current {family} by the real-time clock."),
            "statement" => format!("Returns the current {family} by the statement's clock."),
            "transaction" => format!("Returns the current {family} by the transaction's clock."),
            "truncate" => format!("Truncates a temporal value to a {family} at a unit."),
            "fromepoch" => {
                "Creates a datetime from seconds and nanoseconds since the epoch.".to_owned()
            }
            "fromepochmillis" => "Creates a datetime from milliseconds since the epoch.".to_owned(),
            "between" => "Returns the duration between two temporal values.".to_owned(),
            _ => format!(
                "Returns the duration between two temporal values in {}.",
                &variant[2..].to_string()
            ),
        },
        "Trigonometric" | "Logarithmic" | "Numeric" => {
            format!("Returns {name} of a number.")
        }
        "String" => format!("Returns the string {name} computes from its arguments."),
        "List" => format!("Converts or builds a list: {name}."),
        "Spatial" => format!("Computes {name} over points."),
        "Vector" => "Returns the similarity of two vectors.".to_owned(),
        _ if lower.starts_with("to") => format!("Converts a value: {name}."),
        _ => format!("Returns {name} of its arguments."),
    }
}

fn function_row(f: &FunctionSignature) -> Named {
    let returns = value_type(&f.returns);
    let inputs: Vec<String> = match f.max_args {
        None => vec!["input :: LIST<ANY>".to_owned()],
        Some(0) => Vec::new(),
        Some(1) => vec!["input :: ANY".to_owned()],
        Some(n) => (1..=n).map(|i| format!("input{i} :: ANY")).collect(),
    };
    let args: Vec<Value> = inputs
        .iter()
        .map(|text| {
            let name = text.split(" :: ").next().unwrap_or(text);
            let ty = text.split(" :: ").nth(1).unwrap_or("ANY");
            map([
                ("name".to_owned(), Value::from(name)),
                ("type".to_owned(), Value::from(ty)),
                ("description".to_owned(), Value::from(text.as_str())),
                ("isDeprecated".to_owned(), Value::Bool(false)),
            ])
        })
        .collect();
    let lower = f.name.to_ascii_lowercase();
    let built_in = !(lower.starts_with("apoc.") || lower.starts_with("gds."));
    vec![
        ("name", Value::from(f.name)),
        ("category", Value::from(category(f))),
        ("description", Value::from(function_description(f))),
        (
            "signature",
            Value::from(format!("{}({}) :: {returns}", f.name, inputs.join(", "))),
        ),
        ("isBuiltIn", Value::Bool(built_in)),
        ("argumentDescription", Value::from(args)),
        ("returnDescription", Value::from(returns)),
        ("aggregating", Value::Bool(f.aggregate)),
        ("rolesExecution", Value::Null),
        ("rolesBoostedExecution", Value::Null),
        ("isDeprecated", Value::Bool(false)),
        ("deprecatedBy", Value::Null),
    ]
}

/// Every function the analysis knows, by name: `SHOW FUNCTIONS`' rows.
pub(super) fn functions() -> Vec<Named> {
    let mut all = builtin_functions();
    all.extend(
        crate::apoc::functions::all()
            .iter()
            .map(crate::apoc::functions::LibraryFn::signature),
    );
    all.sort_by(|a, b| a.name.cmp(b.name));
    all.iter().map(function_row).collect()
}

/// The setting names asked for: each expression a String or a list of Strings.
fn setting_names(names: &[Expr], row: &mut Row, cx: &mut Cx) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for e in names {
        let items = match e.eval(row, cx)? {
            Value::List(items) => items.to_vec(),
            other => vec![other],
        };
        for item in items {
            let Value::String(name) = item else {
                return Err(Error::type_error("Setting names must be Strings"));
            };
            out.push(name.to_string());
        }
    }
    Ok(out)
}

fn settings(names: &[Expr], row: &mut Row, cx: &mut Cx) -> Result<Vec<Named>> {
    let wanted = setting_names(names, row, cx)?;
    let settings = cx.shared.settings();
    let mut chosen: Vec<_> = settings
        .iter()
        .filter(|s| wanted.is_empty() || wanted.contains(&s.name))
        .collect();
    chosen.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(chosen
        .into_iter()
        .map(|s| {
            let text = |v: &Option<String>| v.as_deref().map_or(Value::Null, Value::from);
            vec![
                ("name", Value::from(s.name.as_str())),
                ("value", text(&s.value)),
                ("isDynamic", Value::Bool(s.dynamic)),
                ("defaultValue", text(&s.default_value)),
                ("description", Value::from(s.description.as_str())),
                ("startupValue", text(&s.value)),
                ("isExplicitlySet", Value::Bool(s.explicitly_set)),
                ("validValues", Value::from("")),
                ("isDeprecated", Value::Bool(false)),
            ]
        })
        .collect())
}

/// The transaction's user with their roles now. With no authenticated user (authentication
/// off, or an embedder that names none) there is no row; with a name but authentication off
/// (no roles to speak of), the roles and suspension are null.
pub(super) fn current_user(cx: &Cx) -> Vec<Named> {
    let Some(user) = cx.shared.tx_user(cx.tx_id).filter(|u| !u.is_empty()) else {
        return Vec::new();
    };
    let crate::security::Subject::User(subject) = &*cx.subject else {
        return vec![vec![
            ("user", Value::String(user)),
            ("roles", Value::Null),
            ("passwordChangeRequired", Value::Bool(false)),
            ("suspended", Value::Null),
            ("home", Value::Null),
        ]];
    };
    let catalogue = cx.security();
    let stored = catalogue.users.get(&*user);
    vec![vec![
        ("user", Value::String(user)),
        (
            "roles",
            Value::list(
                subject
                    .roles
                    .iter()
                    .map(|r| Value::from(r.as_str()))
                    .collect::<Vec<_>>(),
            ),
        ),
        (
            "passwordChangeRequired",
            Value::Bool(subject.change_required),
        ),
        ("suspended", Value::Bool(false)),
        (
            "home",
            stored
                .and_then(|u| u.home.as_deref())
                .map_or(Value::Null, Value::from),
        ),
    ]]
}
