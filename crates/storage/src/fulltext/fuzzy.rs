//! A fuzzy term query whose top-k collection stops at the first k matches.
//!
//! tantivy's fuzzy term query scores every match alike (its boost), and its scorer first
//! gathers every document holding any matching term into a bit set as large as the segment:
//! a search paid for all the documents of all the terms within the distance, in every
//! segment, to return the first k of them. All scores being equal, the top k are the first k
//! matching documents in index order, so a search that already holds k matches can stop, and
//! a later segment cannot add any. Here the matching terms' postings are merged in document
//! order and the collector is fed until its threshold reaches the constant score; a segment
//! is not opened at all when the threshold it starts from already does. Counting, unscored
//! use and the query inside a boolean query are the fuzzy query's own.

use tantivy::postings::SegmentPostings;
use tantivy::query::{AutomatonWeight, DfaWrapper, EnableScoring, FuzzyTermQuery, Query, Weight};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocId, DocSet, Score, SegmentReader, TERMINATED, Term};

/// A fuzzy term query over one text field that stops collecting at the first k matches.
#[derive(Clone, Debug)]
pub(super) struct FirstMatchesFuzzyQuery {
    fuzzy: FuzzyTermQuery,
    field: Field,
}

impl FirstMatchesFuzzyQuery {
    pub(super) fn new(term: Term, distance: u8) -> FirstMatchesFuzzyQuery {
        FirstMatchesFuzzyQuery {
            field: term.field(),
            fuzzy: FuzzyTermQuery::new(term, distance, true),
        }
    }
}

impl Query for FirstMatchesFuzzyQuery {
    fn weight(&self, _enable_scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        // The automaton the fuzzy query's own weight is built on.
        Ok(Box::new(FirstMatchesFuzzyWeight {
            inner: AutomatonWeight::new(self.field, self.fuzzy.automaton()?),
            field: self.field,
        }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        self.fuzzy.query_terms(visitor);
    }
}

struct FirstMatchesFuzzyWeight {
    inner: AutomatonWeight<DfaWrapper>,
    field: Field,
}

impl Weight for FirstMatchesFuzzyWeight {
    inner_weight_methods!();

    /// As tantivy's: `callback` gets the matching documents in document order, each with the
    /// constant score, while that score is above the threshold it last returned.
    fn for_each_pruning(
        &self,
        mut threshold: Score,
        reader: &SegmentReader,
        callback: &mut dyn FnMut(DocId, Score) -> Score,
    ) -> tantivy::Result<()> {
        // The score the fuzzy query's scorer gives every match at the collector's boost.
        const SCORE: Score = 1.0;
        if SCORE <= threshold {
            return Ok(());
        }
        let inverted = reader.inverted_index(self.field)?;
        let mut postings: Vec<SegmentPostings> = Vec::new();
        for info in self.inner.get_match_term_infos(reader)? {
            let p = inverted.read_postings_from_terminfo(&info, IndexRecordOption::Basic)?;
            if p.doc() != TERMINATED {
                postings.push(p);
            }
        }
        loop {
            let Some(doc) = postings.iter().map(DocSet::doc).min() else {
                return Ok(());
            };
            if doc == TERMINATED {
                return Ok(());
            }
            threshold = callback(doc, SCORE);
            if SCORE <= threshold {
                return Ok(());
            }
            for p in &mut postings {
                if p.doc() == doc {
                    p.advance();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::collector::TopDocs;
    use tantivy::query::{BooleanQuery, Occur};
    use tantivy::schema::{Schema, TEXT};
    use tantivy::{Index, TantivyDocument};

    /// Fuzzy terms over an index of several segments with deleted documents, top k through
    /// the early stop and through tantivy's fuzzy query inside the boolean queries a lone
    /// fuzzy clause used to be parsed into: the same documents, scores and order.
    #[test]
    fn first_matches_collect_what_the_fuzzy_query_collects() {
        let mut builder = Schema::builder();
        let text = builder.add_text_field("text", TEXT);
        let index = Index::create_in_ram(builder.build());
        let words = [
            "roam", "foam", "road", "rome", "loam", "ram", "roams", "xyz",
        ];
        let mut writer: tantivy::IndexWriter =
            index.writer_with_num_threads(1, 15_000_000).unwrap();
        let mut state = 11u64;
        for doc in 0..4_000u64 {
            let mut body = Vec::new();
            for _ in 0..(1 + doc % 4) {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                body.push(words[((state >> 33) % 8) as usize]);
            }
            let mut d = TantivyDocument::default();
            d.add_text(text, body.join(" "));
            writer.add_document(d).unwrap();
            if doc % 900 == 899 {
                // Deletes documents of the segments written so far.
                writer.delete_term(Term::from_field_text(text, words[(doc / 900) as usize]));
                writer.commit().unwrap();
            }
        }
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        assert!(searcher.segment_readers().len() > 1);
        for probe in ["roam", "rofm", "xy", "zzzz", "ro", "roamss"] {
            for distance in [0, 1, 2] {
                let term = Term::from_field_text(text, probe);
                let mine = FirstMatchesFuzzyQuery::new(term.clone(), distance);
                for occur in [Occur::Should, Occur::Must] {
                    let fuzzy: Box<dyn Query> =
                        Box::new(FuzzyTermQuery::new(term.clone(), distance, true));
                    let inner: Box<dyn Query> =
                        Box::new(BooleanQuery::new(vec![(Occur::Should, fuzzy)]));
                    let parsed_before = BooleanQuery::new(vec![(occur, inner)]);
                    for k in [1, 7, 20, 500, 5_000] {
                        let want = searcher
                            .search(&parsed_before, &TopDocs::with_limit(k).order_by_score())
                            .unwrap();
                        let got = super::super::top_across_segments(&searcher, &mine, k).unwrap();
                        assert!(
                            crate::fulltext::same_top(&got, &want),
                            "{probe} ~{distance} {occur:?} k {k}: {got:?} {want:?}"
                        );
                        let alone = searcher
                            .search(&mine, &TopDocs::with_limit(k).order_by_score())
                            .unwrap();
                        assert_eq!(alone, want, "{probe} ~{distance} through tantivy, k {k}");
                    }
                }
            }
        }
    }
}
