//! Correctness is part of the measurement: every window is verified before its numbers are
//! kept, and a window that fails fails the run.
//!
//! The rules:
//! - every unit owed succeeds, exactly (except on a saturation rung, where the refused
//!   connections' units are lost on purpose and `queries.ok` is an observation);
//! - every row passes its check, and each stream carries exactly the rows owed;
//! - under an explicit shape the server's transaction counters must show the transactions:
//!   `opened == committed + rolled_back`, `abandoned == 0`, `committed ==` successful units —
//!   and a zero `opened` fails the run, since a claim about the transaction path that never
//!   ran would be a non-observation dressed up as an exoneration;
//! - a write shape moves the committed `:Counter` total by exactly one per successful write,
//!   read back between windows.
//!
//! A rule whose evidence the target cannot give (a peer server exposes no counters) is listed
//! as unverified, never silently passed.

use serde::{Deserialize, Serialize};

use crate::workload::Workload;

/// Transaction counter deltas across one window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxDelta {
    pub opened: u64,
    pub committed: u64,
    pub rolled_back: u64,
    pub abandoned: u64,
}

/// What a window observed, as far as the rules care.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WindowFacts {
    pub workload: Option<Workload>,
    /// A rung that offers more connections than the server admits.
    pub saturation: bool,
    pub units_owed: u64,
    pub units_ok: u64,
    /// Offered connections that never got past authentication.
    pub conn_failed: u64,
    /// Client-side errors of every class (dial, handshake, I/O, timeouts, refusals). Under a
    /// time budget a connection that fails or dies owes nothing, so these are what show it.
    pub errors: u64,
    /// Units that ran and failed (a FAILURE, or a row that failed its check).
    pub units_failed: u64,
    pub writes_ok: u64,
    /// Rows every successful unit carries.
    pub rows_per_unit: u64,
    pub rows_ok: u64,
    pub rows_bad: u64,
    /// `None`: the target exposes no transaction counters.
    pub tx: Option<TxDelta>,
    /// `None`: not read (no write shape, or no way to read it).
    pub counter_delta: Option<i64>,
}

/// The outcome of verifying one window.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub checked: Vec<String>,
    pub unverified: Vec<String>,
    pub violations: Vec<String>,
}

impl Verdict {
    pub fn passed(&self) -> bool {
        self.violations.is_empty()
    }
}

pub fn verify(facts: &WindowFacts) -> Verdict {
    let mut v = Verdict::default();
    let workload = facts.workload.unwrap_or(Workload::Count);

    if facts.saturation {
        v.unverified
            .push("completeness (queries.ok is an observation on a saturation rung)".to_owned());
    } else {
        v.checked.push("completeness".to_owned());
        if facts.units_ok != facts.units_owed || facts.units_failed != 0 {
            v.violations.push(format!(
                "{} of {} units succeeded ({} failed)",
                facts.units_ok, facts.units_owed, facts.units_failed
            ));
        }
        if facts.units_ok == 0 {
            v.violations.push("no unit succeeded".to_owned());
        }
        if facts.conn_failed != 0 {
            v.violations.push(format!(
                "{} offered connections never established",
                facts.conn_failed
            ));
        }
        if facts.errors != 0 {
            v.violations
                .push(format!("{} client-side errors", facts.errors));
        }
    }

    v.checked.push("rows".to_owned());
    if facts.rows_bad != 0 {
        v.violations.push(format!(
            "{} rows failed their check or a stream was short",
            facts.rows_bad
        ));
    }
    let rows_owed = facts.units_ok.saturating_mul(facts.rows_per_unit);
    let rows_fit = if facts.saturation || facts.units_failed > 0 {
        facts.rows_ok >= rows_owed
    } else {
        facts.rows_ok == rows_owed
    };
    if !rows_fit {
        v.violations.push(format!(
            "{} rows for {} units of {} rows",
            facts.rows_ok, facts.units_ok, facts.rows_per_unit
        ));
    }

    match facts.tx {
        None => v
            .unverified
            .push("transaction counters (the target exposes none)".to_owned()),
        Some(tx) => {
            v.checked.push("transaction counters".to_owned());
            if tx.opened != tx.committed + tx.rolled_back {
                v.violations.push(format!(
                    "tx.opened={} but committed={} + rolled_back={}",
                    tx.opened, tx.committed, tx.rolled_back
                ));
            }
            if tx.abandoned != 0 {
                v.violations.push(format!("tx.abandoned={}", tx.abandoned));
            }
            if workload.explicit() {
                if tx.opened == 0 {
                    v.violations.push(
                        "tx.opened=0 under an explicit shape: the transaction path never ran"
                            .to_owned(),
                    );
                } else if tx.committed != facts.units_ok {
                    v.violations.push(format!(
                        "tx.committed={} for {} successful units",
                        tx.committed, facts.units_ok
                    ));
                }
            } else if tx.opened != 0 && tx.committed != facts.units_ok {
                // Auto-commit transactions counted by the server: one per successful unit.
                v.violations.push(format!(
                    "tx.committed={} for {} auto-commit units",
                    tx.committed, facts.units_ok
                ));
            }
        }
    }

    if workload.writes() {
        match facts.counter_delta {
            None => v
                .unverified
                .push("counter total (not readable on this target)".to_owned()),
            Some(delta) => {
                v.checked.push("counter total".to_owned());
                if delta != facts.writes_ok as i64 {
                    v.violations.push(format!(
                        "the :Counter total moved by {delta} for {} successful writes",
                        facts.writes_ok
                    ));
                }
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean(workload: Workload) -> WindowFacts {
        let explicit = workload.explicit();
        WindowFacts {
            workload: Some(workload),
            saturation: false,
            units_owed: 100,
            units_ok: 100,
            conn_failed: 0,
            errors: 0,
            units_failed: 0,
            writes_ok: if workload.writes() { 100 } else { 0 },
            rows_per_unit: 1,
            rows_ok: 100,
            rows_bad: 0,
            tx: Some(if explicit {
                TxDelta {
                    opened: 100,
                    committed: 100,
                    rolled_back: 0,
                    abandoned: 0,
                }
            } else {
                TxDelta::default()
            }),
            counter_delta: workload.writes().then_some(100),
        }
    }

    #[test]
    fn clean_windows_pass() {
        for w in [
            Workload::Count,
            Workload::Return1,
            Workload::Txread,
            Workload::Records,
            Workload::Txwrite,
        ] {
            let verdict = verify(&clean(w));
            assert!(verdict.passed(), "{w:?}: {:?}", verdict.violations);
            assert!(verdict.unverified.is_empty(), "{w:?}");
        }
    }

    #[test]
    fn a_time_budget_window_fails_on_dead_connections_and_on_nothing_done() {
        // Under --duration-ms a connection that never opens owes nothing: the
        // completeness rule alone would pass it.
        let mut f = clean(Workload::Count);
        f.conn_failed = 1;
        f.errors = 1;
        let verdict = verify(&f);
        assert_eq!(verdict.violations.len(), 2, "{:?}", verdict.violations);
        let mut f = clean(Workload::Count);
        f.errors = 3;
        assert!(!verify(&f).passed());
        let mut f = clean(Workload::Count);
        (f.units_owed, f.units_ok, f.rows_ok) = (0, 0, 0);
        assert!(!verify(&f).passed());
        // A saturation rung expects refused connections.
        let mut f = clean(Workload::Count);
        f.saturation = true;
        f.conn_failed = 128;
        f.errors = 128;
        assert!(verify(&f).passed(), "{:?}", verify(&f).violations);
    }

    #[test]
    fn a_lost_or_failed_unit_fails_the_window() {
        let mut f = clean(Workload::Count);
        f.units_ok = 99;
        f.rows_ok = 99;
        assert!(!verify(&f).passed());
        let mut f = clean(Workload::Count);
        f.units_failed = 1;
        assert!(!verify(&f).passed());
    }

    #[test]
    fn row_counts_are_exact() {
        let mut f = clean(Workload::Records);
        f.rows_per_unit = 10;
        f.rows_ok = 999;
        assert!(!verify(&f).passed(), "one row short");
        f.rows_ok = 1000;
        assert!(verify(&f).passed());
        f.rows_bad = 1;
        assert!(!verify(&f).passed(), "a bad row");
    }

    #[test]
    fn explicit_shapes_need_the_transaction_counters() {
        let mut f = clean(Workload::Txread);
        f.tx = Some(TxDelta::default());
        let verdict = verify(&f);
        assert!(
            verdict.violations.iter().any(|m| m.contains("tx.opened=0")),
            "{verdict:?}"
        );
        let mut f = clean(Workload::Txread);
        f.tx = Some(TxDelta {
            opened: 100,
            committed: 99,
            rolled_back: 0,
            abandoned: 0,
        });
        assert!(!verify(&f).passed(), "unbalanced");
        let mut f = clean(Workload::Txwrite);
        f.tx = Some(TxDelta {
            opened: 101,
            committed: 100,
            rolled_back: 1,
            abandoned: 1,
        });
        assert!(!verify(&f).passed(), "abandoned");
        // A target without counters: unverified, not passed silently.
        let mut f = clean(Workload::Txread);
        f.tx = None;
        let verdict = verify(&f);
        assert!(verdict.passed());
        assert_eq!(verdict.unverified.len(), 1);
    }

    #[test]
    fn auto_commit_counted_or_not_but_never_wrong() {
        let mut f = clean(Workload::Count);
        f.tx = Some(TxDelta {
            opened: 100,
            committed: 100,
            rolled_back: 0,
            abandoned: 0,
        });
        assert!(verify(&f).passed(), "auto-commit counted");
        f.tx = Some(TxDelta {
            opened: 50,
            committed: 50,
            rolled_back: 0,
            abandoned: 0,
        });
        assert!(!verify(&f).passed(), "half counted");
    }

    #[test]
    fn writes_move_the_counter_by_exactly_one_each() {
        let mut f = clean(Workload::Txwrite);
        f.counter_delta = Some(99);
        assert!(!verify(&f).passed());
        f.counter_delta = Some(101);
        assert!(!verify(&f).passed());
        f.counter_delta = None;
        let verdict = verify(&f);
        assert!(verdict.passed() && !verdict.unverified.is_empty());
    }

    #[test]
    fn saturation_relaxes_completeness_only() {
        let mut f = clean(Workload::Count);
        f.saturation = true;
        f.units_ok = 50;
        f.rows_ok = 50;
        assert!(verify(&f).passed());
        f.rows_bad = 1;
        assert!(
            !verify(&f).passed(),
            "accepted connections still answer right"
        );
    }
}
