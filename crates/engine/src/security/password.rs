//! Password hashing: the one place a password becomes an argon2id PHC string and is checked
//! against one. The server's logins and the engine's `CREATE USER` and `ALTER ... PASSWORD`
//! both come here, so every stored or configured hash has the same algorithm and cost.

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, SaltString};

/// Fewest characters a new password may have (Neo4j's
/// `dbms.security.auth_minimum_password_length`, same default).
pub const PASSWORD_CHARS_MIN: usize = 8;

/// Why a password could not be hashed.
#[derive(Debug, thiserror::Error)]
#[error("password hashing failed: {0}")]
pub struct HashError(pub String);

/// Hashes `password` into an argon2id PHC string with a fresh random salt (what a configuration
/// file's `password_hash` holds, and what the security catalogue stores).
pub fn hash_password(password: &str) -> Result<String, HashError> {
    let salt = SaltString::encode_b64(&rand::random::<[u8; 16]>())
        .map_err(|error| HashError(error.to_string()))?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|error| HashError(error.to_string()))
}

/// Whether `hash` is a PHC string argon2 can check passwords against.
pub fn is_valid_hash(hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| {
        argon2::Algorithm::try_from(parsed.algorithm).is_ok()
            && parsed.salt.is_some()
            && parsed.hash.is_some()
            && argon2::Params::try_from(&parsed).is_ok()
    })
}

/// Checks `password` against an argon2 PHC string, computing in `memory` (grown to the hash's
/// cost as needed) instead of a fresh allocation. The comparison is constant-time.
pub fn verify_with_memory(hash: &str, password: &[u8], memory: &mut Vec<argon2::Block>) -> bool {
    let Ok(parsed) = PasswordHash::new(hash) else {
        return false;
    };
    let (Some(salt), Some(expected)) = (parsed.salt, parsed.hash) else {
        return false;
    };
    let Ok(algorithm) = argon2::Algorithm::try_from(parsed.algorithm) else {
        return false;
    };
    let version = match parsed.version {
        Some(number) => match argon2::Version::try_from(number) {
            Ok(version) => version,
            Err(_) => return false,
        },
        None => argon2::Version::default(),
    };
    let Ok(params) = argon2::Params::try_from(&parsed) else {
        return false;
    };
    let mut salt_bytes = [0u8; 64];
    let Ok(salt) = salt.decode_b64(&mut salt_bytes) else {
        return false;
    };
    let blocks = params.block_count();
    if memory.len() < blocks {
        memory.resize(blocks, argon2::Block::default());
    }
    let mut out = vec![0u8; expected.len()];
    Argon2::new(algorithm, version, params)
        .hash_password_into_with_memory(password, salt, &mut out, &mut memory[..blocks])
        .is_ok()
        && argon2::password_hash::Output::new(&out).is_ok_and(|computed| computed == expected)
}

#[cfg(test)]
mod tests {
    use argon2::password_hash::PasswordVerifier;

    use super::*;

    #[test]
    fn verification_in_reused_memory_agrees_with_argon2() {
        let hash = hash_password("s3cret").expect("hash");
        let parsed = PasswordHash::new(&hash).expect("parse");
        let mut memory = Vec::new();
        for (password, right) in [
            ("s3cret", true),
            ("s3cre", false),
            ("", false),
            ("s3cret", true),
        ] {
            let reference = Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok();
            assert_eq!(reference, right);
            assert_eq!(
                verify_with_memory(&hash, password.as_bytes(), &mut memory),
                right,
                "{password:?}"
            );
        }
        assert!(!verify_with_memory("not a hash", b"s3cret", &mut memory));
        // Reused, not regrown: one buffer of the default cost.
        assert_eq!(memory.len(), argon2::Params::default().block_count());
        assert!(is_valid_hash(&hash));
        assert!(!is_valid_hash("not a hash"));
    }
}
