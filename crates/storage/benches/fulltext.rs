//! Full-text search and indexing over a generated corpus, through the storage API.
//!
//! The corpus follows the server bench (`bench/fulltext`): documents of 6–14 words drawn from a
//! vocabulary of 20,000 made-up words with Zipf frequencies (exponent 1.07), loaded in commits
//! of 5,000 under an index created on the empty label first, so the index is kept by commits as
//! a server's would be. Queries ask for 10 rows: a term of frequency rank 50–5,000, a phrase of
//! two adjacent words of a document, and such a term with one letter changed at edit distance 1.
//!
//! `QUIVER_BENCH_DOCS` sets the corpus size (default 100,000). The load's documents a second
//! (each batch through its commit) are printed before criterion's figures.

mod common;

use std::fmt::Write as _;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use quiver_storage::{FulltextEntity, LabelId, PropKeyId, Storage};
use quiver_value::Value;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const VOCABULARY_WORDS: usize = 20_000;
const ZIPF_EXPONENT: f64 = 1.07;
const DOCUMENT_WORDS_MIN: usize = 6;
const DOCUMENT_WORDS_MAX: usize = 14;
const LOAD_BATCH_DOCS: usize = 5_000;
const WRITE_BATCH_DOCS: usize = 1_000;
const QUERIES: usize = 200;
const ROWS: usize = 10;

const CONSONANTS: &[u8] = b"bdfgklmnprstvz";
const VOWELS: &[u8] = b"aeiou";

fn vocabulary(rng: &mut StdRng) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut words = Vec::with_capacity(VOCABULARY_WORDS);
    while words.len() < VOCABULARY_WORDS {
        let syllables = rng.random_range(2..5);
        let mut w = String::new();
        for _ in 0..syllables {
            w.push(char::from(
                CONSONANTS[rng.random_range(0..CONSONANTS.len())],
            ));
            w.push(char::from(VOWELS[rng.random_range(0..VOWELS.len())]));
        }
        if seen.insert(w.clone()) {
            words.push(w);
        }
    }
    words
}

/// Draws word ranks with Zipf frequencies by a search over the cumulative distribution.
struct Zipf {
    cumulative: Vec<f64>,
}

impl Zipf {
    fn new() -> Zipf {
        let mut total = 0.0;
        let cumulative = (1..=VOCABULARY_WORDS)
            .map(|r| {
                total += 1.0 / (r as f64).powf(ZIPF_EXPONENT);
                total
            })
            .collect();
        Zipf { cumulative }
    }

    fn draw(&self, rng: &mut StdRng) -> usize {
        let at = rng.random::<f64>() * self.cumulative[self.cumulative.len() - 1];
        self.cumulative
            .partition_point(|&c| c < at)
            .min(VOCABULARY_WORDS - 1)
    }
}

struct Corpus {
    docs: Vec<String>,
    terms: Vec<String>,
    phrases: Vec<String>,
    fuzzy: Vec<String>,
}

fn corpus(n: usize) -> Corpus {
    let mut rng = StdRng::seed_from_u64(20_261_201);
    let words = vocabulary(&mut rng);
    let zipf = Zipf::new();
    let document = |rng: &mut StdRng| {
        let len = rng.random_range(DOCUMENT_WORDS_MIN..=DOCUMENT_WORDS_MAX);
        (0..len)
            .map(|_| words[zipf.draw(rng)].as_str())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let docs: Vec<String> = (0..n).map(|_| document(&mut rng)).collect();
    let terms = (0..QUERIES)
        .map(|_| words[rng.random_range(50..5_000)].clone())
        .collect();
    let phrases = (0..QUERIES)
        .map(|_| {
            let ws: Vec<&str> = docs[rng.random_range(0..n)].split(' ').collect();
            let j = rng.random_range(0..ws.len() - 1);
            format!("\"{} {}\"", ws[j], ws[j + 1])
        })
        .collect();
    let fuzzy = (0..QUERIES)
        .map(|_| {
            let mut w = words[rng.random_range(50..5_000)].clone().into_bytes();
            let j = (1 + 2 * rng.random_range(0..w.len() / 2)).min(w.len() - 1);
            w[j] = match VOWELS.iter().position(|&v| v == w[j]) {
                Some(i) => VOWELS[(i + 1) % VOWELS.len()],
                None => b'a',
            };
            format!("{}~1", String::from_utf8_lossy(&w))
        })
        .collect();
    Corpus {
        docs,
        terms,
        phrases,
        fuzzy,
    }
}

struct Loaded {
    db: Arc<Storage>,
    label: LabelId,
    text: PropKeyId,
}

/// Creates the index on the empty label and loads `docs` in commits of `LOAD_BATCH_DOCS`.
fn load(docs: &[String]) -> (Loaded, f64) {
    let db = Storage::new();
    let label = db.get_or_create_label("D").unwrap();
    let text = db.get_or_create_property_key("text").unwrap();
    let tx = db.begin_write();
    tx.create_fulltext_index(common::docs_index()).unwrap();
    tx.commit().unwrap();
    let loaded = Loaded { db, label, text };
    let t = Instant::now();
    for batch in docs.chunks(LOAD_BATCH_DOCS) {
        write_batch(&loaded, batch);
    }
    (loaded, t.elapsed().as_secs_f64())
}

fn write_batch(g: &Loaded, batch: &[String]) {
    let tx = g.db.begin_write();
    for d in batch {
        tx.create_node(&[g.label], &[(g.text, Value::from(d.as_str()))])
            .unwrap();
    }
    tx.commit().unwrap();
}

fn bench(c: &mut Criterion) {
    let n = std::env::var("QUIVER_BENCH_DOCS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let corpus = corpus(n);
    let (g, load_secs) = load(&corpus.docs);
    let rss = common::rss_bytes();
    println!(
        "fulltext: {n} documents loaded in commits of {LOAD_BATCH_DOCS} in {load_secs:.2} s \
         ({:.0} documents/s, RSS {} MB)",
        n as f64 / load_secs,
        rss >> 20
    );

    // CPU time of this thread a query, over every query of a kind three times: steadier than
    // criterion's wall-clock figures on a shared machine.
    let mut line = String::new();
    for (kind, queries) in [
        ("term", &corpus.terms),
        ("phrase", &corpus.phrases),
        ("fuzzy", &corpus.fuzzy),
    ] {
        let (cpu, mut rows) = (common::thread_cpu_secs(), 0);
        for q in queries.iter().cycle().take(3 * QUERIES) {
            let tx = g.db.begin_read();
            rows += tx
                .fulltext_search("docs", FulltextEntity::Node, q, 0, ROWS)
                .unwrap()
                .len();
            tx.commit().unwrap();
        }
        let per_query_us = (common::thread_cpu_secs() - cpu) * 1e6 / (3 * QUERIES) as f64;
        let rows_mean = rows as f64 / (3 * QUERIES) as f64;
        let _ = write!(line, " | {kind} {per_query_us:.1} us ({rows_mean:.1} rows)");
    }
    println!("fulltext: CPU a query{line}");

    let mut group = c.benchmark_group("fulltext_query");
    group.throughput(Throughput::Elements(1));
    for (kind, queries) in [
        ("term", &corpus.terms),
        ("phrase", &corpus.phrases),
        ("fuzzy", &corpus.fuzzy),
    ] {
        let mut i = 0;
        group.bench_function(kind, |b| {
            b.iter(|| {
                let tx = g.db.begin_read();
                let hits = tx
                    .fulltext_search("docs", FulltextEntity::Node, &queries[i % QUERIES], 0, ROWS)
                    .unwrap();
                i += 1;
                black_box(hits);
                tx.commit().unwrap();
            });
        });
    }
    group.finish();

    let mut group = c.benchmark_group("fulltext_write");
    group.sample_size(10);
    group.throughput(Throughput::Elements(WRITE_BATCH_DOCS as u64));
    let mut at = 0;
    group.bench_function("commit_1000_documents", |b| {
        b.iter(|| {
            let start = at % (n.max(WRITE_BATCH_DOCS) - WRITE_BATCH_DOCS + 1);
            at += WRITE_BATCH_DOCS;
            let end = (start + WRITE_BATCH_DOCS).min(n);
            write_batch(&g, &corpus.docs[start..end]);
        });
    });
    group.finish();
}

criterion_group!(benches, bench);

criterion_main!(benches);
