//! Waits that block their thread (for another writer's lock, for the log's acknowledgement of
//! a nested batch, `apoc.util.sleep`) run through the embedder's hook.
//!
//! The engine names no async runtime. A server that runs queries on its runtime's workers
//! installs a hook (`quiver_placement::blocking`) that tells the runtime first, so the
//! worker's other tasks move on while this one blocks; an embedding program installs none,
//! and the wait simply runs.

use std::sync::OnceLock;

/// Runs the wait it is given, once, on the calling thread.
pub type BlockingHook = fn(&mut dyn FnMut());

static HOOK: OnceLock<BlockingHook> = OnceLock::new();

/// Installs the hook every blocking wait of this process runs through. Once only: the first
/// hook stays (every server of a process shares one runtime).
pub fn set_blocking_hook(hook: BlockingHook) {
    let _ = HOOK.set(hook);
}

/// Runs `wait` through the installed hook, or directly when none is.
pub(crate) fn blocking<R>(wait: impl FnOnce() -> R) -> R {
    let Some(hook) = HOOK.get() else {
        return wait();
    };
    let mut wait = Some(wait);
    let mut outcome = None;
    hook(&mut || {
        if let Some(wait) = wait.take() {
            outcome = Some(wait());
        }
    });
    match (outcome, wait) {
        (Some(outcome), _) => outcome,
        // A hook that did not run the wait: it runs here.
        (None, Some(wait)) => wait(),
        (None, None) => unreachable!("the wait ran but left no outcome"),
    }
}
