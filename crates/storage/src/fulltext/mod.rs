//! Full-text indexes: tantivy indexes in memory over the string properties of nodes or
//! relationships, kept by the store's commits.
//!
//! The store owns them (rather than the engine) because everything that changes data passes
//! through it: a commit, a replayed commit on a cluster follower and recovery all queue their
//! changes for the indexes from the one place they share, and a worker applies them off the
//! commit lock (see [`pending`]). The definition is durable like other schema (a redo op, a snapshot entry);
//! the contents are derived and rebuilt from the store when they cannot be trusted (after a
//! bulk load, a recovery or a failed update).
//!
//! An index holds one document per entity: its id, the text of each indexed property in a
//! field named after the property, and a hash of that text. It holds the newest committed
//! state only, so a reader at an older snapshot confirms every hit: the entity must be
//! visible to it, carry one of the index's labels or types, and hash to the same text. A hit
//! whose text changed since the reader's snapshot is dropped rather than returned with text
//! it does not have; the search over-fetches to still return the number of rows asked.

/// The `Weight` methods of a wrapper that prunes on its own (`for_each_pruning`) and hands
/// everything else to its `inner` weight unchanged; full-text's pruning weights share them.
macro_rules! inner_weight_methods {
    () => {
        fn scorer(
            &self,
            reader: &tantivy::SegmentReader,
            boost: tantivy::Score,
        ) -> tantivy::Result<Box<dyn tantivy::query::Scorer>> {
            self.inner.scorer(reader, boost)
        }

        fn explain(
            &self,
            reader: &tantivy::SegmentReader,
            doc: tantivy::DocId,
        ) -> tantivy::Result<tantivy::query::Explanation> {
            self.inner.explain(reader, doc)
        }

        fn count(&self, reader: &tantivy::SegmentReader) -> tantivy::Result<u32> {
            self.inner.count(reader)
        }

        fn for_each(
            &self,
            reader: &tantivy::SegmentReader,
            callback: &mut dyn FnMut(tantivy::DocId, tantivy::Score),
        ) -> tantivy::Result<()> {
            self.inner.for_each(reader, callback)
        }

        fn for_each_no_score(
            &self,
            reader: &tantivy::SegmentReader,
            callback: &mut dyn FnMut(&[tantivy::DocId]),
        ) -> tantivy::Result<()> {
            self.inner.for_each_no_score(reader, callback)
        }
    };
}

pub mod analyzers;
mod fuzzy;
mod pairs;
mod pending;
mod phrase;
mod query;

pub(crate) use pending::Pending;

use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;
use quiver_value::Value;
use tantivy::collector::TopDocs;
use tantivy::columnar::Column;
use tantivy::directory::{Directory, WatchCallback, WatchHandle};
use tantivy::query::{EnableScoring, Query};
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, Schema as TantivySchema, TextFieldIndexing,
    TextOptions,
};
use tantivy::{
    DocAddress, Index, IndexReader, IndexWriter, ReloadPolicy, Score, Searcher, TantivyDocument,
    Term,
};

use crate::mvcc::View;
use crate::read;
use crate::storage::Storage;

pub use crate::error::FulltextError;
pub use crate::spec::{FulltextEntity, FulltextSpec};
pub use analyzers::{AnalyzerInfo, DEFAULT_ANALYZER};

/// The memory tantivy's writer may buffer before it writes a segment: its minimum, since
/// every commit writes what it has anyway and an index per label set must stay cheap.
const WRITER_BYTES: usize = 15_000_000;

/// A search fetches this many times the rows asked before confirming them against the
/// reader's snapshot, and four times more on each retry that confirmed too few.
const OVERFETCH_FACTOR: usize = 2;

/// Rows a single search may ask tantivy for: past this a query's `skip + limit` is refused
/// rather than made to collect without bound.
pub const SEARCH_ROWS_MAX: usize = 1 << 24;

/// The names of the id and text-hash fields beside the property fields. tantivy's column
/// names cannot hold control characters, so these are plain names no property may take.
const ID_FIELD: &str = "__quiver_id";
const HASH_FIELD: &str = "__quiver_hash";

/// The name of the field of word pairs ([`pairs`]) beside the `i`th property's text field.
fn pair_field_name(i: usize) -> String {
    format!("__quiver_pairs_{i}")
}

/// The name the pair tokenizer of `analyzer` is registered under.
fn pair_tokenizer_name(analyzer: &str) -> String {
    format!("{analyzer}__quiver_pairs")
}

/// One full-text index in `SHOW INDEXES`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FulltextInfo {
    pub spec: FulltextSpec,
    /// Documents held (entities with text under the index).
    pub documents: u64,
    /// Bytes tantivy's segments take in memory.
    pub memory_bytes: u64,
    /// Searches since `tracked_since_ms`, as for property indexes ([`crate::IndexInfo`]).
    pub read_count: u64,
    pub last_read_ms: Option<i64>,
    pub tracked_since_ms: i64,
}

/// A live index: the definition, its token ids and the tantivy index.
pub(crate) struct FulltextIndex {
    pub spec: FulltextSpec,
    token_ids: Vec<u32>,
    key_ids: Vec<u32>,
    index: Index,
    id_field: Field,
    hash_field: Field,
    text_fields: Vec<Field>,
    /// The word pairs of each text field, in the same order.
    pair_fields: Vec<Field>,
    writer: Mutex<IndexWriter>,
    reader: IndexReader,
    /// Set whenever tantivy writes the index's segment list: at a commit, which reloads the
    /// reader itself, and when a background merge ends, which nothing else would pick up. The
    /// reader reloads only at commits, so without this a search after the last commit of a
    /// load walks the many small segments that commit left, however long ago the merges
    /// joined them: the next search reloads first when it is set.
    segments_changed: Arc<AtomicBool>,
    /// Keeps the watch that sets `segments_changed` registered.
    _segments_watch: WatchHandle,
    /// Set when the contents may differ from the store (created by a snapshot load, data
    /// changed by a bulk path, an update failed): the next search rebuilds first.
    dirty: AtomicBool,
    /// Searches through the index (`SHOW INDEXES`' `readCount`, `lastRead`).
    pub(crate) reads: crate::schema::ReadStats,
    /// The id and text-hash columns of the segments searches confirmed hits in, kept while
    /// their segment is searched: opening a column reads its header and block table, which
    /// grows with the segment and cost more than the values a search reads.
    columns: Mutex<Vec<(tantivy::index::SegmentId, IdColumns)>>,
}

/// A segment's id and text-hash columns.
type IdColumns = (Column<u64>, Column<u64>);

/// The fields of word pairs ([`pairs`]) named `names`, tokenized by `tokenizer`: frequencies
/// without positions or norms (a phrase is scored with its text field's norms).
fn add_pair_fields(
    builder: &mut tantivy::schema::SchemaBuilder,
    names: &[String],
    tokenizer: &str,
) -> Vec<Field> {
    let options = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(tokenizer)
            .set_index_option(IndexRecordOption::WithFreqs)
            .set_fieldnorms(false),
    );
    names
        .iter()
        .map(|name| builder.add_text_field(name, options.clone()))
        .collect()
}

fn engine_err(name: &str, e: impl std::fmt::Display) -> crate::Error {
    crate::Error::Fulltext(FulltextError::Engine {
        name: name.to_string(),
        reason: e.to_string(),
    })
}

impl FulltextIndex {
    /// An empty index for `spec` (marked dirty: it is filled by [`FulltextIndex::rebuild`]).
    pub(crate) fn new(storage: &Storage, spec: FulltextSpec) -> crate::Result<FulltextIndex> {
        let Some(analyzer) = analyzers::build(&spec.analyzer) else {
            return Err(crate::Error::Fulltext(FulltextError::UnknownAnalyzer {
                name: spec.analyzer.clone(),
            }));
        };
        let token_ids = spec
            .tokens
            .iter()
            .map(|t| match spec.entity {
                FulltextEntity::Node => storage.get_or_create_label(t).map(|l| l.0),
                FulltextEntity::Relationship => storage.get_or_create_rel_type(t).map(|r| r.0),
            })
            .collect::<crate::Result<Vec<_>>>()?;
        let key_ids = spec
            .keys
            .iter()
            .map(|k| storage.get_or_create_property_key(k).map(|k| k.0))
            .collect::<crate::Result<Vec<_>>>()?;
        let pair_names: Vec<String> = (0..spec.keys.len()).map(pair_field_name).collect();
        if let Some(k) = spec.keys.iter().find(|k| {
            [ID_FIELD, HASH_FIELD].contains(&&***k) || pair_names.iter().any(|p| p == &***k)
        }) {
            return Err(engine_err(
                &spec.name,
                format!("the property name `{k}` is reserved"),
            ));
        }
        let mut seen = std::collections::HashSet::new();
        if let Some(k) = spec.keys.iter().find(|k| !seen.insert(&***k)) {
            return Err(engine_err(
                &spec.name,
                format!("the property `{k}` is named twice"),
            ));
        }
        let mut builder = TantivySchema::builder();
        let id_field = builder.add_u64_field(ID_FIELD, INDEXED | FAST);
        let hash_field = builder.add_u64_field(HASH_FIELD, FAST);
        let text = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(&spec.analyzer)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        );
        let text_fields = spec
            .keys
            .iter()
            .map(|k| builder.add_text_field(k, text.clone()))
            .collect();
        let pair_tokenizer = pair_tokenizer_name(&spec.analyzer);
        let pair_fields = add_pair_fields(&mut builder, &pair_names, &pair_tokenizer);
        let index = Index::create_in_ram(builder.build());
        index
            .tokenizers()
            .register(&pair_tokenizer, pairs::PairTokenizer::new(analyzer.clone()));
        index.tokenizers().register(&spec.analyzer, analyzer);
        let options = tantivy::indexer::IndexWriterOptions::builder()
            .memory_budget_per_thread(WRITER_BYTES)
            .num_worker_threads(1)
            .num_merge_threads(1)
            .build();
        let writer = index
            .writer_with_options(options)
            .map_err(|e| engine_err(&spec.name, e))?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(|e| engine_err(&spec.name, e))?;
        let segments_changed = Arc::new(AtomicBool::new(false));
        let changed = segments_changed.clone();
        let segments_watch = index
            .directory()
            .watch(WatchCallback::new(move || {
                changed.store(true, Ordering::Release);
            }))
            .map_err(|e| engine_err(&spec.name, e))?;
        Ok(FulltextIndex {
            spec,
            token_ids,
            key_ids,
            index,
            id_field,
            hash_field,
            text_fields,
            pair_fields,
            writer: Mutex::new(writer),
            reader,
            segments_changed,
            _segments_watch: segments_watch,
            dirty: AtomicBool::new(true),
            reads: crate::schema::ReadStats::new(),
            columns: Mutex::new(Vec::new()),
        })
    }

    pub(crate) fn mark_dirty(&self) {
        self.dirty.store(true, Ordering::Release);
    }

    /// The indexed text of entity `id` as `view` sees it: `None` when it is not visible,
    /// has none of the index's labels or types, or no string under any indexed key.
    fn text_of(
        &self,
        storage: &Storage,
        view: &View,
        id: u64,
    ) -> crate::Result<Option<Vec<(usize, String)>>> {
        let mut out = Vec::new();
        match self.spec.entity {
            FulltextEntity::Node => {
                let Some(slot) = storage.nodes.get(id) else {
                    return Ok(None);
                };
                let g = slot.lock();
                let Some(labels) = read::node_labels(&g, view)? else {
                    return Ok(None);
                };
                if !labels.iter().any(|l| self.token_ids.contains(l)) {
                    return Ok(None);
                }
                for (i, key) in self.key_ids.iter().enumerate() {
                    if let Some(Some(Value::String(s))) = read::node_prop(&g, view, *key)? {
                        out.push((i, s.to_string()));
                    }
                }
            }
            FulltextEntity::Relationship => {
                let Some(slot) = storage.rels.get(id) else {
                    return Ok(None);
                };
                let g = slot.lock();
                if !read::rel_exists(&g, view) || !self.token_ids.contains(&g.ty()) {
                    return Ok(None);
                }
                for (i, key) in self.key_ids.iter().enumerate() {
                    if let Some(Some(Value::String(s))) = read::rel_prop(&g, view, *key)? {
                        out.push((i, s.to_string()));
                    }
                }
            }
        }
        Ok((!out.is_empty()).then_some(out))
    }

    fn hash_of(text: &[(usize, String)]) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        text.hash(&mut h);
        h.finish()
    }

    fn document(&self, id: u64, text: &[(usize, String)]) -> TantivyDocument {
        let mut doc = TantivyDocument::default();
        doc.add_u64(self.id_field, id);
        doc.add_u64(self.hash_field, Self::hash_of(text));
        for (i, s) in text {
            doc.add_text(self.text_fields[*i], s);
            doc.add_text(self.pair_fields[*i], s);
        }
        doc
    }

    /// Re-indexes `ids` as `view` sees them and makes the result searchable.
    pub(crate) fn update(&self, storage: &Storage, view: &View, ids: &[u64]) -> crate::Result<()> {
        let mut writer = self.writer.lock();
        for &id in ids {
            writer.delete_term(Term::from_field_u64(self.id_field, id));
            self.add(&mut writer, storage, view, id)?;
        }
        self.publish(&mut writer)
    }

    /// Adds entity `id`'s document as `view` sees it, if it has text to index.
    fn add(
        &self,
        writer: &mut IndexWriter,
        storage: &Storage,
        view: &View,
        id: u64,
    ) -> crate::Result<()> {
        if let Some(text) = self.text_of(storage, view, id)? {
            writer
                .add_document(self.document(id, &text))
                .map_err(|e| engine_err(&self.spec.name, e))?;
        }
        Ok(())
    }

    /// Commits what `writer` holds and makes it searchable.
    fn publish(&self, writer: &mut IndexWriter) -> crate::Result<()> {
        writer
            .commit()
            .map_err(|e| engine_err(&self.spec.name, e))?;
        self.reader
            .reload()
            .map_err(|e| engine_err(&self.spec.name, e))
    }

    /// Empties the index and indexes every entity `view` sees, then clears the dirty mark.
    /// The caller holds the commit lock, so no commit's update interleaves.
    pub(crate) fn rebuild(&self, storage: &Storage, view: &View) -> crate::Result<()> {
        let mut writer = self.writer.lock();
        writer
            .delete_all_documents()
            .map_err(|e| engine_err(&self.spec.name, e))?;
        let end = match self.spec.entity {
            FulltextEntity::Node => storage.next_node.load(Ordering::Acquire),
            FulltextEntity::Relationship => storage.next_rel.load(Ordering::Acquire),
        };
        for id in 0..end {
            self.add(&mut writer, storage, view, id)?;
        }
        self.publish(&mut writer)?;
        self.dirty.store(false, Ordering::Release);
        Ok(())
    }

    pub(crate) fn is_dirty(&self) -> bool {
        self.dirty.load(Ordering::Acquire)
    }

    pub(crate) fn info(&self) -> FulltextInfo {
        let searcher = self.reader.searcher();
        let (read_count, last_read_ms, tracked_since_ms) = self.reads.snapshot();
        FulltextInfo {
            spec: self.spec.clone(),
            documents: searcher.num_docs(),
            memory_bytes: searcher.space_usage().map_or(0, |u| u.total().get_bytes()),
            read_count,
            last_read_ms,
            tracked_since_ms,
        }
    }

    /// The entities matching `query` that `view` confirms, best score first, `skip` rows
    /// left out and at most `limit` returned.
    pub(crate) fn search(
        &self,
        storage: &Storage,
        view: &View,
        query: &str,
        skip: usize,
        limit: usize,
    ) -> crate::Result<Vec<(u64, f64)>> {
        let wanted = skip.saturating_add(limit);
        if wanted > SEARCH_ROWS_MAX {
            return Err(crate::Error::Fulltext(FulltextError::TooManyRows {
                rows: wanted,
                max: SEARCH_ROWS_MAX,
            }));
        }
        if wanted == 0 {
            return Ok(Vec::new());
        }
        let parsed = query::parse(self, query)?;
        if self.segments_changed.swap(false, Ordering::AcqRel) {
            self.reader
                .reload()
                .map_err(|e| engine_err(&self.spec.name, e))?;
        }
        let searcher = self.reader.searcher();
        let mut fetch = wanted.saturating_mul(OVERFETCH_FACTOR).max(16);
        let mut columns = SegmentColumns::new(&self.columns, &searcher);
        loop {
            let hits = if carries_threshold(&*parsed) {
                top_across_segments(&searcher, &*parsed, fetch)
            } else {
                searcher.search(&*parsed, &TopDocs::with_limit(fetch).order_by_score())
            }
            .map_err(|e| engine_err(&self.spec.name, e))?;
            let exhausted = hits.len() < fetch;
            let mut out = Vec::with_capacity(wanted.min(hits.len()));
            for (score, address) in hits {
                let Some((ids, hashes)) = columns.of(address.segment_ord) else {
                    continue;
                };
                let (Some(id), Some(hash)) =
                    (ids.first(address.doc_id), hashes.first(address.doc_id))
                else {
                    continue;
                };
                let confirmed = self
                    .text_of(storage, view, id)?
                    .is_some_and(|text| Self::hash_of(&text) == hash);
                if confirmed {
                    out.push((id, f64::from(score)));
                    if out.len() == wanted {
                        break;
                    }
                }
            }
            if out.len() == wanted || exhausted || fetch >= SEARCH_ROWS_MAX {
                return Ok(out.into_iter().skip(skip).collect());
            }
            fetch = fetch.saturating_mul(4).min(SEARCH_ROWS_MAX);
        }
    }
}

/// Whether `query`'s top k may be collected by [`top_across_segments`]: its weight's
/// pruning passes over only documents that cannot score above the threshold it is given, so
/// a segment may start from the threshold the segments before it left. tantivy's own
/// block-max pruning bounds a block with the segment's statistics rather than the search's,
/// so term and boolean queries start every segment afresh, as tantivy's collector does.
fn carries_threshold(query: &dyn Query) -> bool {
    query
        .downcast_ref::<fuzzy::FirstMatchesFuzzyQuery>()
        .is_some()
        || query.downcast_ref::<phrase::BoundedPhraseQuery>().is_some()
}

/// The `k` best hits of `query`, best first, equal scores in index order: what tantivy's
/// top-docs collector returns, with each segment pruned from the k-th best score of the
/// segments before it instead of from nothing.
fn top_across_segments(
    searcher: &Searcher,
    query: &dyn Query,
    k: usize,
) -> tantivy::Result<Vec<(Score, DocAddress)>> {
    let weight = query.weight(EnableScoring::enabled_from_searcher(searcher))?;
    let mut top = TopHits::new(k);
    for (ord, reader) in searcher.segment_readers().iter().enumerate() {
        let ord = u32::try_from(ord)
            .map_err(|_| tantivy::TantivyError::InvalidArgument("too many segments".to_string()))?;
        let alive = reader.alive_bitset();
        weight.for_each_pruning(top.threshold(), reader, &mut |doc, score| {
            if !alive.is_some_and(|a| a.is_deleted(doc)) {
                top.push(score, DocAddress::new(ord, doc));
            }
            top.threshold()
        })?;
    }
    Ok(top.into_sorted())
}

/// Whether two top-k lists agree on what a top k promises: the same scores in order, and the
/// same documents at every score but the lowest, where either may have kept a different few
/// of the documents tied at that score (tantivy's collector and [`TopHits`] need not break
/// ties across segments alike, and a segment's order follows its random id).
#[cfg(test)]
pub(crate) fn same_top(got: &[(Score, DocAddress)], want: &[(Score, DocAddress)]) -> bool {
    let scores = |hits: &[(Score, DocAddress)]| hits.iter().map(|h| h.0).collect::<Vec<_>>();
    if scores(got) != scores(want) {
        return false;
    }
    let lowest = want.last().map(|h| h.0);
    let above = |hits: &[(Score, DocAddress)]| {
        let mut docs: Vec<DocAddress> = hits
            .iter()
            .filter(|h| Some(h.0) != lowest)
            .map(|h| h.1)
            .collect();
        docs.sort();
        docs
    };
    above(got) == above(want)
}

/// The k best (score, address) pairs seen so far, offered in increasing address order: a
/// hit enters only by beating the k-th best score, so among equal scores the first offered
/// stay, as in tantivy's collector.
struct TopHits {
    k: usize,
    /// A min-heap: the root is the hit the next better one replaces.
    heap: std::collections::BinaryHeap<std::cmp::Reverse<Ranked>>,
}

/// A hit ordered by score, then the earlier address first.
#[derive(Clone, Copy, Debug)]
struct Ranked(Score, DocAddress);

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0
            .total_cmp(&other.0)
            .then_with(|| other.1.cmp(&self.1))
    }
}

impl TopHits {
    fn new(k: usize) -> TopHits {
        TopHits {
            k,
            heap: std::collections::BinaryHeap::with_capacity(k),
        }
    }

    /// The score a hit must beat to enter.
    fn threshold(&self) -> Score {
        match self.heap.peek() {
            Some(std::cmp::Reverse(Ranked(score, _))) if self.heap.len() >= self.k => *score,
            _ => Score::MIN,
        }
    }

    fn push(&mut self, score: Score, address: DocAddress) {
        if self.k == 0 {
            return;
        }
        if self.heap.len() < self.k {
            self.heap.push(std::cmp::Reverse(Ranked(score, address)));
        } else if score > self.threshold()
            && let Some(mut last) = self.heap.peek_mut()
        {
            *last = std::cmp::Reverse(Ranked(score, address));
        }
    }

    fn into_sorted(self) -> Vec<(Score, DocAddress)> {
        // Ascending by `Reverse`, so best first.
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|std::cmp::Reverse(Ranked(score, address))| (score, address))
            .collect()
    }
}

/// The id and text-hash columns of the segments a search's hits fall in, taken once a
/// segment from the index's cache of opened columns, which keeps only the segments of the
/// searches' reader.
struct SegmentColumns<'a> {
    cache: &'a Mutex<Vec<(tantivy::index::SegmentId, IdColumns)>>,
    searcher: &'a Searcher,
    /// By segment ordinal.
    taken: Vec<Taken>,
}

/// A segment's columns in a search: not looked for yet, missing, or taken.
enum Taken {
    NotYet,
    Missing,
    Columns(IdColumns),
}

impl<'a> SegmentColumns<'a> {
    fn new(
        cache: &'a Mutex<Vec<(tantivy::index::SegmentId, IdColumns)>>,
        searcher: &'a Searcher,
    ) -> SegmentColumns<'a> {
        SegmentColumns {
            cache,
            searcher,
            taken: Vec::new(),
        }
    }

    fn of(&mut self, segment_ord: u32) -> Option<&IdColumns> {
        let at = usize::try_from(segment_ord).ok()?;
        if self.taken.len() <= at {
            self.taken.resize_with(at + 1, || Taken::NotYet);
        }
        if matches!(self.taken[at], Taken::NotYet) {
            self.taken[at] = match self.take(at) {
                Some(columns) => Taken::Columns(columns),
                None => Taken::Missing,
            };
        }
        match &self.taken[at] {
            Taken::Columns(columns) => Some(columns),
            Taken::NotYet | Taken::Missing => None,
        }
    }

    /// Segment `at`'s columns from the cache, opened and cached if they are not there.
    fn take(&self, at: usize) -> Option<IdColumns> {
        let reader = self.searcher.segment_readers().get(at)?;
        let id = reader.segment_id();
        let mut cache = self.cache.lock();
        if let Some((_, columns)) = cache.iter().find(|(s, _)| *s == id) {
            return Some(columns.clone());
        }
        let fast = reader.fast_fields();
        let columns = (fast.u64(ID_FIELD).ok()?, fast.u64(HASH_FIELD).ok()?);
        // Segments merged away since are dropped with their columns.
        let live = self.searcher.segment_readers();
        cache.retain(|(s, _)| live.iter().any(|r| r.segment_id() == *s));
        cache.push((id, columns.clone()));
        Some(columns)
    }
}

impl Storage {
    /// The full-text indexes, in creation order.
    pub(crate) fn fulltext(&self) -> Vec<Arc<FulltextIndex>> {
        let derived = self.derived();
        derived
            .iter()
            .filter_map(|d| d.as_fulltext().cloned())
            .collect()
    }

    pub(crate) fn fulltext_by_name(&self, name: &str) -> Option<Arc<FulltextIndex>> {
        self.derived_by_name(name)?.as_fulltext().cloned()
    }

    /// `SHOW INDEXES`' full-text rows.
    pub fn fulltext_indexes(&self) -> Vec<FulltextInfo> {
        self.fulltext().iter().map(|i| i.info()).collect()
    }

    /// Defines a full-text index with no transaction (a snapshot being loaded): it is filled
    /// from the store by the first search.
    pub fn define_fulltext_unobserved(&self, spec: FulltextSpec) -> crate::Result<()> {
        // A snapshot holds rules judged when they were made.
        self.check_new_rule(
            &crate::rules::Rule::fulltext(&spec),
            &[],
            crate::rules::Judge::NameOnly,
        )?;
        let index = FulltextIndex::new(self, spec)?;
        self.publish_derived(crate::derived::DerivedIndex::Fulltext(Arc::new(index)));
        Ok(())
    }

    /// Marks every full-text index for a rebuild: their worker could not start, so a commit
    /// reaches them only through the store.
    pub(crate) fn fulltext_stale(&self) {
        for i in &self.fulltext() {
            i.mark_dirty();
        }
    }

    /// Rebuilds `index` from the newest committed state if it is marked dirty.
    pub(crate) fn fulltext_refresh(&self, index: &FulltextIndex) -> crate::Result<()> {
        if !index.is_dirty() {
            return Ok(());
        }
        let _slot = self.commit.lock();
        if !index.is_dirty() {
            return Ok(());
        }
        let view = View {
            snapshot: self.last_committed(),
            txid: 0,
            command: u32::MAX,
        };
        index.rebuild(self, &view)
    }
}
