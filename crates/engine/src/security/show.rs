//! `SHOW USERS`, `SHOW ROLES [WITH USERS]` and `SHOW ... PRIVILEGES`, in Neo4j 5's columns.
//!
//! A role's privileges are those of its level (see [`super::Level`]): the built-in roles'
//! as Neo4j lists them, a copied role's under its own name.

use quiver_storage::Security;
use quiver_value::Value;

use super::{Level, Subject, listed_roles, role_exists};
use crate::error::{Error, Result};
use crate::eval::Cx;
use crate::metadata::show::Named;

/// Whose privileges `SHOW ... PRIVILEGES` lists.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum PrivilegesOf {
    All,
    Roles(Vec<String>),
    /// Empty: the current user.
    Users(Vec<String>),
}

/// One privilege a level grants: (action, resource, graph, segment).
type Privilege = (&'static str, &'static str, &'static str, &'static str);

/// The privileges each level adds to the one below, as Neo4j 5 lists its built-in roles',
/// with the command that grants each (`{role}` where the role's name goes).
const PRIVILEGES: &[(Level, Privilege, &str)] = &[
    (
        Level::Public,
        ("execute", "database", "*", "PROCEDURE(*)"),
        "GRANT EXECUTE PROCEDURE * ON DBMS TO {role}",
    ),
    (
        Level::Public,
        ("execute_function", "database", "*", "FUNCTION(*)"),
        "GRANT EXECUTE FUNCTION * ON DBMS TO {role}",
    ),
    (
        Level::Public,
        ("access", "database", "DEFAULT", "database"),
        "GRANT ACCESS ON HOME DATABASE TO {role}",
    ),
    (
        Level::Reader,
        ("access", "database", "*", "database"),
        "GRANT ACCESS ON DATABASE * TO {role}",
    ),
    (
        Level::Reader,
        ("match", "all_properties", "*", "NODE(*)"),
        "GRANT MATCH {*} ON GRAPH * NODE * TO {role}",
    ),
    (
        Level::Reader,
        ("match", "all_properties", "*", "RELATIONSHIP(*)"),
        "GRANT MATCH {*} ON GRAPH * RELATIONSHIP * TO {role}",
    ),
    (
        Level::Reader,
        ("show_constraint", "database", "*", "database"),
        "GRANT SHOW CONSTRAINT ON DATABASE * TO {role}",
    ),
    (
        Level::Reader,
        ("show_index", "database", "*", "database"),
        "GRANT SHOW INDEX ON DATABASE * TO {role}",
    ),
    (
        Level::Editor,
        ("write", "graph", "*", "NODE(*)"),
        "GRANT WRITE ON GRAPH * NODE * TO {role}",
    ),
    (
        Level::Editor,
        ("write", "graph", "*", "RELATIONSHIP(*)"),
        "GRANT WRITE ON GRAPH * RELATIONSHIP * TO {role}",
    ),
    (
        Level::Publisher,
        ("token", "database", "*", "database"),
        "GRANT NAME MANAGEMENT ON DATABASE * TO {role}",
    ),
    (
        Level::Architect,
        ("index", "database", "*", "database"),
        "GRANT INDEX MANAGEMENT ON DATABASE * TO {role}",
    ),
    (
        Level::Architect,
        ("constraint", "database", "*", "database"),
        "GRANT CONSTRAINT MANAGEMENT ON DATABASE * TO {role}",
    ),
    (
        Level::Admin,
        ("start_database", "database", "*", "database"),
        "GRANT START ON DATABASE * TO {role}",
    ),
    (
        Level::Admin,
        ("stop_database", "database", "*", "database"),
        "GRANT STOP ON DATABASE * TO {role}",
    ),
    (
        Level::Admin,
        ("transaction_management", "database", "*", "USER(*)"),
        "GRANT TRANSACTION MANAGEMENT (*) ON DATABASE * TO {role}",
    ),
    (
        Level::Admin,
        ("dbms_actions", "database", "*", "database"),
        "GRANT ALL DBMS PRIVILEGES ON DBMS TO {role}",
    ),
];

/// A role name as a command writes it: in backticks.
fn quoted(role: &str) -> String {
    format!("`{}`", role.replace('`', "``"))
}

/// The privilege rows of role `role` at `level`. `PUBLIC` has the `Public` rows; every
/// other role those above `Public` up to its level (its users have `PUBLIC`'s besides).
fn role_privileges(role: &str, level: Level, as_commands: bool, user: Option<&str>) -> Vec<Named> {
    let public = role == "PUBLIC";
    PRIVILEGES
        .iter()
        .filter(|(at, _, _)| {
            if public {
                *at == Level::Public
            } else {
                *at > Level::Public && *at <= level
            }
        })
        .map(|(_, (action, resource, graph, segment), command)| {
            let mut row: Named = if as_commands {
                vec![(
                    "command",
                    Value::from(command.replace("{role}", &quoted(role))),
                )]
            } else {
                vec![
                    ("access", Value::from("GRANTED")),
                    ("action", Value::from(*action)),
                    ("resource", Value::from(*resource)),
                    ("graph", Value::from(*graph)),
                    ("segment", Value::from(*segment)),
                    ("role", Value::from(role)),
                    ("immutable", Value::Bool(false)),
                ]
            };
            if let Some(user) = user {
                row.push(("user", Value::from(user)));
            }
            row
        })
        .collect()
}

fn level_of(role: &str, catalogue: &Security) -> Level {
    Level::of_role(role, catalogue).unwrap_or(Level::Public)
}

/// Every role's name: the built-ins, then the created ones.
fn all_roles(catalogue: &Security) -> Vec<String> {
    super::BUILT_IN_ROLES
        .iter()
        .map(|(n, _)| (*n).to_owned())
        .chain(catalogue.roles.keys().cloned())
        .collect()
}

/// The configured users' names and roles, sorted by name.
fn configured(cx: &Cx) -> Vec<(String, Level)> {
    let mut users: Vec<(String, Level)> = cx
        .shared
        .authentication()
        .map(|a| a.configured.iter().map(|(n, l)| (n.clone(), *l)).collect())
        .unwrap_or_default();
    users.sort();
    users
}

fn configured_roles(level: Level) -> Vec<String> {
    vec!["PUBLIC".to_owned(), level.name().to_owned()]
}

/// Roles of `user` as listed: a configured user's, or a stored user's.
fn roles_of(user: &str, catalogue: &Security, cx: &Cx) -> Option<Vec<String>> {
    if let Some((_, level)) = configured(cx).into_iter().find(|(c, _)| c == user) {
        return Some(configured_roles(level));
    }
    let record = catalogue.users.get(user)?;
    Some(listed_roles(&record.roles, catalogue))
}

fn string_list(items: &[String]) -> Value {
    Value::list(
        items
            .iter()
            .map(|s| Value::from(s.as_str()))
            .collect::<Vec<_>>(),
    )
}

/// `SHOW USERS`: the configured administrators, then the stored users.
pub(crate) fn users(cx: &Cx) -> Vec<Named> {
    let catalogue = cx.tx.security();
    let mut rows: Vec<Named> = configured(cx)
        .into_iter()
        .map(|(name, level)| {
            vec![
                ("user", Value::from(name.as_str())),
                ("roles", string_list(&configured_roles(level))),
                ("passwordChangeRequired", Value::Bool(false)),
                ("suspended", Value::Bool(false)),
                ("home", Value::Null),
            ]
        })
        .collect();
    for user in catalogue.users.values() {
        rows.push(vec![
            ("user", Value::from(user.name.as_str())),
            ("roles", string_list(&listed_roles(&user.roles, &catalogue))),
            ("passwordChangeRequired", Value::Bool(user.change_required)),
            ("suspended", Value::Bool(user.suspended)),
            (
                "home",
                user.home.as_deref().map_or(Value::Null, Value::from),
            ),
        ]);
    }
    rows
}

/// `SHOW ROLES [WITH USERS]`: with users, a row per (role, member), and a role nobody has
/// once with a null member.
pub(crate) fn roles(cx: &Cx, with_users: bool) -> Vec<Named> {
    let catalogue = cx.tx.security();
    let mut rows = Vec::new();
    let configured = configured(cx);
    for role in all_roles(&catalogue) {
        if !with_users {
            rows.push(vec![("role", Value::from(role.as_str()))]);
            continue;
        }
        let mut members: Vec<String> = catalogue
            .users
            .values()
            .filter(|u| role == "PUBLIC" || u.roles.contains(&role))
            .map(|u| u.name.clone())
            .collect();
        members.extend(
            configured
                .iter()
                .filter(|(_, level)| role == "PUBLIC" || role == level.name())
                .map(|(name, _)| name.clone()),
        );
        members.sort();
        if members.is_empty() {
            rows.push(vec![
                ("role", Value::from(role.as_str())),
                ("member", Value::Null),
            ]);
        }
        for member in members {
            rows.push(vec![
                ("role", Value::from(role.as_str())),
                ("member", Value::from(member.as_str())),
            ]);
        }
    }
    rows
}

/// `SHOW [ALL | ROLE r | USER u] PRIVILEGES [AS COMMANDS]`.
pub(crate) fn privileges(cx: &Cx, of: &PrivilegesOf, as_commands: bool) -> Result<Vec<Named>> {
    let catalogue = cx.tx.security();
    let mut rows = Vec::new();
    match of {
        PrivilegesOf::All => {
            for role in all_roles(&catalogue) {
                rows.extend(role_privileges(
                    &role,
                    level_of(&role, &catalogue),
                    as_commands,
                    None,
                ));
            }
        }
        PrivilegesOf::Roles(roles) => {
            for role in roles {
                if !role_exists(role, &catalogue) {
                    continue;
                }
                rows.extend(role_privileges(
                    role,
                    level_of(role, &catalogue),
                    as_commands,
                    None,
                ));
            }
        }
        PrivilegesOf::Users(users) => {
            let current;
            let users = if users.is_empty() {
                let Subject::User(me) = &*cx.subject else {
                    return Ok(Vec::new());
                };
                current = vec![me.name.to_string()];
                &current
            } else {
                users
            };
            for user in users {
                let Some(roles) = roles_of(user, &catalogue, cx) else {
                    return Err(Error::runtime(
                        quiver_status::Status::ArgumentError,
                        None,
                        format!("User '{user}' does not exist."),
                    ));
                };
                for role in roles {
                    rows.extend(role_privileges(
                        &role,
                        level_of(&role, &catalogue),
                        as_commands,
                        (!as_commands).then_some(user.as_str()),
                    ));
                }
            }
        }
    }
    Ok(rows)
}

/// The columns of `SHOW ... PRIVILEGES`.
pub(crate) fn privilege_columns(of: &PrivilegesOf, as_commands: bool) -> &'static [&'static str] {
    match (of, as_commands) {
        (_, true) => &["command"],
        (PrivilegesOf::Users(_), false) => &[
            "access",
            "action",
            "resource",
            "graph",
            "segment",
            "role",
            "immutable",
            "user",
        ],
        (_, false) => &[
            "access",
            "action",
            "resource",
            "graph",
            "segment",
            "role",
            "immutable",
        ],
    }
}
