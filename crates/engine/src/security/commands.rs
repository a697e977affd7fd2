//! Running `CREATE USER`, `ALTER USER`, `DROP USER`, `ALTER CURRENT USER`, `CREATE ROLE`,
//! `DROP ROLE`, `GRANT ROLE`, `REVOKE ROLE`, and `GRANT`, `DENY` and `REVOKE` of privileges:
//! each reads the catalogue as the transaction
//! sees it, changes a copy, and records the copy with the transaction (committed whole, see
//! `quiver_storage::Security`). Each change counts one system update, as in Neo4j.

use std::sync::Arc;

use quiver_cypher::ast::{
    AdminCommand, AdminName, AlterUser, CreateRole, CreateUser, PrivilegeCommand, PrivilegeVerb,
};
use quiver_status::Status;
use quiver_storage::{RoleRecord, Security, UserRecord};
use quiver_value::Value;

use super::password::{PASSWORD_CHARS_MIN, hash_password, is_valid_hash, verify_with_memory};
use super::{AuditEvent, Level, Subject, role_exists};
use crate::error::{Error, Result};
use crate::eval::Cx;
use crate::ir::{Expr, Row};

fn invalid(message: String) -> Error {
    Error::runtime(Status::ArgumentError, None, message)
}

/// `command` with its user and role name parameters (`names`, with their indexes) replaced
/// by their values, each of which must be a String.
pub(crate) fn bind_names(
    command: &AdminCommand,
    names: &[(Arc<str>, usize)],
    cx: &Cx,
) -> Result<AdminCommand> {
    let values = name_values(names, cx, "a user or role")?;
    Ok(command.bind(|param| value_of(&values, param)))
}

/// The String values of the name parameters `names` (with their indexes) of an
/// administration command, whose names name `what`: any other value fails as a type error.
pub(crate) fn name_values<'n>(
    names: &'n [(Arc<str>, usize)],
    cx: &Cx,
    what: &str,
) -> Result<Vec<(&'n str, String)>> {
    let mut values = Vec::with_capacity(names.len());
    for (name, index) in names {
        match cx.params.get(*index) {
            Some(Value::String(s)) => values.push((&**name, s.to_string())),
            other => {
                let held = other.map_or("nothing", |v| v.value_type().name());
                return Err(Error::runtime(
                    crate::error::code::TYPE_ERROR,
                    Some("InvalidArgumentType"),
                    format!(
                        "The parameter ${name} names {what}, so it must be a String, but it \
                         holds {held}"
                    ),
                ));
            }
        }
    }
    Ok(values)
}

/// The value [`name_values`] found for parameter `param`.
pub(crate) fn value_of(values: &[(&str, String)], param: &str) -> Option<String> {
    values
        .iter()
        .find(|(name, _)| *name == param)
        .map(|(_, value)| value.clone())
}

/// The name `name` stands for; [`bind_names`] has replaced every parameter before a command
/// runs.
fn name(name: &AdminName) -> Result<&str> {
    name.literal().ok_or_else(|| {
        Error::runtime(
            Status::ArgumentError,
            None,
            format!("The parameter {name} naming a user or role has no value"),
        )
    })
}

/// A password expression's value: a string.
fn password(expr: &Expr, row: &mut Row, cx: &mut Cx) -> Result<String> {
    match expr.eval(row, cx)? {
        Value::String(s) => Ok(s.to_string()),
        other => Err(invalid(format!(
            "A password must be a String, got {}",
            other.value_type()
        ))),
    }
}

/// A new password's stored hash: a plaintext one of at least [`PASSWORD_CHARS_MIN`]
/// characters hashed, an `ENCRYPTED` one (an argon2 PHC string) checked and kept.
fn new_hash(plain: &str, encrypted: bool) -> Result<String> {
    if encrypted {
        if !is_valid_hash(plain) {
            return Err(invalid(
                "An encrypted password must be an argon2 hash in PHC form ($argon2id$...), as \
                 `quiver hash-password` prints"
                    .to_owned(),
            ));
        }
        return Ok(plain.to_owned());
    }
    if plain.chars().count() < PASSWORD_CHARS_MIN {
        return Err(invalid(format!(
            "A password must be at least {PASSWORD_CHARS_MIN} characters."
        )));
    }
    hash_password(plain).map_err(|e| Error::runtime(Status::UnknownError, None, e.to_string()))
}

/// The values of `expressions`, evaluated now: a property rule's parameter or function is
/// stored as the value it has when the command runs.
fn evaluated(expressions: &[Expr], row: &mut Row, cx: &mut Cx) -> Result<Vec<Value>> {
    expressions.iter().map(|e| e.eval(row, cx)).collect()
}

/// Runs `command`; `passwords` are its expressions (passwords, a property rule's value) in
/// [`AdminCommand::expressions`]' order. Returns no rows.
pub(crate) fn run(
    command: &AdminCommand,
    passwords: &[Expr],
    row: &mut Row,
    cx: &mut Cx,
) -> Result<Vec<Vec<Value>>> {
    if cx.shared.borrows_security() {
        return Err(Error::runtime(
            Status::NotSystemDatabaseError,
            None,
            format!(
                "This is an administration command and it should be executed against the \
                 {} database: the server's users, roles and privileges are kept there.",
                crate::catalog::SYSTEM_DATABASE
            ),
        ));
    }
    let auth = cx.shared.authentication();
    let refuse_configured = |name: &str| -> Result<()> {
        if auth
            .as_ref()
            .is_some_and(|a| a.configured.contains_key(name))
        {
            return Err(invalid(format!(
                "The user '{name}' is configured in the server's settings (--auth or \
                 [[users]]): it cannot be created, altered or dropped in Cypher."
            )));
        }
        Ok(())
    };
    let base = cx.storage.security();
    let mut catalogue: Security = (*cx.tx.security()).clone();
    let mut events: Events = Vec::new();
    let changed = match command {
        AdminCommand::CreateUser(create) => {
            refuse_configured(name(&create.name)?)?;
            let plain = password(&passwords[0], row, cx)?;
            create_user(&mut catalogue, create, &plain, &mut events)?
        }
        AdminCommand::AlterUser(alter) => {
            refuse_configured(name(&alter.name)?)?;
            let plain = match alter.password {
                Some(_) => Some(password(&passwords[0], row, cx)?),
                None => None,
            };
            alter_user(&mut catalogue, alter, plain.as_deref(), &mut events)?
        }
        AdminCommand::DropUser {
            name: user,
            if_exists,
        } => {
            let user = name(user)?;
            refuse_configured(user)?;
            if let Subject::User(me) = &*cx.subject
                && *me.name == *user
            {
                return Err(invalid(format!(
                    "Failed to delete the specified user '{user}': Deleting yourself is not \
                     allowed."
                )));
            }
            match catalogue.users.remove(user) {
                Some(_) => {
                    events.push(("drop_user", user.to_owned(), String::new()));
                    true
                }
                None if *if_exists => false,
                None => return Err(user_not_found(user, "delete")),
            }
        }
        AdminCommand::AlterCurrentUser { .. } => {
            let old = password(&passwords[0], row, cx)?;
            let new = password(&passwords[1], row, cx)?;
            alter_current_user(&mut catalogue, &cx.subject, &old, &new, &mut events)?
        }
        AdminCommand::CreateRole(create) => create_role(&mut catalogue, create, &mut events)?,
        AdminCommand::DropRole {
            name: role,
            if_exists,
        } => drop_role(&mut catalogue, name(role)?, *if_exists, &mut events)?,
        AdminCommand::GrantRoles { roles, users } => grant_or_revoke(
            &mut catalogue,
            true,
            roles,
            users,
            &refuse_configured,
            &mut events,
        )?,
        AdminCommand::RevokeRoles { roles, users } => grant_or_revoke(
            &mut catalogue,
            false,
            roles,
            users,
            &refuse_configured,
            &mut events,
        )?,
        AdminCommand::Privilege(command) => {
            let values = evaluated(passwords, row, cx)?;
            privilege(&mut catalogue, command, &values, &mut events)?
        }
    };
    if changed {
        cx.tx.set_security(&base, catalogue)?;
        record(cx, events);
    }
    Ok(Vec::new())
}

/// Counts a command's changes as system updates and queues each for the audit log, recorded
/// once the transaction commits: by the transaction's user, from its client's address.
fn record(cx: &mut Cx, events: Events) {
    cx.counters.system_updates += events.len().max(1) as u64;
    let who = match &*cx.subject {
        Subject::User(user) => user.name.to_string(),
        Subject::Unrestricted => String::new(),
    };
    let client = cx.shared.tx_client(cx.tx_id);
    let mut audit = cx.audit.lock();
    for (action, target, detail) in events {
        audit.push(AuditEvent {
            user: who.clone(),
            action,
            target,
            detail,
            client,
        });
    }
}

/// What a command records for the audit: (action, target, detail).
type Events = Vec<(&'static str, String, String)>;

fn drop_role(
    catalogue: &mut Security,
    name: &str,
    if_exists: bool,
    events: &mut Events,
) -> Result<bool> {
    if Level::built_in(name).is_some() {
        return Err(invalid(format!(
            "Failed to delete the specified role '{name}': the built-in roles cannot be dropped."
        )));
    }
    match catalogue.roles.remove(name) {
        Some(_) => {
            catalogue.privileges.remove(name);
            for user in catalogue.users.values_mut() {
                user.roles.remove(name);
            }
            events.push(("drop_role", name.to_owned(), String::new()));
            Ok(true)
        }
        None if if_exists => Ok(false),
        None => Err(role_not_found(name, "delete")),
    }
}

/// `GRANT ROLE` (`grant`) or `REVOKE ROLE`: every role and user must exist.
fn grant_or_revoke(
    catalogue: &mut Security,
    grant: bool,
    roles: &[AdminName],
    users: &[AdminName],
    refuse_configured: &dyn Fn(&str) -> Result<()>,
    events: &mut Events,
) -> Result<bool> {
    let verb = if grant { "grant" } else { "revoke" };
    let mut changed = false;
    for role in roles {
        let role = name(role)?;
        if !role_exists(role, catalogue) {
            return Err(role_not_found(role, verb));
        }
        if role == "PUBLIC" {
            return Err(invalid(format!(
                "Failed to {verb} role 'PUBLIC': every user has it."
            )));
        }
        for user in users {
            let user = name(user)?;
            refuse_configured(user)?;
            let Some(record) = catalogue.users.get_mut(user) else {
                return Err(user_not_found(user, verb));
            };
            let did = if grant {
                record.roles.insert(role.to_owned())
            } else {
                record.roles.remove(role)
            };
            if did {
                changed = true;
                events.push((
                    if grant { "grant_role" } else { "revoke_role" },
                    user.to_owned(),
                    format!("role={role}"),
                ));
            }
        }
    }
    Ok(changed)
}

fn user_not_found(name: &str, verb: &str) -> Error {
    invalid(format!(
        "Failed to {verb} the specified user '{name}': User does not exist."
    ))
}

fn role_not_found(name: &str, verb: &str) -> Error {
    invalid(format!(
        "Failed to {verb} the specified role '{name}': Role does not exist."
    ))
}

fn create_user(
    catalogue: &mut Security,
    create: &CreateUser,
    plain: &str,
    events: &mut Events,
) -> Result<bool> {
    let name = &name(&create.name)?.to_owned();
    if catalogue.users.contains_key(name) {
        if create.if_not_exists {
            return Ok(false);
        }
        if !create.replace {
            return Err(invalid(format!(
                "Failed to create the specified user '{name}': User already exists."
            )));
        }
    }
    let record = UserRecord {
        name: name.clone(),
        password_hash: new_hash(plain, create.password.encrypted)?,
        // Neo4j's default: a new user changes the password given to them.
        change_required: create.change_required.unwrap_or(true),
        suspended: create.suspended.unwrap_or(false),
        home: create.home.as_ref().map(|h| h.name.clone()),
        roles: Default::default(),
    };
    let detail = format!(
        "change_required={} suspended={}",
        record.change_required, record.suspended
    );
    catalogue.users.insert(name.clone(), record);
    events.push(("create_user", name.clone(), detail));
    Ok(true)
}

fn alter_user(
    catalogue: &mut Security,
    alter: &AlterUser,
    plain: Option<&str>,
    events: &mut Events,
) -> Result<bool> {
    let name = &name(&alter.name)?.to_owned();
    let Some(record) = catalogue.users.get_mut(name) else {
        if alter.if_exists {
            return Ok(false);
        }
        return Err(user_not_found(name, "alter"));
    };
    let mut detail = Vec::new();
    if let (Some(plain), Some(p)) = (plain, &alter.password) {
        record.password_hash = new_hash(plain, p.encrypted)?;
        detail.push("password".to_owned());
    }
    if let Some(required) = alter.change_required {
        record.change_required = required;
        detail.push(format!("change_required={required}"));
    }
    if let Some(suspended) = alter.suspended {
        record.suspended = suspended;
        detail.push(format!("suspended={suspended}"));
    }
    if let Some(home) = &alter.home {
        record.home = home.as_ref().map(|h| h.name.clone());
        detail.push("home".to_owned());
    }
    events.push(("alter_user", name.clone(), detail.join(" ")));
    Ok(true)
}

fn alter_current_user(
    catalogue: &mut Security,
    subject: &Subject,
    old: &str,
    new: &str,
    events: &mut Events,
) -> Result<bool> {
    let user = match subject {
        Subject::User(user) if !user.configured => user,
        Subject::User(user) => {
            return Err(invalid(format!(
                "The password of '{}' is set in the server's configuration, not in Cypher.",
                user.name
            )));
        }
        Subject::Unrestricted => {
            return Err(invalid(
                "ALTER CURRENT USER needs an authenticated user; authentication is off.".to_owned(),
            ));
        }
    };
    let Some(record) = catalogue.users.get_mut(&*user.name) else {
        return Err(user_not_found(&user.name, "alter"));
    };
    let mut memory = Vec::new();
    if !verify_with_memory(&record.password_hash, old.as_bytes(), &mut memory) {
        return Err(invalid(
            "User failed to alter their own password: Invalid principal or credentials.".to_owned(),
        ));
    }
    if old == new {
        return Err(invalid(
            "User failed to alter their own password: Old password and new password cannot be \
             the same."
                .to_owned(),
        ));
    }
    record.password_hash = new_hash(new, false)?;
    record.change_required = false;
    events.push((
        "alter_current_user",
        user.name.to_string(),
        "password".to_owned(),
    ));
    Ok(true)
}

fn create_role(catalogue: &mut Security, create: &CreateRole, events: &mut Events) -> Result<bool> {
    let copy_of = create.copy_of.as_ref().map(name).transpose()?;
    let name = &name(&create.name)?.to_owned();
    let built_in = Level::built_in(name).is_some();
    if built_in || catalogue.roles.contains_key(name) {
        if create.if_not_exists {
            return Ok(false);
        }
        if built_in || !create.replace {
            return Err(invalid(format!(
                "Failed to create the specified role '{name}': Role already exists."
            )));
        }
    }
    if let Some(of) = copy_of
        && !role_exists(of, catalogue)
    {
        return Err(role_not_found(of, "create a copy of"));
    }
    if create.replace {
        for user in catalogue.users.values_mut() {
            user.roles.remove(name);
        }
    }
    // A copy has the privileges its source has now, its own from then on.
    let privileges = copy_of.map(|of| super::privilege::of_role(of, catalogue));
    match privileges {
        Some(p) if !p.is_empty() => {
            catalogue
                .privileges
                .insert(name.clone(), p.into_iter().collect());
        }
        _ => {
            catalogue.privileges.remove(name);
        }
    }
    catalogue.roles.insert(
        name.clone(),
        RoleRecord {
            name: name.clone(),
            // The privileges were copied above: nothing follows the source's later changes.
            copy_of: None,
        },
    );
    let detail = copy_of.map_or_else(String::new, |c| format!("copy_of={c}"));
    events.push(("create_role", name.clone(), detail));
    Ok(true)
}

/// `GRANT`, `DENY` or `REVOKE [GRANT | DENY]` of a privilege: every role must exist; the
/// roles' whole sets are stored from then on. Granting what a role has, or revoking what it
/// has not, changes nothing.
fn privilege(
    catalogue: &mut Security,
    command: &PrivilegeCommand,
    values: &[Value],
    events: &mut Events,
) -> Result<bool> {
    let records = |denied| records(command, denied, values);
    let (verb, action, rows) = match command.verb {
        PrivilegeVerb::Grant => ("grant", "grant_privilege", records(false)?),
        PrivilegeVerb::Deny => ("deny", "deny_privilege", records(true)?),
        PrivilegeVerb::Revoke { denied } => {
            let mut rows = Vec::new();
            if denied != Some(true) {
                rows.extend(records(false)?);
            }
            if denied != Some(false) {
                rows.extend(records(true)?);
            }
            ("revoke", "revoke_privilege", rows)
        }
    };
    let mut changed = false;
    for role in &command.roles {
        let role = name(role)?;
        if !role_exists(role, catalogue) {
            return Err(role_not_found(role, &format!("{verb} a privilege to")));
        }
        let mut set: std::collections::BTreeSet<_> = super::privilege::of_role(role, catalogue)
            .into_iter()
            .collect();
        let mut did = false;
        for row in &rows {
            did |= if verb == "revoke" {
                set.remove(row)
            } else {
                set.insert(row.clone())
            };
        }
        if did {
            catalogue.privileges.insert(role.to_owned(), set);
            events.push((action, role.to_owned(), command.privilege.to_string()));
            changed = true;
        }
    }
    Ok(changed)
}

/// The rows of `command`'s privilege, or the unsupported-feature error naming a form the
/// server does not enforce.
fn records(
    command: &PrivilegeCommand,
    denied: bool,
    values: &[Value],
) -> Result<Vec<quiver_storage::PrivilegeRecord>> {
    super::privilege::records_with(&command.privilege, denied, Some(values))
        .map_err(|what| unsupported(&what))
}

fn unsupported(what: &str) -> Error {
    Error::runtime(
        Status::SyntaxError,
        Some("UnsupportedFeature"),
        format!("{what} is not supported"),
    )
}
