//! `SHOW USERS`, `SHOW ROLES [WITH USERS]` and `SHOW ... PRIVILEGES`, in Neo4j 5's columns.
//!
//! A role's privileges are those [`super::privilege`] holds for it: the built-in roles'
//! as Neo4j lists them until changed, a copied role's under its own name.

use quiver_storage::Security;
use quiver_value::Value;

use super::{Level, Subject, listed_roles, privilege, role_exists};
use crate::error::{Error, Result};
use crate::eval::Cx;
use crate::metadata::values::Named;

/// Whose privileges `SHOW ... PRIVILEGES` lists.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum PrivilegesOf {
    All,
    Roles(Vec<String>),
    /// Empty: the current user.
    Users(Vec<String>),
}

/// The privilege rows of role `role` (see [`privilege::of_role`]), or the commands that
/// grant (`revoke`: revoke) them; `user` adds the user column.
fn role_privileges(
    role: &str,
    catalogue: &Security,
    commands: Commands,
    user: Option<&str>,
) -> Vec<Named> {
    privilege::of_role(role, catalogue)
        .iter()
        .map(|p| {
            let mut row: Named = match commands {
                Commands::No => vec![
                    (
                        "access",
                        Value::from(if p.denied { "DENIED" } else { "GRANTED" }),
                    ),
                    ("action", Value::from(p.action.as_str())),
                    ("resource", Value::from(p.resource.as_str())),
                    ("graph", Value::from(p.graph.as_str())),
                    ("segment", Value::from(p.segment.as_str())),
                    ("role", Value::from(role)),
                    ("immutable", Value::Bool(false)),
                ],
                Commands::Grant | Commands::Revoke => vec![(
                    "command",
                    Value::from(privilege::command(p, role, commands == Commands::Revoke)),
                )],
            };
            if let Some(user) = user {
                row.push(("user", Value::from(user)));
            }
            row
        })
        .collect()
}

/// `AS COMMANDS`, `AS REVOKE COMMANDS`, or rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Commands {
    No,
    Grant,
    Revoke,
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
    let catalogue = cx.security();
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

/// `SHOW [POPULATED] ROLES [WITH USERS]`: with users, a row per (role, member), and a role
/// nobody has once with a null member (left out when `populated`).
pub(crate) fn roles(cx: &Cx, with_users: bool, populated: bool) -> Vec<Named> {
    let catalogue = cx.security();
    let mut rows = Vec::new();
    let configured = configured(cx);
    for role in all_roles(&catalogue) {
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
        if populated && members.is_empty() {
            continue;
        }
        if !with_users {
            rows.push(vec![("role", Value::from(role.as_str()))]);
            continue;
        }
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
pub(crate) fn privileges(cx: &Cx, of: &PrivilegesOf, commands: Commands) -> Result<Vec<Named>> {
    let catalogue = cx.security();
    let mut rows = Vec::new();
    match of {
        PrivilegesOf::All => {
            for role in all_roles(&catalogue) {
                rows.extend(role_privileges(&role, &catalogue, commands, None));
            }
        }
        PrivilegesOf::Roles(roles) => {
            for role in roles {
                if !role_exists(role, &catalogue) {
                    continue;
                }
                rows.extend(role_privileges(role, &catalogue, commands, None));
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
                        &catalogue,
                        commands,
                        (commands == Commands::No).then_some(user.as_str()),
                    ));
                }
            }
        }
    }
    Ok(rows)
}

/// The columns of `SHOW ... PRIVILEGES`.
/// The columns of `SHOW USER PRIVILEGES`; a role's are the same but the last.
const USER_PRIVILEGE_COLUMNS: &[&str] = &[
    "access",
    "action",
    "resource",
    "graph",
    "segment",
    "role",
    "immutable",
    "user",
];

pub(crate) fn privilege_columns(of: &PrivilegesOf, as_commands: bool) -> &'static [&'static str] {
    match (of, as_commands) {
        (_, true) => &["command"],
        // A user's privileges are a role's, and the user's name.
        (PrivilegesOf::Users(_), false) => USER_PRIVILEGE_COLUMNS,
        (_, false) => &USER_PRIVILEGE_COLUMNS[..USER_PRIVILEGE_COLUMNS.len() - 1],
    }
}
