//! A node's test made only of comparisons of its properties with values fixed for the query
//! (`p.age >= 30 AND p.age <= 40`), answered from each property read once: a scan that asks it
//! of every node reads `age` once per node instead of once per comparison, and walks no
//! expression tree. Each comparison is the evaluator's own ([`super::binary`]), so a node
//! passes exactly when the expression would be true.

use quiver_storage::NodeId;
use quiver_value::Value;

use super::{Cx, Row, binary};
use crate::error::Result;
use crate::ir::{BinOp, ChainOp, Expr};
use crate::tokens::Token;

/// The comparisons of one property: the property stands left of each operator.
struct Compared<'e> {
    key: &'e Token,
    with: Vec<(BinOp, Value)>,
}

/// A conjunction of comparisons of the properties of the node bound at one slot.
pub(crate) struct PropertyTest<'e> {
    properties: Vec<Compared<'e>>,
}

impl<'e> PropertyTest<'e> {
    /// The test `test` of the node at `slot` is, when it is a conjunction (`AND`) of `=`,
    /// `<>`, `<`, `<=`, `>` or `>=` between one of the node's properties and a constant or a
    /// parameter (the values read here, once); `None` for any other expression.
    pub(crate) fn of(
        test: &'e Expr,
        slot: usize,
        row: &mut Row,
        cx: &mut Cx,
    ) -> Result<Option<Self>> {
        let mut conjuncts = Vec::new();
        if !conjunction(test, &mut conjuncts) {
            return Ok(None);
        }
        let mut properties: Vec<Compared<'e>> = Vec::new();
        for conjunct in conjuncts {
            let Expr::Binary(
                op @ (BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge),
                a,
                b,
            ) = conjunct
            else {
                return Ok(None);
            };
            let (key, value, op) = match (&**a, &**b) {
                (Expr::Property(base, key), value) if is_slot(base, slot) && fixed(value) => {
                    (key, value, *op)
                }
                (value, Expr::Property(base, key)) if is_slot(base, slot) && fixed(value) => {
                    (key, value, mirrored(*op))
                }
                _ => return Ok(None),
            };
            let value = value.eval(row, cx)?;
            match properties.iter_mut().find(|p| p.key.name == key.name) {
                Some(compared) => compared.with.push((op, value)),
                None => properties.push(Compared {
                    key,
                    with: vec![(op, value)],
                }),
            }
        }
        Ok(Some(PropertyTest { properties }))
    }

    /// Whether `node` passes: every comparison true (a missing property, or a comparison that
    /// is `null`, fails it, as a `WHERE` would). Each property is one db hit.
    pub(crate) fn passes(&self, cx: &mut Cx, node: NodeId) -> Result<bool> {
        for compared in &self.properties {
            let Some(key) = compared.key.key(&cx.storage) else {
                // A key no entity has ever had: the property is null everywhere.
                return Ok(false);
            };
            cx.db_hits += 1;
            let Some(value) = cx.tx.node_property(node, key)? else {
                return Ok(false);
            };
            for (op, with) in &compared.with {
                if !matches!(binary(*op, &value, with)?, Value::Bool(true)) {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }
}

/// Gathers the conjuncts of `e` (through `AND`s and chains of them); false when `e` joins
/// anything by another operator.
fn conjunction<'e>(e: &'e Expr, into: &mut Vec<&'e Expr>) -> bool {
    match e {
        Expr::And(a, b) => conjunction(a, into) && conjunction(b, into),
        Expr::Chain(first, rest) => {
            conjunction(first, into)
                && rest
                    .iter()
                    .all(|(op, e)| matches!(op, ChainOp::And) && conjunction(e, into))
        }
        other => {
            into.push(other);
            true
        }
    }
}

fn is_slot(e: &Expr, slot: usize) -> bool {
    matches!(e, Expr::Slot(s) if *s == slot)
}

/// A value the same for every row of the query.
fn fixed(e: &Expr) -> bool {
    matches!(e, Expr::Const(_) | Expr::Param(_))
}

/// The comparison `a op b` as `b op' a` (`=` and `<>` read the same both ways).
fn mirrored(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        same => same,
    }
}
