//! Source positions: byte spans on the AST, line/column positions in errors.

use std::fmt;
use std::hash::{Hash, Hasher};

/// A half-open byte range `start..end` into the query text.
///
/// Spans never take part in equality or hashing: two trees are equal when they say the same
/// thing, wherever it was written. That is what lets round-trip tests compare the tree parsed
/// from a query with the tree parsed from its printed form. Compare `start`/`end` directly when
/// a test is about positions.
#[derive(Clone, Copy, Default)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub const fn new(start: u32, end: u32) -> Self {
        Self { start, end }
    }

    /// The span covering both `self` and `other`.
    #[must_use]
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// Whether both spans cover exactly the same bytes (equality ignores positions).
    pub fn same_range(self, other: Span) -> bool {
        self.start == other.start && self.end == other.end
    }

    /// The text this span covers, or `""` when it does not fit `source`.
    pub fn text(self, source: &str) -> &str {
        source
            .get(self.start as usize..self.end as usize)
            .unwrap_or("")
    }
}

impl PartialEq for Span {
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}

impl Eq for Span {}

impl Hash for Span {
    fn hash<H: Hasher>(&self, _state: &mut H) {}
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// A position as people read it: 1-based line and column, 0-based offset, all counted in
/// characters (not bytes), which is how Neo4j reports positions to clients.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Position {
    pub line: u32,
    pub column: u32,
    pub offset: u32,
}

impl Position {
    /// The position of byte `byte_offset` in `source` (clamped to the text, and moved back to a
    /// character boundary if it falls inside one).
    pub fn locate(source: &str, byte_offset: u32) -> Position {
        let mut end = (byte_offset as usize).min(source.len());
        while !source.is_char_boundary(end) {
            end -= 1;
        }
        let before = &source[..end];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let line = before.matches('\n').count() + 1;
        let column = before[line_start..].chars().count() + 1;
        let offset = before.chars().count();
        Position {
            line: line as u32,
            column: column as u32,
            offset: offset as u32,
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {} (offset: {})",
            self.line, self.column, self.offset
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locate_counts_lines_and_characters() {
        let source = "MATCH (n)\nRETURN é, x";
        let x = source.find('x').unwrap() as u32;
        let pos = Position::locate(source, x);
        assert_eq!((pos.line, pos.column, pos.offset), (2, 11, 20));
        assert_eq!(Position::locate(source, 0).column, 1);
        assert_eq!(Position::locate(source, 999).line, 2);
    }

    #[test]
    fn spans_compare_equal_regardless_of_position() {
        assert_eq!(Span::new(1, 2), Span::new(5, 9));
        assert!(!Span::new(1, 2).same_range(Span::new(5, 9)));
    }
}
