//! Lucene's query syntax on tantivy's query parser.
//!
//! tantivy's parser takes terms, phrases (with slop), `AND`/`OR`/`NOT`, `+`/`-`, `field:term`,
//! prefixes (`term*`), ranges and boosts (`^`), with OR between clauses as Lucene has. It has no
//! fuzzy term (`term~`, `term~1`): those clauses are taken out of the text here and added as
//! fuzzy term queries beside what the parser builds from the rest.

use tantivy::Term;
use tantivy::query::{BooleanQuery, FuzzyTermQuery, Occur, PhraseQuery, Query, QueryParser};
use tantivy::query_grammar::{Delimiter, UserInputAst, UserInputLeaf};

use super::fuzzy::FirstMatchesFuzzyQuery;
use super::pairs::{self, PairPhraseQuery};
use super::phrase::BoundedPhraseQuery;
use super::{FulltextError, FulltextIndex, analyzers};

/// Lucene's default edit distance for `term~`, and the most Lucene (and tantivy) accept.
const FUZZY_DISTANCE_MAX: u8 = 2;

/// One `[+|-][field:]term~[n]` clause.
struct Fuzzy {
    occur: Occur,
    field: Option<String>,
    term: String,
    distance: u8,
}

/// Splits the fuzzy clauses from the rest of `text`. Quoted phrases are left whole (a `~`
/// after a phrase is its slop, which the parser takes).
fn split_fuzzy(text: &str) -> (String, Vec<Fuzzy>) {
    let mut rest = String::with_capacity(text.len());
    let mut fuzzy = Vec::new();
    let mut chars = text.char_indices().peekable();
    let mut in_quotes = false;
    let mut word_start: Option<usize> = None;
    let flush_word = |start: usize, end: usize, rest: &mut String, fuzzy: &mut Vec<Fuzzy>| {
        let word = &text[start..end];
        match parse_fuzzy(word) {
            Some(f) => fuzzy.push(f),
            None => rest.push_str(word),
        }
    };
    while let Some((i, c)) = chars.next() {
        if in_quotes {
            rest.push(c);
            if c == '\\' {
                if let Some((_, n)) = chars.next() {
                    rest.push(n);
                }
            } else if c == '"' {
                in_quotes = false;
            }
            continue;
        }
        match (c, word_start) {
            ('"', None) => {
                in_quotes = true;
                rest.push(c);
            }
            (c, Some(start)) if c.is_whitespace() || c == '(' || c == ')' => {
                flush_word(start, i, &mut rest, &mut fuzzy);
                word_start = None;
                rest.push(c);
            }
            (c, None) if c.is_whitespace() || c == '(' || c == ')' => rest.push(c),
            (_, None) => word_start = Some(i),
            (_, Some(_)) => {}
        }
    }
    if let Some(start) = word_start {
        flush_word(start, text.len(), &mut rest, &mut fuzzy);
    }
    (rest, fuzzy)
}

/// `[+|-][field:]term~[n]` as a fuzzy clause; `None` for any other word.
fn parse_fuzzy(word: &str) -> Option<Fuzzy> {
    let (occur, body) = match word.as_bytes().first()? {
        b'+' => (Occur::Must, &word[1..]),
        b'-' => (Occur::MustNot, &word[1..]),
        _ => (Occur::Should, word),
    };
    let (term, distance) = body.rsplit_once('~')?;
    if term.is_empty() || term.contains('"') || term.ends_with('\\') {
        return None;
    }
    let distance = if distance.is_empty() {
        FUZZY_DISTANCE_MAX
    } else if let Ok(n) = distance.parse::<u8>() {
        n.min(FUZZY_DISTANCE_MAX)
    } else if let Ok(similarity) = distance.parse::<f32>() {
        // Lucene 3's similarity (0..1): the closer to 1, the fewer edits.
        if similarity >= 0.75 {
            1
        } else {
            FUZZY_DISTANCE_MAX
        }
    } else {
        return None;
    };
    let (field, term) = match term.split_once(':') {
        Some((f, t)) if !f.is_empty() && !t.is_empty() => (Some(f.to_string()), t),
        _ => (None, term),
    };
    Some(Fuzzy {
        occur,
        field,
        term: term.to_string(),
        distance,
    })
}

/// Lucene's readings where tantivy's grammar differs:
/// - `a AND NOT b` is `+a -b`; tantivy gives `+a +(-b)`, whose second clause (a negation
///   alone) matches nothing. A group made only of negations is spliced into its parent as the
///   parent's own exclusions.
/// - A word with `*` or `?` is a wildcard over single terms, in every field unless one is
///   named; tantivy would read `ab*` as a phrase prefix (which needs two words) and has
///   wildcards only as field-bound regular expressions.
fn lucene_ast(ast: UserInputAst, keys: &[std::sync::Arc<str>], lower: bool) -> UserInputAst {
    match ast {
        UserInputAst::Clause(clauses) => {
            let mut out = Vec::with_capacity(clauses.len());
            for (occur, sub) in clauses {
                match lucene_ast(sub, keys, lower) {
                    UserInputAst::Clause(inner)
                        if !inner.is_empty()
                            && inner.iter().all(|(o, _)| *o == Some(Occur::MustNot)) =>
                    {
                        out.extend(inner);
                    }
                    sub => out.push((occur, sub)),
                }
            }
            UserInputAst::Clause(out)
        }
        UserInputAst::Boost(inner, boost) => {
            UserInputAst::Boost(Box::new(lucene_ast(*inner, keys, lower)), boost)
        }
        UserInputAst::Leaf(leaf) => match *leaf {
            UserInputLeaf::Literal(lit)
                if lit.delimiter == Delimiter::None
                    && !lit.phrase.is_empty()
                    && (lit.prefix || lit.phrase.contains(['*', '?'])) =>
            {
                let mut pattern = String::new();
                let word = if lower {
                    lit.phrase.to_lowercase()
                } else {
                    lit.phrase.clone()
                };
                for c in word.chars() {
                    match c {
                        '*' => pattern.push_str(".*"),
                        '?' => pattern.push('.'),
                        c if c.is_alphanumeric() => pattern.push(c),
                        c => {
                            pattern.push('\\');
                            pattern.push(c);
                        }
                    }
                }
                if lit.prefix {
                    pattern.push_str(".*");
                }
                let fields: Vec<String> = match lit.field_name {
                    Some(f) => vec![f],
                    None => keys.iter().map(ToString::to_string).collect(),
                };
                UserInputAst::Clause(
                    fields
                        .into_iter()
                        .map(|field| {
                            let leaf = UserInputLeaf::Regex {
                                field: Some(field),
                                pattern: pattern.clone(),
                            };
                            (Some(Occur::Should), UserInputAst::Leaf(Box::new(leaf)))
                        })
                        .collect(),
                )
            }
            leaf => UserInputAst::Leaf(Box::new(leaf)),
        },
    }
}

/// The text of the query's one clause when that is a quoted phrase with no slop.
fn lone_phrase(ast: &UserInputAst) -> Option<&str> {
    match ast {
        UserInputAst::Clause(clauses) => match &clauses[..] {
            [(None | Some(Occur::Should | Occur::Must), sub)] => lone_phrase(sub),
            _ => None,
        },
        UserInputAst::Leaf(leaf) => match &**leaf {
            UserInputLeaf::Literal(lit)
                if lit.delimiter == Delimiter::DoubleQuotes && lit.slop == 0 && !lit.prefix =>
            {
                Some(&lit.phrase)
            }
            _ => None,
        },
        UserInputAst::Boost(..) => None,
    }
}

/// `query` answered from the pair field ([`pairs`]) when it is the phrase query of `phrase`
/// (a quoted phrase with no slop) and `phrase` is two words at adjacent positions: the words
/// are taken again from `phrase` with the index's analyzer and must be the phrase query's.
fn pair_phrase(index: &FulltextIndex, query: &dyn Query, phrase: &str) -> Option<PairPhraseQuery> {
    let query = query.downcast_ref::<PhraseQuery>()?;
    let at = index.text_fields.iter().position(|f| *f == query.field())?;
    let mut analyzer = index.index.tokenizers().get(&index.spec.analyzer)?;
    let words = pairs::words(&mut analyzer, phrase);
    let terms = query.phrase_terms();
    let [(p0, w0), (p1, w1)] = &words[..] else {
        return None;
    };
    let [t0, t1] = &terms[..] else {
        return None;
    };
    let same = t0.value().as_str() == Some(w0.as_str()) && t1.value().as_str() == Some(w1.as_str());
    (same && p0.checked_add(1) == Some(*p1))
        .then(|| PairPhraseQuery::new(query.clone(), index.pair_fields[at], w0, w1))
}

fn query_err(query: &str, reason: impl std::fmt::Display) -> crate::Error {
    crate::Error::Fulltext(FulltextError::Query {
        query: query.to_string(),
        reason: reason.to_string(),
    })
}

/// The tantivy query for `text` over `index`'s fields.
pub(super) fn parse(index: &FulltextIndex, text: &str) -> crate::Result<Box<dyn Query>> {
    if text.trim().is_empty() {
        return Err(query_err(text, "the query is empty"));
    }
    let (rest, fuzzy) = split_fuzzy(text);
    let mut parser = QueryParser::for_index(&index.index, index.text_fields.clone());
    parser.allow_regexes();
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    if !rest.trim().is_empty() {
        let ast = tantivy::query_grammar::parse_query(&rest)
            .map_err(|_| query_err(text, "the syntax is not Lucene's"))?;
        let phrase = lone_phrase(&ast).map(str::to_string);
        let q = parser
            .build_query_from_user_input_ast(lucene_ast(
                ast,
                &index.spec.keys,
                analyzers::lowercases(&index.spec.analyzer),
            ))
            .map_err(|e| query_err(text, e))?;
        if fuzzy.is_empty() {
            if let Some(pair) = phrase.and_then(|p| pair_phrase(index, &*q, &p)) {
                return Ok(Box::new(pair));
            }
            return Ok(BoundedPhraseQuery::wrap(q));
        }
        clauses.push((Occur::Should, q));
    }
    let lower = analyzers::lowercases(&index.spec.analyzer);
    let alone = clauses.is_empty() && fuzzy.len() == 1;
    for f in fuzzy {
        let term = if lower {
            f.term.to_lowercase()
        } else {
            f.term.clone()
        };
        let fields: Vec<_> = match &f.field {
            Some(name) => {
                let Some(i) = index.spec.keys.iter().position(|k| &**k == name) else {
                    return Err(query_err(
                        text,
                        format!("the index has no property `{name}`"),
                    ));
                };
                vec![index.text_fields[i]]
            }
            None => index.text_fields.clone(),
        };
        // A lone fuzzy clause on one field matches and scores as that field's fuzzy term
        // query (the boolean queries around it add nothing to its one score).
        if let ([field], true, Occur::Should | Occur::Must) = (&fields[..], alone, f.occur) {
            return Ok(Box::new(FirstMatchesFuzzyQuery::new(
                Term::from_field_text(*field, &term),
                f.distance,
            )));
        }
        let per_field: Vec<(Occur, Box<dyn Query>)> = fields
            .into_iter()
            .map(|field| {
                let q: Box<dyn Query> = Box::new(FuzzyTermQuery::new(
                    Term::from_field_text(field, &term),
                    f.distance,
                    true,
                ));
                (Occur::Should, q)
            })
            .collect();
        clauses.push((f.occur, Box::new(BooleanQuery::new(per_field))));
    }
    if clauses.iter().all(|(o, _)| *o == Occur::MustNot) {
        return Err(query_err(text, "the query excludes only"));
    }
    Ok(Box::new(BooleanQuery::new(clauses)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fuzzy_clauses_leave_the_rest_whole() {
        let (rest, fuzzy) = split_fuzzy("\"a b\"~2 +roam~1 title:foam~ -x~0.8 plain (c OR d~)");
        assert_eq!(rest, "\"a b\"~2    plain (c OR )");
        let got: Vec<_> = fuzzy
            .iter()
            .map(|f| (f.occur, f.field.clone(), f.term.clone(), f.distance))
            .collect();
        assert_eq!(
            got,
            vec![
                (Occur::Must, None, "roam".to_string(), 1),
                (
                    Occur::Should,
                    Some("title".to_string()),
                    "foam".to_string(),
                    2
                ),
                (Occur::MustNot, None, "x".to_string(), 1),
                (Occur::Should, None, "d".to_string(), 2),
            ]
        );
    }
}
