//! Aggregate functions: `count`, `sum`, `avg`, `min`, `max`, `collect`, `stDev`, `stDevP`,
//! `percentileCont`, `percentileDisc`, each with an optional `DISTINCT`.
//!
//! `null` inputs are skipped by every aggregate (`count(*)` counts rows, not values).

use std::collections::HashSet;

use quiver_value::{HashKey, Value, ops};

use super::{Cx, value_bytes};
use crate::error::{Error, Result, code};
use crate::ir::{AggKind, AggSpec, Row};

/// The running state of one aggregate in one group.
#[derive(Debug)]
pub(crate) struct Acc {
    seen: Option<HashSet<HashKey>>,
    state: State,
}

#[derive(Debug)]
enum State {
    Count(i64),
    Sum(Option<Value>),
    Avg { sum: Option<Value>, count: i64 },
    Extreme(Option<Value>),
    Collect(Vec<Value>),
    Numbers(Vec<f64>),
    Percentile { values: Vec<f64>, p: Option<f64> },
}

impl Acc {
    pub fn new(spec: &AggSpec) -> Acc {
        let state = match spec.kind {
            AggKind::CountStar | AggKind::Count => State::Count(0),
            AggKind::Sum => State::Sum(None),
            AggKind::Avg => State::Avg {
                sum: None,
                count: 0,
            },
            AggKind::Min | AggKind::Max => State::Extreme(None),
            AggKind::Collect => State::Collect(Vec::new()),
            AggKind::StDev | AggKind::StDevP => State::Numbers(Vec::new()),
            AggKind::PercentileCont | AggKind::PercentileDisc => State::Percentile {
                values: Vec::new(),
                p: None,
            },
        };
        Acc {
            seen: spec.distinct.then(HashSet::new),
            state,
        }
    }

    /// Feeds one input row.
    pub fn update(&mut self, spec: &AggSpec, row: &mut Row, cx: &mut Cx) -> Result<()> {
        if spec.kind == AggKind::CountStar {
            if let State::Count(n) = &mut self.state {
                *n += 1;
            }
            return Ok(());
        }
        let v = match &spec.arg {
            Some(e) => e.eval(row, cx)?,
            None => Value::Null,
        };
        if v.is_null() {
            return Ok(());
        }
        if let Some(seen) = &mut self.seen {
            let bytes = value_bytes(&v);
            if !seen.insert(HashKey(v.clone())) {
                return Ok(());
            }
            cx.reserve(bytes, "a DISTINCT aggregation's set")?;
        }
        match &mut self.state {
            State::Count(n) => *n += 1,
            State::Sum(sum) => {
                check_summable(spec.kind, &v)?;
                *sum = Some(match sum.take() {
                    None => v,
                    Some(s) => ops::add(&s, &v)?,
                });
            }
            State::Avg { sum, count } => {
                check_summable(spec.kind, &v)?;
                // Integers average as floats; summing them as floats also avoids overflow.
                let v = match v {
                    Value::Int(i) => Value::Float(i as f64),
                    other => other,
                };
                *sum = Some(match sum.take() {
                    None => v,
                    Some(s) => ops::add(&s, &v)?,
                });
                *count += 1;
            }
            State::Extreme(best) => {
                if beats(spec.kind, &v, best.as_ref()) {
                    *best = Some(v);
                }
            }
            State::Collect(items) => {
                cx.reserve(value_bytes(&v), "a collect() list")?;
                items.push(v);
            }
            State::Numbers(values) => {
                values.push(number(spec.kind, &v)?);
                cx.reserve(8, "an aggregation's values")?;
            }
            State::Percentile { values, p } => {
                values.push(number(spec.kind, &v)?);
                cx.reserve(8, "an aggregation's values")?;
                if p.is_none() {
                    let pv = match &spec.param {
                        Some(e) => e.eval(row, cx)?,
                        None => Value::Null,
                    };
                    *p = Some(percentile_param(&pv)?);
                }
            }
        }
        Ok(())
    }

    /// Adds what `other` gathered from other rows of the same group (another worker's
    /// share): only for aggregates the split decided are mergeable (not `DISTINCT`, not
    /// lists or statistics over every value, which keep their first form).
    pub fn merge(&mut self, spec: &AggSpec, other: Acc) -> Result<()> {
        match (&mut self.state, other.state) {
            (State::Count(n), State::Count(m)) => *n += m,
            (State::Sum(sum), State::Sum(more)) => *sum = add_partial(sum.take(), more)?,
            (
                State::Avg { sum, count },
                State::Avg {
                    sum: more,
                    count: more_count,
                },
            ) => {
                *sum = add_partial(sum.take(), more)?;
                *count += more_count;
            }
            (State::Extreme(best), State::Extreme(Some(v))) => {
                if beats(spec.kind, &v, best.as_ref()) {
                    *best = Some(v);
                }
            }
            (State::Extreme(_), State::Extreme(None)) => {}
            (state, _) => {
                return Err(Error::runtime(
                    quiver_status::Status::UnknownError,
                    None,
                    format!("partial aggregates of different kinds cannot merge: {state:?}"),
                ));
            }
        }
        Ok(())
    }

    /// The aggregate's result.
    pub fn finish(self, spec: &AggSpec) -> Result<Value> {
        Ok(match self.state {
            State::Count(n) => Value::Int(n),
            State::Sum(sum) => sum.unwrap_or(Value::Int(0)),
            State::Avg { sum, count } => match sum {
                None => Value::Null,
                Some(Value::Duration(d)) => Value::Duration(Box::new(d.div_float(count as f64)?)),
                Some(s) => ops::divide(&s, &Value::Float(count as f64))?,
            },
            State::Extreme(best) => best.unwrap_or(Value::Null),
            State::Collect(items) => Value::from(items),
            State::Numbers(values) => {
                let n = values.len();
                let population = spec.kind == AggKind::StDevP;
                if n == 0 || (n == 1 && !population) {
                    Value::Float(0.0)
                } else {
                    let mean = values.iter().sum::<f64>() / n as f64;
                    let ss: f64 = values.iter().map(|x| (x - mean) * (x - mean)).sum();
                    let denominator = if population { n } else { n - 1 };
                    Value::Float((ss / denominator as f64).sqrt())
                }
            }
            State::Percentile { mut values, p } => {
                let Some(p) = p else {
                    return Ok(Value::Null);
                };
                if values.is_empty() {
                    return Ok(Value::Null);
                }
                values.sort_by(f64::total_cmp);
                if spec.kind == AggKind::PercentileDisc {
                    let n = values.len();
                    let rank = if p == 0.0 {
                        0
                    } else {
                        ((p * n as f64).ceil() as usize).saturating_sub(1)
                    };
                    Value::Float(values[rank.min(n - 1)])
                } else {
                    let pos = p * (values.len() - 1) as f64;
                    let lower = pos.floor() as usize;
                    let upper = pos.ceil() as usize;
                    let frac = pos - lower as f64;
                    let lo = values[lower.min(values.len() - 1)];
                    let hi = values[upper.min(values.len() - 1)];
                    Value::Float(lo + (hi - lo) * frac)
                }
            }
        })
    }
}

/// Two partial sums added: either may be missing (no value reached that worker).
fn add_partial(a: Option<Value>, b: Option<Value>) -> Result<Option<Value>> {
    Ok(match (a, b) {
        (Some(a), Some(b)) => Some(ops::add(&a, &b)?),
        (a, b) => a.or(b),
    })
}

/// Whether `v` replaces `best` as the `min` or `max` so far: numbers by value, otherwise
/// Cypher's ORDER BY order; on a tie the first found stays.
fn beats(kind: AggKind, v: &Value, best: Option<&Value>) -> bool {
    let Some(best) = best else {
        return true;
    };
    let ord = quiver_value::order(v, best);
    if kind == AggKind::Min {
        ord.is_lt()
    } else {
        ord.is_gt()
    }
}

fn check_summable(kind: AggKind, v: &Value) -> Result<()> {
    match v {
        Value::Int(_) | Value::Float(_) | Value::Duration(_) => Ok(()),
        other => Err(Error::type_error(format!(
            "{}() expects numbers or durations, got {}",
            kind.name(),
            other.value_type()
        ))),
    }
}

fn number(kind: AggKind, v: &Value) -> Result<f64> {
    match v {
        Value::Int(i) => Ok(*i as f64),
        Value::Float(f) => Ok(*f),
        other => Err(Error::type_error(format!(
            "{}() expects numbers, got {}",
            kind.name(),
            other.value_type()
        ))),
    }
}

fn percentile_param(v: &Value) -> Result<f64> {
    let p = match v {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        other => {
            return Err(Error::type_error(format!(
                "The percentile must be a number, got {}",
                other.value_type()
            )));
        }
    };
    if (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err(Error::runtime(
            code::ARGUMENT_ERROR,
            Some("NumberOutOfRange"),
            format!("The percentile must be between 0.0 and 1.0, got {p}"),
        ))
    }
}
