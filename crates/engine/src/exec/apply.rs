//! Operators that run a nested plan once per input row: OPTIONAL MATCH, pattern predicates
//! (semi-apply), CALL subqueries, FOREACH; and UNION, which runs its branches in turn.

use std::sync::Arc;

use quiver_value::Value;

use super::{BoxCursor, Cursor, Cx};
use crate::error::{Error, Result};
use crate::ir::{Expr, Row};

/// Which apply operator a cursor runs.
pub(crate) enum Mode {
    /// OPTIONAL MATCH: an input row with no inner row passes once, these slots set to null.
    Optional(Arc<[usize]>),
    /// Pattern predicates: keep the input row when the inner plan has a row (or has none).
    Semi { negated: bool },
    /// CALL subqueries: every inner row for every input row.
    Apply,
    /// Unit subqueries: run the inner plan for its effects, pass the input row on once.
    Unit,
    /// FOREACH: run the inner plan once per list item, with the item in `slot`.
    Foreach { slot: usize, list: Arc<Expr> },
}

pub(crate) struct ApplyCursor {
    mode: Mode,
    input: BoxCursor,
    inner: BoxCursor,
    /// The inner plan is running for the current input row.
    active: bool,
    matched: bool,
}

impl ApplyCursor {
    pub fn boxed(mode: Mode, input: BoxCursor, inner: BoxCursor) -> BoxCursor {
        Box::new(ApplyCursor {
            mode,
            input,
            inner,
            active: false,
            matched: false,
        })
    }
}

impl Cursor for ApplyCursor {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        match &self.mode {
            Mode::Optional(null_slots) => loop {
                if self.active {
                    if self.inner.next(cx, row)? {
                        self.matched = true;
                        return Ok(true);
                    }
                    self.active = false;
                    if !self.matched {
                        for s in null_slots.iter() {
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
            Mode::Semi { negated } => loop {
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
            Mode::Apply => loop {
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
            Mode::Unit => {
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
            Mode::Foreach { slot, list } => {
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
