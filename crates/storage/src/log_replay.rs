//! Replaying a run of log records into a store no transaction has open (recovery), on every
//! core, published once.
//!
//! Nobody sees the store between two replayed records, so only the store after the run has to
//! be what replaying the records one by one makes. Two things follow:
//!
//! - **One publication per run.** The commit number, the counts and the derived indexes' mark
//!   are published once for the whole run, not per record; the checks a record needs once
//!   (no transaction open, garbage collection done, full-text worker idle) are made once.
//! - **Work split by the entity it writes.** Each change is work on the entity whose record
//!   it writes: a node's block (its creation, properties, labels, adjacency entries and
//!   deletion) or a relationship's record (its creation and properties). A created
//!   relationship is three pieces of work: its record, its outgoing entry (on the start node)
//!   and its incoming entry (on the end node), each end counting what that end counts (a
//!   `(label, type, direction)` count takes the labels of its own end, which only work on
//!   that node changes). Every entity's work is done in log order, so it sees the exact
//!   sequence of changes the log made to it, and changes to different entities commute:
//!   adjacency lists are kept sorted by (type, relationship), counts are sums, an index is a
//!   set of (key, id) entries, ids move forward with `fetch_max`, label bitmaps change a bit
//!   per node.
//!
//! So the work may be done in any order that keeps each entity's own. Dispatch gathers it in
//! buckets of neighbouring ids, and each bucket is done whole, its work sorted (stably) by
//! entity: the random visits a run makes become an upward sweep through one bucket after
//! another, each record's group and block fetched once for all its work, and the common work
//! (a property's change, a relationship's end) carries its value and entry in the bucket, so
//! doing it reads nothing else. Buckets are dealt out to threads, each bucket to one.
//!
//! What cannot be split runs alone, after all the work before it and before any after it:
//! a record that changes the schema (through the transactional replay, as before) and a
//! relationship's deletion (its end node is found through the start node's adjacency, which
//! another thread may be changing). Names become token ids on the one dispatching thread, in
//! log order and through the same sequence of lookups as one-by-one replay, so every token
//! gets the id the one-by-one replay gives it.
//!
//! Uniqueness constraints are checked once per run, over every entity the run touched,
//! before publication: a run that leaves a duplicate fails, as one-by-one replay fails at the
//! record that made it. (A duplicate one record makes and a later record of the same run
//! removes again passes here; a log of commits that each passed the check holds none.)
//!
//! As with one record unobserved, nothing here can be rolled back: on an error the store
//! holds part of the run and must be discarded.

use std::sync::Arc;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::bulk::{
    NameCache, Tally, Token, Touched, capacity, index_entries, load_node, put_committed,
    relationship_blob,
};
use crate::counts::CountKey;
use crate::error::{EntityKind, Error, Result};
use crate::fulltext::FulltextSpec;
use crate::graph::{AdjEntry, Encoded, RelRec};
use crate::ids::ENTITY_IDS_MAX;
use crate::redo::{NamesRef, PropsRef, RawValue, RedoOpRef, RedoRecordRef};
use crate::replay::{RedoSink, SchemaIndexRef};
use crate::schema::Schema;
use crate::security::Security;
use crate::spec::{PropertyConstraintSpec, VectorConfig};
use crate::storage::Storage;
use crate::tokens::distinct_ids;

/// Why a run stopped: the record it stopped at (its index in the run) and the error.
///
/// Every record before `record` is applied and published when `record` changes the schema;
/// for any other record the store holds part of the run and must be discarded.
#[derive(Debug)]
pub struct ReplayStopped {
    pub record: usize,
    pub error: Error,
}

/// Pieces of work queued before the workers are started on them; bounds the queue's memory
/// (40 bytes a piece, and the values it sets) for a long run of records.
const QUEUED_WORK_MAX: usize = 1 << 21;

/// Buckets of either kind kept with their memory between drains.
const BUCKETS_KEPT_MAX: usize = 4096;

/// How a run's work is split. [`ReplaySplit::threads`] gives what recovery uses; tests split
/// small graphs finely and start threads for little work, so that a few dozen entities
/// already spread over several buckets and owners.
#[derive(Clone, Copy, Debug)]
pub struct ReplaySplit {
    /// Threads the work is done on.
    pub threads: usize,
    /// Work is gathered in buckets of `1 << bucket_bits` consecutive ids of a kind, and each
    /// bucket belongs to one thread: a bucket's records (a few MiB of blocks) stay in the
    /// cache while its work is done, and whole groups of records land with one thread, so
    /// threads seldom wait on each other's group lock.
    pub bucket_bits: u32,
    /// Below this many pieces of work queued, the buckets are done one after another on the
    /// dispatching thread, as starting threads would cost more than the work.
    pub parallel_work_min: usize,
}

impl ReplaySplit {
    /// Recovery's split over `threads` threads: buckets of 4,096 ids, threads started for
    /// 4,096 pieces of work or more.
    pub fn threads(threads: usize) -> Self {
        ReplaySplit {
            threads: threads.max(1),
            bucket_bits: 12,
            parallel_work_min: 4096,
        }
    }
}

impl Storage {
    /// Replays `records` (consecutive commits, each newer than the store's last) in place, its
    /// work split as `split` says, as if each were given to
    /// [`Storage::apply_redo_ref_unobserved`] in turn (see the module docs), and publishes the
    /// last one's commit number.
    ///
    /// Refused ([`Error::BulkLoadRefused`]) while a transaction is open.
    pub fn apply_redo_run_unobserved(
        self: &Arc<Self>,
        records: &[RedoRecordRef<'_>],
        split: ReplaySplit,
    ) -> std::result::Result<(), ReplayStopped> {
        if records.is_empty() {
            return Ok(());
        }
        let stop = |record| move |error| ReplayStopped { record, error };
        // The full-text worker reads under a snapshot of its own; the indexes are marked for
        // a rebuild when the run is published.
        self.derived_quiesce();
        if self.live_snapshots() != 0 {
            return Err(stop(0)(Error::BulkLoadRefused("a transaction is open")));
        }
        if self.gc_pending() {
            // Chains left by earlier transactional writes: with no snapshot open, a pass cuts
            // them all, so every entity below is its one committed version.
            self.gc();
        }
        let mut run = Run::new(self, split);
        let mut last = self.last_committed();
        for (i, record) in records.iter().enumerate() {
            if record.commit <= last {
                return Err(stop(i)(Error::Replay(format!(
                    "commit {} is not newer than the store's {last}",
                    record.commit
                ))));
            }
            last = record.commit;
            if record.ops.iter().any(RedoOpRef::is_schema) {
                // Rare and small: everything before it is published first, so the
                // transactional replay finds the store as one-by-one replay leaves it.
                run.publish()?;
                self.apply_redo_ref(record).map_err(stop(i))?;
                run.schema = self.schema();
                continue;
            }
            run.record = i;
            for op in &record.ops {
                run.op = Some(op);
                op.apply_to(&mut run).map_err(|e| run.stopped(e))?;
            }
            run.commit = record.commit;
            run.unpublished = true;
            if run.queued() >= QUEUED_WORK_MAX {
                run.drain()?;
            }
        }
        run.publish()
    }
}

/// One piece of work on the entity it writes, with the index of its record in the run (for
/// the error). The common kinds carry what they need, so doing them reads neither the op nor
/// the log: only the entity's record, and the bucket's own values.
#[derive(Clone, Copy)]
struct Work<'x, 'y> {
    entity: u64,
    record: u32,
    what: What<'x, 'y>,
}

const _: () = assert!(std::mem::size_of::<Work<'_, '_>>() <= 48);

#[derive(Clone, Copy)]
enum What<'x, 'y> {
    /// A whole op (creations, deletions, labels), with the token ids its names resolved to,
    /// in the order it names them.
    Op { op: &'x RedoOpRef<'y>, ids: Span },
    /// One end of a created relationship: its entry in the node's list `out` or in.
    Connect { out: bool, entry: AdjEntry },
    /// A property set to the value at `value` in the bucket's `values`, or removed.
    Property { key: u32, value: Option<Span> },
}

/// Where a piece of work's token ids or value lie in the run's or the bucket's buffer.
#[derive(Clone, Copy)]
struct Span {
    from: u32,
    to: u32,
}

impl Span {
    fn of<T>(self, buffer: &[T]) -> &[T] {
        buffer
            .get(self.from as usize..self.to as usize)
            .unwrap_or_default()
    }
}

/// The work on one bucket of ids of one kind, in log order, and the values it sets.
#[derive(Default)]
struct Bucket<'x, 'y> {
    work: Vec<Work<'x, 'y>>,
    values: Vec<u8>,
}

/// Buckets of node ids and of relationship ids, by the ids' common high bits (a map: the
/// ids a log names may be anywhere in the id space).
#[derive(Default)]
struct Buckets<'x, 'y> {
    nodes: FxHashMap<u64, Bucket<'x, 'y>>,
    rels: FxHashMap<u64, Bucket<'x, 'y>>,
}

/// The schema and security arms of a sink for a run of data records: a run holds none (they
/// are replayed alone, between runs), so each is refused as a record in the wrong place.
macro_rules! refuse_schema {
    () => {
        fn create_index(&mut self, _: &str, _: &str, _: &str, _: bool) -> Result<()> {
            Err(Error::MixedSchemaAndData)
        }

        fn create_schema_index(&mut self, _: &str, _: SchemaIndexRef<'_>) -> Result<()> {
            Err(Error::MixedSchemaAndData)
        }

        fn create_vector_index(
            &mut self,
            _: &str,
            _: bool,
            _: (&str, &str),
            _: &[&str],
            _: VectorConfig,
        ) -> Result<()> {
            Err(Error::MixedSchemaAndData)
        }

        fn create_fulltext_index(&mut self, _: FulltextSpec) -> Result<()> {
            Err(Error::MixedSchemaAndData)
        }

        fn create_property_constraint(&mut self, _: PropertyConstraintSpec) -> Result<()> {
            Err(Error::MixedSchemaAndData)
        }

        fn drop_index(&mut self, _: &str) -> Result<()> {
            Err(Error::MixedSchemaAndData)
        }

        fn drop_constraint(&mut self, _: &str) -> Result<()> {
            Err(Error::MixedSchemaAndData)
        }

        fn security(&mut self, _: Security) -> Result<()> {
            Err(Error::MixedSchemaAndData)
        }
    };
}

/// The dispatching side of a run: a [`RedoSink`] that turns each op's names into token ids
/// and queues its work in the buckets of the entities it writes, and runs the queued work
/// whenever something must run alone.
struct Run<'s, 'x, 'y> {
    storage: &'s Arc<Storage>,
    split: ReplaySplit,
    schema: Arc<Schema>,
    names: NameCache,
    /// The op being dispatched.
    op: Option<&'x RedoOpRef<'y>>,
    buckets: Buckets<'x, 'y>,
    queued: usize,
    /// The token ids the queued ops name.
    ids: Vec<u32>,
    tally: Tally,
    touched: Touched,
    /// The record being dispatched.
    record: usize,
    /// The commit of the last record dispatched.
    commit: u64,
    /// Whether anything was dispatched since the last publication.
    unpublished: bool,
}

impl<'s, 'x, 'y> Run<'s, 'x, 'y> {
    fn new(storage: &'s Arc<Storage>, split: ReplaySplit) -> Self {
        Run {
            storage,
            split,
            schema: storage.schema(),
            names: NameCache::default(),
            op: None,
            buckets: Buckets::default(),
            queued: 0,
            ids: Vec::new(),
            tally: Tally::default(),
            touched: Touched::default(),
            record: 0,
            commit: 0,
            unpublished: false,
        }
    }

    fn stopped(&self, error: Error) -> ReplayStopped {
        ReplayStopped {
            record: self.record,
            error,
        }
    }

    fn queued(&self) -> usize {
        self.queued
    }

    /// The bucket of node (`node`) or relationship `entity`.
    fn bucket(&mut self, node: bool, entity: u64) -> &mut Bucket<'x, 'y> {
        let at = entity.checked_shr(self.split.bucket_bits).unwrap_or(0);
        let map = if node {
            &mut self.buckets.nodes
        } else {
            &mut self.buckets.rels
        };
        map.entry(at).or_default()
    }

    fn push(&mut self, node: bool, entity: u64, what: What<'x, 'y>) {
        let record = self.record as u32;
        self.bucket(node, entity).work.push(Work {
            entity,
            record,
            what,
        });
        self.queued += 1;
    }

    /// Queues the op being dispatched, whole, as work on `entity`.
    fn push_op(&mut self, node: bool, entity: u64, ids: Span) -> Result<()> {
        let op = self.op.ok_or(Error::Replay("work with no op".into()))?;
        self.push(node, entity, What::Op { op, ids });
        Ok(())
    }

    /// Queues a property's change, its value copied into the bucket.
    fn push_property(
        &mut self,
        node: bool,
        entity: u64,
        key: &str,
        value: Option<RawValue<'_>>,
    ) -> Result<()> {
        let key = self.names.id(self.storage, Token::Key, key)?;
        let bucket = self.bucket(node, entity);
        let value = value.map(|v| {
            let from = bucket.values.len() as u32;
            bucket.values.extend_from_slice(v.bytes());
            Span {
                from,
                to: bucket.values.len() as u32,
            }
        });
        self.push(node, entity, What::Property { key, value });
        Ok(())
    }

    /// Looks `name` up (or creates it) and appends its id to `ids`.
    fn resolve(&mut self, token: Token, name: &str) -> Result<()> {
        let id = self.names.id(self.storage, token, name)?;
        self.ids.push(id);
        Ok(())
    }

    fn resolve_keys(&mut self, props: PropsRef<'_>) -> Result<()> {
        for (k, _) in props.iter() {
            self.resolve(Token::Key, k)?;
        }
        Ok(())
    }

    /// The ids resolved since `from`.
    fn since(&self, from: usize) -> Span {
        Span {
            from: from as u32,
            to: self.ids.len() as u32,
        }
    }

    /// Does every queued piece of work: bucket `b` of either kind on thread `b % threads`,
    /// when there is enough work for threads. On an error the record named is the earliest
    /// any thread stopped at.
    fn drain(&mut self) -> std::result::Result<(), ReplayStopped> {
        if self.queued == 0 {
            return Ok(());
        }
        let threads = if self.queued < self.split.parallel_work_min {
            1
        } else {
            self.split.threads.max(1)
        };
        let (storage, schema, ids) = (&**self.storage, &*self.schema, &self.ids[..]);
        let mut shares: Vec<Vec<(bool, &mut Bucket<'x, 'y>)>> =
            (0..threads).map(|_| Vec::new()).collect();
        for (node, map) in [
            (true, &mut self.buckets.nodes),
            (false, &mut self.buckets.rels),
        ] {
            let mut list: Vec<(u64, &mut Bucket<'x, 'y>)> =
                map.iter_mut().map(|(b, bucket)| (*b, bucket)).collect();
            // In id order: each thread sweeps its buckets upward.
            list.sort_unstable_by_key(|(b, _)| *b);
            for (b, bucket) in list {
                if !bucket.work.is_empty()
                    && let Some(share) = shares.get_mut((b % threads as u64) as usize)
                {
                    share.push((node, bucket));
                }
            }
        }
        let results: Vec<Done> = if threads == 1 {
            shares
                .into_iter()
                .map(|share| work(storage, schema, ids, share))
                .collect()
        } else {
            std::thread::scope(|scope| {
                let mut shares = shares.into_iter();
                let mine = shares.next().unwrap_or_default();
                let handles: Vec<_> = shares
                    .map(|share| scope.spawn(move || work(storage, schema, ids, share)))
                    .collect();
                let mut done = vec![work(storage, schema, ids, mine)];
                for h in handles {
                    done.push(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
                }
                done
            })
        };
        let mut first_error: Option<ReplayStopped> = None;
        for done in results {
            self.tally.merge(done.tally);
            self.touched.nodes.extend(done.touched.nodes);
            self.touched.rels.extend(done.touched.rels);
            if let Some((record, error)) = done.error
                && first_error
                    .as_ref()
                    .is_none_or(|f| (record as usize) < f.record)
            {
                first_error = Some(ReplayStopped {
                    record: record as usize,
                    error,
                });
            }
        }
        self.queued = 0;
        self.ids.clear();
        // Buckets emptied by the work keep their memory for the next drain; a run that
        // spread far lets it go.
        for map in [&mut self.buckets.nodes, &mut self.buckets.rels] {
            if map.len() > BUCKETS_KEPT_MAX {
                map.clear();
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    /// Does the queued work, checks the constraints over what the run touched and publishes
    /// the last record's commit.
    fn publish(&mut self) -> std::result::Result<(), ReplayStopped> {
        self.drain()?;
        if !self.unpublished {
            return Ok(());
        }
        if self.schema.has_constraints() {
            let Touched { nodes, rels } = &mut self.touched;
            for ids in [&mut *nodes, &mut *rels] {
                ids.sort_unstable();
                ids.dedup();
            }
            // Index entries are exact here (every entity is one version), so the index
            // names every candidate.
            self.storage
                .check_constraints_over(&self.schema, (&nodes[..], &rels[..]), None)
                .map_err(|e| self.stopped(e))?;
        }
        self.touched = Touched::default();
        let tally = std::mem::take(&mut self.tally);
        self.storage.publish_unobserved(self.commit, &tally);
        self.unpublished = false;
        Ok(())
    }
}

/// Dispatch: each op's names resolved in log order, through the lookups one-by-one replay
/// makes and in its order, and its work queued for its owners.
impl RedoSink for Run<'_, '_, '_> {
    fn create_node(&mut self, id: u64, labels: NamesRef<'_>, props: PropsRef<'_>) -> Result<()> {
        let from = self.ids.len();
        let (storage, names) = (self.storage, &mut self.names);
        let ls = distinct_ids(labels.iter(), |l| names.id(storage, Token::Label, l))?;
        self.ids.extend_from_slice(&ls);
        self.resolve_keys(props)?;
        self.push_op(true, id, self.since(from))
    }

    fn delete_node(&mut self, id: u64) -> Result<()> {
        self.push_op(true, id, self.since(self.ids.len()))
    }

    fn set_node_property(&mut self, id: u64, key: &str, value: Option<RawValue<'_>>) -> Result<()> {
        self.push_property(true, id, key, value)
    }

    fn set_label(&mut self, id: u64, label: &str, _: bool) -> Result<()> {
        let from = self.ids.len();
        self.resolve(Token::Label, label)?;
        self.push_op(true, id, self.since(from))
    }

    fn create_relationship(
        &mut self,
        id: u64,
        (start, end): (u64, u64),
        rel_type: &str,
        props: PropsRef<'_>,
    ) -> Result<()> {
        let from = self.ids.len();
        self.resolve(Token::Type, rel_type)?;
        self.resolve_keys(props)?;
        let ids = self.since(from);
        let ty = self.ids.get(from).copied().unwrap_or_default();
        self.push_op(false, id, ids)?;
        let entry = AdjEntry::new(id, end, ty);
        self.push(true, start, What::Connect { out: true, entry });
        let entry = AdjEntry::new(id, start, ty);
        self.push(true, end, What::Connect { out: false, entry });
        Ok(())
    }

    fn delete_relationship(&mut self, id: u64) -> Result<()> {
        // Alone, after everything before it: its end is found through its start node's
        // entries, which the start's owner may be changing.
        self.drain().map_err(|s| s.error)?;
        self.push_op(false, id, Span { from: 0, to: 0 })?;
        self.drain().map_err(|s| s.error)
    }

    fn set_relationship_property(
        &mut self,
        id: u64,
        key: &str,
        value: Option<RawValue<'_>>,
    ) -> Result<()> {
        self.push_property(false, id, key, value)
    }

    refuse_schema!();

    fn commit_time(&mut self, micros: i64) -> Result<()> {
        // A maximum: the same whichever worker's time it is taken in.
        self.storage.note_commit_time(micros);
        Ok(())
    }
}

/// What one thread leaves: its counts, what it touched, and where it stopped, if it did.
#[derive(Default)]
struct Done {
    tally: Tally,
    touched: Touched,
    error: Option<(u32, Error)>,
}

/// Does one thread's share of the buckets, each in entity order (log order kept per entity,
/// see the module docs): a bucket's records are visited in one ascending sweep, each group
/// and block fetched once for all the work on it. Empties the buckets.
fn work(
    storage: &Storage,
    schema: &Schema,
    ids: &[u32],
    share: Vec<(bool, &mut Bucket<'_, '_>)>,
) -> Done {
    let mut worker = Worker {
        storage,
        schema,
        ids: &[],
        done: Done::default(),
    };
    for (node, bucket) in share {
        bucket.work.sort_by_key(|w| w.entity);
        for w in &bucket.work {
            if let Err(e) = worker.one(node, w, &bucket.values, ids) {
                worker.done.error = Some((w.record, e));
                break;
            }
        }
        bucket.work.clear();
        bucket.values.clear();
        if worker.done.error.is_some() {
            break;
        }
    }
    worker.done
}

/// The working side: makes one piece of work's change, with the token ids dispatch resolved
/// (`ids`, in the order the op names them) in place of the op's names.
struct Worker<'w> {
    storage: &'w Storage,
    schema: &'w Schema,
    ids: &'w [u32],
    done: Done,
}

impl<'w> Worker<'w> {
    /// Does `w`, work on a node (`node`) or a relationship.
    fn one(&mut self, node: bool, w: &Work<'_, '_>, values: &[u8], ids: &'w [u32]) -> Result<()> {
        match &w.what {
            What::Op { op, ids: at } => {
                self.ids = at.of(ids);
                op.apply_to(self)
            }
            What::Connect { out, entry } => self.connect(w.entity, *out, *entry),
            What::Property { key, value } => {
                let value = value.map(|at| Encoded(at.of(values)));
                let (storage, schema) = (self.storage, self.schema);
                if node {
                    storage.set_node_prop_unobserved(schema, w.entity, *key, value)?;
                    self.done.touched.nodes.push(w.entity);
                } else {
                    storage.set_rel_prop_unobserved(schema, w.entity, *key, value)?;
                    self.done.touched.rels.push(w.entity);
                }
                Ok(())
            }
        }
    }

    fn id(&self, at: usize) -> Result<u32> {
        self.ids
            .get(at)
            .copied()
            .ok_or(Error::Replay("a name left unresolved".into()))
    }

    /// The op's properties with their resolved keys (`keys`, one per property).
    fn encoded<'p>(keys: &[u32], props: PropsRef<'p>) -> SmallVec<[(u32, Encoded<'p>); 8]> {
        keys.iter()
            .zip(props.iter())
            .map(|(k, (_, v))| (*k, Encoded(v.bytes())))
            .collect()
    }

    /// One end of a created relationship: its entry in `node`'s list (`out` or in), and the
    /// `(label, type, direction)` counts of that end.
    fn connect(&mut self, node: u64, out: bool, entry: AdjEntry) -> Result<()> {
        let slot = self.storage.live_node(node)?;
        let labels = {
            let mut g = slot.lock();
            g.adj_insert(out, entry);
            g.labels()?
        };
        let ty = entry.ty();
        for label in labels {
            self.done
                .tally
                .add(CountKey::LabelType { label, ty, out }, 1);
        }
        Ok(())
    }
}

/// Ops done whole ([`What::Op`]): creations, deletions and labels. Property changes and the
/// ends of created relationships are queued as [`What::Property`] and [`What::Connect`].
impl RedoSink for Worker<'_> {
    fn create_node(&mut self, id: u64, _: NamesRef<'_>, props: PropsRef<'_>) -> Result<()> {
        let split = self.ids.len().saturating_sub(props.len());
        let (labels, keys) = self.ids.split_at(split);
        let storage = self.storage;
        let encoded = Self::encoded(keys, props);
        load_node(storage, &mut self.done.tally, None, id, labels, encoded)?;
        let slot = storage.live_node(id)?;
        let g = slot.lock();
        for l in labels {
            index_entries(self.schema.on_label(*l), || g.props(), id, true)?;
        }
        self.done.touched.nodes.push(id);
        Ok(())
    }

    fn delete_node(&mut self, id: u64) -> Result<()> {
        let tally = &mut self.done.tally;
        self.storage.delete_node_unobserved(self.schema, tally, id)
    }

    fn set_node_property(&mut self, _: u64, _: &str, _: Option<RawValue<'_>>) -> Result<()> {
        Err(Error::Replay("a property queued as an op".into()))
    }

    fn set_label(&mut self, id: u64, _: &str, add: bool) -> Result<()> {
        let label = self.id(0)?;
        let tally = &mut self.done.tally;
        self.storage
            .set_label_unobserved(self.schema, tally, id, label, add)?;
        if add {
            self.done.touched.nodes.push(id);
        }
        Ok(())
    }

    /// The relationship's record, with its index entries and counts (its ends' entries are
    /// [`What::Connect`] work on their nodes).
    fn create_relationship(
        &mut self,
        id: u64,
        (start, end): (u64, u64),
        _: &str,
        props: PropsRef<'_>,
    ) -> Result<()> {
        let ty = self.id(0)?;
        if id >= ENTITY_IDS_MAX {
            return Err(capacity(EntityKind::Relationship));
        }
        let keys = self.ids.get(1..).unwrap_or_default();
        let blob = relationship_blob(Self::encoded(keys, props))?;
        let storage = self.storage;
        let rec = || Ok(RelRec::committed(start, ty, &blob));
        put_committed(&storage.rels, &storage.next_rel, id, RelRec::is_vacant, rec)?;
        if let Some(slot) = storage.rels.get(id) {
            let r = slot.lock();
            index_entries(self.schema.on_type(ty), || Ok(r.props.bytes()), id, true)?;
        }
        let tally = &mut self.done.tally;
        tally.add(CountKey::Rels, 1);
        tally.add(CountKey::Type(ty), 1);
        if start == end {
            tally.add(CountKey::SelfLoops(ty), 1);
        }
        tally.rels += 1;
        self.done.touched.rels.push(id);
        Ok(())
    }

    fn delete_relationship(&mut self, id: u64) -> Result<()> {
        let tally = &mut self.done.tally;
        self.storage.delete_rel_unobserved(self.schema, tally, id)
    }

    fn set_relationship_property(
        &mut self,
        _: u64,
        _: &str,
        _: Option<RawValue<'_>>,
    ) -> Result<()> {
        Err(Error::Replay("a property queued as an op".into()))
    }

    refuse_schema!();

    fn commit_time(&mut self, _: i64) -> Result<()> {
        // Noted when the op was dispatched.
        Ok(())
    }
}
