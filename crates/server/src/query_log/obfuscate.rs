//! What the query log hides: the passwords a statement carries as string literals
//! (`CREATE USER bob SET PASSWORD 'x'`, `ALTER CURRENT USER SET PASSWORD FROM 'a' TO 'b'`,
//! `CALL dbms.security.createUser('bob', 'x')`), the parameters such statements take their
//! passwords from, and every parameter named like a secret (`password`, `secret`, `token`,
//! `credential`), at any depth.

use std::collections::BTreeSet;
use std::sync::Arc;

use quiver_value::{Map, Value};

/// What a hidden value is written as.
pub const HIDDEN: &str = "******";

/// Words that make a parameter (or a map key inside one) a secret, matched in its lower-case name.
const SECRET_WORDS: [&str; 5] = ["password", "passwd", "secret", "token", "credential"];

/// A statement's text with its password literals hidden, and the parameters it takes
/// passwords from.
#[derive(Debug, PartialEq, Eq)]
pub struct Obfuscated {
    pub text: String,
    /// Parameters named after the first password keyword of the statement.
    pub secret_parameters: BTreeSet<String>,
}

/// Hides every string literal that follows the statement's first word naming a password
/// (`PASSWORD`, `changePassword`) or creating a user by procedure (`createUser`), and notes
/// the parameters named after it. Comments and quoted identifiers are passed over; a literal
/// left unterminated is hidden to the end of the text.
pub fn obfuscate_text(text: &str) -> Obfuscated {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut secret_parameters = BTreeSet::new();
    let mut hiding = false;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'\'' || c == b'"' {
            let end = literal_end(bytes, i);
            if hiding {
                out.push('\'');
                out.push_str(HIDDEN);
                out.push('\'');
            } else {
                out.push_str(&text[i..end]);
            }
            i = end;
        } else if c == b'`' {
            let end = bytes[i + 1..]
                .iter()
                .position(|&b| b == b'`')
                .map_or(bytes.len(), |p| i + 2 + p);
            out.push_str(&text[i..end]);
            i = end;
        } else if bytes[i..].starts_with(b"//") {
            let end = bytes[i..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |p| i + p);
            out.push_str(&text[i..end]);
            i = end;
        } else if bytes[i..].starts_with(b"/*") {
            let end = text[i + 2..].find("*/").map_or(bytes.len(), |p| i + 4 + p);
            out.push_str(&text[i..end]);
            i = end;
        } else if c == b'$' || is_word_byte(c) {
            let start = if c == b'$' { i + 1 } else { i };
            let end = bytes[start..]
                .iter()
                .position(|&b| !is_word_byte(b))
                .map_or(bytes.len(), |p| start + p);
            let word = &text[start..end];
            if c == b'$' {
                if hiding && !word.is_empty() {
                    secret_parameters.insert(word.to_owned());
                }
            } else {
                let lower = word.to_ascii_lowercase();
                if lower.contains("password") || lower == "createuser" {
                    hiding = true;
                }
            }
            out.push_str(&text[i..end]);
            i = end;
        } else {
            // Copy one whole character (the text is UTF-8; multi-byte characters are never
            // quotes, words or comment openers).
            let width = text[i..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&text[i..i + width]);
            i += width;
        }
    }
    Obfuscated {
        text: out,
        secret_parameters,
    }
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// The index just past the literal opened at `start` (its closing quote), honouring
/// backslash escapes; the text's end when it is not closed.
fn literal_end(bytes: &[u8], start: usize) -> usize {
    let quote = bytes[start];
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b if b == quote => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Whether a parameter or key name names a secret.
pub fn is_secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    SECRET_WORDS.iter().any(|word| lower.contains(word))
}

/// `parameters` with secrets hidden: those in `secret_parameters`, and those (or map keys
/// inside them) named like a secret.
pub fn obfuscate_parameters(parameters: &Map, secret_parameters: &BTreeSet<String>) -> Map {
    parameters
        .iter()
        .map(|(name, value)| {
            let hidden = secret_parameters.contains(name.as_ref()) || is_secret_name(name);
            let value = if hidden {
                Value::from(HIDDEN)
            } else {
                hide_nested(value)
            };
            (Arc::clone(name), value)
        })
        .collect()
}

/// Hides values under secret-named keys of the maps inside `value`.
fn hide_nested(value: &Value) -> Value {
    match value {
        Value::Map(map) => Value::Map(Arc::new(obfuscate_parameters(map, &BTreeSet::new()))),
        Value::List(items) => Value::List(items.iter().map(hide_nested).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hidden(text: &str) -> String {
        obfuscate_text(text).text
    }

    #[test]
    fn create_user_passwords_are_hidden_and_names_kept() {
        assert_eq!(
            hidden("CREATE USER bob SET PLAINTEXT PASSWORD 'hunter2' CHANGE NOT REQUIRED"),
            "CREATE USER bob SET PLAINTEXT PASSWORD '******' CHANGE NOT REQUIRED"
        );
        assert_eq!(
            hidden("ALTER USER `o'neil` SET PASSWORD \"s3cr\\\"et\""),
            "ALTER USER `o'neil` SET PASSWORD '******'"
        );
    }

    #[test]
    fn both_passwords_of_a_password_change_are_hidden() {
        assert_eq!(
            hidden("ALTER CURRENT USER SET PASSWORD FROM 'old' TO 'new'"),
            "ALTER CURRENT USER SET PASSWORD FROM '******' TO '******'"
        );
        assert_eq!(
            hidden("CALL dbms.security.createUser('bob', 'pw', false)"),
            "CALL dbms.security.createUser('******', '******', false)"
        );
        assert_eq!(
            hidden("CALL dbms.changePassword('pw')"),
            "CALL dbms.changePassword('******')"
        );
    }

    #[test]
    fn ordinary_literals_and_literals_before_the_keyword_stay() {
        assert_eq!(
            hidden("MATCH (n {name: 'password'}) RETURN n // PASSWORD 'x'"),
            "MATCH (n {name: 'password'}) RETURN n // PASSWORD 'x'"
        );
        assert_eq!(hidden("RETURN 'é', \"ü\""), "RETURN 'é', \"ü\"");
    }

    #[test]
    fn an_unterminated_literal_is_hidden_to_the_end() {
        assert_eq!(
            hidden("ALTER USER bob SET PASSWORD 'never closed"),
            "ALTER USER bob SET PASSWORD '******'"
        );
    }

    #[test]
    fn any_text_is_read_to_its_end_without_failing() {
        for text in [
            "PASSWORD '\\é",
            "PASSWORD '\\",
            "`unclosed é",
            "/* unclosed é",
            "// é",
            "$",
            "é$é'x",
            "PASSWORD \"ü\\\"ü\" 'ß",
            "",
        ] {
            let out = obfuscate_text(text);
            assert!(!out.text.is_empty() || text.is_empty(), "{text}");
        }
    }

    #[test]
    fn parameters_passwords_come_from_are_noted() {
        let o = obfuscate_text("CREATE USER $name SET PASSWORD $pw");
        assert_eq!(o.secret_parameters, BTreeSet::from(["pw".to_owned()]));
    }

    #[test]
    fn secret_named_parameters_are_hidden_at_any_depth() {
        let mut inner = Map::new();
        inner.insert(Arc::from("apiToken"), Value::from("t"));
        inner.insert(Arc::from("host"), Value::from("h"));
        let mut params = Map::new();
        params.insert(Arc::from("Password"), Value::from("p"));
        params.insert(Arc::from("pw"), Value::from("q"));
        params.insert(Arc::from("name"), Value::from("bob"));
        params.insert(Arc::from("conf"), Value::Map(Arc::new(inner)));
        let out = obfuscate_parameters(&params, &BTreeSet::from(["pw".to_owned()]));
        assert_eq!(out["Password"], Value::from(HIDDEN));
        assert_eq!(out["pw"], Value::from(HIDDEN));
        assert_eq!(out["name"], Value::from("bob"));
        let Value::Map(conf) = &out["conf"] else {
            panic!("a map")
        };
        assert_eq!(conf["apiToken"], Value::from(HIDDEN));
        assert_eq!(conf["host"], Value::from("h"));
    }
}
