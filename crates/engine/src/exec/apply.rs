//! Operators that run a nested plan once per input row: OPTIONAL MATCH, pattern predicates
//! (semi-apply), CALL subqueries, FOREACH; and UNION, which runs its branches in turn.

use std::sync::Arc;

use quiver_value::Value;

use super::{BoxCursor, Cursor, Cx, mismatch};
use crate::error::{Error, Result};
use crate::eval::Row;
use crate::plan::{Op, PlanNode};

pub(crate) struct ApplyCursor {
    plan: Arc<PlanNode>,
    input: BoxCursor,
    inner: BoxCursor,
    /// The inner plan is running for the current input row.
    active: bool,
    matched: bool,
}

impl ApplyCursor {
    pub fn new(plan: Arc<PlanNode>, input: BoxCursor, inner: BoxCursor) -> Self {
        ApplyCursor {
            plan,
            input,
            inner,
            active: false,
            matched: false,
        }
    }
}

impl Cursor for ApplyCursor {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        match &self.plan.op {
            Op::Optional { null_slots, .. } => loop {
                if self.active {
                    if self.inner.next(cx, row)? {
                        self.matched = true;
                        return Ok(true);
                    }
                    self.active = false;
                    if !self.matched {
                        for s in null_slots {
                            row[*s] = Value::Null;
                        }
                        return Ok(true);
                    }
                }
                if !self.input.next(cx, row)? {
                    return Ok(false);
                }
                self.inner.reset();
                self.active = true;
                self.matched = false;
            },
            Op::SemiApply { negated, .. } => loop {
                if !self.input.next(cx, row)? {
                    return Ok(false);
                }
                cx.tick()?;
                self.inner.reset();
                let found = self.inner.next(cx, row)?;
                if found != *negated {
                    return Ok(true);
                }
            },
            Op::Apply { .. } => loop {
                if self.active {
                    if self.inner.next(cx, row)? {
                        return Ok(true);
                    }
                    self.active = false;
                }
                if !self.input.next(cx, row)? {
                    return Ok(false);
                }
                self.inner.reset();
                self.active = true;
            },
            Op::UnitApply { .. } => {
                if !self.input.next(cx, row)? {
                    return Ok(false);
                }
                self.inner.reset();
                let mut scratch = row.clone();
                while self.inner.next(cx, &mut scratch)? {
                    cx.tick()?;
                }
                Ok(true)
            }
            Op::Foreach { slot, list, .. } => {
                if !self.input.next(cx, row)? {
                    return Ok(false);
                }
                let items = match list.eval(row, cx)? {
                    Value::Null => return Ok(true),
                    Value::List(items) => items,
                    other => {
                        return Err(Error::type_error(format!(
                            "FOREACH expects a List, got {}",
                            other.value_type()
                        )));
                    }
                };
                let mut scratch = row.clone();
                for item in items.iter() {
                    cx.tick()?;
                    scratch[*slot] = item.clone();
                    self.inner.reset();
                    while self.inner.next(cx, &mut scratch)? {}
                }
                Ok(true)
            }
            _ => Err(mismatch("apply")),
        }
    }

    fn reset(&mut self) {
        self.active = false;
        self.matched = false;
        self.input.reset();
        self.inner.reset();
    }
}

pub(crate) struct Union {
    branches: Vec<BoxCursor>,
    at: usize,
}

impl Union {
    pub fn new(branches: Vec<BoxCursor>) -> Self {
        Union { branches, at: 0 }
    }
}

impl Cursor for Union {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        while let Some(b) = self.branches.get_mut(self.at) {
            if b.next(cx, row)? {
                return Ok(true);
            }
            self.at += 1;
        }
        Ok(false)
    }

    fn reset(&mut self) {
        self.at = 0;
        for b in &mut self.branches {
            b.reset();
        }
    }
}
