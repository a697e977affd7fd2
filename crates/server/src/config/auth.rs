//! How users are configured: the `QUIVER_AUTH` shorthand and the file's `[[users]]` entries.

use std::fmt;
use std::str::FromStr;

use serde::Deserialize;

/// `none`, or `user/password` naming one administrator (the `NEO4J_AUTH` convention).
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub enum AuthSpec {
    /// Every client is accepted without credentials.
    None,
    /// One administrator with a password given in clear (hashed at start-up, never stored).
    Basic { user: String, password: String },
}

/// Longest user name or password accepted, so a configuration cannot make hashing unbounded.
pub const CREDENTIAL_BYTES_MAX: usize = 1024;

/// Fewest characters a password may have (Neo4j's `dbms.security.auth_minimum_password_length`
/// default): a short password falls to the guesses the failed-login delays still allow. The
/// engine's, which `CREATE USER` and `ALTER ... PASSWORD` check too.
pub use quiver_engine::PASSWORD_CHARS_MIN;

/// Checks a password given in clear (configured, or set by a user): long enough, not unbounded.
pub fn check_password(password: &str) -> Result<(), String> {
    if password.len() > CREDENTIAL_BYTES_MAX {
        return Err(format!(
            "a password is limited to {CREDENTIAL_BYTES_MAX} bytes"
        ));
    }
    if password.chars().count() < PASSWORD_CHARS_MIN {
        return Err(format!(
            "a password must have {PASSWORD_CHARS_MIN} characters or more"
        ));
    }
    Ok(())
}

impl FromStr for AuthSpec {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text.eq_ignore_ascii_case("none") {
            return Ok(AuthSpec::None);
        }
        // The first '/' separates: a password may itself contain '/'.
        let Some((user, password)) = text.split_once('/') else {
            return Err("expected `none` or `user/password`".to_owned());
        };
        if user.is_empty() || password.is_empty() {
            return Err("user and password must both be non-empty in `user/password`".to_owned());
        }
        if user.len() > CREDENTIAL_BYTES_MAX || password.len() > CREDENTIAL_BYTES_MAX {
            return Err(format!(
                "user and password are limited to {CREDENTIAL_BYTES_MAX} bytes each"
            ));
        }
        Ok(AuthSpec::Basic {
            user: user.to_owned(),
            password: password.to_owned(),
        })
    }
}

impl TryFrom<String> for AuthSpec {
    type Error = String;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

/// Passwords never reach logs, not even through `{:?}`.
impl fmt::Debug for AuthSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuthSpec::None => f.write_str("None"),
            AuthSpec::Basic { user, .. } => f
                .debug_struct("Basic")
                .field("user", user)
                .field("password", &"<redacted>")
                .finish(),
        }
    }
}

/// A user from the configuration file.
///
/// ```toml
/// [[users]]
/// name = "reader"
/// password_hash = "$argon2id$v=19$m=19456,t=2,p=1$..."   # a PHC string, as `quiver` prints it
/// admin = false
/// ```
/// `password` (in clear) is accepted instead of `password_hash` for tests and local setups.
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserEntry {
    pub name: String,
    #[serde(default)]
    pub password_hash: Option<String>,
    #[serde(default)]
    pub password: Option<String>,
    /// Administrators may use the reserved connection slots.
    #[serde(default)]
    pub admin: bool,
}

impl fmt::Debug for UserEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UserEntry")
            .field("name", &self.name)
            .field(
                "password_hash",
                &self.password_hash.as_ref().map(|_| "<set>"),
            )
            .field("password", &self.password.as_ref().map(|_| "<redacted>"))
            .field("admin", &self.admin)
            .finish()
    }
}
