//! The security catalogue: the users made with `CREATE USER` and the roles made with
//! `CREATE ROLE`, stored with the data so they are logged, snapshotted and replicated with it.
//!
//! The catalogue is small (a server has tens of users, not millions), so a change replaces it
//! whole: a transaction that changes it records the new catalogue, commit swaps it in under
//! the commit lock and logs it as one [`crate::RedoOp::Security`] op holding its encoding.
//! Replaying such an op is idempotent (it sets the catalogue), so a snapshot that already
//! holds a newer catalogue and the log records after it always end in the right state.
//!
//! Storage gives the names no meaning: which role grants what, and which users the server's
//! configuration adds, are the engine's and the server's.
//!
//! ```text
//! u8 format version (1)
//! u32 LE user count, then per user:
//!   name, password hash (PHC string)      u32 LE byte length, UTF-8 bytes
//!   flags u8                              1 change required, 2 suspended, 4 has home
//!   home                                  a name, when flag 4
//!   roles                                 u32 LE count, then names
//! u32 LE role count, then per role:
//!   name; flags u8 (1: copied); the role it was copied from, when flag 1
//! format 2 only: u32 LE count of roles with stored privileges, then per role:
//!   name; u32 LE privilege count, then per privilege:
//!   flags u8 (1: denied); action, resource, graph, segment: names
//! ```
//!
//! A catalogue with no stored privileges is written in format 1, so a server that predates
//! privileges still reads it; both formats are read.

use std::collections::{BTreeMap, BTreeSet};

use crate::codec::Reader;
use crate::error::{Error, Result};

/// The format without privileges, read and written while none are stored.
const FORMAT_ROLES: u8 = 1;
/// The format with each role's privileges.
const FORMAT_PRIVILEGES: u8 = 2;
const CHANGE_REQUIRED: u8 = 1;
const SUSPENDED: u8 = 2;
const HAS_HOME: u8 = 4;
const COPIED: u8 = 1;
const DENIED: u8 = 1;

/// A user created in Cypher.
#[derive(Clone, PartialEq, Eq)]
pub struct UserRecord {
    pub name: String,
    /// An argon2id PHC string; the password itself is never stored.
    pub password_hash: String,
    /// The user must change their password before running anything else.
    pub change_required: bool,
    pub suspended: bool,
    pub home: Option<String>,
    /// The roles granted to the user by name (built-in or created).
    pub roles: BTreeSet<String>,
}

impl std::fmt::Debug for UserRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The hash stays out of logs and error messages: it is what an attacker would guess
        // against offline.
        f.debug_struct("UserRecord")
            .field("name", &self.name)
            .field("password_hash", &"<redacted>")
            .field("change_required", &self.change_required)
            .field("suspended", &self.suspended)
            .field("home", &self.home)
            .field("roles", &self.roles)
            .finish()
    }
}

/// A role created with `CREATE ROLE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoleRecord {
    pub name: String,
    /// `AS COPY OF`: the role whose privileges this one was given.
    pub copy_of: Option<String>,
}

/// One privilege of a role, in the words `SHOW PRIVILEGES` lists it with (`traverse`,
/// `graph`, `*`, `NODE(Person)`); the engine owns what they mean.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PrivilegeRecord {
    /// `DENY` rather than `GRANT`.
    pub denied: bool,
    pub action: String,
    pub resource: String,
    pub graph: String,
    pub segment: String,
}

/// Every stored user and created role.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Security {
    pub users: BTreeMap<String, UserRecord>,
    pub roles: BTreeMap<String, RoleRecord>,
    /// The privileges of each role whose privileges were set (built-in or created): a role
    /// absent here has its default ones, which the engine knows.
    pub privileges: BTreeMap<String, BTreeSet<PrivilegeRecord>>,
}

fn put_u32(out: &mut Vec<u8>, v: usize) {
    out.extend_from_slice(&u32::try_from(v).unwrap_or(u32::MAX).to_le_bytes());
}

fn put_name(out: &mut Vec<u8>, s: &str) {
    put_u32(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

fn read_u32(r: &mut Reader<'_>) -> Result<usize> {
    let b = r.take(4)?;
    let mut a = [0u8; 4];
    a.copy_from_slice(b);
    Ok(u32::from_le_bytes(a) as usize)
}

fn read_name(r: &mut Reader<'_>) -> Result<String> {
    let n = read_u32(r)?;
    let bytes = r.take(n)?;
    std::str::from_utf8(bytes)
        .map(str::to_owned)
        .map_err(|_| r.corrupt("invalid UTF-8 in the security catalogue"))
}

/// A count no larger than the bytes left could hold (each entry takes at least 4 bytes), so
/// a corrupt count cannot make decoding allocate without bound.
fn read_count(r: &mut Reader<'_>, len: usize) -> Result<usize> {
    let n = read_u32(r)?;
    if n > len / 4 + 1 {
        return Err(r.corrupt("security catalogue count too large"));
    }
    Ok(n)
}

impl Security {
    /// The catalogue's bytes (see the module's layout).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.users.len() * 160);
        out.push(if self.privileges.is_empty() {
            FORMAT_ROLES
        } else {
            FORMAT_PRIVILEGES
        });
        put_u32(&mut out, self.users.len());
        for user in self.users.values() {
            put_name(&mut out, &user.name);
            put_name(&mut out, &user.password_hash);
            let mut flags = 0;
            if user.change_required {
                flags |= CHANGE_REQUIRED;
            }
            if user.suspended {
                flags |= SUSPENDED;
            }
            if user.home.is_some() {
                flags |= HAS_HOME;
            }
            out.push(flags);
            if let Some(home) = &user.home {
                put_name(&mut out, home);
            }
            put_u32(&mut out, user.roles.len());
            for role in &user.roles {
                put_name(&mut out, role);
            }
        }
        put_u32(&mut out, self.roles.len());
        for role in self.roles.values() {
            put_name(&mut out, &role.name);
            match &role.copy_of {
                Some(of) => {
                    out.push(COPIED);
                    put_name(&mut out, of);
                }
                None => out.push(0),
            }
        }
        if !self.privileges.is_empty() {
            put_u32(&mut out, self.privileges.len());
            for (role, privileges) in &self.privileges {
                put_name(&mut out, role);
                put_u32(&mut out, privileges.len());
                for p in privileges {
                    out.push(if p.denied { DENIED } else { 0 });
                    for word in [&p.action, &p.resource, &p.graph, &p.segment] {
                        put_name(&mut out, word);
                    }
                }
            }
        }
        out
    }

    /// Decodes a catalogue; malformed input is an error, never a panic.
    pub fn decode(bytes: &[u8]) -> Result<Security> {
        let mut r = Reader::new(bytes);
        let format = r.u8()?;
        if format != FORMAT_ROLES && format != FORMAT_PRIVILEGES {
            return Err(Error::Corrupt {
                offset: 0,
                reason: "unknown security catalogue version",
            });
        }
        let mut security = Security::default();
        for _ in 0..read_count(&mut r, bytes.len())? {
            let name = read_name(&mut r)?;
            let password_hash = read_name(&mut r)?;
            let flags = r.u8()?;
            let home = if flags & HAS_HOME != 0 {
                Some(read_name(&mut r)?)
            } else {
                None
            };
            let mut roles = BTreeSet::new();
            for _ in 0..read_count(&mut r, bytes.len())? {
                roles.insert(read_name(&mut r)?);
            }
            security.users.insert(
                name.clone(),
                UserRecord {
                    name,
                    password_hash,
                    change_required: flags & CHANGE_REQUIRED != 0,
                    suspended: flags & SUSPENDED != 0,
                    home,
                    roles,
                },
            );
        }
        for _ in 0..read_count(&mut r, bytes.len())? {
            let name = read_name(&mut r)?;
            let copy_of = if r.u8()? & COPIED != 0 {
                Some(read_name(&mut r)?)
            } else {
                None
            };
            security
                .roles
                .insert(name.clone(), RoleRecord { name, copy_of });
        }
        if format == FORMAT_PRIVILEGES {
            for _ in 0..read_count(&mut r, bytes.len())? {
                let role = read_name(&mut r)?;
                let mut privileges = BTreeSet::new();
                for _ in 0..read_count(&mut r, bytes.len())? {
                    let denied = r.u8()? & DENIED != 0;
                    privileges.insert(PrivilegeRecord {
                        denied,
                        action: read_name(&mut r)?,
                        resource: read_name(&mut r)?,
                        graph: read_name(&mut r)?,
                        segment: read_name(&mut r)?,
                    });
                }
                security.privileges.insert(role, privileges);
            }
        }
        if !r.at_end() {
            return Err(r.corrupt("trailing bytes after the security catalogue"));
        }
        Ok(security)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn sample() -> Security {
        let mut security = Security::default();
        security.users.insert(
            "ann".into(),
            UserRecord {
                name: "ann".into(),
                password_hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA".into(),
                change_required: true,
                suspended: false,
                home: Some("neo4j".into()),
                roles: ["reader".to_owned(), "auditor".to_owned()].into(),
            },
        );
        security.users.insert(
            "bob".into(),
            UserRecord {
                name: "bob".into(),
                password_hash: "h".into(),
                change_required: false,
                suspended: true,
                home: None,
                roles: BTreeSet::new(),
            },
        );
        security.roles.insert(
            "auditor".into(),
            RoleRecord {
                name: "auditor".into(),
                copy_of: Some("reader".into()),
            },
        );
        security.roles.insert(
            "empty".into(),
            RoleRecord {
                name: "empty".into(),
                copy_of: None,
            },
        );
        security
    }

    /// [`sample`] with privileges set on a built-in and a created role.
    pub(crate) fn sample_with_privileges() -> Security {
        let mut security = sample();
        let record = |denied: bool, action: &str, segment: &str| PrivilegeRecord {
            denied,
            action: action.into(),
            resource: "graph".into(),
            graph: "*".into(),
            segment: segment.into(),
        };
        security.privileges.insert(
            "auditor".into(),
            [
                record(false, "traverse", "NODE(*)"),
                record(true, "write", "RELATIONSHIP(*)"),
            ]
            .into(),
        );
        security.privileges.insert("reader".into(), BTreeSet::new());
        security
    }

    #[test]
    fn catalogue_with_privileges_round_trips() {
        let security = sample_with_privileges();
        let bytes = security.encode();
        assert_eq!(bytes[0], FORMAT_PRIVILEGES);
        assert_eq!(Security::decode(&bytes).expect("decodes"), security);
    }

    #[test]
    fn catalogue_without_privileges_keeps_the_format_older_servers_read() {
        assert_eq!(sample().encode()[0], FORMAT_ROLES);
    }

    #[test]
    fn catalogue_round_trips() {
        let security = sample();
        assert_eq!(
            Security::decode(&security.encode()).expect("decodes"),
            security
        );
        let empty = Security::default();
        assert_eq!(Security::decode(&empty.encode()).expect("decodes"), empty);
    }

    #[test]
    fn truncated_or_flipped_catalogues_are_errors_not_panics() {
        let bytes = sample_with_privileges().encode();
        for cut in 0..bytes.len() {
            assert!(Security::decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0xff;
            let _ = Security::decode(&b);
        }
    }
}
