//! A phrase query that checks positions only where a document could still enter the top k.
//!
//! tantivy's phrase scorer reads the positions of every document holding all the phrase's
//! words, so a phrase of common words costs the documents holding them rather than the rows
//! asked: most of a search's time went to reading positions. A phrase's BM25 score is its
//! weight at the document's field norm and its phrase count, and the count is at most each
//! word's frequency in the document (tantivy counts a match at most once a position of the
//! phrase's last word, with or without slop). So the score at the largest of the words'
//! frequencies bounds the document's score from the postings and field norms alone, and a
//! document whose bound does not beat the collector's threshold is passed over unread, since
//! it could not have been collected. The documents that are read are scored by tantivy's own
//! phrase scorer, so the hits, the scores and the order are the same as without the bound.

use tantivy::fieldnorm::FieldNormReader;
use tantivy::postings::{Postings, SegmentPostings};
use tantivy::query::{Bm25Weight, EnableScoring, PhraseQuery, Query, Scorer, Weight};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocId, DocSet, Score, SeekDangerResult, SegmentReader, TERMINATED, Term};

/// A phrase query whose top-k collection skips the positions of documents that cannot score
/// enough; anything else (counting, unscored or boolean use) is the phrase query's own.
#[derive(Clone, Debug)]
pub(super) struct BoundedPhraseQuery {
    phrase: PhraseQuery,
}

impl BoundedPhraseQuery {
    /// `query` as a bounded phrase when it is a phrase query, unchanged otherwise.
    pub(super) fn wrap(query: Box<dyn Query>) -> Box<dyn Query> {
        match query.downcast_ref::<PhraseQuery>() {
            Some(phrase) => Box::new(BoundedPhraseQuery {
                phrase: phrase.clone(),
            }),
            None => query,
        }
    }
}

impl Query for BoundedPhraseQuery {
    fn weight(&self, enable_scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        let inner = self.phrase.weight(enable_scoring)?;
        let terms = self.phrase.phrase_terms();
        // The same statistics and terms as the phrase's own weight, so the same BM25 weight.
        let bm25 = match enable_scoring {
            EnableScoring::Enabled {
                statistics_provider,
                ..
            } => Some(Bm25Weight::for_terms(statistics_provider, &terms)?),
            EnableScoring::Disabled { .. } => None,
        };
        Ok(Box::new(BoundedPhraseWeight {
            inner,
            field: self.phrase.field(),
            terms,
            bm25,
        }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        self.phrase.query_terms(visitor);
    }
}

struct BoundedPhraseWeight {
    /// The phrase query's own weight: it scores the documents the bound lets through.
    inner: Box<dyn Weight>,
    field: Field,
    terms: Vec<Term>,
    /// `None` when scoring is disabled (no top k to bound).
    bm25: Option<Bm25Weight>,
}

/// Moves every postings list to the first document at or after `target` that all of them
/// hold, the rarest list leading, and returns it (or `TERMINATED`).
fn next_common(postings: &mut [SegmentPostings], mut target: DocId) -> DocId {
    'candidates: loop {
        let (lead, rest) = match postings.split_first_mut() {
            Some(split) => split,
            None => return TERMINATED,
        };
        let doc = if lead.doc() < target {
            lead.seek(target)
        } else {
            lead.doc()
        };
        if doc == TERMINATED {
            return TERMINATED;
        }
        for other in rest {
            let at = if other.doc() < doc {
                other.seek(doc)
            } else {
                other.doc()
            };
            if at != doc {
                target = at;
                continue 'candidates;
            }
        }
        return doc;
    }
}

impl Weight for BoundedPhraseWeight {
    inner_weight_methods!();

    /// As tantivy's: `callback` gets each matching document scoring above the threshold it
    /// last returned, in document order; documents whose bound is not above it are skipped.
    fn for_each_pruning(
        &self,
        mut threshold: Score,
        reader: &SegmentReader,
        callback: &mut dyn FnMut(DocId, Score) -> Score,
    ) -> tantivy::Result<()> {
        let Some(bm25) = &self.bm25 else {
            return self.inner.for_each_pruning(threshold, reader, callback);
        };
        let inverted = reader.inverted_index(self.field)?;
        let mut postings = Vec::with_capacity(self.terms.len());
        for term in &self.terms {
            match inverted.read_postings(term, IndexRecordOption::WithFreqs)? {
                Some(p) => postings.push(p),
                None => return Ok(()),
            }
        }
        postings.sort_by_key(SegmentPostings::doc_freq);
        // The field norms the phrase scorer reads, so the bound uses the same norm.
        let fieldnorms = reader
            .fieldnorms_readers()
            .get_field(self.field)?
            .unwrap_or_else(|| FieldNormReader::constant(reader.max_doc(), 1));
        let mut phrase: Option<Box<dyn Scorer>> = None;
        let mut doc = next_common(&mut postings, 0);
        while doc != TERMINATED {
            let count_max = postings
                .iter()
                .map(SegmentPostings::term_freq)
                .max()
                .unwrap_or(0);
            if bm25.score(fieldnorms.fieldnorm_id(doc), count_max) > threshold {
                // The phrase scorer is only ever moved forward by `seek_danger`, to documents
                // all the words hold, in increasing order, as its contract asks.
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
            doc = match doc.checked_add(1) {
                Some(next) => next_common(&mut postings, next),
                None => TERMINATED,
            };
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::collector::TopDocs;
    use tantivy::schema::{Schema, TEXT};
    use tantivy::{Index, TantivyDocument};

    /// Every phrase over a small corpus, top k through the bound and through tantivy's
    /// phrase query alone: the same documents, scores and order.
    #[test]
    fn bounded_phrases_collect_what_the_phrase_query_collects() {
        let mut builder = Schema::builder();
        let text = builder.add_text_field("text", TEXT);
        let index = Index::create_in_ram(builder.build());
        let words = ["ka", "lo", "mi", "nu", "pe", "ra"];
        let mut writer: tantivy::IndexWriter =
            index.writer_with_num_threads(1, 15_000_000).unwrap();
        let mut state = 7u64;
        for doc in 0..3_000 {
            let mut body = Vec::new();
            for _ in 0..(3 + doc % 9) {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                // Skewed towards the first words, as natural text is.
                let pick = ((state >> 33) % 21) as usize;
                body.push(
                    words[[
                        0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 4, 4, 5,
                    ][pick]],
                );
            }
            let mut d = TantivyDocument::default();
            d.add_text(text, body.join(" "));
            writer.add_document(d).unwrap();
            if doc % 700 == 699 {
                writer.commit().unwrap();
            }
        }
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        for a in words {
            for b in words {
                for c in [None, Some("ka")] {
                    let mut terms = vec![
                        Term::from_field_text(text, a),
                        Term::from_field_text(text, b),
                    ];
                    terms.extend(c.map(|c| Term::from_field_text(text, c)));
                    for slop in [0, 1] {
                        let mut phrase = PhraseQuery::new(terms.clone());
                        phrase.set_slop(slop);
                        let bounded = BoundedPhraseQuery::wrap(Box::new(phrase.clone()));
                        assert!(bounded.downcast_ref::<BoundedPhraseQuery>().is_some());
                        for k in [1, 10, 50] {
                            let top = TopDocs::with_limit(k).order_by_score();
                            let want = searcher.search(&phrase, &top).unwrap();
                            let got = searcher.search(&*bounded, &top).unwrap();
                            assert!(
                                super::super::same_top(&got, &want),
                                "{a} {b} {c:?} slop {slop} k {k}: {got:?} {want:?}"
                            );
                            let across =
                                super::super::top_across_segments(&searcher, &*bounded, k).unwrap();
                            assert!(
                                super::super::same_top(&across, &want),
                                "{a} {b} {c:?} slop {slop} k {k} across: {across:?} {want:?}"
                            );
                        }
                    }
                }
            }
        }
    }
}
