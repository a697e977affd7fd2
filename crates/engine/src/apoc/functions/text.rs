//! `apoc.text.*`: string functions. A `null` text gives `null`. Regular expressions are the
//! `regex` crate's (Java's syntax for everything APOC's users write: classes, groups,
//! quantifiers; no look-around or back-references).

use std::fmt::Write as _;
use std::sync::Arc;

use quiver_value::{Value, to_string_cypher};

use super::{bad, int, nth};
use crate::error::Result;
use crate::eval::Cx;

/// The text argument `i`; `None` for `null`.
fn text<'a>(name: &str, argument: &str, v: &'a Value) -> Result<Option<&'a str>> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s)),
        other => Err(bad(
            name,
            argument,
            format!("must be a string, got {}", other.value_type().name()),
        )),
    }
}

fn regex(name: &str, argument: &str, pattern: &str) -> Result<regex::Regex> {
    regex::RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| {
            bad(
                name,
                argument,
                format!("is not a valid regular expression: {e}"),
            )
        })
}

fn string(s: impl Into<Arc<str>>) -> Value {
    Value::String(s.into())
}

pub(crate) fn join(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.text.join";
    let Value::List(items) = nth(args, 0) else {
        return Ok(Value::Null);
    };
    let delimiter = text(NAME, "delimiter", nth(args, 1))?.unwrap_or("");
    let parts: Vec<String> = items
        .iter()
        .filter(|v| !v.is_null())
        .map(|v| {
            v.as_str()
                .map_or_else(|| to_string_cypher(v), str::to_owned)
        })
        .collect();
    Ok(string(parts.join(delimiter)))
}

/// Java's `String.split(regex, limit)`: a limit above 0 caps the parts; 0 drops trailing empty
/// parts.
pub(crate) fn split(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.text.split";
    let Some(t) = text(NAME, "text", nth(args, 0))? else {
        return Ok(Value::Null);
    };
    let Some(pattern) = text(NAME, "regex", nth(args, 1))? else {
        return Ok(Value::Null);
    };
    let re = regex(NAME, "regex", pattern)?;
    let limit = match nth(args, 2) {
        Value::Null => 0,
        v => int(NAME, "limit", v)?,
    };
    let mut parts: Vec<&str> = match usize::try_from(limit) {
        Ok(n) if n > 0 => re.splitn(t, n).collect(),
        _ => re.split(t).collect(),
    };
    if limit == 0 {
        while parts.last() == Some(&"") && parts.len() > 1 {
            parts.pop();
        }
    }
    Ok(Value::from(
        parts.into_iter().map(string).collect::<Vec<_>>(),
    ))
}

pub(crate) fn replace(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.text.replace";
    let (Some(t), Some(pattern), Some(with)) = (
        text(NAME, "text", nth(args, 0))?,
        text(NAME, "regex", nth(args, 1))?,
        text(NAME, "replacement", nth(args, 2))?,
    ) else {
        return Ok(Value::Null);
    };
    let re = regex(NAME, "regex", pattern)?;
    Ok(string(re.replace_all(t, with).into_owned()))
}

/// Every match as a list: the whole match, then each group (`null` where a group took no
/// part).
pub(crate) fn regex_groups(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.text.regexGroups";
    let (Some(t), Some(pattern)) = (
        text(NAME, "text", nth(args, 0))?,
        text(NAME, "regex", nth(args, 1))?,
    ) else {
        return Ok(Value::Null);
    };
    let re = regex(NAME, "regex", pattern)?;
    Ok(Value::from(
        re.captures_iter(t)
            .map(|c| {
                Value::from(
                    c.iter()
                        .map(|m| m.map_or(Value::Null, |m| string(m.as_str())))
                        .collect::<Vec<_>>(),
                )
            })
            .collect::<Vec<_>>(),
    ))
}

fn map_text(args: &[Value], name: &str, f: impl Fn(&str) -> String) -> Result<Value> {
    Ok(text(name, "text", nth(args, 0))?.map_or(Value::Null, |t| string(f(t))))
}

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_lowercase().chain(c).collect())
        .unwrap_or_default()
}

/// Applies `f` to each run of non-whitespace, keeping the whitespace.
fn each_word(s: &str, f: fn(&str) -> String) -> String {
    let mut out = String::with_capacity(s.len());
    let mut word = String::new();
    for c in s.chars() {
        if c.is_whitespace() {
            out.push_str(&f(&word));
            word.clear();
            out.push(c);
        } else {
            word.push(c);
        }
    }
    out.push_str(&f(&word));
    out
}

pub(crate) fn capitalize(args: &[Value], _: &mut Cx) -> Result<Value> {
    map_text(args, "apoc.text.capitalize", upper_first)
}

pub(crate) fn capitalize_all(args: &[Value], _: &mut Cx) -> Result<Value> {
    map_text(args, "apoc.text.capitalizeAll", |t| {
        each_word(t, upper_first)
    })
}

pub(crate) fn decapitalize(args: &[Value], _: &mut Cx) -> Result<Value> {
    map_text(args, "apoc.text.decapitalize", lower_first)
}

pub(crate) fn decapitalize_all(args: &[Value], _: &mut Cx) -> Result<Value> {
    map_text(args, "apoc.text.decapitalizeAll", |t| {
        each_word(t, lower_first)
    })
}

pub(crate) fn swap_case(args: &[Value], _: &mut Cx) -> Result<Value> {
    map_text(args, "apoc.text.swapCase", |t| {
        t.chars()
            .flat_map(|c| {
                if c.is_uppercase() {
                    c.to_lowercase().collect::<Vec<_>>()
                } else {
                    c.to_uppercase().collect::<Vec<_>>()
                }
            })
            .collect()
    })
}

/// The words of an identifier or phrase: split at anything not a letter or digit and where a
/// lower-case letter or digit is followed by an upper-case one (`fooBar`, `FOO_BAR`, `foo bar`).
fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in s.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_lowercase() || c.is_numeric();
        word.push(c);
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

pub(crate) fn camel_case(args: &[Value], _: &mut Cx) -> Result<Value> {
    map_text(args, "apoc.text.camelCase", |t| {
        words(t)
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let w = w.to_lowercase();
                if i == 0 { w } else { upper_first(&w) }
            })
            .collect()
    })
}

pub(crate) fn upper_camel_case(args: &[Value], _: &mut Cx) -> Result<Value> {
    map_text(args, "apoc.text.upperCamelCase", |t| {
        words(t)
            .iter()
            .map(|w| upper_first(&w.to_lowercase()))
            .collect()
    })
}

pub(crate) fn snake_case(args: &[Value], _: &mut Cx) -> Result<Value> {
    map_text(args, "apoc.text.snakeCase", |t| {
        words(t)
            .iter()
            .map(|w| w.to_lowercase())
            .collect::<Vec<_>>()
            .join("_")
    })
}

pub(crate) fn to_upper_case(args: &[Value], _: &mut Cx) -> Result<Value> {
    map_text(args, "apoc.text.toUpperCase", |t| {
        words(t)
            .iter()
            .map(|w| w.to_uppercase())
            .collect::<Vec<_>>()
            .join("_")
    })
}

/// Lower case with only letters and digits kept, accents taken off (`Café-Bar` → `cafebar`).
fn cleaned(t: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    t.nfd()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

pub(crate) fn clean(args: &[Value], _: &mut Cx) -> Result<Value> {
    map_text(args, "apoc.text.clean", cleaned)
}

pub(crate) fn compare_cleaned(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.text.compareCleaned";
    let (Some(a), Some(b)) = (
        text(NAME, "text1", nth(args, 0))?,
        text(NAME, "text2", nth(args, 1))?,
    ) else {
        return Ok(Value::Bool(false));
    };
    Ok(Value::Bool(cleaned(a) == cleaned(b)))
}

pub(crate) fn slug(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.text.slug";
    let delimiter = text(NAME, "delimiter", nth(args, 1))?
        .unwrap_or("-")
        .to_owned();
    map_text(args, NAME, |t| {
        t.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(&delimiter)
    })
}

/// The Levenshtein distance in characters.
fn levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j + 1] + 1).min(cur[j] + 1).min(prev[j] + cost);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Two text arguments; `None` when either is `null`.
fn two<'a>(name: &str, args: &'a [Value]) -> Result<Option<(&'a str, &'a str)>> {
    Ok(
        match (
            text(name, "text1", nth(args, 0))?,
            text(name, "text2", nth(args, 1))?,
        ) {
            (Some(a), Some(b)) => Some((a, b)),
            _ => None,
        },
    )
}

pub(crate) fn levenshtein_distance(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(two("apoc.text.levenshteinDistance", args)?
        .map_or(Value::Null, |(a, b)| Value::Int(levenshtein(a, b) as i64)))
}

pub(crate) fn levenshtein_similarity(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(
        two("apoc.text.levenshteinSimilarity", args)?.map_or(Value::Null, |(a, b)| {
            let longest = a.chars().count().max(b.chars().count());
            if longest == 0 {
                return Value::Float(1.0);
            }
            Value::Float(1.0 - levenshtein(a, b) as f64 / longest as f64)
        }),
    )
}

pub(crate) fn hamming_distance(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.text.hammingDistance";
    let Some((a, b)) = two(NAME, args)? else {
        return Ok(Value::Null);
    };
    if a.chars().count() != b.chars().count() {
        return Err(bad(NAME, "text2", "must have the length of text1"));
    }
    Ok(Value::Int(
        a.chars().zip(b.chars()).filter(|(x, y)| x != y).count() as i64,
    ))
}

/// The Jaro-Winkler similarity (1 for equal strings, 0 for nothing in common).
fn jaro_winkler(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let window = (a.len().max(b.len()) / 2).saturating_sub(1);
    let mut a_match = vec![false; a.len()];
    let mut b_match = vec![false; b.len()];
    let mut matches = 0usize;
    for (i, ca) in a.iter().enumerate() {
        let lo = i.saturating_sub(window);
        let hi = (i + window + 1).min(b.len());
        for j in lo..hi {
            if !b_match[j] && b[j] == *ca {
                a_match[i] = true;
                b_match[j] = true;
                matches += 1;
                break;
            }
        }
    }
    if matches == 0 {
        return 0.0;
    }
    let a_seq = a.iter().zip(&a_match).filter(|(_, m)| **m).map(|(c, _)| c);
    let b_seq = b.iter().zip(&b_match).filter(|(_, m)| **m).map(|(c, _)| c);
    let transpositions = a_seq.zip(b_seq).filter(|(x, y)| x != y).count() / 2;
    let m = matches as f64;
    let jaro = (m / a.len() as f64 + m / b.len() as f64 + (m - transpositions as f64) / m) / 3.0;
    let prefix = a.iter().zip(&b).take(4).take_while(|(x, y)| x == y).count();
    jaro + prefix as f64 * 0.1 * (1.0 - jaro)
}

pub(crate) fn jaro_winkler_distance(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(two("apoc.text.jaroWinklerDistance", args)?
        .map_or(Value::Null, |(a, b)| Value::Float(jaro_winkler(a, b))))
}

/// Whether the texts are within a Levenshtein distance that grows with the first's length:
/// exact under 3 characters, 1 edit up to 5, 2 beyond.
pub(crate) fn fuzzy_match(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(
        two("apoc.text.fuzzyMatch", args)?.map_or(Value::Bool(false), |(a, b)| {
            let allowed = match a.chars().count() {
                0..=2 => 0,
                3..=5 => 1,
                _ => 2,
            };
            Value::Bool(levenshtein(a, b) <= allowed)
        }),
    )
}

/// Pads `t` to `count` characters with `pad`'s first character, on the left or right.
fn pad(args: &[Value], name: &str, left: bool, cx: &mut Cx) -> Result<Value> {
    let Some(t) = text(name, "text", nth(args, 0))? else {
        return Ok(Value::Null);
    };
    let count = int(name, "count", nth(args, 1))?;
    let count = usize::try_from(count).unwrap_or(0);
    cx.transient(count, "a function's result")?;
    let fill = match nth(args, 2) {
        Value::Null => ' ',
        v => text(name, "delim", v)?
            .and_then(|d| d.chars().next())
            .unwrap_or(' '),
    };
    let len = t.chars().count();
    if len >= count {
        return Ok(string(t));
    }
    let padding: String = std::iter::repeat_n(fill, count - len).collect();
    Ok(string(if left {
        padding + t
    } else {
        t.to_owned() + &padding
    }))
}

pub(crate) fn lpad(args: &[Value], cx: &mut Cx) -> Result<Value> {
    pad(args, "apoc.text.lpad", true, cx)
}

pub(crate) fn rpad(args: &[Value], cx: &mut Cx) -> Result<Value> {
    pad(args, "apoc.text.rpad", false, cx)
}

pub(crate) fn repeat(args: &[Value], cx: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.text.repeat";
    let Some(t) = text(NAME, "item", nth(args, 0))? else {
        return Ok(Value::Null);
    };
    let n = usize::try_from(int(NAME, "count", nth(args, 1))?).unwrap_or(0);
    cx.transient(t.len().saturating_mul(n), "a function's result")?;
    Ok(string(t.repeat(n)))
}

pub(crate) fn format(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.text.format";
    let Some(t) = text(NAME, "text", nth(args, 0))? else {
        return Ok(Value::Null);
    };
    let params = nth(args, 1).as_list().unwrap_or(&[]);
    java_format(t, params)
        .map(string)
        .map_err(|e| bad(NAME, "text", e))
}

/// Java's `String.format` for what APOC users write: `%s`, `%d`, `%f` (with a precision,
/// `%.2f`), `%b`, `%x`, `%n`, `%%`, and explicit indexes (`%1$s`).
pub fn java_format(fmt: &str, params: &[Value]) -> std::result::Result<String, String> {
    let mut out = String::with_capacity(fmt.len());
    let mut chars = fmt.chars().peekable();
    let mut next = 0usize;
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = String::new();
        let conversion = loop {
            match chars.next() {
                Some(ch) if ch.is_ascii_alphabetic() || ch == '%' => break ch,
                Some(ch) => spec.push(ch),
                None => return Err(format!("ends inside a format specifier '%{spec}'")),
            }
        };
        match conversion {
            '%' => {
                out.push('%');
                continue;
            }
            'n' => {
                out.push('\n');
                continue;
            }
            _ => {}
        }
        let (index, rest) = match spec.split_once('$') {
            Some((i, rest)) => (
                i.parse::<usize>()
                    .ok()
                    .and_then(|i| i.checked_sub(1))
                    .ok_or_else(|| format!("has a bad argument index in '%{spec}{conversion}'"))?,
                rest.to_owned(),
            ),
            None => {
                next += 1;
                (next - 1, spec.clone())
            }
        };
        let v = params.get(index).ok_or_else(|| {
            format!(
                "has more format specifiers than the {} parameters",
                params.len()
            )
        })?;
        let rendered = render(conversion, v, &rest)?;
        // A width pads on the left (or the right with '-').
        let width = rest
            .split('.')
            .next()
            .map(|w| w.trim_start_matches('-'))
            .and_then(|w| w.parse::<usize>().ok())
            .unwrap_or(0)
            .min(1 << 16);
        let len = rendered.chars().count();
        if len < width {
            let pad = " ".repeat(width - len);
            if rest.starts_with('-') {
                out.push_str(&rendered);
                out.push_str(&pad);
            } else {
                out.push_str(&pad);
                out.push_str(&rendered);
            }
        } else {
            out.push_str(&rendered);
        }
    }
    Ok(out)
}

/// One value formatted by a conversion (`s`, `d`, `f`, ...) with its flags and precision.
fn render(conversion: char, v: &Value, spec: &str) -> std::result::Result<String, String> {
    let precision = spec
        .split_once('.')
        .and_then(|(_, p)| p.parse::<usize>().ok());
    Ok(match (conversion, v) {
        (_, Value::Null) => "null".to_owned(),
        ('d', Value::Int(i)) => i.to_string(),
        ('d', Value::Float(f)) => (*f as i64).to_string(),
        ('f' | 'e', Value::Int(i)) => format!("{:.*}", precision.unwrap_or(6), *i as f64),
        ('f' | 'e', Value::Float(f)) => format!("{:.*}", precision.unwrap_or(6), f),
        ('x' | 'X', Value::Int(i)) => {
            let h = format!("{i:x}");
            if conversion == 'X' {
                h.to_uppercase()
            } else {
                h
            }
        }
        ('b' | 'B', Value::Bool(b)) => b.to_string(),
        ('s' | 'S', v) => {
            let s = v
                .as_str()
                .map_or_else(|| to_string_cypher(v), str::to_owned);
            if conversion == 'S' {
                s.to_uppercase()
            } else {
                s
            }
        }
        (c, v) => {
            return Err(format!(
                "has '%{c}', which cannot format a {}",
                v.value_type().name()
            ));
        }
    })
}

/// A random string of `length` characters from `valid` (a set written like a regex class
/// body: `A-Za-z0-9` by default).
pub(crate) fn random(args: &[Value], cx: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.text.random";
    let length = usize::try_from(int(NAME, "length", nth(args, 0))?).unwrap_or(0);
    cx.transient(length, "a function's result")?;
    let valid = text(NAME, "valid", nth(args, 1))?.unwrap_or("A-Za-z0-9");
    let mut alphabet = Vec::new();
    let spec: Vec<char> = valid.chars().collect();
    let mut i = 0;
    while i < spec.len() {
        if i + 2 < spec.len() && spec[i + 1] == '-' {
            alphabet.extend(spec[i]..=spec[i + 2]);
            i += 3;
        } else {
            alphabet.push(spec[i]);
            i += 1;
        }
    }
    if alphabet.is_empty() {
        return Err(bad(NAME, "valid", "names no characters"));
    }
    let mut state = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0x9e37_79b9_7f4a_7c15, |d| d.as_nanos() as u64)
        | 1;
    let out: String = (0..length)
        .map(|_| {
            // xorshift64*: plenty for picking characters.
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            let r = state.wrapping_mul(0x2545_f491_4f6c_dd1d);
            alphabet[(r % alphabet.len() as u64) as usize]
        })
        .collect();
    Ok(string(out))
}

/// The character index of `lookup` in `text` from `from` (to `to`), or -1.
pub(crate) fn index_of(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.text.indexOf";
    let (Some(t), Some(lookup)) = (
        text(NAME, "text", nth(args, 0))?,
        text(NAME, "lookup", nth(args, 1))?,
    ) else {
        return Ok(Value::Null);
    };
    let chars: Vec<char> = t.chars().collect();
    let from = usize::try_from(match nth(args, 2) {
        Value::Null => 0,
        v => int(NAME, "from", v)?,
    })
    .unwrap_or(0)
    .min(chars.len());
    let to = match nth(args, 3) {
        Value::Null => chars.len(),
        v => usize::try_from(int(NAME, "to", v)?).map_or(chars.len(), |t| t.min(chars.len())),
    };
    if from > to {
        return Ok(Value::Int(-1));
    }
    let hay: String = chars[from..to].iter().collect();
    Ok(Value::Int(hay.find(lookup).map_or(-1, |byte| {
        (from + hay[..byte].chars().count()) as i64
    })))
}

pub(crate) fn byte_count(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.text.byteCount";
    let Some(t) = text(NAME, "text", nth(args, 0))? else {
        return Ok(Value::Null);
    };
    let charset = text(NAME, "charset", nth(args, 1))?.unwrap_or("UTF-8");
    let n = match charset.to_ascii_uppercase().as_str() {
        "UTF-8" | "UTF8" => t.len(),
        "UTF-16" | "UTF16" => t.encode_utf16().count() * 2 + 2,
        "ISO-8859-1" | "US-ASCII" | "ASCII" => t.chars().count(),
        other => {
            return Err(bad(
                NAME,
                "charset",
                format!("'{other}' is not supported: use UTF-8, UTF-16, ISO-8859-1 or US-ASCII"),
            ));
        }
    };
    Ok(Value::Int(n as i64))
}

pub(crate) fn code(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.text.code";
    match nth(args, 0) {
        Value::Null => Ok(Value::Null),
        v => {
            let c = int(NAME, "codepoint", v)?;
            u32::try_from(c)
                .ok()
                .and_then(char::from_u32)
                .map(|c| string(c.to_string()))
                .ok_or_else(|| {
                    bad(
                        NAME,
                        "codepoint",
                        format!("{c} is not a Unicode code point"),
                    )
                })
        }
    }
}

pub(crate) fn char_at(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.text.charAt";
    let Some(t) = text(NAME, "text", nth(args, 0))? else {
        return Ok(Value::Null);
    };
    let i = int(NAME, "index", nth(args, 1))?;
    Ok(usize::try_from(i)
        .ok()
        .and_then(|i| t.chars().nth(i))
        .map_or(Value::Null, |c| Value::Int(i64::from(u32::from(c)))))
}

/// Percent-encoding as Java's `URLEncoder` does it: letters, digits and `.-*_` stay, a space
/// becomes `+`.
pub(crate) fn url_encode(args: &[Value], _: &mut Cx) -> Result<Value> {
    map_text(args, "apoc.text.urlencode", |t| {
        let mut out = String::with_capacity(t.len());
        for b in t.bytes() {
            match b {
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'-' | b'*' | b'_' => {
                    out.push(char::from(b));
                }
                b' ' => out.push('+'),
                other => {
                    let _ = write!(out, "%{other:02X}");
                }
            }
        }
        out
    })
}

pub(crate) fn url_decode(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.text.urldecode";
    let Some(t) = text(NAME, "text", nth(args, 0))? else {
        return Ok(Value::Null);
    };
    let bytes = t.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = t
                    .get(i + 1..i + 3)
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| bad(NAME, "text", format!("has a bad escape at byte {i}")))?;
                out.push(hex);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out)
        .map(string)
        .map_err(|_| bad(NAME, "text", "does not decode to UTF-8"))
}
