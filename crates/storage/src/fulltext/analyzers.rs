//! The analyzers a full-text index may name, under Neo4j's names where Neo4j has one.
//!
//! Each is a tantivy tokenizer chain registered on the index under its own name, so the
//! query parser analyses query terms exactly as the documents were.

use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RawTokenizer, RemoveLongFilter, SimpleTokenizer,
    Stemmer, StopWordFilter, TextAnalyzer, WhitespaceTokenizer,
};

/// Tokens longer than this many bytes are dropped, as Lucene drops terms past its own limit:
/// such a token is never a word anyone searches for, and it would bloat the term dictionary.
pub const TOKEN_BYTES_MAX: usize = 255;

/// The analyzer an index uses when its options name none (Neo4j's default).
pub const DEFAULT_ANALYZER: &str = "standard-no-stop-words";

/// The stemming languages tantivy has, by the name an index's options give them.
const LANGUAGES: &[(&str, Language)] = &[
    ("arabic", Language::Arabic),
    ("danish", Language::Danish),
    ("dutch", Language::Dutch),
    ("english", Language::English),
    ("finnish", Language::Finnish),
    ("french", Language::French),
    ("german", Language::German),
    ("greek", Language::Greek),
    ("hungarian", Language::Hungarian),
    ("italian", Language::Italian),
    ("norwegian", Language::Norwegian),
    ("portuguese", Language::Portuguese),
    ("romanian", Language::Romanian),
    ("russian", Language::Russian),
    ("spanish", Language::Spanish),
    ("swedish", Language::Swedish),
    ("tamil", Language::Tamil),
    ("turkish", Language::Turkish),
];

/// One row of `db.index.fulltext.listAvailableAnalyzers()`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalyzerInfo {
    pub name: String,
    pub description: String,
    pub stopwords: Vec<String>,
}

/// Lucene's English stop word list, the one tantivy's English filter holds: `standard` and
/// `english` drop these.
const ENGLISH_STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with",
];

fn english_stopwords() -> Vec<String> {
    ENGLISH_STOPWORDS.iter().map(|w| (*w).to_string()).collect()
}

/// The stop words listed for `language`: English's in full; the other languages' lists are
/// tantivy's (Snowball's, long) and are listed as empty rather than copied here.
fn stopwords_of(language: Language) -> Vec<String> {
    if language == Language::English {
        english_stopwords()
    } else {
        Vec::new()
    }
}

/// Every analyzer an index may use, in the order `listAvailableAnalyzers` lists them.
pub fn available() -> Vec<AnalyzerInfo> {
    let mut out = vec![
        AnalyzerInfo {
            name: "standard-no-stop-words".into(),
            description: "Words split at non-alphanumeric characters and lower-cased; no stop \
                          words (the default)"
                .into(),
            stopwords: Vec::new(),
        },
        AnalyzerInfo {
            name: "standard".into(),
            description: "Words split at non-alphanumeric characters, lower-cased, English \
                          stop words removed"
                .into(),
            stopwords: english_stopwords(),
        },
        AnalyzerInfo {
            name: "standard-folding".into(),
            description: "standard-no-stop-words with accents folded to ASCII".into(),
            stopwords: Vec::new(),
        },
        AnalyzerInfo {
            name: "simple".into(),
            description: "Words split at non-alphanumeric characters and lower-cased".into(),
            stopwords: Vec::new(),
        },
        AnalyzerInfo {
            name: "whitespace".into(),
            description: "Words split at whitespace, case kept".into(),
            stopwords: Vec::new(),
        },
        AnalyzerInfo {
            name: "keyword".into(),
            description: "The whole value as one term, unchanged".into(),
            stopwords: Vec::new(),
        },
    ];
    for (name, language) in LANGUAGES {
        out.push(AnalyzerInfo {
            name: (*name).to_string(),
            description: format!(
                "Words lower-cased, {name} stop words removed where tantivy has a list, \
                 stemmed by the {name} Snowball stemmer"
            ),
            stopwords: stopwords_of(*language),
        });
    }
    out
}

/// Whether `name` is an analyzer an index may use.
pub fn is_known(name: &str) -> bool {
    build(name).is_some()
}

/// The tokenizer chain of the analyzer `name`; `None` for a name no analyzer has.
pub(crate) fn build(name: &str) -> Option<TextAnalyzer> {
    let words = || {
        TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(RemoveLongFilter::limit(TOKEN_BYTES_MAX))
            .filter(LowerCaser)
    };
    Some(match name {
        "standard-no-stop-words" | "simple" => words().build(),
        "standard" => words()
            .filter(StopWordFilter::remove(english_stopwords()))
            .build(),
        "standard-folding" => words().filter(AsciiFoldingFilter).build(),
        "whitespace" => TextAnalyzer::builder(WhitespaceTokenizer::default())
            .filter(RemoveLongFilter::limit(TOKEN_BYTES_MAX))
            .build(),
        "keyword" => TextAnalyzer::builder(RawTokenizer::default()).build(),
        _ => {
            let language = LANGUAGES.iter().find(|(n, _)| *n == name)?.1;
            match StopWordFilter::new(language) {
                Some(stop) => words().filter(stop).filter(Stemmer::new(language)).build(),
                None => words().filter(Stemmer::new(language)).build(),
            }
        }
    })
}

/// Whether the analyzer lower-cases what it indexes (so a fuzzy term is lower-cased too).
pub(crate) fn lowercases(name: &str) -> bool {
    !matches!(name, "whitespace" | "keyword")
}
