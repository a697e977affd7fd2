//! Model-based test: random interleavings of concurrent write transactions (some rolled back,
//! some conflicting) and snapshot readers, checked against an oracle of plain BTreeMaps.
//!
//! The oracle keeps every committed state by commit number, each write transaction's working
//! state (its snapshot plus its own changes) and what it saw at its last command boundary, and
//! the first-updater-wins bookkeeping (who owns an entity, when it was last committed). Every
//! storage result (value, error kind) must match the oracle's prediction.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use proptest::prelude::*;
use quiver_storage::*;
use quiver_value::Value;

#[derive(Clone, Debug, Default, PartialEq)]
struct NodeState {
    labels: BTreeSet<u32>,
    props: BTreeMap<u32, i64>,
}

#[derive(Clone, Debug, PartialEq)]
struct RelState {
    start: u64,
    end: u64,
    ty: u32,
    prop: Option<i64>,
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Graph {
    nodes: BTreeMap<u64, NodeState>,
    rels: BTreeMap<u64, RelState>,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Ent {
    N(u64),
    R(u64),
}

struct WriteTx {
    tx: Transaction,
    snapshot: u64,
    work: Graph,
    seen: Graph,
    touched: BTreeSet<Ent>,
}

#[derive(Clone, Debug)]
enum Op {
    Begin(usize),
    Commit(usize),
    Rollback(usize),
    Advance(usize),
    CreateNode(usize, u8, Option<(u8, i64)>),
    SetProp(usize, usize, u8, Option<i64>),
    Label(usize, usize, u8, bool),
    DeleteNode(usize, usize, bool),
    CreateRel(usize, usize, usize, u8),
    DeleteRel(usize, usize),
    SetRelProp(usize, usize, Option<i64>),
    OpenReader(usize),
    CheckReader(usize),
    CloseReader(usize),
    CheckTx(usize),
    Gc,
}

const TXS: usize = 3;
const READERS: usize = 2;

fn op() -> impl Strategy<Value = Op> {
    let s = 0..TXS;
    let idx = 0..64usize;
    let val = prop::option::of(0..3i64);
    prop_oneof![
        2 => s.clone().prop_map(Op::Begin),
        1 => s.clone().prop_map(Op::Commit),
        1 => s.clone().prop_map(Op::Rollback),
        1 => s.clone().prop_map(Op::Advance),
        3 => (s.clone(), 0..4u8, prop::option::of((0..2u8, 0..3i64)))
            .prop_map(|(t, l, p)| Op::CreateNode(t, l, p)),
        3 => (s.clone(), idx.clone(), 0..2u8, val.clone())
            .prop_map(|(t, n, k, v)| Op::SetProp(t, n, k, v)),
        2 => (s.clone(), idx.clone(), 0..2u8, any::<bool>())
            .prop_map(|(t, n, l, a)| Op::Label(t, n, l, a)),
        1 => (s.clone(), idx.clone(), any::<bool>()).prop_map(|(t, n, d)| Op::DeleteNode(t, n, d)),
        3 => (s.clone(), idx.clone(), idx.clone(), 0..2u8)
            .prop_map(|(t, a, b, ty)| Op::CreateRel(t, a, b, ty)),
        1 => (s.clone(), idx.clone()).prop_map(|(t, r)| Op::DeleteRel(t, r)),
        1 => (s.clone(), idx.clone(), val).prop_map(|(t, r, v)| Op::SetRelProp(t, r, v)),
        1 => (0..READERS).prop_map(Op::OpenReader),
        2 => (0..READERS).prop_map(Op::CheckReader),
        1 => (0..READERS).prop_map(Op::CloseReader),
        2 => s.prop_map(Op::CheckTx),
        1 => Just(Op::Gc),
    ]
}

struct Model {
    db: Arc<Storage>,
    labels: Vec<LabelId>,
    keys: Vec<PropKeyId>,
    types: Vec<RelTypeId>,
    /// Committed states by commit number.
    history: Vec<Graph>,
    /// Uncommitted owner (tx slot) of each entity.
    owner: BTreeMap<Ent, usize>,
    /// Commit number of each entity's last committed change.
    last_commit: BTreeMap<Ent, u64>,
    node_ids: Vec<u64>,
    rel_ids: Vec<u64>,
    txs: Vec<Option<WriteTx>>,
    readers: Vec<Option<(Transaction, u64)>>,
}

#[derive(Debug, PartialEq)]
enum Outcome {
    Ok,
    Conflict,
    NotFound,
    Connected,
}

/// The ids of the oracle's entities for which `keep` holds, in id order.
fn ids_where<T>(entities: &BTreeMap<u64, T>, keep: impl Fn(&T) -> bool) -> Vec<u64> {
    entities
        .iter()
        .filter(|(_, e)| keep(e))
        .map(|(id, _)| *id)
        .collect()
}

/// Ids as a seek returns them (in key order), sorted to compare with the oracle's.
fn sorted(ids: impl Iterator<Item = u64>) -> Vec<u64> {
    let mut ids: Vec<u64> = ids.collect();
    ids.sort_unstable();
    ids
}

fn outcome<T>(r: &Result<T, Error>) -> Outcome {
    match r {
        Ok(_) => Outcome::Ok,
        Err(Error::WriteConflict { .. }) => Outcome::Conflict,
        Err(Error::EntityNotFound { .. }) => Outcome::NotFound,
        Err(Error::DeleteConnectedNode { .. }) => Outcome::Connected,
        Err(e) => panic!("unexpected error {e:?}"),
    }
}

impl Model {
    fn new() -> Self {
        let db = Storage::new();
        let labels = (0..2)
            .map(|i| db.get_or_create_label(&format!("L{i}")).unwrap())
            .collect();
        let keys: Vec<PropKeyId> = (0..2)
            .map(|i| db.get_or_create_property_key(&format!("p{i}")).unwrap())
            .collect();
        let types = (0..2)
            .map(|i| db.get_or_create_rel_type(&format!("T{i}")).unwrap())
            .collect();
        let s = db.begin_write();
        s.create_index(LabelId(0), keys[0], None).unwrap();
        // A composite node index and a relationship index, checked like the single-key one.
        s.create_schema_index(
            IndexSpec {
                relationship: false,
                token: 0,
                keys: vec![keys[0].0, keys[1].0],
                kind: IndexKind::Range,
            },
            None,
        )
        .unwrap();
        s.create_schema_index(
            IndexSpec {
                relationship: true,
                token: 0,
                keys: vec![keys[0].0],
                kind: IndexKind::Range,
            },
            None,
        )
        .unwrap();
        s.commit().unwrap();
        let history = vec![Graph::default(), Graph::default()];
        Model {
            db,
            labels,
            keys,
            types,
            history,
            owner: BTreeMap::new(),
            last_commit: BTreeMap::new(),
            node_ids: Vec::new(),
            rel_ids: Vec::new(),
            txs: (0..TXS).map(|_| None).collect(),
            readers: (0..READERS).map(|_| None).collect(),
        }
    }

    fn latest(&self) -> &Graph {
        self.history.last().unwrap()
    }

    /// Predicts the storage's verdict for writing `e` in tx `slot`.
    fn check(&self, slot: usize, e: Ent) -> Outcome {
        let t = self.txs[slot].as_ref().unwrap();
        let exists = match e {
            Ent::N(n) => t.work.nodes.contains_key(&n),
            Ent::R(r) => t.work.rels.contains_key(&r),
        };
        let writable = match self.owner.get(&e) {
            Some(o) if *o != slot => false,
            Some(_) => true,
            None => self.last_commit.get(&e).is_none_or(|c| *c <= t.snapshot),
        };
        if !exists {
            Outcome::NotFound
        } else if !writable {
            Outcome::Conflict
        } else {
            Outcome::Ok
        }
    }

    fn own(&mut self, slot: usize, e: Ent) {
        self.owner.insert(e, slot);
        self.txs[slot].as_mut().unwrap().touched.insert(e);
    }

    fn pick(ids: &[u64], i: usize) -> u64 {
        if ids.is_empty() {
            1 << 30
        } else {
            ids[i % ids.len()]
        }
    }

    fn delete_rel(&mut self, slot: usize, r: u64) -> Outcome {
        let o = self.check(slot, Ent::R(r));
        if o != Outcome::Ok {
            return o;
        }
        let rel = self.txs[slot].as_ref().unwrap().work.rels[&r].clone();
        for n in [rel.start, rel.end] {
            let o = self.check(slot, Ent::N(n));
            if o != Outcome::Ok {
                return o;
            }
        }
        self.txs[slot].as_mut().unwrap().work.rels.remove(&r);
        self.own(slot, Ent::R(r));
        self.own(slot, Ent::N(rel.start));
        self.own(slot, Ent::N(rel.end));
        Outcome::Ok
    }

    /// Commits slot `s` and records the new committed state.
    fn commit(&mut self, s: usize) {
        let Some(t) = self.txs[s].take() else { return };
        let info = t.tx.commit().unwrap();
        if !info.changed {
            assert!(t.touched.is_empty());
            return;
        }
        let mut g = self.latest().clone();
        for e in &t.touched {
            match *e {
                Ent::N(n) => match t.work.nodes.get(&n) {
                    Some(v) => {
                        g.nodes.insert(n, v.clone());
                    }
                    None => {
                        g.nodes.remove(&n);
                    }
                },
                Ent::R(r) => match t.work.rels.get(&r) {
                    Some(v) => {
                        g.rels.insert(r, v.clone());
                    }
                    None => {
                        g.rels.remove(&r);
                    }
                },
            }
            self.owner.remove(e);
            self.last_commit.insert(*e, info.commit);
        }
        assert_eq!(info.commit as usize, self.history.len());
        self.history.push(g);
    }

    /// Creates a node in slot `s` with the labels of `mask` and the property `prop`.
    fn create_node(&mut self, s: usize, mask: u8, prop: Option<(u8, i64)>) {
        let Some(t) = self.txs[s].as_mut() else {
            return;
        };
        let labels: Vec<LabelId> = (0..2)
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| self.labels[i])
            .collect();
        let props: Vec<(PropKeyId, Value)> = prop
            .iter()
            .map(|(k, v)| (self.keys[*k as usize], Value::Int(*v)))
            .collect();
        let id = t.tx.create_node(&labels, &props).unwrap().0;
        t.work.nodes.insert(
            id,
            NodeState {
                labels: labels.iter().map(|l| l.0).collect(),
                props: prop.iter().map(|(k, v)| (u32::from(*k), *v)).collect(),
            },
        );
        self.node_ids.push(id);
        self.own(s, Ent::N(id));
    }

    /// Sets (or removes) a property of a node in slot `s`.
    fn set_prop(&mut self, s: usize, i: usize, k: u8, v: Option<i64>) {
        if self.txs[s].is_none() {
            return;
        }
        let n = Self::pick(&self.node_ids, i);
        let expect = self.check(s, Ent::N(n));
        let t = self.txs[s].as_ref().unwrap();
        let key = self.keys[k as usize];
        let r =
            t.tx.set_node_property(NodeId(n), key, v.map_or(Value::Null, Value::Int));
        assert_eq!(outcome(&r), expect, "set property on {n}");
        if expect == Outcome::Ok {
            let t = self.txs[s].as_mut().unwrap();
            let props = &mut t.work.nodes.get_mut(&n).unwrap().props;
            let old = match v {
                Some(v) => props.insert(u32::from(k), v),
                None => props.remove(&u32::from(k)),
            };
            assert_eq!(r.unwrap(), old.map(Value::Int));
            if old.is_some() || v.is_some() {
                self.own(s, Ent::N(n));
            }
        }
    }

    /// Adds or removes a label of a node in slot `s`.
    fn label(&mut self, s: usize, i: usize, l: u8, add: bool) {
        if self.txs[s].is_none() {
            return;
        }
        let n = Self::pick(&self.node_ids, i);
        let expect = self.check(s, Ent::N(n));
        let t = self.txs[s].as_ref().unwrap();
        let label = self.labels[l as usize];
        let r = if add {
            t.tx.add_label(NodeId(n), label)
        } else {
            t.tx.remove_label(NodeId(n), label)
        };
        assert_eq!(outcome(&r), expect);
        if expect == Outcome::Ok {
            let t = self.txs[s].as_mut().unwrap();
            let labels = &mut t.work.nodes.get_mut(&n).unwrap().labels;
            let changed = if add {
                labels.insert(label.0)
            } else {
                labels.remove(&label.0)
            };
            assert_eq!(r.unwrap(), changed);
            if changed {
                self.own(s, Ent::N(n));
            }
        }
    }

    /// Deletes a node in slot `s`, detaching it first if asked.
    fn delete_node(&mut self, s: usize, i: usize, detach: bool) {
        if self.txs[s].is_none() {
            return;
        }
        let n = Self::pick(&self.node_ids, i);
        let mut expect = self.check(s, Ent::N(n));
        let t = self.txs[s].as_ref().unwrap();
        let mut rels: Vec<u64> = t
            .work
            .rels
            .iter()
            .filter(|(_, r)| r.start == n || r.end == n)
            .map(|(id, _)| *id)
            .collect();
        rels.sort_unstable();
        if detach {
            let r = t.tx.detach_delete_node(NodeId(n));
            if expect == Outcome::Ok {
                for rel in &rels {
                    expect = self.delete_rel(s, *rel);
                    if expect != Outcome::Ok {
                        break;
                    }
                }
            }
            assert_eq!(outcome(&r), expect, "detach delete {n}");
        } else {
            if expect == Outcome::Ok && !rels.is_empty() {
                expect = Outcome::Connected;
            }
            let r = t.tx.delete_node(NodeId(n));
            assert_eq!(outcome(&r), expect, "delete {n}");
        }
        if expect == Outcome::Ok {
            self.txs[s].as_mut().unwrap().work.nodes.remove(&n);
            self.own(s, Ent::N(n));
        }
    }

    /// Creates a relationship between two nodes in slot `s`.
    fn create_rel(&mut self, s: usize, a: usize, b: usize, ty: u8) {
        if self.txs[s].is_none() {
            return;
        }
        let (a, b) = (Self::pick(&self.node_ids, a), Self::pick(&self.node_ids, b));
        let mut expect = self.check(s, Ent::N(a));
        if expect == Outcome::Ok {
            expect = self.check(s, Ent::N(b));
        }
        let t = self.txs[s].as_ref().unwrap();
        let ty = self.types[ty as usize];
        let r = t.tx.create_relationship(NodeId(a), NodeId(b), ty, &[]);
        assert_eq!(outcome(&r), expect, "create rel {a}->{b}");
        if let Ok(id) = r {
            self.txs[s].as_mut().unwrap().work.rels.insert(
                id.0,
                RelState {
                    start: a,
                    end: b,
                    ty: ty.0,
                    prop: None,
                },
            );
            self.rel_ids.push(id.0);
            self.own(s, Ent::R(id.0));
            self.own(s, Ent::N(a));
            self.own(s, Ent::N(b));
        }
    }

    /// Sets (or removes) the property of a relationship in slot `s`.
    fn set_rel_prop(&mut self, s: usize, i: usize, v: Option<i64>) {
        if self.txs[s].is_none() {
            return;
        }
        let r = Self::pick(&self.rel_ids, i);
        let expect = self.check(s, Ent::R(r));
        let t = self.txs[s].as_ref().unwrap();
        let res = t.tx.set_relationship_property(
            RelId(r),
            self.keys[0],
            v.map_or(Value::Null, Value::Int),
        );
        assert_eq!(outcome(&res), expect);
        if expect == Outcome::Ok {
            let t = self.txs[s].as_mut().unwrap();
            let rel = t.work.rels.get_mut(&r).unwrap();
            let old = std::mem::replace(&mut rel.prop, v);
            assert_eq!(res.unwrap(), old.map(Value::Int));
            if old.is_some() || v.is_some() {
                self.own(s, Ent::R(r));
            }
        }
    }

    fn apply(&mut self, op: Op) {
        let db = self.db.clone();
        match op {
            Op::Begin(s) => {
                if self.txs[s].is_none() {
                    let tx = db.begin_write();
                    let snapshot = tx.snapshot();
                    let g = self.history[snapshot as usize].clone();
                    self.txs[s] = Some(WriteTx {
                        tx,
                        snapshot,
                        work: g.clone(),
                        seen: g,
                        touched: BTreeSet::new(),
                    });
                }
            }
            Op::Commit(s) => self.commit(s),
            Op::Rollback(s) => {
                let Some(t) = self.txs[s].take() else { return };
                t.tx.rollback().unwrap();
                for e in &t.touched {
                    self.owner.remove(e);
                }
            }
            Op::Advance(s) => {
                if let Some(t) = self.txs[s].as_mut() {
                    t.tx.advance_command().unwrap();
                    t.seen = t.work.clone();
                }
            }
            Op::CreateNode(s, mask, prop) => self.create_node(s, mask, prop),
            Op::SetProp(s, i, k, v) => self.set_prop(s, i, k, v),
            Op::Label(s, i, l, add) => self.label(s, i, l, add),
            Op::DeleteNode(s, i, detach) => self.delete_node(s, i, detach),
            Op::CreateRel(s, a, b, ty) => self.create_rel(s, a, b, ty),
            Op::DeleteRel(s, i) => {
                if self.txs[s].is_none() {
                    return;
                }
                let r = Self::pick(&self.rel_ids, i);
                let res = self.txs[s]
                    .as_ref()
                    .unwrap()
                    .tx
                    .delete_relationship(RelId(r));
                let expect = self.delete_rel(s, r);
                assert_eq!(outcome(&res), expect, "delete rel {r}");
            }
            Op::SetRelProp(s, i, v) => self.set_rel_prop(s, i, v),
            Op::OpenReader(i) => {
                if self.readers[i].is_none() {
                    let tx = db.begin_read();
                    let s = tx.snapshot();
                    self.readers[i] = Some((tx, s));
                }
            }
            Op::CheckReader(i) => {
                if let Some((tx, s)) = &self.readers[i] {
                    self.verify(tx, &self.history[*s as usize]);
                }
            }
            Op::CloseReader(i) => {
                if let Some((tx, _)) = self.readers[i].take() {
                    tx.commit().unwrap();
                }
            }
            Op::CheckTx(s) => {
                if let Some(t) = &self.txs[s] {
                    self.verify(&t.tx, &t.seen);
                }
            }
            Op::Gc => {
                db.gc();
            }
        }
    }

    /// Every node id handed out so far (and one past them) reads as the oracle's graph says:
    /// existence, labels, properties, adjacency and degree.
    fn verify_nodes(&self, tx: &Transaction, g: &Graph) {
        let max_node = self.node_ids.iter().max().map_or(0, |m| m + 1);
        for n in 0..max_node + 1 {
            let want = g.nodes.get(&n);
            assert_eq!(
                tx.node_exists(NodeId(n)).unwrap(),
                want.is_some(),
                "node {n}"
            );
            let Some(want) = want else {
                assert!(tx.node_labels(NodeId(n)).is_err());
                continue;
            };
            let labels: BTreeSet<u32> = tx
                .node_labels(NodeId(n))
                .unwrap()
                .iter()
                .map(|l| l.0)
                .collect();
            assert_eq!(labels, want.labels, "labels of {n}");
            let props: BTreeMap<u32, i64> = tx
                .node_properties(NodeId(n))
                .unwrap()
                .into_iter()
                .map(|(k, v)| (k.0, v.as_int().unwrap()))
                .collect();
            assert_eq!(props, want.props, "props of {n}");
            for dir in [Direction::Out, Direction::In, Direction::Both] {
                let mut got = tx.expand(NodeId(n), dir, &[]).unwrap();
                got.sort();
                let mut exp: Vec<(RelId, NodeId)> = g
                    .rels
                    .iter()
                    .filter_map(|(id, r)| {
                        let out = r.start == n;
                        let inc = r.end == n;
                        match dir {
                            Direction::Out if out => Some((RelId(*id), NodeId(r.end))),
                            Direction::In if inc => Some((RelId(*id), NodeId(r.start))),
                            Direction::Both if out => Some((RelId(*id), NodeId(r.end))),
                            Direction::Both if inc => Some((RelId(*id), NodeId(r.start))),
                            _ => None,
                        }
                    })
                    .collect();
                exp.sort();
                assert_eq!(got, exp, "expand {n} {dir:?}");
                assert_eq!(tx.degree(NodeId(n), dir, &[]).unwrap(), exp.len());
            }
            let t0 = tx
                .expand(NodeId(n), Direction::Out, &[self.types[0]])
                .unwrap();
            let want_t0 = g
                .rels
                .values()
                .filter(|r| r.start == n && r.ty == self.types[0].0)
                .count();
            assert_eq!(t0.len(), want_t0);
        }
        self.verify_batches(tx, g);
    }

    /// Every node read in one batch (the path that reads ahead of the node it expands) gives
    /// what one-by-one expands give, and a filter on the relationship property keeps exactly
    /// the relationships whose value at this view passes it.
    fn verify_batches(&self, tx: &Transaction, g: &Graph) {
        let nodes: Vec<NodeId> = g.nodes.keys().map(|n| NodeId(*n)).collect();
        for dir in [Direction::Out, Direction::In, Direction::Both] {
            for types in [&[][..], &self.types[..1]] {
                let mut one = Vec::new();
                for (i, n) in nodes.iter().enumerate() {
                    for (r, m) in tx.expand(*n, dir, types).unwrap() {
                        one.push((i as u32, r, m));
                    }
                }
                let mut batch = Vec::new();
                tx.expand_batch(&nodes, dir, types, &mut batch).unwrap();
                assert_eq!(batch, one, "batch {dir:?} {types:?}");
                for (op, v) in [(PropOp::Ge, 1), (PropOp::Eq, 0), (PropOp::Lt, 2)] {
                    let test = PropTest {
                        key: self.keys[0],
                        op,
                        value: Value::Int(v),
                    };
                    let want: Vec<_> = one
                        .iter()
                        .filter(|(_, r, _)| {
                            let p = g.rels[&r.0].prop.map(Value::Int);
                            test.keeps(p.as_ref())
                        })
                        .copied()
                        .collect();
                    let mut kept = Vec::new();
                    let tested = tx
                        .expand_batch_where(&nodes, dir, types, &test, &mut kept)
                        .unwrap();
                    assert_eq!(tested, one.len());
                    assert_eq!(kept, want, "filter {op:?} {v} {dir:?} {types:?}");
                }
            }
        }
    }

    /// Everything a transaction reads must equal the oracle's graph.
    fn verify(&self, tx: &Transaction, g: &Graph) {
        self.verify_nodes(tx, g);
        for (id, r) in &g.rels {
            let (s, e, ty) = tx.rel_endpoints(RelId(*id)).unwrap();
            assert_eq!((s.0, e.0, ty.0), (r.start, r.end, r.ty));
            assert_eq!(
                tx.rel_property(RelId(*id), self.keys[0]).unwrap(),
                r.prop.map(Value::Int)
            );
        }
        for r in &self.rel_ids {
            assert_eq!(tx.rel_exists(RelId(*r)).unwrap(), g.rels.contains_key(r));
        }
        assert_eq!(tx.count_nodes().unwrap(), g.nodes.len() as u64);
        assert_eq!(tx.count_rels().unwrap(), g.rels.len() as u64);
        for l in &self.labels {
            let want = ids_where(&g.nodes, |n| n.labels.contains(&l.0));
            let got: Vec<u64> = tx.scan_label(*l).unwrap().map(|x| x.unwrap().0).collect();
            assert_eq!(got, want, "label scan {l:?}");
            assert_eq!(tx.count_label(*l).unwrap(), want.len() as u64);
        }
        for ty in &self.types {
            let want = g.rels.values().filter(|r| r.ty == ty.0).count() as u64;
            assert_eq!(tx.count_rels_of_type(*ty).unwrap(), want);
            let loops = g.rels.values().filter(|r| r.ty == ty.0 && r.start == r.end);
            assert_eq!(tx.count_self_loops(*ty).unwrap(), loops.count() as u64);
            for l in &self.labels {
                let has = |node: u64| g.nodes.get(&node).is_some_and(|n| n.labels.contains(&l.0));
                let of_type = || g.rels.values().filter(|r| r.ty == ty.0);
                let starts = of_type().filter(|r| has(r.start)).count() as u64;
                let ends = of_type().filter(|r| has(r.end)).count() as u64;
                let count = |dir| tx.count_rels_by_label(*l, *ty, dir).unwrap();
                assert_eq!(count(Direction::Out), starts, "(:{l:?})-[:{ty:?}]->()");
                assert_eq!(count(Direction::In), ends, "()-[:{ty:?}]->(:{l:?})");
                assert_eq!(count(Direction::Both), starts + ends);
            }
        }
        let all: Vec<u64> = tx.scan_nodes().unwrap().map(|x| x.unwrap().0).collect();
        assert_eq!(all, g.nodes.keys().copied().collect::<Vec<_>>());
        for v in 0..3i64 {
            let got = sorted(
                tx.index_seek(
                    self.labels[0],
                    self.keys[0],
                    IndexQuery::Equals(Value::Int(v)),
                )
                .unwrap()
                .map(|x| x.unwrap().0),
            );
            let want = ids_where(&g.nodes, |n| {
                n.labels.contains(&0) && n.props.get(&0) == Some(&v)
            });
            assert_eq!(got, want, "index seek {v}");
            for w in 0..3i64 {
                let query = CompositeQuery {
                    prefix: vec![Value::Int(v)],
                    last: IndexQuery::Equals(Value::Int(w)),
                };
                let got = sorted(
                    tx.node_index_seek(0, &[self.keys[0].0, self.keys[1].0], query)
                        .unwrap()
                        .map(|x| x.unwrap().0),
                );
                let want = ids_where(&g.nodes, |n| {
                    n.labels.contains(&0)
                        && n.props.get(&0) == Some(&v)
                        && n.props.get(&1) == Some(&w)
                });
                assert_eq!(got, want, "composite seek {v}, {w}");
            }
            let query = CompositeQuery {
                prefix: Vec::new(),
                last: IndexQuery::Equals(Value::Int(v)),
            };
            let got = self.rel_seek(tx, query);
            let want = ids_where(&g.rels, |r| r.ty == 0 && r.prop == Some(v));
            assert_eq!(got, want, "relationship seek {v}");
        }
        // A range over the relationship index: every value above 0.
        let query = CompositeQuery {
            prefix: Vec::new(),
            last: IndexQuery::Range {
                lower: std::ops::Bound::Excluded(Value::Int(0)),
                upper: std::ops::Bound::Unbounded,
            },
        };
        let got = self.rel_seek(tx, query);
        let want = ids_where(&g.rels, |r| r.ty == 0 && r.prop.is_some_and(|p| p > 0));
        assert_eq!(got, want, "relationship range seek");
    }

    /// The relationships a seek of the index on type 0's first key returns, sorted.
    fn rel_seek(&self, tx: &Transaction, query: CompositeQuery) -> Vec<u64> {
        sorted(
            tx.rel_index_seek(0, &[self.keys[0].0], query)
                .unwrap()
                .map(|x| x.unwrap().0),
        )
    }

    fn finish(mut self) {
        for s in 0..TXS {
            if let Some(t) = self.txs[s].take() {
                t.tx.rollback().unwrap();
            }
        }
        for r in &mut self.readers {
            r.take();
        }
        let tx = self.db.begin_read();
        self.verify(&tx, self.history.last().unwrap());
        drop(tx);
        self.db.gc();
        let stats = self.db.stats();
        assert_eq!(stats.live_deltas, 0);
        assert_eq!(stats.gc_pending_batches, 0);
        let g = self.latest();
        let indexed = g
            .nodes
            .values()
            .filter(|n| n.labels.contains(&0) && n.props.contains_key(&0))
            .count();
        let composite = g
            .nodes
            .values()
            .filter(|n| {
                n.labels.contains(&0) && n.props.contains_key(&0) && n.props.contains_key(&1)
            })
            .count();
        let rels = g
            .rels
            .values()
            .filter(|r| r.ty == 0 && r.prop.is_some())
            .count();
        // Once garbage collection has run, each index holds exactly the entries of the
        // newest state.
        assert_eq!(stats.index_entries, indexed + composite + rels);
        let bits: usize = g.nodes.values().map(|n| n.labels.len()).sum();
        assert_eq!(stats.label_bits, bits as u64);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn storage_matches_the_oracle(ops in prop::collection::vec(op(), 1..120)) {
        let mut m = Model::new();
        for op in ops {
            m.apply(op);
        }
        m.finish();
    }
}
