//! Users, roles and privileges: who runs a statement and what they may do.
//!
//! Each role holds privileges in Neo4j 5's terms (see [`privilege`]): the built-in roles
//! start with Neo4j's sets, which nest (`PUBLIC` < `reader` < `editor` < `publisher` <
//! `architect` < `admin`, each [`Level`] having the privileges of the one before), a role
//! made `AS COPY OF` another starts with a copy of its privileges, and `GRANT`, `DENY` and
//! `REVOKE` change any role's. A user may do what one of their roles grants and none denies.
//!
//! The user is looked up again at every statement and at commit (a few map lookups), so a
//! dropped or suspended user's open connections lose access at once and a granted or revoked
//! role counts from the next statement.
//!
//! Users named in the server's configuration (`--auth user/password`, `[[users]]`) are
//! *configured users*: they have `admin` (an `[[users]]` entry with `admin = false` has
//! `architect`, everything but user management, as before roles existed) with the built-in
//! role's own privileges whatever was granted or denied to it since, so a mistaken `DENY`
//! cannot lock the configured administrator out; they live only in the
//! configuration (nothing stored), and `CREATE`, `ALTER` and `DROP USER` refuse their names. Stored users
//! are made in Cypher. With authentication off there is no subject to check: everything is
//! allowed.

pub(crate) mod commands;
pub mod password;
mod pattern;
pub(crate) mod privilege;
mod resolved;
pub(crate) mod show;
pub(crate) mod visibility;
pub(crate) mod writes;

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use quiver_status::Status;
use quiver_storage::Security;

use crate::error::{Error, Result};
use privilege::{Abilities, Ability, Permissions};

/// The built-in roles, in the order their privileges nest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Every user's role: `SHOW` commands about the server, their own transactions, changing
    /// their own password, and queries that read nothing of the graph.
    Public,
    /// Reads the graph.
    Reader,
    /// Writes data with the labels, types and property keys that exist.
    Editor,
    /// Writes data and makes new labels, types and property keys.
    Publisher,
    /// Also creates and drops indexes and constraints.
    Architect,
    /// Also manages users and roles, sees and ends others' transactions, reads settings and
    /// lists the servers.
    Admin,
}

/// The built-in roles by name, lowest first.
pub const BUILT_IN_ROLES: [(&str, Level); 6] = [
    ("PUBLIC", Level::Public),
    ("reader", Level::Reader),
    ("editor", Level::Editor),
    ("publisher", Level::Publisher),
    ("architect", Level::Architect),
    ("admin", Level::Admin),
];

impl Level {
    /// The built-in role's name.
    pub fn name(self) -> &'static str {
        BUILT_IN_ROLES[self as usize].0
    }

    /// The built-in role of this name.
    pub fn built_in(name: &str) -> Option<Level> {
        BUILT_IN_ROLES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, level)| *level)
    }

    /// The level of role `name` in `catalogue`: a built-in's own, a created role's copied
    /// one (followed through copies of copies), `None` for a role that does not exist.
    pub fn of_role(name: &str, catalogue: &Security) -> Option<Level> {
        let mut name = name;
        // A copy names an existing role when made; a chain is never longer than the roles.
        for _ in 0..=catalogue.roles.len() {
            if let Some(level) = Level::built_in(name) {
                return Some(level);
            }
            let role = catalogue.roles.get(name)?;
            match &role.copy_of {
                Some(of) => name = of,
                None => return Some(Level::Public),
            }
        }
        Some(Level::Public)
    }
}

/// Whether `name` is a role: built-in or created.
pub fn role_exists(name: &str, catalogue: &Security) -> bool {
    Level::built_in(name).is_some() || catalogue.roles.contains_key(name)
}

/// What the server told the engine about authentication ([`crate::Database::set_authentication`]).
#[derive(Clone, Debug, Default)]
pub struct Authentication {
    /// The configured users' names and their role's level.
    pub configured: HashMap<String, Level>,
}

/// Who runs a statement, as resolved for it.
#[derive(Clone, Debug)]
pub(crate) enum Subject {
    /// Authentication is off, or the embedder named no user: everything is allowed.
    Unrestricted,
    User(User),
}

#[derive(Clone, Debug)]
pub(crate) struct User {
    pub name: Arc<str>,
    /// What the user's roles grant and do not deny, now.
    pub permissions: Arc<Permissions>,
    /// Role names, `PUBLIC` first, for messages and `SHOW CURRENT USER`.
    pub roles: Arc<[String]>,
    pub change_required: bool,
    pub configured: bool,
}

/// A configured user's permissions and roles at `level`: the built-in role's own, folded
/// once per process rather than at every statement.
fn configured_level(level: Level) -> (Arc<Permissions>, Arc<[String]>) {
    static LEVELS: std::sync::OnceLock<Vec<(Arc<Permissions>, Arc<[String]>)>> =
        std::sync::OnceLock::new();
    let levels = LEVELS.get_or_init(|| {
        BUILT_IN_ROLES
            .iter()
            .map(|(name, level)| {
                (
                    Arc::new(Permissions::of_level(*level)),
                    Arc::from(["PUBLIC".to_owned(), (*name).to_owned()]),
                )
            })
            .collect()
    });
    levels[level as usize].clone()
}

/// The roles of a stored user as listed: `PUBLIC` and their granted roles that exist.
pub(crate) fn listed_roles(granted: &BTreeSet<String>, catalogue: &Security) -> Vec<String> {
    std::iter::once("PUBLIC".to_owned())
        .chain(
            granted
                .iter()
                .filter(|r| *r != "PUBLIC" && role_exists(r, catalogue))
                .cloned(),
        )
        .collect()
}

impl Subject {
    /// Resolves `user` now: a configured administrator, a stored user (their roles as they
    /// are now), or an error when the user was dropped or suspended since they logged in.
    ///
    /// `database` is the database the statement runs on and `default` the server's default
    /// database: privileges on a named database, `DEFAULT` or `HOME` count where they apply.
    pub fn resolve(
        auth: Option<&Authentication>,
        catalogue: &Arc<Security>,
        user: Option<&str>,
        database: &str,
        default: &str,
    ) -> Result<Subject> {
        let (Some(auth), Some(name)) = (auth, user.filter(|u| !u.is_empty())) else {
            return Ok(Subject::Unrestricted);
        };
        if let Some(&level) = auth.configured.get(name) {
            let (permissions, roles) = configured_level(level);
            return Ok(Subject::User(User {
                name: Arc::from(name),
                permissions,
                roles,
                change_required: false,
                configured: true,
            }));
        }
        let Some(record) = catalogue.users.get(name) else {
            return Err(unauthorized(format!(
                "The user '{name}' no longer exists: the session has lost its access."
            )));
        };
        if record.suspended {
            return Err(unauthorized(format!(
                "The user '{name}' is suspended: the session has lost its access."
            )));
        }
        let home = record.home.as_deref().unwrap_or(default);
        let scope = privilege::Scope {
            name: database,
            default: database.eq_ignore_ascii_case(default),
            home: database.eq_ignore_ascii_case(home),
        };
        Ok(Subject::User(resolved::stored_user(
            catalogue,
            name,
            database,
            || {
                let roles = listed_roles(&record.roles, catalogue);
                User {
                    name: Arc::from(name),
                    permissions: Arc::new(Permissions::of_roles(
                        roles.iter().map(String::as_str),
                        catalogue,
                        scope,
                    )),
                    roles: Arc::from(roles),
                    change_required: record.change_required,
                    configured: false,
                }
            },
        )))
    }

    /// Fails with `Forbidden` naming `what` unless the subject has every one of `needs`
    /// (naming database access, reading or writing the graph instead when that is missing).
    /// A [`Level`] needs everything its built-in role has.
    pub fn require(&self, needs: impl Into<Abilities>, what: &str) -> Result<()> {
        let Subject::User(user) = self else {
            return Ok(());
        };
        let needs = needs.into();
        let has = user.permissions.abilities;
        if has.contains(needs) {
            return Ok(());
        }
        let what = if needs.has(Ability::Access) && !has.has(Ability::Access) {
            "Database access"
        } else if needs.contains(privilege::WRITE_GRAPH) && !has.contains(privilege::WRITE_GRAPH) {
            "Writing to the graph"
        } else if needs.contains(privilege::READ_GRAPH) && !has.contains(privilege::READ_GRAPH) {
            "Reading the graph"
        } else {
            what
        };
        Err(forbidden(user, what))
    }

    /// Fails with `Forbidden` naming `what` (e.g. "Create node with labels 'A'") unless the
    /// subject may make `write`: checked at each element written, before it is, as Neo4j checks
    /// each write against `CREATE`, `DELETE`, `SET LABEL`, `REMOVE LABEL` and `SET PROPERTY`.
    /// One bit test for a user holding the write whole (and nothing for an unrestricted
    /// subject); only a user holding it on some elements asks their write rules, with
    /// `allowed`, about the element written.
    pub(crate) fn require_write(
        &self,
        write: Ability,
        allowed: impl FnOnce(&writes::WriteRules) -> Result<bool>,
        what: impl FnOnce() -> String,
    ) -> Result<()> {
        let Subject::User(user) = self else {
            return Ok(());
        };
        if user.permissions.abilities.has(write) {
            return Ok(());
        }
        match &user.permissions.writes {
            Some(rules) if allowed(rules)? => Ok(()),
            _ => Err(forbidden(user, &what())),
        }
    }

    /// Whether the subject holds `write` on every element (an unrestricted subject does): no
    /// element need be asked about.
    pub(crate) fn holds_write(&self, write: Ability) -> bool {
        match self {
            Subject::Unrestricted => true,
            Subject::User(user) => user.permissions.abilities.has(write),
        }
    }

    /// What the subject may find and read of the graph in `storage`, for one query: `None`
    /// when everything (no user, or one who reads the whole graph).
    pub(crate) fn visibility(
        &self,
        storage: &quiver_storage::Storage,
    ) -> Option<Arc<visibility::Visibility>> {
        match self {
            Subject::Unrestricted => None,
            Subject::User(user) => user.permissions.visibility(storage),
        }
    }

    /// Fails with `Forbidden` unless the subject may execute procedure `name` (`EXECUTE
    /// PROCEDURE` globs).
    pub fn require_procedure(&self, name: &str) -> Result<()> {
        match self {
            Subject::User(user) if !user.permissions.may_execute(name) => {
                Err(forbidden(user, &format!("Executing procedure '{name}'")))
            }
            _ => Ok(()),
        }
    }

    /// Fails with `Forbidden` unless the subject may call user-defined function `name`
    /// (`EXECUTE FUNCTION` globs).
    pub fn require_function(&self, name: &str) -> Result<()> {
        match self {
            Subject::User(user) if !user.permissions.may_call(name) => Err(forbidden(
                user,
                &format!("Executing a user defined function '{name}'"),
            )),
            _ => Ok(()),
        }
    }

    /// Whether the subject may see or end a transaction of `owner`: their own, or any with
    /// `TRANSACTION MANAGEMENT`.
    pub fn may_manage_transaction_of(&self, owner: Option<&str>) -> bool {
        match self {
            Subject::Unrestricted => true,
            Subject::User(user) => {
                user.permissions
                    .abilities
                    .has(Ability::TransactionManagement)
                    || owner.is_some_and(|o| o == &*user.name)
            }
        }
    }

    /// Checks a statement before it runs: a user whose password must change may only change
    /// it; anyone else needs the statement's level.
    pub fn check_statement(&self, required: Required) -> Result<()> {
        if let Subject::User(user) = self
            && user.change_required
            && !required.password_change
        {
            return Err(Error::runtime(
                Status::CredentialsExpired,
                None,
                "Permission denied. The credentials you provided were valid, but must be \
                 changed before you can use this instance: run ALTER CURRENT USER SET PASSWORD \
                 FROM 'old' TO 'new'.",
            ));
        }
        self.require(required.needs, required.what)
    }
}

/// What a compiled statement needs of its user.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Required {
    pub needs: Abilities,
    /// Names the denied action in the error, e.g. "Index management".
    pub what: &'static str,
    /// `ALTER CURRENT USER SET PASSWORD`: allowed while the password must change.
    pub password_change: bool,
}

impl Required {
    pub const fn of(needs: Abilities, what: &'static str) -> Required {
        Required {
            needs,
            what,
            password_change: false,
        }
    }

    /// Needs `abilities` and access to the database.
    pub const fn on_database(abilities: &[Ability], what: &'static str) -> Required {
        Required::of(
            Abilities::of(abilities).with(Abilities::of(&[Ability::Access])),
            what,
        )
    }

    pub const NOTHING: Required = Required::of(Abilities::NONE, "Running a statement");
}

fn unauthorized(message: String) -> Error {
    Error::runtime(Status::Unauthorized, None, message)
}

/// `Forbidden`, naming the action and the user's roles as Neo4j does.
pub(crate) fn forbidden(user: &User, what: &str) -> Error {
    Error::runtime(
        Status::Forbidden,
        None,
        format!(
            "{what} is not allowed for user '{}' with roles [{}].",
            user.name,
            user.roles.join(", ")
        ),
    )
}

/// A user or role change, or a terminated transaction, for the server's audit log. Never
/// holds a password or its hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditEvent {
    /// Who did it; empty when authentication is off.
    pub user: String,
    /// What, e.g. `create_user`, `grant_role`, `terminate_transaction`.
    pub action: &'static str,
    /// The user, role or transaction it was done to, and details (`roles`, `status`).
    pub target: String,
    pub detail: String,
    /// The address of the client whose transaction did it, when the embedder gave it.
    pub client: Option<std::net::SocketAddr>,
}

/// Receives audit events once what they record has committed.
pub type AuditSink = Arc<dyn Fn(AuditEvent) + Send + Sync>;

#[cfg(test)]
mod tests {
    use quiver_storage::{RoleRecord, UserRecord};

    use super::*;

    fn catalogue() -> Security {
        let mut security = Security::default();
        security.roles.insert(
            "auditor".into(),
            RoleRecord {
                name: "auditor".into(),
                copy_of: Some("reader".into()),
            },
        );
        security.roles.insert(
            "nothing".into(),
            RoleRecord {
                name: "nothing".into(),
                copy_of: None,
            },
        );
        for (name, roles, suspended) in [
            ("ann", vec!["auditor"], false),
            ("bob", vec!["editor", "nothing"], false),
            ("cat", vec!["admin"], true),
        ] {
            security.users.insert(
                name.into(),
                UserRecord {
                    name: name.into(),
                    password_hash: String::new(),
                    change_required: false,
                    suspended,
                    home: None,
                    roles: roles.into_iter().map(str::to_owned).collect(),
                },
            );
        }
        security
    }

    #[test]
    fn permissions_follow_roles_and_copies() {
        let auth = Authentication {
            configured: [("root".to_owned(), Level::Admin)].into(),
        };
        let catalogue = Arc::new(catalogue());
        let level =
            |name| match Subject::resolve(Some(&auth), &catalogue, Some(name), "neo4j", "neo4j") {
                Ok(Subject::User(u)) => Ok((*u.permissions).clone()),
                Ok(Subject::Unrestricted) => panic!("restricted"),
                Err(e) => Err(e.status_code()),
            };
        assert_eq!(level("root"), Ok(Permissions::of_level(Level::Admin)));
        assert_eq!(level("ann"), Ok(Permissions::of_level(Level::Reader)));
        assert_eq!(level("bob"), Ok(Permissions::of_level(Level::Editor)));
        assert_eq!(level("cat"), Err(Status::Unauthorized));
        assert_eq!(level("dan"), Err(Status::Unauthorized));
        assert!(matches!(
            Subject::resolve(None, &catalogue, Some("dan"), "neo4j", "neo4j"),
            Ok(Subject::Unrestricted)
        ));
    }

    #[test]
    fn forbidden_names_the_action_and_roles() {
        let auth = Authentication::default();
        let subject = Subject::resolve(
            Some(&auth),
            &Arc::new(catalogue()),
            Some("ann"),
            "neo4j",
            "neo4j",
        )
        .expect("ann exists");
        let error = subject
            .require(privilege::WRITE_GRAPH, "A write")
            .expect_err("a reader does not write");
        assert_eq!(error.status_code(), Status::Forbidden);
        assert!(error.message().contains("Writing to the graph"));
        assert!(error.message().contains("[PUBLIC, auditor]"));
        assert!(subject.may_manage_transaction_of(Some("ann")));
        assert!(!subject.may_manage_transaction_of(Some("bob")));
    }
}
