//! Vector indexes: approximate nearest neighbours over one property of the nodes with a label
//! or of the relationships of a type, for `db.index.vector.queryNodes` / `queryRelationships`.
//!
//! The approximate structure is an HNSW graph from the `usearch` crate, chosen by measurement
//! (docs/ARCHITECTURE.md has the figures). Like a property index it is a source of candidates,
//! never an answer: a search over-fetches, confirms every candidate against the reader's
//! snapshot (visible, still carrying the label or type, still holding a vector of the index's
//! dimension) and scores it by the vector that snapshot sees, so a deleted, changed or not yet
//! committed entity is never returned and a changed vector is never scored by its old value.
//!
//! Maintenance follows the write set, as property indexes do, but at commit: a committing
//! transaction inserts the vectors its touched entities now hold before it takes the commit
//! lock, so every vector a snapshot at or after that commit can see is in the graph before the
//! commit is visible (followers replay through the same commit). HNSW cannot delete: a point
//! whose entity was deleted, lost its label or changed its vector stays as a tombstone that the
//! confirmation skips, and once tombstones are more than half the points the next search
//! rebuilds the graph from the store. The graph is derived, never logged: the definition is
//! durable like other indexes (a redo op and the snapshot's schema section), and the bulk paths
//! (recovery, import, snapshot install) mark the graph stale so the next search rebuilds it.

use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::{Condvar, Mutex, RwLock};
use quiver_value::Value;
use rustc_hash::{FxHashMap, FxHasher};

use crate::graph::prop_get;
use crate::mvcc::{self, Undo, View};
use crate::read;
use crate::storage::Storage;

pub use crate::spec::{
    HNSW_EF_CONSTRUCTION_DEFAULT, HNSW_EF_CONSTRUCTION_MAX, HNSW_EF_SEARCH_DEFAULT,
    HNSW_EF_SEARCH_MAX, HNSW_M_DEFAULT, HNSW_M_MAX, Similarity, VECTOR_DIMENSIONS_MAX,
    VectorConfig,
};

/// Points a new graph makes room for before it grows.
const GRAPH_CAPACITY_MIN: usize = 1024;
/// Points one insertion adds before it spreads them over threads: fewer are inserted on the
/// committing thread, since the thread pool's hand-off costs more than it saves.
const PARALLEL_POINTS_MIN: usize = 64;
/// Points a rebuild reads from the store before it inserts them, so that a rebuild of a
/// large index holds a bounded batch of copies besides the graph.
const REBUILD_BATCH_POINTS: usize = 16_384;

/// An operator of a filtered vector search, the entity's property on its left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VectorFilterOp {
    Eq,
    Lt,
    Le,
    Gt,
    Ge,
}

/// A point to insert: its entity, its graph vector, the values of the index's `WITH`
/// properties it holds (see [`Graph::with`]), and whether it is an older version's.
struct NewPoint {
    entity: u64,
    point: Vec<f32>,
    with: Option<Box<[Value]>>,
    old: bool,
}

/// One comparison a filtered vector search applies inside the index: the entity's property
/// `key` against `value`, as Cypher compares them (a missing property or values that do not
/// compare never pass).
#[derive(Clone, Debug, PartialEq)]
pub struct VectorFilter {
    pub key: u32,
    pub op: VectorFilterOp,
    pub value: Value,
}

impl VectorFilter {
    fn holds(&self, property: &Value) -> bool {
        use quiver_value::compare;
        let outcome = match self.op {
            VectorFilterOp::Eq => compare::equals(property, &self.value),
            VectorFilterOp::Lt => compare::less_than(property, &self.value),
            VectorFilterOp::Le => compare::less_equal(property, &self.value),
            VectorFilterOp::Gt => compare::greater_than(property, &self.value),
            VectorFilterOp::Ge => compare::greater_equal(property, &self.value),
        };
        outcome == Some(true)
    }
}

/// One vector index, as `SHOW INDEXES` lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct VectorIndexInfo {
    pub name: String,
    pub relationship: bool,
    /// The label, or the relationship type.
    pub token: Arc<str>,
    pub key: Arc<str>,
    pub config: VectorConfig,
    /// The keys a search may filter on inside the index (Cypher 25's `WITH [n.a, n.b]`).
    pub with_properties: Vec<Arc<str>>,
    /// Points in the graph, tombstones included.
    pub entries: usize,
    /// Searches since `tracked_since_ms`, as for property indexes ([`crate::IndexInfo`]).
    pub read_count: u64,
    pub last_read_ms: Option<i64>,
    pub tracked_since_ms: i64,
}

/// The one conversion from a property value to a vector: a `VECTOR` value or a non-empty
/// list of numbers, every coordinate finite. Every reader of vectors (index maintenance,
/// search, the procedures) goes through it.
pub fn vector_of(value: &Value) -> Option<Vec<f64>> {
    value
        .as_f64_vector()
        .filter(|v| !v.is_empty() && v.iter().all(|x| x.is_finite()))
}

/// The vector a graph holds for `v`: 32-bit, and of unit length for cosine (so Euclidean
/// distance ranks as cosine does); `None` when cosine has no direction to compare.
fn graph_point(similarity: Similarity, v: &[f64]) -> Option<Vec<f32>> {
    let scale = match similarity {
        Similarity::Euclidean => 1.0,
        Similarity::Cosine => {
            let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm == 0.0 || !norm.is_finite() {
                return None;
            }
            1.0 / norm
        }
    };
    Some(v.iter().map(|x| (x * scale) as f32).collect())
}

fn fingerprint(point: &[f32]) -> u64 {
    let mut h = FxHasher::default();
    for x in point {
        x.to_bits().hash(&mut h);
    }
    h.finish()
}

/// Searches and insertions one graph runs at once. The ANN library keeps a scratch context
/// per concurrent caller, reserved up front, and refuses a caller when every context is taken;
/// [`Lanes`] makes the surplus wait for a context instead.
const GRAPH_LANES: usize = 64;

/// A counting gate over a graph's [`GRAPH_LANES`] scratch contexts.
#[derive(Default)]
struct Lanes {
    taken: Mutex<usize>,
    freed: Condvar,
}

impl Lanes {
    /// Runs `f` holding `lanes` contexts (at most [`GRAPH_LANES`]).
    fn hold<T>(&self, lanes: usize, f: impl FnOnce() -> T) -> T {
        let lanes = lanes.clamp(1, GRAPH_LANES);
        {
            let mut taken = self.taken.lock();
            while *taken + lanes > GRAPH_LANES {
                self.freed.wait(&mut taken);
            }
            *taken += lanes;
        }
        struct Release<'l>(&'l Lanes, usize);
        impl Drop for Release<'_> {
            fn drop(&mut self) {
                *self.0.taken.lock() -= self.1;
                self.0.freed.notify_all();
            }
        }
        let _release = Release(self, lanes);
        f()
    }
}

/// The HNSW graph and what maps its points back to entities.
///
/// The graph is USearch's (squared Euclidean, over 32-bit points or quantized ones as
/// [`scalar_kind`] says; cosine indexes holding unit vectors); its keys are point ids, so an
/// entity whose vector (or one of its `WITH` properties) changes gets a new point and the old
/// one becomes a tombstone.
struct Graph {
    hnsw: usearch::Index,
    lanes: Lanes,
    /// The entity of each point, by point id.
    points: Vec<u64>,
    /// The values of the index's `WITH` properties each point was inserted with, by point id,
    /// so a filtered walk tests its filter without reading the store; `None` where they are
    /// not known for the point's version (a rebuild that met a change in flight), and the
    /// walk asks the store. Empty when the index has no `WITH` properties.
    with: Vec<Option<Box<[Value]>>>,
    /// Each entity's newest point and that point's fingerprint.
    newest: FxHashMap<u64, (usize, u64)>,
    /// Points that are no longer their entity's newest.
    dead: usize,
    /// Set by the bulk paths (the graph misses what they loaded), and when the library
    /// failed to insert (it could not allocate): the next search rebuilds.
    stale: bool,
}

/// The fewest dimensions a quantized index holds in fewer bits. Below it a point's 32-bit
/// vector takes less memory than its links (a point keeps up to 2m four-byte links on the base
/// layer), so quantizing saves little, while each coarse coordinate weighs more in a distance:
/// points that differ by less than a step become one, and HNSW, which prunes a neighbour that
/// is closer to a kept one than to the point itself, leaves such duplicates unreachable.
const QUANTIZED_DIMENSIONS_MIN: usize = 64;

/// How a graph holds its points. Quantized (from [`QUANTIZED_DIMENSIONS_MIN`] dimensions), a
/// cosine graph's unit vectors become 8-bit integers (the library scales each by its length
/// into [-127, 127], which keeps their directions and so their order by angle) and a
/// Euclidean graph's points 16-bit brain floats (the 32-bit range, so no coordinate
/// overflows, at about three significant digits); either way a search's candidates are
/// re-scored by the stored vectors.
fn scalar_kind(config: &VectorConfig) -> usearch::ScalarKind {
    if !quantized(config) {
        return usearch::ScalarKind::F32;
    }
    match config.similarity {
        Similarity::Cosine => usearch::ScalarKind::I8,
        Similarity::Euclidean => usearch::ScalarKind::BF16,
    }
}

/// Whether the graph holds its points in fewer bits than 32-bit floats.
fn quantized(config: &VectorConfig) -> bool {
    config.quantization && config.dimensions >= QUANTIZED_DIMENSIONS_MIN
}

/// The candidates a search first asks the graph for when it wants `k`: enough beyond `k` that
/// re-scoring them by the stored vectors restores the order the graph's approximate distances
/// (and, quantized, its coarser points) may have swapped.
fn first_fetch(config: &VectorConfig, k: usize) -> usize {
    if quantized(config) {
        k.saturating_mul(3).max(k.saturating_add(24))
    } else {
        k.saturating_mul(2).max(k.saturating_add(16))
    }
}

impl Graph {
    fn new(config: &VectorConfig, capacity: usize) -> Graph {
        let options = usearch::IndexOptions {
            dimensions: config.dimensions,
            metric: usearch::MetricKind::L2sq,
            quantization: scalar_kind(config),
            connectivity: config.hnsw_m,
            expansion_add: config.hnsw_ef_construction,
            expansion_search: config.hnsw_ef_search,
            multi: false,
        };
        let hnsw = usearch::Index::new(&options).unwrap_or_else(|error| {
            // Only dimensions or links outside the limits the options were checked against
            // can make the library refuse; the checks make that a programming error.
            panic!("vector index options checked at creation were refused: {error}")
        });
        let mut graph = Graph {
            hnsw,
            lanes: Lanes::default(),
            points: Vec::new(),
            with: Vec::new(),
            newest: FxHashMap::default(),
            dead: 0,
            stale: false,
        };
        graph.stale = !graph.make_room(capacity.max(GRAPH_CAPACITY_MIN));
        graph
    }

    /// Grows the graph's capacity to at least `points`, doubling, with a scratch context for
    /// every lane. Returns false when the library could not allocate.
    fn make_room(&mut self, points: usize) -> bool {
        let capacity = self.hnsw.capacity();
        if points <= capacity && capacity > 0 {
            return true;
        }
        let wanted = points.max(capacity.saturating_mul(2));
        match self.hnsw.reserve_capacity_and_threads(wanted, GRAPH_LANES) {
            Ok(()) => true,
            Err(error) => {
                tracing::error!(%error, wanted, "a vector index could not grow; it is rebuilt at its next search");
                false
            }
        }
    }

    /// Makes each point its entity's newest, unless it already is; `old` points are an older
    /// version's vectors, added without becoming the newest (a rebuild keeps the values older
    /// snapshots may still see). A batch is inserted on several threads at once.
    fn insert_all(&mut self, batch: Vec<NewPoint>) {
        let mut added: Vec<(Vec<f32>, usize)> = Vec::with_capacity(batch.len());
        let keeps_with = batch.iter().any(|p| p.with.is_some()) || !self.with.is_empty();
        for NewPoint {
            entity,
            point,
            with,
            old,
        } in batch
        {
            let id = self.points.len();
            if old {
                self.dead += 1;
            } else {
                let print = fingerprint(&point);
                if let Some(&(before_id, before)) = self.newest.get(&entity) {
                    let same_with = self.with.get(before_id).is_none_or(|w| *w == with);
                    if before == print && same_with {
                        continue;
                    }
                    self.dead += 1;
                }
                self.newest.insert(entity, (id, print));
            }
            self.points.push(entity);
            if keeps_with {
                self.with.resize(id, None);
                self.with.push(with);
            }
            added.push((point, id));
        }
        if added.is_empty() {
            return;
        }
        if !self.make_room(self.points.len()) {
            self.stale = true;
            return;
        }
        let threads = if added.len() < PARALLEL_POINTS_MIN {
            1
        } else {
            std::thread::available_parallelism().map_or(1, usize::from)
        };
        let hnsw = &self.hnsw;
        let failed = AtomicBool::new(false);
        let insert = |part: &[(Vec<f32>, usize)]| {
            for (point, id) in part {
                if let Err(error) = hnsw.add(*id as u64, point) {
                    tracing::error!(%error, "a vector index could not insert a point; it is rebuilt at its next search");
                    failed.store(true, Ordering::Relaxed);
                    return;
                }
            }
        };
        self.lanes.hold(threads, || {
            if threads == 1 {
                insert(&added);
            } else {
                let per_thread = added.len().div_ceil(threads);
                std::thread::scope(|scope| {
                    for part in added.chunks(per_thread) {
                        scope.spawn(|| insert(part));
                    }
                });
            }
        });
        if failed.load(Ordering::Relaxed) {
            self.stale = true;
        }
    }

    /// The ids of the `count` points nearest `query`, nearest first. Asked for every point
    /// the graph holds (the over-fetch's last resort), it compares them all, so a search that
    /// runs out of approximate candidates ends exact rather than missing a reachable few.
    fn search(&self, query: &[f32], count: usize) -> Vec<usize> {
        let exhaustive = count >= self.hnsw.size();
        let found = self.lanes.hold(1, || {
            if exhaustive {
                self.hnsw.exact_search(query, count)
            } else {
                self.hnsw.search(query, count)
            }
        });
        match found {
            Ok(found) => found.keys.into_iter().map(|k| k as usize).collect(),
            Err(error) => {
                // Every caller holds a lane with a reserved context, so the library has no
                // reason left to refuse; were it to, the caller gets what the store confirms.
                tracing::error!(%error, "a vector index search failed");
                Vec::new()
            }
        }
    }

    /// The entity no longer holds an indexed vector.
    fn remove(&mut self, entity: u64) {
        if self.newest.remove(&entity).is_some() {
            self.dead += 1;
        }
    }

    /// The ids of the `count` points nearest `query` that `keep` accepts (given the point's
    /// entity and its `WITH` values, see [`Graph::with`]), nearest first: the graph walk passes
    /// over the others without returning them, so the answer is the nearest accepted points,
    /// not the accepted among the nearest.
    fn search_where(
        &self,
        query: &[f32],
        count: usize,
        keep: impl Fn(u64, Option<&[Value]>) -> bool,
    ) -> Vec<usize> {
        let accepts = |key: u64| {
            usize::try_from(key)
                .ok()
                .and_then(|id| Some((*self.points.get(id)?, self.with_of(id))))
                .is_some_and(|(entity, with)| keep(entity, with))
        };
        match self
            .lanes
            .hold(1, || self.hnsw.filtered_search(query, count, accepts))
        {
            Ok(found) => found.keys.into_iter().map(|k| k as usize).collect(),
            Err(error) => {
                tracing::error!(%error, "a filtered vector index search failed");
                Vec::new()
            }
        }
    }

    /// The `WITH` values point `id` was inserted with, where known.
    fn with_of(&self, id: usize) -> Option<&[Value]> {
        self.with.get(id)?.as_deref()
    }

    fn needs_rebuild(&self) -> bool {
        self.stale || (self.dead > GRAPH_CAPACITY_MIN && self.dead * 2 > self.points.len())
    }
}

/// What `CREATE VECTOR INDEX` asks for, recorded by the transaction until commit.
#[derive(Clone, Debug)]
pub(crate) struct VectorSpec {
    pub name: String,
    pub relationship: bool,
    pub token: u32,
    pub key: u32,
    pub with_keys: Vec<u32>,
    pub config: VectorConfig,
}

pub(crate) struct VectorIndexDef {
    pub name: String,
    pub relationship: bool,
    /// The label, or the relationship type.
    pub token: u32,
    pub key: u32,
    /// The keys a search may filter on inside the index.
    pub with_keys: Vec<u32>,
    pub config: VectorConfig,
    graph: RwLock<Graph>,
    /// Whether the graph has been built from the store since the index was created or loaded.
    built: AtomicBool,
    /// Searches through the index (`SHOW INDEXES`' `readCount`, `lastRead`).
    pub(crate) reads: crate::schema::ReadStats,
}

impl VectorIndexDef {
    pub(crate) fn new(
        name: String,
        relationship: bool,
        token: u32,
        (key, with_keys): (u32, Vec<u32>),
        config: VectorConfig,
    ) -> Self {
        let graph = Graph::new(&config, 0);
        VectorIndexDef {
            name,
            relationship,
            token,
            key,
            with_keys,
            config,
            graph: RwLock::new(graph),
            built: AtomicBool::new(false),
            reads: crate::schema::ReadStats::new(),
        }
    }

    pub(crate) fn entries(&self) -> usize {
        self.graph.read().points.len()
    }

    /// Counts a just-published index as built when its empty graph cannot be missing
    /// anything: no node carries the label, or no relationship was ever created. Without it
    /// the first search would rebuild the graph and insert again every vector the commits
    /// since the creation inserted. A writer sets a node's label bit when it writes the label,
    /// before its commit reads the published indexes, so either this sees the bit (and the
    /// index stays unbuilt) or that commit sees the index (and inserts its vectors); hence
    /// this runs only after the index is published.
    pub(crate) fn start_built_if_empty(&self, storage: &Storage) {
        let empty = if self.relationship {
            storage.next_rel.load(Ordering::Acquire) == 0
        } else {
            storage
                .label_bitmap_if_any(self.token)
                .is_none_or(|bits| bits.count_ones() == 0)
        };
        if empty {
            self.built.store(true, Ordering::Release);
        }
    }

    /// Marks the graph as missing what a bulk path loaded.
    pub(crate) fn mark_stale(&self) {
        self.graph.write().stale = true;
    }

    fn point_of(&self, value: &Value) -> Option<Vec<f32>> {
        let v = vector_of(value)?;
        if v.len() != self.config.dimensions {
            return None;
        }
        graph_point(self.config.similarity, &v)
    }

    /// The entities of the `count` points nearest `query` (a graph point), each once, nearest
    /// first, and whether the graph may hold more points than were asked for.
    fn candidates(&self, query: &[f32], count: usize) -> (Vec<u64>, bool) {
        let g = self.graph.read();
        let found = g
            .search(query, count)
            .into_iter()
            .filter_map(|id| g.points.get(id).copied());
        let mut seen = rustc_hash::FxHashSet::default();
        let entities: Vec<u64> = found.filter(|e| seen.insert(*e)).collect();
        (entities, count < g.points.len())
    }

    /// As [`Self::candidates`], of the entities `keep` accepts. Asked for every point, it
    /// returns every accepted entity the graph holds, unordered: the graph's exact search
    /// takes no filter, so the last resort is the caller's scoring of them all.
    fn candidates_where(
        &self,
        query: &[f32],
        count: usize,
        keep: impl Fn(u64, Option<&[Value]>) -> bool,
    ) -> (Vec<u64>, bool) {
        let g = self.graph.read();
        let mut seen = rustc_hash::FxHashSet::default();
        if count >= g.hnsw.size() {
            // An entity's points may hold different `WITH` values: any accepted one counts.
            let entities: Vec<u64> = (0..g.points.len())
                .filter(|&id| keep(g.points[id], g.with_of(id)))
                .map(|id| g.points[id])
                .filter(|e| seen.insert(*e))
                .collect();
            return (entities, false);
        }
        let found = g
            .search_where(query, count, &keep)
            .into_iter()
            .filter_map(|id| g.points.get(id).copied());
        let entities: Vec<u64> = found.filter(|e| seen.insert(*e)).collect();
        (entities, true)
    }
}

impl Storage {
    /// The vector index named `name`.
    pub(crate) fn vector_def(&self, name: &str) -> Option<Arc<VectorIndexDef>> {
        self.derived_by_name(name)?.as_vector().cloned()
    }

    /// The vector indexes, in creation order.
    fn vector_defs(&self) -> Vec<Arc<VectorIndexDef>> {
        let derived = self.derived();
        derived
            .iter()
            .filter_map(|d| d.as_vector().cloned())
            .collect()
    }

    /// Every vector index, for `SHOW INDEXES`.
    pub fn vector_indexes(&self) -> Vec<VectorIndexInfo> {
        self.vector_defs()
            .iter()
            .filter_map(|d| {
                let token = if d.relationship {
                    self.types.name(d.token)?
                } else {
                    self.labels.name(d.token)?
                };
                let (read_count, last_read_ms, tracked_since_ms) = d.reads.snapshot();
                Some(VectorIndexInfo {
                    name: d.name.clone(),
                    relationship: d.relationship,
                    token,
                    key: self.keys.name(d.key)?,
                    config: d.config,
                    with_properties: d
                        .with_keys
                        .iter()
                        .map(|k| self.keys.name(*k))
                        .collect::<Option<_>>()?,
                    entries: d.entries(),
                    read_count,
                    last_read_ms,
                    tracked_since_ms,
                })
            })
            .collect()
    }

    /// Inserts into `def`'s graph the vectors the `touched` entities hold in `view` (a
    /// committing transaction's own), and forgets the entities that no longer hold one.
    pub(crate) fn index_vectors(&self, def: &VectorIndexDef, view: &View, touched: &[u64]) {
        if touched.is_empty() {
            return;
        }
        let mut batch = Vec::new();
        let mut gone = Vec::new();
        for &id in touched {
            match self.visible_point(def, view, id) {
                Some((point, with)) => batch.push(NewPoint {
                    entity: id,
                    point,
                    with,
                    old: false,
                }),
                None => gone.push(id),
            }
        }
        let mut g = def.graph.write();
        for id in gone {
            g.remove(id);
        }
        g.insert_all(batch);
    }

    /// The graph point of the vector entity `id` holds in `view`, if it is in the index, with
    /// the values of the index's `WITH` properties (`None` when it has none).
    fn visible_point(
        &self,
        def: &VectorIndexDef,
        view: &View,
        id: u64,
    ) -> Option<(Vec<f32>, Option<Box<[Value]>>)> {
        self.read_entity(def, view, id, &[], |read| {
            let point = def.point_of(&read(def.key)?)?;
            let with = (!def.with_keys.is_empty()).then(|| {
                def.with_keys
                    .iter()
                    .map(|&k| read(k).unwrap_or(Value::Null))
                    .collect()
            });
            Some((point, with))
        })
    }

    /// `f` of entity `id`'s property reader under `view` (a missing property, or one the
    /// version does not hold, reads `None`), while its record is locked, if the entity is
    /// visible, carries the index's label or type and its properties pass `filter`.
    fn read_entity<T>(
        &self,
        def: &VectorIndexDef,
        view: &View,
        id: u64,
        filter: &[VectorFilter],
        f: impl FnOnce(&dyn Fn(u32) -> Option<Value>) -> Option<T>,
    ) -> Option<T> {
        let passes = |read: &dyn Fn(u32) -> Option<Value>| {
            filter
                .iter()
                .all(|c| read(c.key).is_some_and(|v| c.holds(&v)))
        };
        if def.relationship {
            let slot = self.rels.get(id)?;
            let g = slot.lock();
            let read = |key| read::rel_prop(&g, view, key).ok().flatten().flatten();
            if g.ty() != def.token || !passes(&read) || !read::rel_exists(&g, view) {
                return None;
            }
            f(&read)
        } else {
            let slot = self.nodes.get(id)?;
            let g = slot.lock();
            let read = |key| read::node_prop(&g, view, key).ok().flatten().flatten();
            // The filter first: it turns most points of a walk away, and reading a small
            // property costs less than decoding the label list.
            if !passes(&read) || read::node_has_label(&g, view, def.token).ok()? != Some(true) {
                return None;
            }
            f(&read)
        }
    }

    /// Builds the graph from the store if it was never built, went stale or is mostly
    /// tombstones. Holds the graph's write lock throughout, so a commit's insertions wait and
    /// land in the new graph.
    fn vector_fresh(&self, def: &VectorIndexDef) {
        if def.built.load(Ordering::Acquire) && !def.graph.read().needs_rebuild() {
            return;
        }
        let mut g = def.graph.write();
        if def.built.load(Ordering::Acquire) && !g.needs_rebuild() {
            return;
        }
        let mut fresh = Graph::new(&def.config, g.newest.len());
        let mut batch = Vec::new();
        // `with`: the head's `WITH` values, for every point of the entity; `None` (the walk
        // asks the store) when a change of one of them is still in the undo chain, since the
        // head may then be a version some readers do not see.
        let mut add =
            |id: u64, (head, older): (Option<Value>, Vec<Value>), with: Option<Box<[Value]>>| {
                let versions = head.into_iter().map(|v| (v, false));
                for (v, old) in versions.chain(older.into_iter().map(|v| (v, true))) {
                    if let Some(point) = def.point_of(&v) {
                        batch.push(NewPoint {
                            entity: id,
                            point,
                            with: with.clone(),
                            old,
                        });
                    }
                }
                if batch.len() >= REBUILD_BATCH_POINTS {
                    fresh.insert_all(std::mem::take(&mut batch));
                }
            };
        let with_of = |props: Option<&[u8]>, chain: &mvcc::Chain| -> Option<Box<[Value]>> {
            let changing = mvcc::all(chain)
                .any(|u| matches!(u, Undo::Property { key, .. } if def.with_keys.contains(key)));
            if def.with_keys.is_empty() || changing {
                return None;
            }
            let read = |k| props.and_then(|p| prop_get(p, k).ok().flatten());
            Some(
                def.with_keys
                    .iter()
                    .map(|&k| read(k).unwrap_or(Value::Null))
                    .collect(),
            )
        };
        if def.relationship {
            let end = self.next_rel.load(Ordering::Acquire);
            for id in 0..end {
                let Some(slot) = self.rels.get(id) else {
                    continue;
                };
                let (versions, with) = {
                    let r = slot.lock();
                    if r.ty() != def.token {
                        continue;
                    }
                    let head = prop_get(r.props.bytes(), def.key).ok().flatten();
                    let with = with_of(Some(r.props.bytes()), r.chain());
                    ((head, older_values(r.chain(), def.key)), with)
                };
                add(id, versions, with);
            }
        } else if let Some(bits) = self.label_bitmap_if_any(def.token) {
            bits.for_each(|id| {
                let Some(slot) = self.nodes.get(id) else {
                    return;
                };
                let (versions, with) = {
                    let n = slot.lock();
                    if !crate::gc::may_have_label(&n, def.token) {
                        return;
                    }
                    let props = n.props().ok();
                    let head = props.and_then(|p| prop_get(p, def.key).ok().flatten());
                    let with = with_of(props, n.chain());
                    ((head, older_values(n.chain(), def.key)), with)
                };
                add(id, versions, with);
            });
        }
        fresh.insert_all(batch);
        *g = fresh;
        def.built.store(true, Ordering::Release);
    }

    /// The `k` entities nearest `query` that `view` sees in the index, with their scores,
    /// best first. Over-fetches and confirms each candidate (see the module comment), asking
    /// the graph for more until `k` are confirmed or the graph has no more to give.
    ///
    /// `own` are the entities the searching transaction changed: the graph holds their
    /// committed vectors at best (a transaction's vectors enter it at commit), so each is
    /// scored outright by what `view` sees and the graph's candidates skip them. That work
    /// grows with the transaction's own writes, not with the index.
    ///
    /// With a `filter`, only entities whose properties pass it are candidates, tested as the
    /// graph is walked, so the answer is the `k` nearest that pass.
    pub(crate) fn vector_search(
        &self,
        def: &VectorIndexDef,
        view: &View,
        (query, k): (&[f64], usize),
        filter: &[VectorFilter],
        own: &[u64],
    ) -> Vec<(u64, f64)> {
        let Some(q) = graph_point(def.config.similarity, query) else {
            return Vec::new();
        };
        self.vector_fresh(def);
        let own: rustc_hash::FxHashSet<u64> = own.iter().copied().collect();
        let vector = |id: u64| {
            let v = self.read_entity(def, view, id, filter, |read| vector_of(&read(def.key)?))?;
            (v.len() == def.config.dimensions).then_some(v)
        };
        let score = |id: u64| Some((id, def.config.similarity.score(&vector(id)?, query)?));
        // The graph walk asks this of every point it would return. A point that knows its
        // `WITH` values is tested on them, without the store; one that does not reads the
        // filter's properties (not the vector: a few kilobytes to decode). Either way the
        // scoring confirms each candidate against the reader's snapshot and asks for more
        // when some fail, so a point inserted with values the reader does not see costs work,
        // never a wrong row.
        let at: Vec<Option<usize>> = filter
            .iter()
            .map(|f| def.with_keys.iter().position(|&k| k == f.key))
            .collect();
        let keep = |id: u64, with: Option<&[Value]>| {
            if own.contains(&id) {
                return false;
            }
            match with {
                Some(values) => filter
                    .iter()
                    .zip(&at)
                    .all(|(f, at)| at.and_then(|i| values.get(i)).is_some_and(|v| f.holds(v))),
                None => self
                    .read_entity(def, view, id, filter, |_| Some(()))
                    .is_some(),
            }
        };
        let mut fetch = first_fetch(&def.config, k);
        let mut out = loop {
            let (candidates, more) = if filter.is_empty() {
                def.candidates(&q, fetch)
            } else {
                def.candidates_where(&q, fetch, keep)
            };
            let out: Vec<(u64, f64)> = candidates
                .into_iter()
                .filter(|id| !own.contains(id))
                .filter_map(score)
                .collect();
            if out.len() >= k || !more {
                break out;
            }
            fetch = fetch.saturating_mul(4);
        };
        out.extend(own.iter().filter_map(|&id| score(id)));
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out.truncate(k);
        out
    }
}

/// The values older versions held under `key`, from the undo chain.
fn older_values(chain: &mvcc::Chain, key: u32) -> Vec<Value> {
    mvcc::all(chain)
        .filter_map(|u| match u {
            Undo::Property {
                key: k,
                old: Some(v),
            } if *k == key => Some(v.clone()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_follow_neo4j() {
        let a = [1.0, 0.0];
        let b = [0.0, 1.0];
        assert_eq!(Similarity::Cosine.score(&a, &a), Some(1.0));
        assert_eq!(Similarity::Cosine.score(&a, &b), Some(0.5));
        assert_eq!(Similarity::Cosine.score(&a, &[-1.0, 0.0]), Some(0.0));
        assert_eq!(Similarity::Cosine.score(&a, &[0.0, 0.0]), None);
        assert_eq!(Similarity::Euclidean.score(&a, &b), Some(1.0 / 3.0));
        assert_eq!(Similarity::Euclidean.score(&a, &a), Some(1.0));
    }

    /// Unquantized Euclidean vectors of `dimensions`, with the default graph settings.
    fn euclidean(dimensions: usize) -> VectorConfig {
        VectorConfig {
            dimensions,
            similarity: Similarity::Euclidean,
            quantization: false,
            hnsw_m: HNSW_M_DEFAULT,
            hnsw_ef_construction: HNSW_EF_CONSTRUCTION_DEFAULT,
            hnsw_ef_search: HNSW_EF_SEARCH_DEFAULT,
        }
    }

    /// A newest point of `entity`, without `WITH` values.
    fn new(entity: u64, point: Vec<f32>) -> NewPoint {
        NewPoint {
            entity,
            point,
            with: None,
            old: false,
        }
    }

    #[test]
    fn a_changed_with_value_makes_a_new_point_and_the_walk_tests_the_values_it_holds() {
        let config = euclidean(2);
        let mut graph = Graph::new(&config, 0);
        let band = |entity: u64, b: i64| NewPoint {
            with: Some(vec![Value::Int(b)].into_boxed_slice()),
            ..new(entity, vec![entity as f32, 0.0])
        };
        graph.insert_all((0..100).map(|i| band(i, 0)).collect());
        // The same vector and values again: nothing new. Another band: a new point, the old
        // one a tombstone.
        graph.insert_all(vec![band(7, 0)]);
        assert_eq!(graph.points.len(), 100);
        graph.insert_all(vec![band(7, 1)]);
        assert_eq!((graph.points.len(), graph.dead), (101, 1));
        let in_band_one = |_: u64, with: Option<&[Value]>| with == Some(&[Value::Int(1)][..]);
        let found = graph.search_where(&[50.0, 0.0], 1, in_band_one);
        assert_eq!(found, [100]);
        assert_eq!(graph.points[100], 7);
    }

    #[test]
    fn more_searchers_than_scratch_contexts_all_get_answers() {
        let config = euclidean(4);
        let mut graph = Graph::new(&config, 0);
        let points = (0..500u64)
            .map(|i| {
                let x = i as f32;
                new(i, vec![x, -x, x * 0.5, 1.0])
            })
            .collect();
        graph.insert_all(points);
        // Twice as many threads as the graph reserves contexts for: without the gate the
        // library refuses the surplus and a search comes back empty.
        std::thread::scope(|scope| {
            for t in 0..2 * GRAPH_LANES {
                let graph = &graph;
                scope.spawn(move || {
                    for i in 0..20 {
                        let x = ((t * 7 + i) % 500) as f32;
                        // Approximate: what is promised is an answer, not the exact one.
                        let found = graph.search(&[x, -x, x * 0.5, 1.0], 5);
                        assert_eq!(found.len(), 5);
                    }
                });
            }
        });
    }

    #[test]
    fn quantized_graphs_hold_their_points_in_fewer_bytes_and_still_find_the_nearest() {
        // Unit vectors of a fixed pseudo-random sequence: far enough apart that no two become
        // one in 8 bits (phases of one sine would, every period).
        let points = |n: u64| -> Vec<NewPoint> {
            let mut s = 0x9e37_79b9_7f4a_7c15_u64;
            let mut unit = move || {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 40) as f32 / (1u64 << 24) as f32 - 0.5
            };
            (0..n)
                .map(|i| {
                    let v: Vec<f32> = (0..64).map(|_| unit()).collect();
                    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                    new(i, v.iter().map(|x| x / norm).collect())
                })
                .collect()
        };
        let mut memory = Vec::new();
        for (similarity, quantization) in [
            (Similarity::Cosine, false),
            (Similarity::Cosine, true),
            (Similarity::Euclidean, true),
        ] {
            let config = VectorConfig {
                similarity,
                quantization,
                ..euclidean(64)
            };
            let mut graph = Graph::new(&config, 0);
            graph.insert_all(points(2000));
            assert!(!graph.stale);
            // Asked for every point the search is exact: the point itself comes first.
            let query = &points(1235)[1234].point;
            assert_eq!(graph.search(query, 2000)[0], 1234, "{config:?}");
            memory.push(graph.hnsw.serialized_length());
        }
        let small = VectorConfig {
            similarity: Similarity::Cosine,
            quantization: true,
            ..euclidean(QUANTIZED_DIMENSIONS_MIN - 1)
        };
        assert_eq!(scalar_kind(&small), usearch::ScalarKind::F32);
        // 8-bit cosine points, then 16-bit Euclidean ones, against 32-bit floats.
        assert!(memory[1] < memory[2] && memory[2] < memory[0], "{memory:?}");
    }

    #[test]
    fn a_filtered_walk_returns_the_nearest_accepted_points_not_the_accepted_among_the_nearest() {
        let config = euclidean(2);
        let mut graph = Graph::new(&config, 0);
        // Entity i at (i, 0); every tenth is accepted.
        graph.insert_all((0..5000u64).map(|i| new(i, vec![i as f32, 0.0])).collect());
        let accepted = |entity: u64| entity % 10 == 7;
        let found: Vec<u64> = graph
            .search_where(&[2500.0, 0.0], 6, |e, _| accepted(e))
            .into_iter()
            .map(|id| graph.points[id])
            .collect();
        // Approximate, so not promised to be the six nearest accepted; but six, every one
        // accepted, where the points within three of the query (2497 to 2503) hold one.
        assert_eq!(found.len(), 6, "{found:?}");
        assert!(found.iter().all(|&e| accepted(e)), "{found:?}");
        assert_eq!((2497..=2503u64).filter(|&e| accepted(e)).count(), 1);
    }

    #[test]
    fn a_batch_past_the_capacity_grows_the_graph() {
        let config = euclidean(2);
        let mut graph = Graph::new(&config, 0);
        for round in 0..3u64 {
            let batch = (0..1500u64)
                .map(|i| {
                    let id = round * 1500 + i;
                    new(id, vec![id as f32, 0.0])
                })
                .collect();
            graph.insert_all(batch);
        }
        assert!(!graph.stale);
        assert_eq!(graph.points.len(), 4500);
        assert_eq!(graph.hnsw.size(), 4500);
        assert_eq!(graph.search(&[4321.0, 0.0], 10).len(), 10);
    }

    #[test]
    fn only_finite_number_lists_are_vectors() {
        let v = |items: Vec<Value>| Value::from(items);
        assert_eq!(
            vector_of(&v(vec![Value::Int(1), Value::Float(0.5)])),
            Some(vec![1.0, 0.5])
        );
        assert_eq!(vector_of(&v(vec![])), None);
        assert_eq!(vector_of(&v(vec![Value::Float(f64::NAN)])), None);
        assert_eq!(vector_of(&v(vec![Value::from("a")])), None);
        assert_eq!(vector_of(&Value::Int(1)), None);
    }
}
