//! `CREATE FULLTEXT INDEX`: several labels or types and several properties per index.

use super::{Parser, Result};
use crate::ast::{CreateFulltextIndex, Ident, SchemaCommand};
use crate::token::TokenKind;

impl Parser<'_> {
    /// `FULLTEXT INDEX [name] [IF NOT EXISTS] FOR (n:A|B) ON EACH [n.a, n.b] [OPTIONS {...}]`
    /// or `... FOR ()-[r:T1|T2]-() ON EACH [r.a]`, after `CREATE`.
    pub(crate) fn parse_create_fulltext(&mut self) -> Result<SchemaCommand> {
        self.expect_keyword("FULLTEXT")?;
        self.expect_keyword("INDEX")?;
        let (name, if_not_exists) = self.parse_schema_name_and_guard()?;
        self.expect_keyword("FOR")?;
        self.expect(&TokenKind::LParen)?;
        let (variable, relationship, tokens) = if self.consume(&TokenKind::RParen) {
            self.consume(&TokenKind::Lt);
            self.expect(&TokenKind::Minus)?;
            self.expect(&TokenKind::LBracket)?;
            let variable = self.parse_variable()?;
            self.expect(&TokenKind::Colon)?;
            let tokens = self.parse_token_alternatives("a relationship type name")?;
            self.expect(&TokenKind::RBracket)?;
            self.expect(&TokenKind::Minus)?;
            self.consume(&TokenKind::Gt);
            self.expect(&TokenKind::LParen)?;
            self.expect(&TokenKind::RParen)?;
            (variable, true, tokens)
        } else {
            let variable = self.parse_variable()?;
            self.expect(&TokenKind::Colon)?;
            let tokens = self.parse_token_alternatives("a label name")?;
            self.expect(&TokenKind::RParen)?;
            (variable, false, tokens)
        };
        self.expect_keyword("ON")?;
        self.expect_keyword("EACH")?;
        self.expect(&TokenKind::LBracket)?;
        let mut properties = vec![self.parse_entity_property(&variable)?];
        while self.consume(&TokenKind::Comma) {
            properties.push(self.parse_entity_property(&variable)?);
        }
        self.expect(&TokenKind::RBracket)?;
        let options = self.parse_options()?;
        Ok(SchemaCommand::CreateFulltextIndex(CreateFulltextIndex {
            name,
            if_not_exists,
            variable,
            relationship,
            tokens,
            properties,
            options,
        }))
    }

    /// `A|B|C` (Neo4j 4's `A:B` form is not taken: it reads as a conjunction).
    fn parse_token_alternatives(&mut self, what: &str) -> Result<Vec<Ident>> {
        let mut tokens = vec![self.parse_name(what)?];
        while self.consume(&TokenKind::Pipe) {
            tokens.push(self.parse_name(what)?);
        }
        Ok(tokens)
    }
}

#[cfg(test)]
mod tests {
    use crate::ast::{SchemaCommand, StatementKind};

    fn parse(text: &str) -> SchemaCommand {
        match crate::parse(text).unwrap().kind {
            StatementKind::Schema(cmd) => cmd,
            other => panic!("not a schema command: {other:?}"),
        }
    }

    #[test]
    fn node_and_relationship_forms_round_trip() {
        for text in [
            "CREATE FULLTEXT INDEX titles FOR (n:Movie|Book) ON EACH [n.title, n.plot]",
            "CREATE FULLTEXT INDEX IF NOT EXISTS FOR ()-[r:REVIEWED|RATED]-() ON EACH [r.summary] \
             OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}",
        ] {
            let cmd = parse(text);
            let SchemaCommand::CreateFulltextIndex(ix) = &cmd else {
                panic!("{cmd:?}");
            };
            assert_eq!(ix.tokens.len(), 2);
            assert_eq!(parse(&cmd.to_string()), cmd);
        }
    }

    #[test]
    fn a_property_of_another_variable_is_refused() {
        assert!(crate::parse("CREATE FULLTEXT INDEX t FOR (n:A) ON EACH [m.title]").is_err());
        assert!(crate::parse("CREATE FULLTEXT INDEX t FOR (n:A) ON EACH []").is_err());
    }
}
