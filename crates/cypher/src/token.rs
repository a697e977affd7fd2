//! Tokens: what the lexer hands the parser, each with its span.

use std::fmt;

use crate::span::Span;

/// One token of Cypher text.
#[derive(Clone, Debug, PartialEq)]
pub enum TokenKind {
    /// An unquoted identifier or keyword; its text is the span's text. Keywords are recognised
    /// by the parser (case-insensitively), because most of them are also valid names.
    Word,
    /// A backtick-quoted name, unescaped; never a keyword.
    QuotedName(String),
    /// An integer literal's magnitude; the sign is a separate token, so the parser decides
    /// whether `9223372036854775808` overflows (it does unless negated).
    Integer(u64),
    Float(f64),
    String(String),
    /// `$name` or `$0`, without the dollar.
    Parameter(String),
    LParen,
    /// `$(`: opens a dynamic label or type, `n:$(expr)`.
    DollarLParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Dot,
    DotDot,
    Colon,
    DoubleColon,
    Semicolon,
    Pipe,
    Ampersand,
    Bang,
    Plus,
    PlusEq,
    Minus,
    Star,
    Slash,
    Percent,
    Caret,
    Eq,
    /// `<>`
    Neq,
    /// `!=`, which Cypher does not accept; kept as a token to explain that.
    BangEq,
    Lt,
    Gt,
    Le,
    Ge,
    /// `=~`
    RegexMatch,
    Eof,
}

impl TokenKind {
    /// How the token is spelt, for messages (`None` for tokens with variable text).
    pub fn symbol(&self) -> Option<&'static str> {
        use TokenKind::*;
        Some(match self {
            LParen => "(",
            RParen => ")",
            LBracket => "[",
            RBracket => "]",
            LBrace => "{",
            RBrace => "}",
            Comma => ",",
            Dot => ".",
            DotDot => "..",
            Colon => ":",
            DoubleColon => "::",
            Semicolon => ";",
            Pipe => "|",
            Ampersand => "&",
            Bang => "!",
            Plus => "+",
            PlusEq => "+=",
            Minus => "-",
            Star => "*",
            Slash => "/",
            Percent => "%",
            Caret => "^",
            DollarLParen => "$(",
            Eq => "=",
            Neq => "<>",
            BangEq => "!=",
            Lt => "<",
            Gt => ">",
            Le => "<=",
            Ge => ">=",
            RegexMatch => "=~",
            Word | QuotedName(_) | Integer(_) | Float(_) | String(_) | Parameter(_) | Eof => {
                return None;
            }
        })
    }
}

impl fmt::Display for TokenKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenKind::Word => f.write_str("word"),
            TokenKind::QuotedName(name) => write!(f, "`{name}`"),
            TokenKind::Integer(value) => write!(f, "{value}"),
            TokenKind::Float(value) => write!(f, "{value:?}"),
            TokenKind::String(_) => f.write_str("string"),
            TokenKind::Parameter(name) => write!(f, "${name}"),
            TokenKind::Eof => f.write_str("end of input"),
            other => f.write_str(other.symbol().unwrap_or("?")),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
}
