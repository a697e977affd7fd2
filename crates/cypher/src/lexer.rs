//! The tokenizer: Cypher text to spanned tokens.
//!
//! Literal errors the TCK names (`InvalidNumberLiteral`, `InvalidUnicodeLiteral`,
//! `IntegerOverflow`, `FloatingPointOverflow`) are raised here, where the digits are seen.

use crate::error::{Detail, Error};
use crate::span::Span;
use crate::token::{Token, TokenKind};

/// Whether `c` may start an unquoted name.
pub(crate) fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

/// Whether `c` may continue an unquoted name.
pub(crate) fn is_ident_continue(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Splits `source` into tokens, ending with [`TokenKind::Eof`].
///
/// The caller bounds `source` (`query_bytes_max`); spans are `u32`, so text past 4 GiB is
/// refused here too.
pub fn tokenize(source: &str) -> Result<Vec<Token>, Error> {
    if u32::try_from(source.len()).is_err() {
        return Err(Error::syntax(
            Detail::QueryTooLarge,
            "Query text is too large",
            Span::default(),
            "",
        ));
    }
    let mut lexer = Lexer {
        source,
        pos: 0,
        tokens: Vec::with_capacity(source.len() / 4 + 1),
    };
    lexer.run()?;
    Ok(lexer.tokens)
}

struct Lexer<'a> {
    source: &'a str,
    pos: usize,
    tokens: Vec<Token>,
}

impl Lexer<'_> {
    fn peek(&self) -> Option<char> {
        // Cypher is mostly ASCII: decode only when the byte starts a multi-byte character.
        match self.source.as_bytes().get(self.pos) {
            Some(&b) if b < 0x80 => Some(b as char),
            Some(_) => self.source[self.pos..].chars().next(),
            None => None,
        }
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.source[self.pos..].chars().nth(ahead)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn span_from(&self, start: usize) -> Span {
        Span::new(start as u32, self.pos as u32)
    }

    fn error(&self, detail: Detail, message: impl Into<String>, start: usize) -> Error {
        Error::syntax(detail, message, self.span_from(start), self.source)
    }

    fn push(&mut self, kind: TokenKind, start: usize) {
        let span = self.span_from(start);
        self.tokens.push(Token { kind, span });
    }

    fn run(&mut self) -> Result<(), Error> {
        loop {
            self.skip_trivia()?;
            let start = self.pos;
            let Some(c) = self.bump() else {
                self.push(TokenKind::Eof, start);
                return Ok(());
            };
            let kind = match c {
                '(' => TokenKind::LParen,
                ')' => TokenKind::RParen,
                '[' => TokenKind::LBracket,
                ']' => TokenKind::RBracket,
                '{' => TokenKind::LBrace,
                '}' => TokenKind::RBrace,
                ',' => TokenKind::Comma,
                ';' => TokenKind::Semicolon,
                '|' => TokenKind::Pipe,
                '&' => TokenKind::Ampersand,
                '*' => TokenKind::Star,
                '/' => TokenKind::Slash,
                '%' => TokenKind::Percent,
                '^' => TokenKind::Caret,
                '-' => TokenKind::Minus,
                '+' => self.then('=', TokenKind::PlusEq, TokenKind::Plus),
                ':' => self.then(':', TokenKind::DoubleColon, TokenKind::Colon),
                '!' => self.then('=', TokenKind::BangEq, TokenKind::Bang),
                '>' => self.then('=', TokenKind::Ge, TokenKind::Gt),
                '=' => self.then('~', TokenKind::RegexMatch, TokenKind::Eq),
                '<' => match self.peek() {
                    Some('=') => {
                        self.bump();
                        TokenKind::Le
                    }
                    Some('>') => {
                        self.bump();
                        TokenKind::Neq
                    }
                    _ => TokenKind::Lt,
                },
                '.' => {
                    if self.peek() == Some('.') {
                        self.bump();
                        TokenKind::DotDot
                    } else if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                        self.number(start)?
                    } else {
                        TokenKind::Dot
                    }
                }
                '0'..='9' => self.number(start)?,
                '\'' | '"' => TokenKind::String(self.string(c, start)?),
                '`' => TokenKind::QuotedName(self.quoted_name(start)?),
                '$' if self.peek() == Some('(') => {
                    self.bump();
                    TokenKind::DollarLParen
                }
                '$' => self.parameter(start)?,
                c if is_ident_start(c) => {
                    self.skip_name_characters();
                    TokenKind::Word
                }
                other => {
                    return Err(self.error(
                        Detail::UnexpectedSyntax,
                        format!("Invalid input '{other}': unexpected character"),
                        start,
                    ));
                }
            };
            self.push(kind, start);
        }
    }

    /// Consumes the rest of a name, bytewise while it is ASCII.
    fn skip_name_characters(&mut self) {
        let bytes = self.source.as_bytes();
        loop {
            match bytes.get(self.pos) {
                Some(&b) if b.is_ascii_alphanumeric() || b == b'_' => self.pos += 1,
                Some(&b) if b >= 0x80 && self.peek().is_some_and(is_ident_continue) => {
                    self.bump();
                }
                _ => return,
            }
        }
    }

    /// `second` follows: the two-character token, else the one-character one.
    fn then(&mut self, second: char, both: TokenKind, single: TokenKind) -> TokenKind {
        if self.peek() == Some(second) {
            self.bump();
            both
        } else {
            single
        }
    }

    fn skip_trivia(&mut self) -> Result<(), Error> {
        loop {
            match self.peek() {
                Some(' ' | '\t' | '\n' | '\r') => self.pos += 1,
                Some(c) if c.is_whitespace() => {
                    self.bump();
                }
                Some('/') if self.peek_at(1) == Some('/') => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.bump();
                    }
                }
                Some('/') if self.peek_at(1) == Some('*') => {
                    let start = self.pos;
                    self.pos += 2;
                    match self.source[self.pos..].find("*/") {
                        Some(end) => self.pos += end + 2,
                        None => {
                            self.pos = self.source.len();
                            return Err(self.error(
                                Detail::UnexpectedSyntax,
                                "Failed to parse comment. A comment starting with '/*' must \
                                 end with '*/'",
                                start,
                            ));
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    /// A number whose first character (a digit or the dot of `.5`) is already consumed.
    fn number(&mut self, start: usize) -> Result<TokenKind, Error> {
        let first = self.source[start..].chars().next().unwrap_or('0');
        if first == '0' {
            match self.peek() {
                Some('x' | 'X') => {
                    self.bump();
                    return self.radix_integer(start, 16, "hexadecimal");
                }
                Some('o' | 'O') => {
                    self.bump();
                    return self.radix_integer(start, 8, "octal");
                }
                _ => {}
            }
        }
        let mut is_float = first == '.';
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.bump();
        }
        if !is_float
            && self.peek() == Some('.')
            && self.peek_at(1).is_some_and(|c| c.is_ascii_digit())
        {
            self.bump();
            is_float = true;
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.bump();
            }
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            let digits_at = match self.peek_at(1) {
                Some('+' | '-') => 2,
                _ => 1,
            };
            if self.peek_at(digits_at).is_some_and(|c| c.is_ascii_digit()) {
                for _ in 0..digits_at {
                    self.bump();
                }
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.bump();
                }
                is_float = true;
            } else {
                self.bump();
                return Err(self.error(
                    Detail::InvalidNumberLiteral,
                    "Invalid number literal: an exponent needs digits",
                    start,
                ));
            }
        }
        let text = &self.source[start..self.pos];
        if is_float {
            let value: f64 = text.parse().map_err(|_| {
                self.error(
                    Detail::InvalidNumberLiteral,
                    format!("Invalid number literal '{text}'"),
                    start,
                )
            })?;
            if value.is_infinite() {
                return Err(self.error(
                    Detail::FloatingPointOverflow,
                    format!("Floating point number is too large: {text}"),
                    start,
                ));
            }
            return Ok(TokenKind::Float(value));
        }
        if text.len() > 1 && text.starts_with('0') {
            // Neo4j still reads `0123` as octal (deprecated); reading it as decimal would
            // silently change the value.
            return self.digits_value(start, &text[1..], 8, "octal");
        }
        self.digits_value(start, text, 10, "decimal")
    }

    /// `0x...` or `0o...` after the prefix: every name character belongs to the literal, so
    /// `0x1A2b3j` is one invalid literal rather than a number followed by a name.
    fn radix_integer(&mut self, start: usize, radix: u32, name: &str) -> Result<TokenKind, Error> {
        let digits_start = self.pos;
        while self.peek().is_some_and(is_ident_continue) {
            self.bump();
        }
        let digits = &self.source[digits_start..self.pos];
        self.digits_value(start, digits, radix, name)
    }

    fn digits_value(
        &self,
        start: usize,
        digits: &str,
        radix: u32,
        name: &str,
    ) -> Result<TokenKind, Error> {
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return Err(self.error(
                Detail::InvalidNumberLiteral,
                format!(
                    "Invalid input '{}': invalid {name} integer literal",
                    &self.source[start..self.pos]
                ),
                start,
            ));
        }
        let mut value: u64 = 0;
        for c in digits.chars() {
            let digit = u64::from(c.to_digit(radix).unwrap_or(0));
            value = value
                .checked_mul(u64::from(radix))
                .and_then(|v| v.checked_add(digit))
                .ok_or_else(|| {
                    self.error(
                        Detail::IntegerOverflow,
                        format!("integer, {}, is too large", &self.source[start..self.pos]),
                        start,
                    )
                })?;
        }
        Ok(TokenKind::Integer(value))
    }

    fn string(&mut self, quote: char, start: usize) -> Result<String, Error> {
        let mut out = String::new();
        loop {
            let Some(c) = self.bump() else {
                return Err(self.error(
                    Detail::UnexpectedSyntax,
                    "Failed to parse string literal. The query must contain an even number of \
                     non-escaped quotes.",
                    start,
                ));
            };
            if c == quote {
                return Ok(out);
            }
            if c != '\\' {
                out.push(c);
                continue;
            }
            let escape_start = self.pos - 1;
            let Some(e) = self.bump() else { continue };
            match e {
                '\\' => out.push('\\'),
                '\'' => out.push('\''),
                '"' => out.push('"'),
                'b' | 'B' => out.push('\u{8}'),
                'f' | 'F' => out.push('\u{c}'),
                'n' | 'N' => out.push('\n'),
                'r' | 'R' => out.push('\r'),
                't' | 'T' => out.push('\t'),
                'u' => {
                    let unit = self.hex_escape(4, escape_start)?;
                    out.push(self.utf16_escape(unit, escape_start)?);
                }
                'U' => {
                    let code = self.hex_escape(8, escape_start)?;
                    out.push(char::from_u32(code).ok_or_else(|| {
                        self.error(
                            Detail::InvalidUnicodeLiteral,
                            format!("Invalid unicode literal: \\U{code:08X} is not a character"),
                            escape_start,
                        )
                    })?);
                }
                other => {
                    return Err(self.error(
                        Detail::UnexpectedSyntax,
                        format!("Invalid input '\\{other}': invalid escape sequence in string"),
                        escape_start,
                    ));
                }
            }
        }
    }

    /// `count` hex digits of a `\u`/`\U` escape.
    fn hex_escape(&mut self, count: usize, escape_start: usize) -> Result<u32, Error> {
        let mut value = 0u32;
        for _ in 0..count {
            let digit = self.peek().and_then(|c| c.to_digit(16));
            let Some(digit) = digit else {
                return Err(self.error(
                    Detail::InvalidUnicodeLiteral,
                    "Invalid input: a unicode escape needs hexadecimal digits",
                    escape_start,
                ));
            };
            self.bump();
            value = value * 16 + digit;
        }
        Ok(value)
    }

    /// A `\uXXXX` unit: a character, or a surrogate pair when a low surrogate escape follows.
    fn utf16_escape(&mut self, unit: u32, escape_start: usize) -> Result<char, Error> {
        if let Some(c) = char::from_u32(unit) {
            return Ok(c);
        }
        let invalid = |lexer: &Self| {
            lexer.error(
                Detail::InvalidUnicodeLiteral,
                format!("Invalid unicode literal: \\u{unit:04X} is an unpaired surrogate"),
                escape_start,
            )
        };
        if !(0xD800..0xDC00).contains(&unit) || !self.source[self.pos..].starts_with("\\u") {
            return Err(invalid(self));
        }
        self.pos += 2;
        let low = self.hex_escape(4, escape_start)?;
        if !(0xDC00..0xE000).contains(&low) {
            return Err(invalid(self));
        }
        let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
        char::from_u32(code).ok_or_else(|| invalid(self))
    }

    fn quoted_name(&mut self, start: usize) -> Result<String, Error> {
        let mut out = String::new();
        loop {
            match self.bump() {
                None => {
                    return Err(self.error(
                        Detail::UnexpectedSyntax,
                        "Failed to parse quoted name: missing closing backtick",
                        start,
                    ));
                }
                Some('`') if self.peek() == Some('`') => {
                    self.bump();
                    out.push('`');
                }
                Some('`') => return Ok(out),
                Some(c) => out.push(c),
            }
        }
    }

    fn parameter(&mut self, start: usize) -> Result<TokenKind, Error> {
        match self.peek() {
            Some('`') => {
                self.bump();
                let name = self.quoted_name(start)?;
                Ok(TokenKind::Parameter(name))
            }
            Some(c) if is_ident_continue(c) => {
                let name_start = self.pos;
                while self.peek().is_some_and(is_ident_continue) {
                    self.bump();
                }
                Ok(TokenKind::Parameter(
                    self.source[name_start..self.pos].to_string(),
                ))
            }
            _ => Err(self.error(
                Detail::UnexpectedSyntax,
                "Invalid input '$': expected a parameter name",
                start,
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(source: &str) -> Vec<TokenKind> {
        tokenize(source)
            .unwrap()
            .into_iter()
            .map(|t| t.kind)
            .collect()
    }

    fn detail(source: &str) -> Detail {
        tokenize(source).unwrap_err().kind.detail
    }

    #[test]
    fn numbers() {
        use TokenKind::*;
        assert_eq!(
            kinds("1 0x1F 0o17 017 .5 1.5e3 1e-2 1..3"),
            vec![
                Integer(1),
                Integer(31),
                Integer(15),
                Integer(15),
                Float(0.5),
                Float(1500.0),
                Float(0.01),
                Integer(1),
                DotDot,
                Integer(3),
                Eof
            ]
        );
        assert_eq!(kinds("0x8000000000000000")[0], Integer(1 << 63));
        assert_eq!(detail("0x"), Detail::InvalidNumberLiteral);
        assert_eq!(detail("0x1A2b3j4D5E6f7"), Detail::InvalidNumberLiteral);
        assert_eq!(detail("09"), Detail::InvalidNumberLiteral);
        assert_eq!(detail("99999999999999999999"), Detail::IntegerOverflow);
        assert_eq!(detail("1.34E999"), Detail::FloatingPointOverflow);
    }

    #[test]
    fn strings_and_escapes() {
        assert_eq!(
            kinds(r#"'a\'b' "c\"d" '\u00e9\U0001F600\n\\' '\uD83D\uDE00'"#)[..4],
            [
                TokenKind::String("a'b".into()),
                TokenKind::String("c\"d".into()),
                TokenKind::String("é😀\n\\".into()),
                TokenKind::String("😀".into()),
            ]
        );
        assert_eq!(detail(r"'\uH'"), Detail::InvalidUnicodeLiteral);
        assert_eq!(detail(r"'\uD800'"), Detail::InvalidUnicodeLiteral);
        assert_eq!(detail("'open"), Detail::UnexpectedSyntax);
        assert_eq!(detail(r"'\q'"), Detail::UnexpectedSyntax);
    }

    #[test]
    fn names_parameters_comments_and_operators() {
        use TokenKind::*;
        assert_eq!(
            kinds("a /* x */ `b``c` // rest\n $p $0 $`q r` <> <= >= =~ += :: !="),
            vec![
                Word,
                QuotedName("b`c".into()),
                Parameter("p".into()),
                Parameter("0".into()),
                Parameter("q r".into()),
                Neq,
                Le,
                Ge,
                RegexMatch,
                PlusEq,
                DoubleColon,
                BangEq,
                Eof
            ]
        );
        assert_eq!(detail("/* open"), Detail::UnexpectedSyntax);
        assert_eq!(detail("`open"), Detail::UnexpectedSyntax);
        assert_eq!(detail("#"), Detail::UnexpectedSyntax);
    }

    #[test]
    fn spans_are_byte_ranges() {
        let tokens = tokenize("ab  'é'").unwrap();
        assert!(tokens[0].span.same_range(Span::new(0, 2)));
        assert!(tokens[1].span.same_range(Span::new(4, 8)));
    }
}
