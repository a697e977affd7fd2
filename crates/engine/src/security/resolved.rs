//! Stored users as resolved against one security catalogue, kept so a statement does not
//! fold its user's roles and privileges again.
//!
//! A catalogue is never changed in place: a user, role or privilege change commits a new one
//! (`quiver_storage::Security`). So what a user resolves to is a function of the catalogue
//! `Arc` and the name, and the cache is keyed by the `Arc` itself, held so its address cannot
//! be reused by another catalogue while the entry lives. A change makes a new catalogue and
//! with it a fresh entry: nothing is ever invalidated by hand.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use parking_lot::RwLock;
use quiver_storage::Security;

use super::User;

/// Catalogues kept at once: the current one of each open database, and the one before it
/// while transactions begun under it finish.
const CATALOGUES_MAX: usize = 4;

/// Users resolved per catalogue, oldest catalogue first, by database and user name (what a
/// user may do depends on the database).
type Entries = Vec<(Arc<Security>, HashMap<Arc<str>, HashMap<Arc<str>, User>>)>;

fn cache() -> &'static RwLock<Entries> {
    static CACHE: OnceLock<RwLock<Entries>> = OnceLock::new();
    CACHE.get_or_init(|| RwLock::new(Vec::new()))
}

/// Stored user `name` on `database` as resolved against `catalogue`: from the cache, or
/// `resolve`d and kept. The caller has checked the user exists and is active in `catalogue`.
pub(super) fn stored_user(
    catalogue: &Arc<Security>,
    name: &str,
    database: &str,
    resolve: impl FnOnce() -> User,
) -> User {
    {
        let entries = cache().read();
        if let Some(user) = entries
            .iter()
            .find(|(c, _)| Arc::ptr_eq(c, catalogue))
            .and_then(|(_, databases)| databases.get(database)?.get(name))
        {
            return user.clone();
        }
    }
    let user = resolve();
    let mut entries = cache().write();
    let at = match entries.iter().position(|(c, _)| Arc::ptr_eq(c, catalogue)) {
        Some(at) => at,
        None => {
            if entries.len() >= CATALOGUES_MAX {
                entries.remove(0);
            }
            entries.push((Arc::clone(catalogue), HashMap::new()));
            entries.len() - 1
        }
    };
    // Bounded by the catalogue's users times the databases: only stored, active users are
    // resolved here.
    entries[at]
        .1
        .entry(Arc::from(database))
        .or_default()
        .insert(Arc::clone(&user.name), user.clone());
    user
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::security::privilege::Permissions;

    fn user(name: &str, change_required: bool) -> User {
        User {
            name: Arc::from(name),
            permissions: Arc::new(Permissions::default()),
            roles: Arc::from(Vec::new()),
            change_required,
            configured: false,
        }
    }

    #[test]
    fn a_new_catalogue_resolves_again_and_the_same_one_does_not() {
        let first = Arc::new(Security::default());
        let a = stored_user(&first, "zed", "neo4j", || user("zed", true));
        assert!(a.change_required);
        let again = stored_user(&first, "zed", "neo4j", || panic!("resolved twice"));
        assert!(again.change_required);
        // An equal catalogue committed later is another Arc: resolved afresh.
        let second = Arc::new(Security::default());
        let b = stored_user(&second, "zed", "neo4j", || user("zed", false));
        assert!(!b.change_required);
    }
}
