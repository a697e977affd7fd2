//! The user store: configured users, their password hashes, and the verified-credentials cache.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use argon2::password_hash::PasswordHash;
use blake2::Blake2bMac512;
use blake2::digest::{KeyInit, Mac};
use parking_lot::Mutex;
use tokio::sync::Semaphore;

use quiver_engine::security::Level;
use quiver_engine::{Authentication, Database, verify_with_memory};

use super::AuthError;
use super::throttle::Throttle;
use crate::audit::AuditLog;
use crate::config::{AuthConfig, CREDENTIAL_BYTES_MAX};
use crate::metrics::Metrics;

/// Who a connection authenticated as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    /// The user name; empty when authentication is disabled.
    pub name: Arc<str>,
    /// May keep a reserved connection slot (and, later, see and end others' transactions).
    pub admin: bool,
}

impl Principal {
    /// The principal of every connection when authentication is disabled: there are no users, so
    /// there is no one to tell apart from an administrator.
    pub fn anonymous() -> Principal {
        Principal {
            name: Arc::from(""),
            admin: true,
        }
    }
}

/// What a client presented (Bolt's auth map, or an HTTP `Authorization` header).
#[derive(Clone, PartialEq, Eq)]
pub enum Credentials {
    /// `scheme: "none"`, or no header.
    None,
    Basic {
        principal: String,
        password: String,
    },
    /// Any other scheme, kept by name for the error message.
    Other(String),
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Credentials::None => f.write_str("None"),
            Credentials::Basic { principal, .. } => {
                write!(
                    f,
                    "Basic {{ principal: {principal:?}, password: <redacted> }}"
                )
            }
            Credentials::Other(scheme) => write!(f, "Other({scheme:?})"),
        }
    }
}

#[derive(Debug)]
struct User {
    /// Shared with every principal of this user, so a login allocates nothing that outlives it.
    name: Arc<str>,
    hash: String,
    admin: bool,
}

/// How long a login from an address with no recent failures waits for one of its attempts in
/// progress to end before it is refused.
const ATTEMPT_QUEUE_WAIT: Duration = Duration::from_secs(10);
/// Between two looks for a free place while waiting.
const ATTEMPT_QUEUE_POLL: Duration = Duration::from_millis(5);

/// Configured users; cheap to share behind an `Arc`.
pub struct UserStore {
    enabled: bool,
    users: HashMap<String, User>,
    /// Verified against when the user does not exist, so unknown users cost as much as wrong
    /// passwords and user names cannot be probed by timing.
    decoy_hash: String,
    /// Per-process random key of the verified-credentials tags.
    tag_key: [u8; 32],
    /// User name → tag of the password last verified for it, and the hash it was verified
    /// against (a stored user's password may change; the tag then no longer counts).
    verified: Mutex<HashMap<String, (Vec<u8>, String)>>,
    /// The database whose stored users (`CREATE USER`) log in beside the configured ones.
    stored: parking_lot::RwLock<Option<std::sync::Weak<Database>>>,
    audit: Option<Arc<AuditLog>>,
    /// Handed out when authentication is disabled (one allocation for all connections).
    anonymous: Principal,
    hashing: Semaphore,
    /// Argon2 working memory (19 MiB each at the default cost), one per permit of `hashing`,
    /// reused from login to login. Left to the allocator, every blocking-pool thread that ran
    /// a verification kept its own copy in its malloc arena: a burst of logins grew the
    /// server by hundreds of megabytes for good.
    memory: Mutex<Vec<Vec<argon2::Block>>>,
    throttle: Throttle,
    metrics: Arc<Metrics>,
}

impl User {
    fn principal(&self) -> Principal {
        Principal {
            name: Arc::clone(&self.name),
            admin: self.admin,
        }
    }
}

impl std::fmt::Debug for UserStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UserStore")
            .field("enabled", &self.enabled)
            .field("users", &self.users.len())
            .finish_non_exhaustive()
    }
}

/// Hashes `password` into an argon2id PHC string with a fresh random salt (what a configuration
/// file's `password_hash` holds); the engine's hashing, which `CREATE USER` uses too.
pub fn hash_password(password: &str) -> Result<String, AuthError> {
    quiver_engine::hash_password(password).map_err(|error| AuthError::Hashing(error.0))
}

impl UserStore {
    /// Builds the store, hashing passwords given in clear: slow (an argon2 run per such user), so call
    /// it at start-up, off the async runtime's workers.
    pub fn from_config(
        auth: &AuthConfig,
        throttle_delay_max: std::time::Duration,
        metrics: Arc<Metrics>,
    ) -> Result<UserStore, AuthError> {
        let mut users = HashMap::with_capacity(auth.users.len());
        if auth.enabled {
            for entry in &auth.users {
                let hash = match (&entry.password_hash, &entry.password) {
                    (Some(hash), _) => hash.clone(),
                    (None, Some(password)) => hash_password(password)?,
                    (None, None) => {
                        return Err(AuthError::Hashing(format!(
                            "user `{}` has no password",
                            entry.name
                        )));
                    }
                };
                PasswordHash::new(&hash).map_err(|error| AuthError::Hashing(error.to_string()))?;
                users.insert(
                    entry.name.clone(),
                    User {
                        name: Arc::from(entry.name.as_str()),
                        hash,
                        admin: entry.admin,
                    },
                );
            }
        }
        let decoy_hash = if auth.enabled {
            hash_password(&format!("{:x}", rand::random::<u128>()))?
        } else {
            String::new()
        };
        let hashing_concurrency = std::thread::available_parallelism().map_or(1, usize::from);
        Ok(UserStore {
            enabled: auth.enabled,
            users,
            decoy_hash,
            tag_key: rand::random(),
            verified: Mutex::new(HashMap::new()),
            anonymous: Principal::anonymous(),
            hashing: Semaphore::new(hashing_concurrency),
            memory: Mutex::new(Vec::with_capacity(hashing_concurrency)),
            throttle: Throttle::new(throttle_delay_max),
            metrics,
            stored: parking_lot::RwLock::new(None),
            audit: None,
        })
    }

    /// Records logins, failed logins and (once attached) user and role changes in `audit`.
    #[must_use]
    pub fn with_audit_log(mut self, audit: Arc<AuditLog>) -> UserStore {
        self.audit = Some(audit);
        self
    }

    /// Lets the users stored in `db` log in, and turns on `db`'s privilege checks when
    /// authentication is on: the configured users have `admin` (`architect` for an
    /// `[[users]]` entry with `admin = false`). The audit log, if any, receives `db`'s user
    /// and role changes and terminated transactions.
    pub fn attach(&self, db: &Arc<Database>) {
        self.keep_users_of(db);
        self.equip(db);
    }

    /// Looks stored users up in `db` (the database that keeps them), without equipping it.
    pub fn keep_users_of(&self, db: &Arc<Database>) {
        if self.enabled {
            *self.stored.write() = Some(Arc::downgrade(db));
        }
    }

    /// Turns `db`'s privilege checks on for these users (configured ones, and those stored
    /// where [`UserStore::attach`] keeps them), and sends its audit events to the audit log.
    pub fn equip(&self, db: &Database) {
        if !self.enabled {
            return;
        }
        db.set_authentication(Some(Authentication {
            configured: self
                .users
                .values()
                .map(|u| {
                    let level = if u.admin {
                        Level::Admin
                    } else {
                        Level::Architect
                    };
                    (u.name.to_string(), level)
                })
                .collect(),
        }));
        if let Some(audit) = &self.audit {
            let audit = Arc::clone(audit);
            db.set_audit_sink(Arc::new(move |event: quiver_engine::AuditEvent| {
                audit.record(
                    &event.user,
                    event.client.map(|client| client.ip()),
                    event.action,
                    &[("target", &event.target), ("detail", &event.detail)],
                );
            }));
        }
    }

    /// A stored user's hash and whether they administer, unless suspended or unknown.
    fn stored_user(&self, name: &str) -> Option<(String, bool)> {
        let db = self.stored.read().as_ref()?.upgrade()?;
        let user = db.stored_user(name)?;
        if user.suspended {
            return None;
        }
        Some((user.password_hash, user.roles.contains("admin")))
    }

    /// The hash a login as `name` is checked against, and the principal it yields.
    fn lookup(&self, name: &str) -> Option<(String, Principal)> {
        if let Some(user) = self.users.get(name) {
            return Some((user.hash.clone(), user.principal()));
        }
        let (hash, admin) = self.stored_user(name)?;
        Some((
            hash,
            Principal {
                name: Arc::from(name),
                admin,
            },
        ))
    }

    fn audit(&self, user: &str, peer: IpAddr, event: &str) {
        if let Some(audit) = &self.audit {
            audit.record(user, Some(peer), event, &[]);
        }
    }

    /// Lets each client address have at most `attempts` logins in progress at once (waiting
    /// out a delay or being checked); past it a login is refused without a check. Default
    /// [`super::throttle::ATTEMPTS_IN_FLIGHT_PER_PEER_DEFAULT`].
    #[must_use]
    pub fn with_attempts_in_flight_per_address_max(mut self, attempts: u32) -> UserStore {
        self.throttle = Throttle::with_in_flight_max(self.throttle.delay_max(), attempts);
        self
    }

    /// A store that accepts everyone (authentication disabled).
    pub fn disabled(metrics: Arc<Metrics>) -> UserStore {
        UserStore {
            enabled: false,
            users: HashMap::new(),
            decoy_hash: String::new(),
            tag_key: [0; 32],
            verified: Mutex::new(HashMap::new()),
            anonymous: Principal::anonymous(),
            hashing: Semaphore::new(1),
            memory: Mutex::new(Vec::new()),
            throttle: Throttle::new(std::time::Duration::from_secs(1)),
            metrics,
            stored: parking_lot::RwLock::new(None),
            audit: None,
        }
    }

    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Verifications that may run at once (one per core).
    pub fn hashing_concurrency(&self) -> usize {
        self.hashing.available_permits()
    }

    /// Checks `credentials` from `peer`. Waits out any throttling delay first, refuses at once
    /// (unchecked) an attempt beyond the address's limit of attempts in progress, never blocks
    /// the runtime (argon2 runs on the blocking pool), and counts failures.
    pub async fn authenticate(
        &self,
        peer: IpAddr,
        credentials: Credentials,
    ) -> Result<Principal, AuthError> {
        if !self.enabled {
            // Like Neo4j with authentication disabled: whatever was presented is accepted.
            return Ok(self.anonymous.clone());
        }
        let (principal, password) = match credentials {
            Credentials::Basic {
                principal,
                password,
            } => (principal, password),
            Credentials::None => {
                self.metrics.auth_failures.inc();
                self.audit("", peer, "login_failed");
                return Err(AuthError::Unauthorized);
            }
            Credentials::Other(scheme) => {
                self.metrics.auth_failures.inc();
                self.audit("", peer, "login_failed");
                return Err(AuthError::UnsupportedScheme(scheme));
            }
        };
        // A password verified before is recognized by its tag in microseconds: no delay and no
        // place among the address's attempts, so a flood of wrong guesses from an address
        // does not hold up the requests of a client there that already logged in.
        if let Some(principal_of_user) = self.cached(&principal, &password) {
            return Ok(principal_of_user);
        }
        // An address with recent failures gets no more than its attempts in progress: the rest
        // are refused unchecked. One without waits its turn (bounded), so that a client
        // opening many connections at once (a driver filling its pool) is not refused.
        let queued_until = tokio::time::Instant::now() + ATTEMPT_QUEUE_WAIT;
        let _attempt = loop {
            if let Some(attempt) = self.throttle.enter(peer) {
                break attempt;
            }
            if !self.throttle.delay(peer).is_zero() || tokio::time::Instant::now() >= queued_until {
                self.metrics.auth_failures.inc();
                self.audit(&principal, peer, "login_failed");
                return Err(AuthError::TooManyAttempts);
            }
            tokio::time::sleep(ATTEMPT_QUEUE_POLL).await;
        };
        // Another attempt may have verified this password while this one waited.
        if let Some(principal_of_user) = self.cached(&principal, &password) {
            return Ok(principal_of_user);
        }
        let delay = self.throttle.delay(peer);
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        match self.verify(&principal, password).await {
            Ok(principal_of_user) => {
                self.throttle.record_success(peer);
                self.audit(&principal, peer, "login");
                Ok(principal_of_user)
            }
            Err(error) => {
                self.metrics.auth_failures.inc();
                self.throttle.record_failure(peer);
                self.audit(&principal, peer, "login_failed");
                Err(error)
            }
        }
    }

    /// The user's principal when `password` is the one last verified for them.
    fn cached(&self, principal: &str, password: &str) -> Option<Principal> {
        if principal.len() > CREDENTIAL_BYTES_MAX || password.len() > CREDENTIAL_BYTES_MAX {
            return None;
        }
        let (hash, principal_of_user) = self.lookup(principal)?;
        let (tag, verified_hash) = self.verified.lock().get(principal).cloned()?;
        (verified_hash == hash && tag == self.tag(principal, password)).then_some(principal_of_user)
    }

    /// Returns the user's principal, if the password is right.
    async fn verify(&self, principal: &str, password: String) -> Result<Principal, AuthError> {
        if principal.len() > CREDENTIAL_BYTES_MAX || password.len() > CREDENTIAL_BYTES_MAX {
            return Err(AuthError::Unauthorized);
        }
        let user = self.lookup(principal);
        let tag = self.tag(principal, &password);
        let hash = user
            .as_ref()
            .map_or_else(|| self.decoy_hash.clone(), |(hash, _)| hash.clone());
        let _permit = self
            .hashing
            .acquire()
            .await
            .map_err(|_| AuthError::Hashing("hashing pool closed".to_owned()))?;
        let mut memory = self.memory.lock().pop().unwrap_or_default();
        let checked = hash.clone();
        let (matches, memory) = tokio::task::spawn_blocking(move || {
            let matches = verify_with_memory(&checked, password.as_bytes(), &mut memory);
            (matches, memory)
        })
        .await
        .map_err(|error| AuthError::Hashing(error.to_string()))?;
        self.memory.lock().push(memory);
        match user {
            Some((_, principal_of_user)) if matches => {
                self.verified
                    .lock()
                    .insert(principal.to_owned(), (tag, hash));
                Ok(principal_of_user)
            }
            _ => Err(AuthError::Unauthorized),
        }
    }

    fn tag(&self, principal: &str, password: &str) -> Vec<u8> {
        // A 32-byte key is always a valid BLAKE2b key length, so this cannot fail; if it ever did, an
        // empty tag never equals a real one and every login just takes the slow path.
        let Ok(mut mac) = <Blake2bMac512 as KeyInit>::new_from_slice(&self.tag_key) else {
            return Vec::new();
        };
        mac.update(&(principal.len() as u64).to_le_bytes());
        mac.update(principal.as_bytes());
        mac.update(password.as_bytes());
        mac.finalize().into_bytes().to_vec()
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;
    use std::time::Duration;

    use super::*;
    use crate::config::UserEntry;

    const PEER: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

    fn store() -> UserStore {
        let auth = AuthConfig {
            enabled: true,
            users: vec![
                UserEntry {
                    name: "neo4j".to_owned(),
                    password_hash: None,
                    password: Some("secret".to_owned()),
                    admin: true,
                },
                UserEntry {
                    name: "reader".to_owned(),
                    password_hash: Some(hash_password("letmein").expect("hash")),
                    password: None,
                    admin: false,
                },
            ],
            metrics_auth: false,
        };
        UserStore::from_config(&auth, Duration::from_millis(200), Arc::new(Metrics::new()))
            .expect("valid users")
    }

    fn basic(user: &str, password: &str) -> Credentials {
        Credentials::Basic {
            principal: user.to_owned(),
            password: password.to_owned(),
        }
    }

    #[tokio::test]
    async fn right_password_yields_the_principal() {
        let store = store();
        let admin = store
            .authenticate(PEER, basic("neo4j", "secret"))
            .await
            .expect("ok");
        assert!(admin.admin);
        assert_eq!(&*admin.name, "neo4j");
        let reader = store
            .authenticate(PEER, basic("reader", "letmein"))
            .await
            .expect("ok");
        assert!(!reader.admin);
        // Second login takes the cached path and still checks the password.
        assert!(
            store
                .authenticate(PEER, basic("reader", "letmein"))
                .await
                .is_ok()
        );
        assert!(
            store
                .authenticate(PEER, basic("reader", "letmeout"))
                .await
                .is_err()
        );
    }

    #[tokio::test]
    async fn wrong_password_unknown_user_and_other_schemes_fail_alike() {
        let store = store();
        for credentials in [
            basic("neo4j", "wrong"),
            basic("nobody", "secret"),
            Credentials::None,
            Credentials::Other("bearer".to_owned()),
        ] {
            let error = store
                .authenticate(PEER, credentials)
                .await
                .expect_err("refused");
            assert_eq!(error.neo4j_code(), quiver_status::Status::Unauthorized);
        }
        assert_eq!(store.metrics.auth_failures.get(), 4);
    }

    #[tokio::test]
    async fn disabled_store_accepts_anything() {
        let store = UserStore::disabled(Arc::new(Metrics::new()));
        let principal = store
            .authenticate(PEER, basic("x", "y"))
            .await
            .expect("auth disabled");
        assert_eq!(principal, Principal::anonymous());
    }

    #[tokio::test]
    async fn repeated_failures_are_slowed_down() {
        let store = store();
        for _ in 0..3 {
            let _ = store.authenticate(PEER, basic("neo4j", "wrong")).await;
        }
        let start = std::time::Instant::now();
        let _ = store.authenticate(PEER, basic("neo4j", "wrong")).await;
        // After three failures the delay is 400 ms, capped at the configured 200 ms.
        assert!(start.elapsed() >= Duration::from_millis(200));
    }

    #[tokio::test]
    async fn parallel_attempts_past_the_address_limit_are_refused_unchecked() {
        let store = store().with_attempts_in_flight_per_address_max(2);
        let other = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 2));
        // PEER has failed recently, and has two attempts in progress (as if waiting out their
        // delay or hashing).
        let _ = store.authenticate(PEER, basic("neo4j", "wrong")).await;
        let held = [store.throttle.enter(PEER), store.throttle.enter(PEER)];
        assert!(held.iter().all(Option::is_some));
        let error = store
            .authenticate(PEER, basic("neo4j", "secret"))
            .await
            .expect_err("a third at once is refused");
        assert!(matches!(error, AuthError::TooManyAttempts));
        assert_eq!(error.neo4j_code(), quiver_status::Status::Unauthorized);
        // Another address logs in as the same user meanwhile.
        store
            .authenticate(other, basic("neo4j", "secret"))
            .await
            .expect("another address is not held up");
        drop(held);
        store
            .authenticate(PEER, basic("neo4j", "secret"))
            .await
            .expect("room again");
    }

    #[tokio::test]
    async fn an_address_without_failures_waits_its_turn_rather_than_being_refused() {
        let store = Arc::new(store().with_attempts_in_flight_per_address_max(1));
        // A driver filling its pool: one login in progress, the next one waits for it.
        let held = store.throttle.enter(PEER).expect("a place");
        let waiting = {
            let store = Arc::clone(&store);
            tokio::spawn(async move { store.authenticate(PEER, basic("neo4j", "secret")).await })
        };
        // The test's runtime has one thread: while this task sleeps the login runs, finds no
        // place, and must still be waiting (not refused) when the sleep ends.
        tokio::time::sleep(ATTEMPT_QUEUE_POLL * 4).await;
        assert!(!waiting.is_finished(), "the login waits for a place");
        drop(held);
        waiting
            .await
            .expect("no panic")
            .expect("logged in once a place was free");
    }

    #[tokio::test]
    async fn one_address_failures_do_not_delay_another_address() {
        let store = store();
        let other = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 2));
        for _ in 0..3 {
            let _ = store.authenticate(PEER, basic("neo4j", "wrong")).await;
        }
        assert_eq!(store.throttle.delay(PEER), Duration::from_millis(200));
        assert_eq!(store.throttle.delay(other), Duration::ZERO);
        store
            .authenticate(other, basic("neo4j", "secret"))
            .await
            .expect("the right password from elsewhere");
        // A password verified before skips the throttle even at the failing address, with
        // every place among its attempts taken.
        let _held: Vec<_> = std::iter::from_fn(|| store.throttle.enter(PEER)).collect();
        store
            .authenticate(PEER, basic("neo4j", "secret"))
            .await
            .expect("cached");
    }

    #[test]
    fn credentials_debug_hides_the_password() {
        assert!(!format!("{:?}", basic("u", "hunter2")).contains("hunter2"));
    }
}
