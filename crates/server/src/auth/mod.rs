//! Authentication against the configured users, shared by Bolt (HELLO/LOGON) and HTTP (Basic).
//!
//! Passwords are stored as argon2id PHC strings and verified on the blocking pool, at most
//! [`UserStore::hashing_concurrency`] at a time (each verification holds ~19 MiB, so an unbounded
//! number would be a memory attack). A successful verification is remembered as a keyed BLAKE2 tag of
//! the password under a key drawn at start-up and never stored, so the next login of that user (every
//! HTTP request carries Basic credentials) costs microseconds instead of an argon2 run; a failure
//! always pays the full price and is throttled ([`throttle`]).

use quiver_status::Status;

mod store;
pub mod throttle;

pub use store::{Credentials, Principal, UserStore, hash_password};

/// Why authentication failed. Every variant maps to `Neo.ClientError.Security.Unauthorized` on the
/// wire; an unknown user and a wrong password share one message, so a client cannot tell them
/// apart.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    #[error("The client is unauthorized due to authentication failure.")]
    Unauthorized,
    /// The client's address already had its limit of login attempts in progress; this one was
    /// refused without being checked.
    #[error(
        "The client is unauthorized: too many authentication attempts in progress from this \
         address (auth_attempts_in_flight_per_address_max); try again later."
    )]
    TooManyAttempts,
    #[error("Unsupported authentication scheme `{0}`.")]
    UnsupportedScheme(String),
    #[error("password hashing failed: {0}")]
    Hashing(String),
}

impl AuthError {
    /// The Neo4j status clients expect for this failure.
    pub fn neo4j_code(&self) -> Status {
        match self {
            AuthError::Unauthorized
            | AuthError::TooManyAttempts
            | AuthError::UnsupportedScheme(_) => Status::Unauthorized,
            AuthError::Hashing(_) => Status::UnknownError,
        }
    }
}
