//! `db.info`, `dbms.clientConfig`, `dbms.listConfig`, `dbms.showCurrentUser` and
//! `tx.setMetaData`.

use quiver_value::Value;

use super::show::current_user;
use super::values::{call_failed, database_id_of, field, strings, utc};
use crate::config::Setting;
use crate::error::Result;
use crate::procedures::native::{Native, list_of};
use crate::procedures::{FieldType, ProcedureContext};

pub(super) fn procedures() -> Vec<Native> {
    vec![
        Native::new(
            "db.info",
            "Provides information regarding the database.",
            info,
        )
        .output("id", FieldType::String)
        .output("name", FieldType::String)
        .output("creationDate", FieldType::String),
        Native::new(
            "dbms.clientConfig",
            "Lists the settings a client (Neo4j Browser, a shell) may read.",
            client_config,
        )
        .output("name", FieldType::String)
        .output("description", FieldType::String)
        .output("value", FieldType::String),
        Native::new(
            "dbms.listConfig",
            "Lists the server's settings whose names contain the search string (case-insensitive).",
            list_config,
        )
        .input_or("searchString", FieldType::String, Value::from(""))
        .output("name", FieldType::String)
        .output("description", FieldType::String)
        .output("value", FieldType::String)
        .output("dynamic", FieldType::Boolean),
        Native::new(
            "dbms.showCurrentUser",
            "Shows the current user: Neo4j 4's form of SHOW CURRENT USER, which Neo4j Browser \
             sends to a server it takes for Neo4j 4.",
            show_current_user,
        )
        .output("username", FieldType::String)
        .output("roles", list_of(FieldType::String))
        .output("flags", list_of(FieldType::String)),
        Native::new(
            "tx.setMetaData",
            "Attaches a map of data to the transaction, shown by SHOW TRANSACTIONS (replacing what it had).",
            set_metadata,
        )
        .input("data", FieldType::Map),
    ]
}

// Procedure bodies share one signature, failing or not.
#[allow(clippy::unnecessary_wraps)]
fn info(ctx: &ProcedureContext<'_>, _: &[Value]) -> Result<Vec<Vec<Value>>> {
    let created = quiver_value::to_string_cypher(&utc(ctx.shared.opened));
    Ok(vec![vec![
        Value::from(database_id_of(ctx.shared)),
        Value::from(&*ctx.shared.names().name),
        Value::from(created),
    ]])
}

/// What Neo4j Browser reads on connect, with values that let it work unchanged against
/// Quiver; `dbms.security.auth_enabled` is the server's.
#[allow(clippy::unnecessary_wraps)]
fn client_config(ctx: &ProcedureContext<'_>, _: &[Value]) -> Result<Vec<Vec<Value>>> {
    let settings = ctx.shared.settings();
    let auth = settings
        .iter()
        .find(|s| s.name == "dbms.security.auth_enabled")
        .and_then(|s| s.value.clone())
        .unwrap_or_else(|| "false".to_owned());
    let rows: [(&str, &str, String); 9] = [
        (
            "browser.allow_outgoing_connections",
            "Whether the browser may fetch content (guides, images) from other hosts.",
            "true".to_owned(),
        ),
        (
            "browser.credential_timeout",
            "How long the browser keeps credentials after the last use; 0s is for ever.",
            "0s".to_owned(),
        ),
        (
            "browser.post_connect_cmd",
            "Commands the browser runs after connecting.",
            String::new(),
        ),
        (
            "browser.remote_content_hostname_whitelist",
            "Hosts the browser may fetch remote content from.",
            "guides.neo4j.com,localhost".to_owned(),
        ),
        (
            "browser.retain_connection_credentials",
            "Whether the browser may keep credentials between sessions.",
            "true".to_owned(),
        ),
        (
            "browser.retain_editor_history",
            "Whether the browser keeps the editor's history.",
            "true".to_owned(),
        ),
        (
            "client.allow_telemetry",
            "Whether clients may send usage data (Quiver collects none).",
            "false".to_owned(),
        ),
        (
            "dbms.security.auth_enabled",
            "Whether clients must authenticate.",
            auth,
        ),
        (
            "initial.dbms.default_database",
            "The database clients use when they name none.",
            ctx.shared.names().default.to_string(),
        ),
    ];
    Ok(rows
        .into_iter()
        .map(|(name, description, value)| {
            vec![
                Value::from(name),
                Value::from(description),
                Value::from(value),
            ]
        })
        .collect())
}

fn list_config(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    let search = match args.first() {
        Some(Value::String(s)) => s.to_lowercase(),
        Some(Value::Null) | None => String::new(),
        Some(other) => {
            return Err(call_failed(format!(
                "searchString must be a STRING, got {}",
                quiver_value::to_string_cypher(other)
            )));
        }
    };
    let settings = ctx.shared.settings();
    let mut rows: Vec<&Setting> = settings
        .iter()
        .filter(|s| s.name.to_lowercase().contains(&search))
        .collect();
    rows.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(rows
        .into_iter()
        .map(|s| {
            vec![
                Value::from(s.name.as_str()),
                Value::from(s.description.as_str()),
                s.value.as_deref().map_or(Value::Null, Value::from),
                Value::Bool(s.dynamic),
            ]
        })
        .collect())
}

/// `SHOW CURRENT USER`'s row in Neo4j 4's columns: the roles, and the flags Neo4j 4 set
/// (`password_change_required`, `is_suspended`). No user, no row.
fn show_current_user(ctx: &ProcedureContext<'_>, _: &[Value]) -> Result<Vec<Vec<Value>>> {
    let caller = ctx.caller("dbms.showCurrentUser")?;
    Ok(current_user(&caller)
        .iter()
        .map(|row| {
            let mut flags = Vec::new();
            if field(row, "passwordChangeRequired") == Some(&Value::Bool(true)) {
                flags.push("password_change_required");
            }
            if field(row, "suspended") == Some(&Value::Bool(true)) {
                flags.push("is_suspended");
            }
            let roles = match field(row, "roles") {
                Some(Value::Null) | None => strings(Vec::<&str>::new()),
                Some(roles) => roles.clone(),
            };
            vec![
                field(row, "user").cloned().unwrap_or(Value::Null),
                roles,
                strings(flags),
            ]
        })
        .collect())
}

fn set_metadata(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    let metadata = match args.first() {
        Some(Value::Map(m)) => (**m).clone(),
        Some(Value::Null) | None => Default::default(),
        Some(other) => {
            return Err(call_failed(format!(
                "tx.setMetaData needs data, a MAP; got {}",
                quiver_value::to_string_cypher(other)
            )));
        }
    };
    ctx.shared.set_metadata(ctx.tx_id, metadata);
    Ok(Vec::new())
}
