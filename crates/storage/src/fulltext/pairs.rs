//! Two-word phrases found through a field of word pairs.
//!
//! A phrase of two adjacent words costs tantivy's phrase scorer the positions of every
//! document holding both words, and two common words share a large part of the index: a
//! phrase of them cost milliseconds at a million documents, however few rows it asked for.
//! Beside each text field the index keeps a field of the pairs of words at adjacent
//! positions, hashed into a fixed number of buckets, one term a bucket, with its frequency in
//! the document and no positions. The buckets keep that field's term dictionary small (a term
//! for every distinct pair made indexing and merging several times dearer), at the price of
//! pairs sharing a bucket.
//!
//! A document holding a two-word phrase with no slop holds the phrase's bucket, with a
//! frequency no smaller than the phrase count (the positions of the first word followed by
//! the second), so the phrase's BM25 weight at that frequency and the text field's norm bounds
//! the document's phrase score. The top k are collected by walking the bucket's postings, and
//! a document whose bound beats the collector's threshold is scored by tantivy's own phrase
//! scorer: the hits, scores and order of the phrase query, from the documents holding the
//! phrase and the few that share its bucket rather than all those holding both words.

use std::hash::Hasher;

use tantivy::fieldnorm::FieldNormReader;
use tantivy::postings::Postings;
use tantivy::query::{Bm25Weight, EnableScoring, PhraseQuery, Query, Scorer, Weight};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::tokenizer::{TextAnalyzer, Token, TokenStream, Tokenizer};
use tantivy::{DocId, DocSet, Score, SeekDangerResult, SegmentReader, TERMINATED, Term};

/// Buckets the pairs are hashed into: a handful under test, so that pairs share them there.
const BUCKETS: u64 = if cfg!(test) { 5 } else { 1 << 16 };

/// The bucket term of `first` followed by `second`.
pub(super) fn pair_text(first: &str, second: &str) -> String {
    let mut h = rustc_hash::FxHasher::default();
    h.write_usize(first.len());
    h.write(first.as_bytes());
    h.write(second.as_bytes());
    format!("{:04x}", h.finish() % BUCKETS)
}

/// The words `analyzer` makes of `text`, as (position, word), in position order without
/// repeats.
pub(super) fn words(analyzer: &mut TextAnalyzer, text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut stream = analyzer.token_stream(text);
    while stream.advance() {
        let t = stream.token();
        out.push((t.position, t.text.clone()));
    }
    out.sort();
    out.dedup();
    out
}

/// Tokenizes text into the pairs of words the analyzer puts at adjacent positions: every word
/// at a position with every word at the next.
#[derive(Clone)]
pub(super) struct PairTokenizer {
    analyzer: TextAnalyzer,
    pairs: Vec<Token>,
}

impl PairTokenizer {
    pub(super) fn new(analyzer: TextAnalyzer) -> PairTokenizer {
        PairTokenizer {
            analyzer,
            pairs: Vec::new(),
        }
    }
}

impl Tokenizer for PairTokenizer {
    type TokenStream<'a> = PairStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> PairStream<'a> {
        let words = words(&mut self.analyzer, text);
        self.pairs.clear();
        let mut next = 0;
        for (i, (position, first)) in words.iter().enumerate() {
            // `next` is the first word past `position`: the words of the next position, if
            // that is where they are, start there.
            next = next.max(i + 1);
            while next < words.len() && words[next].0 == *position {
                next += 1;
            }
            for (p, second) in &words[next..] {
                if *p != position + 1 {
                    break;
                }
                self.pairs.push(Token {
                    position: *position,
                    text: pair_text(first, second),
                    ..Token::default()
                });
            }
        }
        PairStream {
            pairs: &mut self.pairs,
            at: None,
        }
    }
}

pub(super) struct PairStream<'a> {
    pairs: &'a mut Vec<Token>,
    at: Option<usize>,
}

impl TokenStream for PairStream<'_> {
    fn advance(&mut self) -> bool {
        let next = self.at.map_or(0, |i| i + 1);
        self.at = Some(next);
        next < self.pairs.len()
    }

    fn token(&self) -> &Token {
        &self.pairs[self.at.unwrap_or(0)]
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.pairs[self.at.unwrap_or(0)]
    }
}

/// A phrase of two words at adjacent positions with no slop, collected through its pair
/// bucket for top-k collection; anything else (counting, unscored or boolean use) is the
/// phrase query's own.
#[derive(Clone, Debug)]
pub(super) struct PairPhraseQuery {
    phrase: PhraseQuery,
    pair: Term,
}

impl PairPhraseQuery {
    /// `phrase`, which must be the two words `first` and `second` at adjacent positions of
    /// its field with no slop, collected through `pair_field`.
    pub(super) fn new(
        phrase: PhraseQuery,
        pair_field: Field,
        first: &str,
        second: &str,
    ) -> PairPhraseQuery {
        PairPhraseQuery {
            phrase,
            pair: Term::from_field_text(pair_field, &pair_text(first, second)),
        }
    }
}

impl Query for PairPhraseQuery {
    fn weight(&self, enable_scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        let inner = self.phrase.weight(enable_scoring)?;
        // The phrase weight's own statistics and terms, so its BM25 weight.
        let bm25 = match enable_scoring {
            EnableScoring::Enabled {
                statistics_provider,
                ..
            } => Some(Bm25Weight::for_terms(
                statistics_provider,
                &self.phrase.phrase_terms(),
            )?),
            EnableScoring::Disabled { .. } => None,
        };
        Ok(Box::new(PairPhraseWeight {
            inner,
            field: self.phrase.field(),
            terms: self.phrase.phrase_terms(),
            pair: self.pair.clone(),
            bm25,
        }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        self.phrase.query_terms(visitor);
    }
}

struct PairPhraseWeight {
    /// The phrase query's own weight: it scores the documents the bound lets through.
    inner: Box<dyn Weight>,
    /// The text field, whose norms score the phrase.
    field: Field,
    /// The phrase's words.
    terms: Vec<Term>,
    pair: Term,
    /// `None` when scoring is disabled.
    bm25: Option<Bm25Weight>,
}

impl Weight for PairPhraseWeight {
    inner_weight_methods!();

    /// As tantivy's: `callback` gets each document holding the phrase and scoring above the
    /// threshold it last returned, in document order, with the phrase query's score.
    fn for_each_pruning(
        &self,
        mut threshold: Score,
        reader: &SegmentReader,
        callback: &mut dyn FnMut(DocId, Score) -> Score,
    ) -> tantivy::Result<()> {
        let Some(bm25) = &self.bm25 else {
            return self.inner.for_each_pruning(threshold, reader, callback);
        };
        let Some(mut bucket) = reader
            .inverted_index(self.pair.field())?
            .read_postings(&self.pair, IndexRecordOption::WithFreqs)?
        else {
            return Ok(());
        };
        // The words' own postings, to pass over the documents of the other pairs in the
        // bucket before the phrase scorer is moved.
        let inverted = reader.inverted_index(self.field)?;
        let mut words = Vec::with_capacity(self.terms.len());
        for term in &self.terms {
            match inverted.read_postings(term, IndexRecordOption::Basic)? {
                Some(p) => words.push(p),
                None => return Ok(()),
            }
        }
        // The norms the phrase scorer reads.
        let fieldnorms = reader
            .fieldnorms_readers()
            .get_field(self.field)?
            .unwrap_or_else(|| FieldNormReader::constant(reader.max_doc(), 1));
        let mut phrase: Option<Box<dyn Scorer>> = None;
        let mut doc = bucket.doc();
        while doc != TERMINATED {
            if bm25.score(fieldnorms.fieldnorm_id(doc), bucket.term_freq()) > threshold
                && words.iter_mut().all(|w| {
                    let at = if w.doc() < doc { w.seek(doc) } else { w.doc() };
                    at == doc
                })
            {
                // The phrase scorer is moved by `seek_danger` alone, to increasing documents
                // every word holds, as its contract asks.
                let found = match &mut phrase {
                    Some(scorer) => scorer.seek_danger(doc) == SeekDangerResult::Found,
                    None => {
                        let (found, scorer) = self.inner.scorer_danger(reader, doc, 1.0)?;
                        phrase = Some(scorer);
                        found == SeekDangerResult::Found
                    }
                };
                if let Some(scorer) = phrase.as_mut().filter(|_| found) {
                    let score = scorer.score();
                    if score > threshold {
                        threshold = callback(doc, score);
                    }
                }
            }
            doc = bucket.advance();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fulltext::{FulltextEntity, FulltextSpec, query, top_across_segments};
    use crate::storage::Storage;
    use quiver_value::Value;
    use tantivy::collector::TopDocs;

    const WORDS: [&str; 7] = ["ka", "lo", "mi", "nu", "pe", "the", "a"];

    /// Every two-word phrase over generated documents (repeated words, stop words, two
    /// properties, several segments, replaced and deleted documents), top k from the pair
    /// field and from tantivy's positional phrase query: the same documents, scores and
    /// order. A phrase whose words are not adjacent once the analyzer dropped a stop word
    /// between them is left to the positional query.
    #[test]
    fn pair_phrases_collect_what_the_phrase_query_collects() {
        for analyzer in [crate::fulltext::DEFAULT_ANALYZER, "standard"] {
            let db = Storage::new();
            let label = db.get_or_create_label("D").unwrap();
            let keys = [
                db.get_or_create_property_key("title").unwrap(),
                db.get_or_create_property_key("text").unwrap(),
            ];
            let tx = db.begin_write();
            tx.create_fulltext_index(FulltextSpec {
                name: "docs".to_string(),
                entity: FulltextEntity::Node,
                tokens: vec!["D".into()],
                keys: vec!["title".into(), "text".into()],
                analyzer: analyzer.to_string(),
                eventually_consistent: false,
            })
            .unwrap();
            tx.commit().unwrap();
            let mut state = 3u64;
            let mut draw = |n: u64| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                (state >> 33) % n
            };
            let mut nodes = Vec::new();
            for batch in 0..4 {
                let tx = db.begin_write();
                for _ in 0..400 {
                    let mut props = Vec::new();
                    for key in keys {
                        if draw(5) == 0 {
                            continue;
                        }
                        let len = 1 + draw(9);
                        // Skewed towards the first words, with some upper case.
                        let mut text = Vec::new();
                        for _ in 0..len {
                            let w = WORDS[usize::try_from(draw(7).min(draw(8))).unwrap()];
                            text.push(if draw(10) == 0 { "KA" } else { w });
                        }
                        props.push((key, Value::from(text.join(" "))));
                    }
                    nodes.push(tx.create_node(&[label], &props).unwrap());
                }
                if batch > 0 {
                    for _ in 0..40 {
                        let at = usize::try_from(draw(nodes.len() as u64)).unwrap();
                        tx.set_node_property(nodes[at], keys[1], Value::from("mi ka ka mi"))
                            .unwrap();
                    }
                    for _ in 0..20 {
                        let at = usize::try_from(draw(nodes.len() as u64)).unwrap();
                        tx.detach_delete_node(nodes.swap_remove(at)).unwrap();
                    }
                }
                tx.commit().unwrap();
            }
            let read = db.begin_read();
            read.fulltext_search("docs", FulltextEntity::Node, "ka", 0, 1)
                .unwrap();
            let index = db.fulltext_by_name("docs").unwrap();
            index.reader.reload().unwrap();
            let searcher = index.reader.searcher();
            assert!(searcher.segment_readers().len() > 1, "{analyzer}");
            let mut paired = 0;
            for a in WORDS {
                for b in WORDS {
                    for (field, prefix) in [(0, "title:"), (1, "text:")] {
                        let text = format!("{prefix}\"{a} {b}\"");
                        let parsed = query::parse(&index, &text).unwrap();
                        let stop = |w| analyzer == "standard" && ["the", "a"].contains(&w);
                        let is_pair = parsed.downcast_ref::<PairPhraseQuery>().is_some();
                        assert_eq!(is_pair, !stop(a) && !stop(b), "{analyzer} {text}");
                        if !is_pair {
                            continue;
                        }
                        paired += 1;
                        let phrase = PhraseQuery::new(vec![
                            Term::from_field_text(index.text_fields[field], a),
                            Term::from_field_text(index.text_fields[field], b),
                        ]);
                        for k in [1, 5, 40, 5_000] {
                            let want = searcher
                                .search(&phrase, &TopDocs::with_limit(k).order_by_score())
                                .unwrap();
                            let got = top_across_segments(&searcher, &*parsed, k).unwrap();
                            assert!(
                                crate::fulltext::same_top(&got, &want),
                                "{analyzer} {text} k {k}: {got:?} {want:?}"
                            );
                        }
                    }
                }
            }
            assert!(paired > 0);
        }
    }

    /// The pairs are every word at a position with every word at the next, repeats counted.
    #[test]
    fn pairs_are_the_words_at_adjacent_positions() {
        let analyzer = crate::fulltext::analyzers::build("standard").unwrap();
        let mut tokenizer = PairTokenizer::new(analyzer);
        let mut stream = tokenizer.token_stream("Ka lo the mi KA lo, ka");
        let mut got = Vec::new();
        while stream.advance() {
            got.push(stream.token().text.clone());
        }
        let want: Vec<String> = [("ka", "lo"), ("mi", "ka"), ("ka", "lo"), ("lo", "ka")]
            .iter()
            .map(|(a, b)| pair_text(a, b))
            .collect();
        assert_eq!(got, want);
    }
}
