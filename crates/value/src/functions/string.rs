//! String functions. Positions and lengths count Unicode code points, not bytes.

use super::{FunctionContext, arg, bad_argument};
use crate::error::{Result, ValueError};
use crate::value::Value;

/// Strings built by a function may not exceed this many bytes: `replace` and friends could
/// otherwise grow a small input without bound.
pub const STRING_RESULT_BYTES_MAX: usize = 256 * 1024 * 1024;

fn string_arg<'a>(function: &str, v: &'a Value) -> Result<Option<&'a str>> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s)),
        other => Err(bad_argument(function, "a String", other)),
    }
}

fn int_arg(function: &str, v: &Value) -> Result<Option<i64>> {
    match v {
        Value::Null => Ok(None),
        Value::Int(i) => Ok(Some(*i)),
        other => Err(bad_argument(function, "an Integer", other)),
    }
}

fn check_size(s: String) -> Result<Value> {
    if s.len() > STRING_RESULT_BYTES_MAX {
        Err(ValueError::invalid_value("String result is too large"))
    } else {
        Ok(Value::from(s))
    }
}

pub fn to_upper(args: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(string_arg("toUpper", arg(args, 0))?.map_or(Value::Null, |s| Value::from(s.to_uppercase())))
}

pub fn to_lower(args: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(string_arg("toLower", arg(args, 0))?.map_or(Value::Null, |s| Value::from(s.to_lowercase())))
}

/// The characters a trim removes: whitespace, or those listed in the optional argument.
fn trim_with(
    name: &str,
    args: &[Value],
    trim: impl Fn(&str, &dyn Fn(char) -> bool) -> String,
) -> Result<Value> {
    let Some(s) = string_arg(name, arg(args, 0))? else {
        return Ok(Value::Null);
    };
    if args.len() < 2 {
        return Ok(Value::from(trim(s, &char::is_whitespace)));
    }
    let Some(chars) = string_arg(name, arg(args, 1))? else {
        return Ok(Value::Null);
    };
    Ok(Value::from(trim(s, &|c| chars.contains(c))))
}

pub fn trim(args: &[Value], _: &FunctionContext) -> Result<Value> {
    trim_with("trim", args, |s, p| s.trim_matches(p).to_owned())
}

pub fn btrim(args: &[Value], _: &FunctionContext) -> Result<Value> {
    trim_with("btrim", args, |s, p| s.trim_matches(p).to_owned())
}

pub fn ltrim(args: &[Value], _: &FunctionContext) -> Result<Value> {
    trim_with("ltrim", args, |s, p| s.trim_start_matches(p).to_owned())
}

pub fn rtrim(args: &[Value], _: &FunctionContext) -> Result<Value> {
    trim_with("rtrim", args, |s, p| s.trim_end_matches(p).to_owned())
}

pub fn replace(args: &[Value], _: &FunctionContext) -> Result<Value> {
    let s = string_arg("replace", arg(args, 0))?;
    let search = string_arg("replace", arg(args, 1))?;
    let replacement = string_arg("replace", arg(args, 2))?;
    let (Some(s), Some(search), Some(replacement)) = (s, search, replacement) else {
        return Ok(Value::Null);
    };
    // Bound the result before building it: every match may grow the string.
    let matches = if search.is_empty() {
        s.chars().count() + 1
    } else {
        s.matches(search).count()
    };
    let growth = replacement
        .len()
        .saturating_sub(search.len())
        .saturating_mul(matches);
    if s.len().saturating_add(growth) > STRING_RESULT_BYTES_MAX {
        return Err(ValueError::invalid_value("String result is too large"));
    }
    check_size(s.replace(search, replacement))
}

/// Byte offset of the code point at `index`, or the string's length past the end.
fn byte_offset(s: &str, index: usize) -> usize {
    s.char_indices().nth(index).map_or(s.len(), |(i, _)| i)
}

fn non_negative(function: &str, what: &str, v: i64) -> Result<usize> {
    usize::try_from(v).map_err(|_| {
        ValueError::negative_argument(format!(
            "Function '{function}' needs a non-negative {what}, got {v}"
        ))
    })
}

pub fn substring(args: &[Value], _: &FunctionContext) -> Result<Value> {
    let Some(s) = string_arg("substring", arg(args, 0))? else {
        return Ok(Value::Null);
    };
    let Some(start) = int_arg("substring", arg(args, 1))? else {
        return Ok(Value::Null);
    };
    let start = non_negative("substring", "start", start)?;
    let from = byte_offset(s, start);
    let to = if args.len() > 2 {
        let Some(length) = int_arg("substring", arg(args, 2))? else {
            return Ok(Value::Null);
        };
        let length = non_negative("substring", "length", length)?;
        from + byte_offset(&s[from..], length)
    } else {
        s.len()
    };
    Ok(Value::from(&s[from..to]))
}

pub fn left(args: &[Value], _: &FunctionContext) -> Result<Value> {
    let Some(s) = string_arg("left", arg(args, 0))? else {
        return Ok(Value::Null);
    };
    let Some(n) = int_arg("left", arg(args, 1))? else {
        return Ok(Value::Null);
    };
    let n = non_negative("left", "length", n)?;
    Ok(Value::from(&s[..byte_offset(s, n)]))
}

pub fn right(args: &[Value], _: &FunctionContext) -> Result<Value> {
    let Some(s) = string_arg("right", arg(args, 0))? else {
        return Ok(Value::Null);
    };
    let Some(n) = int_arg("right", arg(args, 1))? else {
        return Ok(Value::Null);
    };
    let n = non_negative("right", "length", n)?;
    let count = s.chars().count();
    Ok(Value::from(&s[byte_offset(s, count.saturating_sub(n))..]))
}

/// `split(s, delimiter)` with one delimiter or a list of them; an empty delimiter splits into
/// characters.
pub fn split(args: &[Value], _: &FunctionContext) -> Result<Value> {
    let Some(s) = string_arg("split", arg(args, 0))? else {
        return Ok(Value::Null);
    };
    let delimiters: Vec<&str> = match arg(args, 1) {
        Value::Null => return Ok(Value::Null),
        Value::String(d) => vec![d],
        Value::List(items) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items.iter() {
                match item {
                    Value::String(d) => out.push(&**d),
                    Value::Null => return Ok(Value::Null),
                    other => {
                        return Err(bad_argument(
                            "split",
                            "a String or a List of Strings",
                            other,
                        ));
                    }
                }
            }
            out
        }
        other => {
            return Err(bad_argument(
                "split",
                "a String or a List of Strings",
                other,
            ));
        }
    };
    if delimiters.iter().all(|d| d.is_empty()) {
        return Ok(Value::from(
            s.chars()
                .map(|c| Value::from(c.to_string()))
                .collect::<Vec<_>>(),
        ));
    }
    let mut parts = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        match delimiters
            .iter()
            .filter(|d| !d.is_empty())
            .find(|d| rest.starts_with(**d))
        {
            Some(d) => {
                parts.push(Value::from(&s[start..i]));
                i += d.len();
                start = i;
            }
            None => i += rest.chars().next().map_or(1, char::len_utf8),
        }
    }
    parts.push(Value::from(&s[start..]));
    Ok(Value::from(parts))
}

pub fn char_length(args: &[Value], _: &FunctionContext) -> Result<Value> {
    Ok(string_arg("char_length", arg(args, 0))?
        .map_or(Value::Null, |s| Value::Int(s.chars().count() as i64)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(f: fn(&[Value], &FunctionContext) -> Result<Value>, args: &[Value]) -> Result<Value> {
        f(args, &FunctionContext::new())
    }

    fn s(text: &str) -> Value {
        Value::from(text)
    }

    #[test]
    fn casing_and_trimming() {
        assert_eq!(run(to_upper, &[s("abcÅ")]).unwrap(), s("ABCÅ"));
        assert_eq!(run(to_lower, &[s("ABC")]).unwrap(), s("abc"));
        assert_eq!(run(to_upper, &[Value::Null]).unwrap(), Value::Null);
        assert!(run(to_upper, &[Value::Int(1)]).is_err());
        assert_eq!(run(trim, &[s("  a b \n")]).unwrap(), s("a b"));
        assert_eq!(run(ltrim, &[s("  a ")]).unwrap(), s("a "));
        assert_eq!(run(rtrim, &[s("  a ")]).unwrap(), s("  a"));
        assert_eq!(run(btrim, &[s("xxaxx"), s("x")]).unwrap(), s("a"));
        assert_eq!(run(ltrim, &[s("xxaxx"), s("x")]).unwrap(), s("axx"));
    }

    #[test]
    fn substrings_count_code_points() {
        assert_eq!(
            run(substring, &[s("0123456789"), Value::Int(1)]).unwrap(),
            s("123456789")
        );
        assert_eq!(
            run(substring, &[s("0123456789"), Value::Int(1), Value::Int(3)]).unwrap(),
            s("123")
        );
        assert_eq!(
            run(substring, &[s("åäö"), Value::Int(1), Value::Int(1)]).unwrap(),
            s("ä")
        );
        assert_eq!(run(substring, &[s("abc"), Value::Int(10)]).unwrap(), s(""));
        assert!(run(substring, &[s("abc"), Value::Int(-1)]).is_err());
        assert_eq!(run(left, &[s("hello"), Value::Int(3)]).unwrap(), s("hel"));
        assert_eq!(run(right, &[s("hello"), Value::Int(3)]).unwrap(), s("llo"));
        assert_eq!(
            run(right, &[s("hello"), Value::Int(10)]).unwrap(),
            s("hello")
        );
        assert!(run(left, &[s("hello"), Value::Int(-1)]).is_err());
    }

    #[test]
    fn replacing_and_splitting() {
        assert_eq!(
            run(replace, &[s("hello"), s("l"), s("w")]).unwrap(),
            s("hewwo")
        );
        assert_eq!(run(replace, &[s("ab"), s(""), s("-")]).unwrap(), s("-a-b-"));
        let list = |items: &[&str]| Value::from(items.iter().map(|i| s(i)).collect::<Vec<_>>());
        assert_eq!(
            run(split, &[s("one1two"), s("1")]).unwrap(),
            list(&["one", "two"])
        );
        assert_eq!(
            run(split, &[s("a,b,"), s(",")]).unwrap(),
            list(&["a", "b", ""])
        );
        assert_eq!(
            run(split, &[s("abc"), s("")]).unwrap(),
            list(&["a", "b", "c"])
        );
        assert_eq!(
            run(split, &[s("a,b;c"), list(&[",", ";"])]).unwrap(),
            list(&["a", "b", "c"])
        );
        assert_eq!(run(split, &[s("a"), Value::Null]).unwrap(), Value::Null);
        assert_eq!(run(char_length, &[s("åäö")]).unwrap(), Value::Int(3));
    }
}
