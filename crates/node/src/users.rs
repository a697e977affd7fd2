//! The node's users: the configured ones, the audit log, and the stored `--initial-user`.

use std::sync::Arc;
use std::time::Duration;

use quiver_engine::Database;
use quiver_server::audit::AuditLog;
use quiver_server::auth::UserStore;
use quiver_server::config::Config;
use quiver_server::metrics::Metrics;

use crate::error::NodeError;

/// How often a cluster member looks whether it leads, or has the users, until the initial user
/// exists.
const INITIAL_USER_POLL: Duration = Duration::from_millis(200);
/// After a failed attempt (a leadership lost mid-commit), the wait before the next.
const INITIAL_USER_RETRY: Duration = Duration::from_secs(5);

/// The users the configuration names, with the audit log when one is configured (returned
/// too, for the cluster's membership changes). Hashing passwords given in clear takes an
/// argon2 run each, so it runs off the runtime's workers.
pub(crate) async fn load(
    config: &Config,
    metrics: &Arc<Metrics>,
) -> Result<(UserStore, Option<Arc<AuditLog>>), NodeError> {
    let auth = config.auth.clone();
    let delay_max = config.timeouts.auth_failure_delay_max;
    let attempts = config.limits.auth_attempts_in_flight_per_address_max;
    let metrics = Arc::clone(metrics);
    let users = tokio::task::spawn_blocking(move || {
        UserStore::from_config(&auth, delay_max, metrics)
            .map(|users| users.with_attempts_in_flight_per_address_max(attempts))
    })
    .await
    .map_err(|source| NodeError::Stopped {
        what: "hashing the users' passwords",
        source,
    })?
    .map_err(NodeError::Users)?;
    let Some(path) = &config.audit_log else {
        return Ok((users, None));
    };
    let log = AuditLog::open(path).map_err(|source| NodeError::AuditLog {
        path: path.clone(),
        source,
    })?;
    let log = Arc::new(log);
    Ok((users.with_audit_log(Arc::clone(&log)), Some(log)))
}

/// `--initial-user` on a cluster member. Members start as followers, so at start none could
/// write the user; instead each waits until it either leads or has stored users. The one that
/// leads first creates the user through the log, once; the others receive it by replication
/// (and then stop waiting), like every other user change. A leader takes writes only after
/// applying everything committed before its term, so it never creates the user a second time.
pub(crate) async fn create_initial_user_when_leading(
    db: Arc<Database>,
    user: String,
    password: String,
) {
    loop {
        if db.has_stored_users() {
            return;
        }
        let mut wait = INITIAL_USER_POLL;
        if db.write_refusal().is_none()
            && let Err(message) = create_initial_user(&db, &user, &password).await
        {
            tracing::warn!(%message, "creating the initial user failed; trying again");
            wait = INITIAL_USER_RETRY;
        }
        tokio::time::sleep(wait).await;
    }
}

/// `--initial-user`: on a first start (no user stored yet), the stored administrator whose
/// password must be changed before anything else runs. Its password is hashed here and given
/// as `ENCRYPTED`, so it may be shorter than the minimum (as Neo4j's `neo4j/neo4j`): the
/// new one it must be changed to may not. On a cluster member that does not lead, nothing is
/// created (see [`create_initial_user_when_leading`]).
pub(crate) async fn create_initial_user(
    db: &Arc<Database>,
    user: &str,
    password: &str,
) -> Result<(), String> {
    let (db, user, password) = (Arc::clone(db), user.to_owned(), password.to_owned());
    tokio::task::spawn_blocking(move || {
        if db.has_stored_users() {
            return Ok(());
        }
        let hash = quiver_engine::hash_password(&password).map_err(|e| e.to_string())?;
        let mut params = quiver_value::Map::new();
        params.insert("hash".into(), quiver_value::Value::from(hash.as_str()));
        let name = user.replace('`', "``");
        for statement in [
            format!(
                "CREATE USER `{name}` IF NOT EXISTS SET ENCRYPTED PASSWORD $hash CHANGE REQUIRED"
            ),
            format!("GRANT ROLE admin TO `{name}`"),
        ] {
            match db.execute(&statement, params.clone()) {
                Ok(_) => {}
                Err(error)
                    if error.status_code().code() == "Neo.ClientError.Cluster.NotALeader" =>
                {
                    return Ok(());
                }
                Err(error) => return Err(error.to_string()),
            }
        }
        tracing::info!(
            user,
            "created the initial user; its password must be changed at first login"
        );
        Ok(())
    })
    .await
    .map_err(|error| error.to_string())?
}
