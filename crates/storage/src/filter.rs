//! A test of one property against a constant, evaluated where the property is stored.
//!
//! A filter after an expand (`r.since >= $date`) read through [`crate::Transaction::
//! rel_property`] locks the relationship and builds a `Value` per edge, a string's allocation
//! included. [`PropTest`] reads the property's encoding in place instead: a string or an
//! integer compared to a constant of its kind costs no allocation. Its answers are those of
//! [`crate::values_equal`] and [`crate::compare_values`] on the built values, which
//! [`PropTest::keeps`] states and the tests below check kind by kind.

use std::cmp::Ordering;

use quiver_value::Value;

use crate::codec::ValueRef;
use crate::error::Result;
use crate::graph::prop_at;
use crate::ids::PropKeyId;
use crate::index::{compare, equal};

/// How a property is compared with the constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PropOp {
    Eq,
    Lt,
    Le,
    Gt,
    Ge,
}

/// Keeps an entity whose property `key` compares to `value` as `op` says. An absent property,
/// or one of a kind that does not compare with `value`, fails the test (Cypher's null).
#[derive(Clone, Debug)]
pub struct PropTest {
    pub key: PropKeyId,
    pub op: PropOp,
    pub value: Value,
}

impl PropTest {
    /// The test on a built value: the definition the in-place reading must agree with.
    pub fn keeps(&self, stored: Option<&Value>) -> bool {
        let Some(stored) = stored else {
            return false;
        };
        match self.op {
            PropOp::Eq => equal(stored, &self.value),
            op => compare(stored, &self.value).is_some_and(|o| op_holds(op, o)),
        }
    }

    /// The test on a property section (`[key varint][value]...`, sorted by key), reading the
    /// property in place.
    pub(crate) fn keeps_encoded(&self, props: &[u8]) -> Result<bool> {
        let Some(mut r) = prop_at(props, self.key.0)? else {
            return Ok(false);
        };
        Ok(match (r.value_ref()?, &self.value) {
            (ValueRef::Str(s), Value::String(c)) => op_holds(self.op, s.cmp(c)),
            (ValueRef::Int(i), Value::Int(c)) => op_holds(self.op, i.cmp(c)),
            (ValueRef::Str(s), _) => self.keeps(Some(&Value::from(s))),
            (ValueRef::Int(i), _) => self.keeps(Some(&Value::Int(i))),
            (ValueRef::Built(v), _) => self.keeps(Some(&v)),
        })
    }
}

fn op_holds(op: PropOp, o: Ordering) -> bool {
    match op {
        PropOp::Eq => o == Ordering::Equal,
        PropOp::Lt => o == Ordering::Less,
        PropOp::Le => o != Ordering::Greater,
        PropOp::Gt => o == Ordering::Greater,
        PropOp::Ge => o != Ordering::Less,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::put_props;

    #[test]
    fn reading_in_place_agrees_with_the_built_values() {
        let values = [
            Value::Int(-3),
            Value::Int(7),
            Value::Float(7.0),
            Value::Float(-0.5),
            Value::from("2019-01-01"),
            Value::from("2019-01-02"),
            Value::from(""),
            Value::from("0123456789abcdef01234567"),
            Value::from("0123456789abcdef01234568"),
            Value::Bool(true),
            Value::from(vec![Value::Int(1), Value::Int(2)]),
        ];
        let ops = [PropOp::Eq, PropOp::Lt, PropOp::Le, PropOp::Gt, PropOp::Ge];
        for stored in &values {
            // The property among others before and after it, and absent.
            let mut with = Vec::new();
            put_props(
                &mut with,
                &[
                    (1, Value::Int(0)),
                    (4, stored.clone()),
                    (9, Value::from("z")),
                ],
            );
            let mut without = Vec::new();
            put_props(&mut without, &[(1, Value::Int(0)), (9, Value::from("z"))]);
            for constant in &values {
                for op in ops {
                    let t = PropTest {
                        key: PropKeyId(4),
                        op,
                        value: constant.clone(),
                    };
                    let want = t.keeps(Some(stored));
                    assert_eq!(
                        t.keeps_encoded(&with).unwrap(),
                        want,
                        "{stored:?} {op:?} {constant:?}"
                    );
                    assert!(!t.keeps_encoded(&without).unwrap());
                    assert!(!t.keeps(None));
                }
            }
        }
        // Spot checks of the definition itself.
        let ge = |v: Value| PropTest {
            key: PropKeyId(0),
            op: PropOp::Ge,
            value: v,
        };
        assert!(ge(Value::from("2019-01-01")).keeps(Some(&Value::from("2020-05-05"))));
        assert!(!ge(Value::from("2019-01-01")).keeps(Some(&Value::Int(3))));
        assert!(ge(Value::Int(3)).keeps(Some(&Value::Float(3.5))));
    }
}
