//! The placement policy: whether a step of a query's work runs on the connection's own task
//! (inline) or on the query pool.
//!
//! Handing work to another thread costs two thread wake-ups per request, which for a query that
//! takes a few microseconds is most of its cost; running a long query inline stalls every other
//! connection on that runtime worker. The policy therefore remembers, per query text, how the
//! last run went: a text whose last run was short runs inline, with a time budget per step
//! after which the rest of the work moves to the pool; a text never seen (or slow last time)
//! runs on the pool, where its duration is measured again. A stall is thus bounded by the
//! budget, except for a single engine step that runs long on a text known to be quick, which can
//! happen once before the text is marked slow.
//!
//! What a "text" is belongs to the caller: Bolt keys by the query text of a RUN
//! ([`TextKey::of`]); the HTTP API keys by the request's path and body ([`TextKey::of_parts`]),
//! since its first step runs every statement of the body (and may commit) before it is measured.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::Deserialize;

/// Entries in the cost table (a power of two). A text that loses its entry to a collision only
/// runs on the pool once more.
pub const COST_ENTRIES: usize = 4096;

/// Work that runs inline gives its worker back after this long, and a step shorter than this
/// counts as quick (the default of [`Placement::new`]).
pub const INLINE_BUDGET: Duration = Duration::from_micros(500);

/// The placement policy, chosen in the configuration (`query_placement`) for Bolt and HTTP alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Deserialize)]
#[serde(try_from = "String")]
pub enum Policy {
    /// Inline when the text's last run was quick, else the pool.
    #[default]
    Adaptive,
    /// Always the pool.
    Pool,
    /// Always inline, without a budget: for measuring what the other two cost, not for serving.
    Inline,
}

impl std::str::FromStr for Policy {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.to_ascii_lowercase().as_str() {
            "adaptive" => Ok(Policy::Adaptive),
            "pool" => Ok(Policy::Pool),
            "inline" => Ok(Policy::Inline),
            _ => Err(format!(
                "unknown query placement `{text}`: expected adaptive, pool or inline"
            )),
        }
    }
}

impl TryFrom<String> for Policy {
    type Error = String;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl std::fmt::Display for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Policy::Adaptive => "adaptive",
            Policy::Pool => "pool",
            Policy::Inline => "inline",
        })
    }
}

/// Where to run one step of work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// On the connection's task; `budget` bounds a pull (none: run to the step's end).
    Inline { budget: Option<Duration> },
    /// On the query pool (see [`crate::pool`]).
    Pool,
}

/// Identifies a query text in the cost table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TextKey(u64);

impl TextKey {
    pub fn of(text: &str) -> TextKey {
        use std::hash::{BuildHasher, Hasher};
        let mut hasher = rustc_hash::FxBuildHasher.build_hasher();
        hasher.write(text.as_bytes());
        TextKey(hasher.finish())
    }

    /// The key of work named by several parts (an HTTP request's path and body). Each part's
    /// length is hashed before it, so moving bytes from one part to the next changes the key.
    pub fn of_parts(parts: &[&[u8]]) -> TextKey {
        use std::hash::{BuildHasher, Hasher};
        let mut hasher = rustc_hash::FxBuildHasher.build_hasher();
        for part in parts {
            hasher.write_usize(part.len());
            hasher.write(part);
        }
        TextKey(hasher.finish())
    }
}

/// The low bits of an entry hold the verdict, the rest the key's tag: two bits are enough for
/// the three states, and the remaining 62 tell texts sharing a slot apart.
const VERDICT_BITS: u64 = 0b11;
const QUICK: u64 = 1;
const SLOW: u64 = 2;

/// The placement policy with its memory of recent runs. Lock-free: one relaxed load per
/// decision, at most one store per measurement.
#[derive(Debug)]
pub struct Placement {
    policy: Policy,
    /// Steps shorter than this count as quick; inline steps are bounded by it.
    budget: Duration,
    entries: Box<[AtomicU64]>,
}

impl Placement {
    /// The policy with the standard budget, [`INLINE_BUDGET`].
    pub fn new(policy: Policy) -> Placement {
        Placement::with_budget(policy, INLINE_BUDGET)
    }

    /// The policy with a budget of its own (tests pin verdicts with a very long or a zero one).
    pub fn with_budget(policy: Policy, budget: Duration) -> Placement {
        Placement {
            policy,
            budget,
            entries: (0..COST_ENTRIES).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// How long a quick step may take, and how long inline work runs before it yields.
    pub fn budget(&self) -> Duration {
        self.budget
    }

    fn slot(&self, key: TextKey) -> &AtomicU64 {
        // Mask first, then narrow: COST_ENTRIES is a power of two, so the index is in range
        // and every bit of it comes from the key on any pointer width.
        let index = (key.0 & (COST_ENTRIES as u64 - 1)) as usize;
        &self.entries[index]
    }

    fn verdict(&self, key: TextKey) -> u64 {
        let entry = self.slot(key).load(Ordering::Relaxed);
        if entry & !VERDICT_BITS == key.0 & !VERDICT_BITS {
            entry & VERDICT_BITS
        } else {
            0
        }
    }

    /// Where the next step of work with this key runs.
    pub fn place(&self, key: TextKey) -> Place {
        match self.policy {
            Policy::Pool => Place::Pool,
            Policy::Inline => Place::Inline { budget: None },
            Policy::Adaptive if self.verdict(key) == QUICK => Place::Inline {
                budget: Some(self.budget),
            },
            Policy::Adaptive => Place::Pool,
        }
    }

    /// Records how long a step that produces results (a pull or discard, an HTTP request's
    /// first chunk) took: the step whose cost depends on the data, and so the one that decides.
    pub fn record(&self, key: TextKey, elapsed: Duration) {
        self.store(key, if elapsed < self.budget { QUICK } else { SLOW });
    }

    /// Records a step that only prepares (compiling and opening a query) and ran inline: it can
    /// show that a text is slow, never that it is quick, since the pulls that follow may run
    /// long. (On the pool its time is mostly the first compilation, which says nothing of the
    /// runs that find the plan cached.)
    pub fn note(&self, key: TextKey, elapsed: Duration) {
        if elapsed >= self.budget {
            self.store(key, SLOW);
        }
    }

    fn store(&self, key: TextKey, verdict: u64) {
        // The fixed policies never read the table: leave its cache lines alone.
        if self.policy != Policy::Adaptive {
            return;
        }
        let entry = (key.0 & !VERDICT_BITS) | verdict;
        let slot = self.slot(key);
        if slot.load(Ordering::Relaxed) != entry {
            slot.store(entry, Ordering::Relaxed);
        }
    }

    /// Whether this text is known to be quick (for work that belongs to it, like a commit).
    pub fn is_quick(&self, key: TextKey) -> bool {
        match self.policy {
            Policy::Pool => false,
            Policy::Inline => true,
            Policy::Adaptive => self.verdict(key) == QUICK,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_texts_go_to_the_pool_until_a_quick_run_is_seen() {
        let placement = Placement::new(Policy::Adaptive);
        let key = TextKey::of("RETURN 1");
        assert_eq!(placement.place(key), Place::Pool);
        placement.record(key, Duration::from_micros(20));
        assert_eq!(
            placement.place(key),
            Place::Inline {
                budget: Some(INLINE_BUDGET)
            }
        );
        placement.record(key, Duration::from_millis(30));
        assert_eq!(placement.place(key), Place::Pool);
        assert!(!placement.is_quick(key));
    }

    #[test]
    fn preparing_quickly_does_not_make_a_text_quick() {
        let placement = Placement::new(Policy::Adaptive);
        let key = TextKey::of("MATCH (n) RETURN count(n)");
        placement.note(key, Duration::from_micros(5));
        assert_eq!(placement.place(key), Place::Pool);
        placement.record(key, Duration::from_micros(5));
        placement.note(key, Duration::from_millis(5));
        assert_eq!(placement.place(key), Place::Pool);
    }

    #[test]
    fn fixed_policies_ignore_measurements() {
        let key = TextKey::of("MATCH (n) RETURN n");
        let pool = Placement::new(Policy::Pool);
        pool.record(key, Duration::from_micros(1));
        assert_eq!(pool.place(key), Place::Pool);
        let inline = Placement::new(Policy::Inline);
        inline.record(key, Duration::from_secs(1));
        assert_eq!(inline.place(key), Place::Inline { budget: None });
    }

    #[test]
    fn texts_sharing_a_slot_do_not_borrow_each_others_verdict() {
        let placement = Placement::new(Policy::Adaptive);
        let a = TextKey(5);
        let b = TextKey(5 + (COST_ENTRIES as u64) * 256);
        placement.record(a, Duration::from_micros(1));
        assert!(placement.is_quick(a));
        assert!(!placement.is_quick(b));
    }

    #[test]
    fn policies_parse() {
        for policy in [Policy::Adaptive, Policy::Pool, Policy::Inline] {
            assert_eq!(policy.to_string().parse::<Policy>(), Ok(policy));
        }
        assert!("sometimes".parse::<Policy>().is_err());
    }

    #[test]
    fn policies_parse_in_any_case_and_default_to_adaptive() {
        assert_eq!("POOL".parse::<Policy>(), Ok(Policy::Pool));
        assert_eq!("Inline".parse::<Policy>(), Ok(Policy::Inline));
        assert_eq!(
            Policy::try_from("adaptive".to_owned()),
            Ok(Policy::Adaptive)
        );
        assert_eq!(Policy::default(), Policy::Adaptive);
        let refused = "fast".parse::<Policy>().expect_err("unknown");
        assert!(refused.contains("adaptive, pool or inline"), "{refused}");
    }

    #[test]
    fn requests_run_inline_only_after_a_quick_run() {
        let placement = Placement::with_budget(Policy::Adaptive, Duration::from_micros(500));
        let key = TextKey::of_parts(&[b"/db/neo4j/tx/commit", b"{\"statements\":[]}"]);
        assert_eq!(placement.place(key), Place::Pool);
        placement.record(key, Duration::from_micros(40));
        assert!(placement.is_quick(key));
        let other = TextKey::of_parts(&[b"/db/neo4j/tx/commit", b"{\"statements\":[ ]}"]);
        assert_eq!(placement.place(other), Place::Pool);
        placement.record(key, Duration::from_millis(3));
        assert_eq!(placement.place(key), Place::Pool);
    }

    #[test]
    fn under_the_pool_policy_everything_runs_on_the_pool() {
        let placement = Placement::new(Policy::Pool);
        let key = TextKey::of_parts(&[b"/", b""]);
        placement.record(key, Duration::ZERO);
        assert_eq!(placement.place(key), Place::Pool);
        assert!(!placement.is_quick(key));
    }

    #[test]
    fn a_quick_text_runs_inline_within_the_placements_own_budget() {
        let budget = Duration::from_millis(2);
        let placement = Placement::with_budget(Policy::Adaptive, budget);
        assert_eq!(placement.budget(), budget);
        let key = TextKey::of("MATCH (n:Person {id: $id}) RETURN n");
        placement.record(key, Duration::from_millis(1));
        assert_eq!(
            placement.place(key),
            Place::Inline {
                budget: Some(budget)
            }
        );
        // A step that used the whole budget marks the text slow.
        placement.record(key, budget);
        assert_eq!(placement.place(key), Place::Pool);
        // A zero budget makes every step slow.
        let strict = Placement::with_budget(Policy::Adaptive, Duration::ZERO);
        strict.record(key, Duration::ZERO);
        assert_eq!(strict.place(key), Place::Pool);
    }

    #[test]
    fn parts_are_kept_apart_in_keys() {
        assert_ne!(
            TextKey::of_parts(&[b"ab", b"c"]),
            TextKey::of_parts(&[b"a", b"bc"])
        );
        assert_eq!(
            TextKey::of_parts(&[b"/db/neo4j/tx", b"{}"]),
            TextKey::of_parts(&[b"/db/neo4j/tx", b"{}"])
        );
    }
}
