//! Database management: `CREATE`, `DROP`, `ALTER`, `START` and `STOP DATABASE`, and the
//! database alias commands (see [`crate::ast::DatabaseCommand`]). `SHOW ALIASES` is read with
//! the other `SHOW` commands in `schema.rs`.

use super::{Parser, Result};
use crate::ast::{
    Access, AdminName, AlterAlias, AlterDatabase, CreateAlias, CreateDatabase, DatabaseCommand,
    DropDatabase, Expr, ExprKind, Ident, Topology, Wait,
};
use crate::error::Detail;
use crate::token::TokenKind;

impl Parser<'_> {
    /// Whether the statement is one [`Parser::parse_database_command`] reads.
    pub(crate) fn peek_database(&self) -> bool {
        let at = |n, k| self.peek_nth_keyword(n, k);
        let database_or_alias = |n| at(n, "DATABASE") || at(n, "ALIAS");
        if at(0, "CREATE") {
            // `CREATE database = (n)` creates a path named `database`.
            return (database_or_alias(1) && self.peek_nth(2).kind != TokenKind::Eq)
                || (at(1, "OR") && at(2, "REPLACE") && database_or_alias(3));
        }
        ((at(0, "DROP") || at(0, "ALTER")) && database_or_alias(1))
            || ((at(0, "START") || at(0, "STOP")) && at(1, "DATABASE"))
    }

    pub(crate) fn parse_database_command(&mut self) -> Result<DatabaseCommand> {
        if self.parse_keyword("CREATE") {
            let replace = self.parse_keywords(&["OR", "REPLACE"]);
            if self.parse_keyword("ALIAS") {
                return self.parse_create_alias(replace);
            }
            self.expect_keyword("DATABASE")?;
            return self.parse_create_database(replace);
        }
        if self.parse_keyword("DROP") {
            if self.parse_keyword("ALIAS") {
                let name = self.parse_database_name("an alias name")?;
                let if_exists = self.parse_keywords(&["IF", "EXISTS"]);
                self.expect_keyword("FOR")?;
                self.expect_keyword("DATABASE")?;
                return Ok(DatabaseCommand::DropAlias { name, if_exists });
            }
            self.expect_keyword("DATABASE")?;
            let name = self.parse_database_name("a database name")?;
            let if_exists = self.parse_keywords(&["IF", "EXISTS"]);
            let dump_data = if self.parse_keyword("DUMP") {
                self.expect_keyword("DATA")?;
                true
            } else {
                if self.parse_keyword("DESTROY") {
                    self.expect_keyword("DATA")?;
                }
                false
            };
            let wait = self.parse_wait();
            return Ok(DatabaseCommand::Drop(DropDatabase {
                name,
                if_exists,
                dump_data,
                wait,
            }));
        }
        if self.parse_keyword("ALTER") {
            if self.parse_keyword("ALIAS") {
                return self.parse_alter_alias();
            }
            self.expect_keyword("DATABASE")?;
            return self.parse_alter_database();
        }
        let start = self.parse_keyword("START");
        if !start {
            self.expect_keyword("STOP")?;
        }
        self.expect_keyword("DATABASE")?;
        let name = self.parse_database_name("a database name")?;
        let wait = self.parse_wait();
        Ok(if start {
            DatabaseCommand::Start { name, wait }
        } else {
            DatabaseCommand::Stop { name, wait }
        })
    }

    /// A database or alias name: a parameter (`$name`), or name parts joined by dots, each a
    /// word (keywords too) or a quoted name: `main.db` is the one name `main.db`.
    pub(super) fn parse_database_name(&mut self, what: &str) -> Result<AdminName> {
        let token = self.peek().clone();
        if let TokenKind::Parameter(name) = token.kind {
            self.advance();
            return Ok(AdminName::Parameter(Ident::with_span(name, token.span)));
        }
        Ok(AdminName::Literal(self.parse_dotted_name(what)?))
    }

    /// Name parts joined by dots (`main.db`), as one name.
    pub(super) fn parse_dotted_name(&mut self, what: &str) -> Result<Ident> {
        let first = self.parse_name(what)?;
        let start = first.span.start;
        let mut name = first.name;
        while self.consume(&TokenKind::Dot) {
            name.push('.');
            name.push_str(&self.parse_name(what)?.name);
        }
        Ok(Ident::with_span(name, self.span_from(start)))
    }

    pub(super) fn check_not_replace_and_if_not_exists(
        &self,
        replace: bool,
        if_not_exists: bool,
        what: &str,
    ) -> Result<()> {
        if replace && if_not_exists {
            return Err(self.error(
                Detail::UnexpectedSyntax,
                format!(
                    "Failed to create the specified {what}: cannot have both `OR REPLACE` and \
                     `IF NOT EXISTS`."
                ),
                self.peek().span,
            ));
        }
        Ok(())
    }

    /// After `CREATE [OR REPLACE] DATABASE`.
    fn parse_create_database(&mut self, replace: bool) -> Result<DatabaseCommand> {
        let name = self.parse_database_name("a database name")?;
        let if_not_exists = self.parse_keywords(&["IF", "NOT", "EXISTS"]);
        self.check_not_replace_and_if_not_exists(replace, if_not_exists, "database")?;
        let topology = self.parse_after_keyword("TOPOLOGY", Self::parse_topology)?;
        let options = self.parse_after_keyword("OPTIONS", Self::parse_map_or_parameter)?;
        let wait = self.parse_wait();
        Ok(DatabaseCommand::Create(CreateDatabase {
            name,
            replace,
            if_not_exists,
            topology,
            options,
            wait,
        }))
    }

    /// After `ALTER DATABASE`: the name, then one or more settings, each at most once (an
    /// option at most once per key), then `WAIT` or `NOWAIT`.
    fn parse_alter_database(&mut self) -> Result<DatabaseCommand> {
        let name = self.parse_database_name("a database name")?;
        let if_exists = self.parse_keywords(&["IF", "EXISTS"]);
        let mut alter = AlterDatabase {
            name,
            if_exists,
            access: None,
            topology: None,
            options: Vec::new(),
            wait: Wait::Unwritten,
        };
        loop {
            let span = self.peek().span;
            let (what, repeated) = if self.parse_keyword("REMOVE") {
                self.expect_keyword("OPTION")?;
                let key = self.parse_name("an option name")?;
                let repeated = alter.has_option(&key.name);
                let what = format!("OPTION {key}");
                alter.options.push((key, None));
                (what, repeated)
            } else if self.parse_keyword("SET") {
                if self.parse_keyword("ACCESS") {
                    self.expect_keyword("READ")?;
                    let access = if self.parse_keyword("ONLY") {
                        Access::ReadOnly
                    } else if self.parse_keyword("WRITE") {
                        Access::ReadWrite
                    } else {
                        return Err(self.expected("'ONLY' or 'WRITE'"));
                    };
                    let repeated = alter.access.replace(access).is_some();
                    ("ACCESS".to_owned(), repeated)
                } else if self.parse_keyword("TOPOLOGY") {
                    let topology = self.parse_topology()?;
                    let repeated = alter.topology.replace(topology).is_some();
                    ("TOPOLOGY".to_owned(), repeated)
                } else if self.parse_keyword("OPTION") {
                    let key = self.parse_name("an option name")?;
                    let value = self.parse_expr()?;
                    let repeated = alter.has_option(&key.name);
                    let what = format!("OPTION {key}");
                    alter.options.push((key, Some(value)));
                    (what, repeated)
                } else {
                    return Err(self.expected("'ACCESS', 'TOPOLOGY' or 'OPTION'"));
                }
            } else {
                break;
            };
            if repeated {
                return Err(self.error(
                    Detail::UnexpectedSyntax,
                    format!("Duplicate SET or REMOVE {what} clause"),
                    span.to(self.span_from(span.start)),
                ));
            }
        }
        if alter.access.is_none() && alter.topology.is_none() && alter.options.is_empty() {
            return Err(self.expected("'SET' or 'REMOVE'"));
        }
        alter.wait = self.parse_wait();
        Ok(DatabaseCommand::Alter(alter))
    }

    /// After `TOPOLOGY`: `n PRIMAR{Y|IES}`, `m SECONDAR{Y|IES}` or both, in either order.
    fn parse_topology(&mut self) -> Result<Topology> {
        let mut topology = Topology {
            primaries: None,
            secondaries: None,
        };
        while let TokenKind::Integer(count) = self.peek_kind().clone() {
            let span = self.advance();
            let Ok(count) = u32::try_from(count) else {
                return Err(self.error(
                    Detail::UnexpectedSyntax,
                    format!("A topology of {count} servers is too large"),
                    span,
                ));
            };
            let slot = if self.parse_keyword("PRIMARY") || self.parse_keyword("PRIMARIES") {
                &mut topology.primaries
            } else if self.parse_keyword("SECONDARY") || self.parse_keyword("SECONDARIES") {
                &mut topology.secondaries
            } else {
                return Err(self.expected("'PRIMARIES' or 'SECONDARIES'"));
            };
            if slot.replace(count).is_some() {
                return Err(self.error(
                    Detail::UnexpectedSyntax,
                    "Duplicate PRIMARIES or SECONDARIES in a topology",
                    span.to(self.span_from(span.start)),
                ));
            }
        }
        if topology.is_empty() {
            return Err(self.expected("a number of primaries or secondaries"));
        }
        Ok(topology)
    }

    /// A map literal or a parameter: the `OPTIONS` of a database, the `PROPERTIES` of an
    /// alias.
    fn parse_map_or_parameter(&mut self) -> Result<Expr> {
        let token = self.peek().clone();
        if let TokenKind::Parameter(name) = token.kind {
            self.advance();
            return Ok(Expr::new(ExprKind::Parameter(name), token.span));
        }
        if !self.peek_is(&TokenKind::LBrace) {
            return Err(self.expected("a map or a parameter"));
        }
        let start = self.start();
        let entries = self.parse_map_entries()?;
        Ok(Expr::new(ExprKind::Map(entries), self.span_from(start)))
    }

    /// `WAIT [n [SEC | SECOND | SECONDS]]`, `NOWAIT` or nothing.
    fn parse_wait(&mut self) -> Wait {
        if self.parse_keyword("NOWAIT") {
            return Wait::NoWait;
        }
        if !self.parse_keyword("WAIT") {
            return Wait::Unwritten;
        }
        let TokenKind::Integer(seconds) = *self.peek_kind() else {
            return Wait::Wait(None);
        };
        self.advance();
        let _ = self.parse_keyword("SECONDS")
            || self.parse_keyword("SECOND")
            || self.parse_keyword("SEC");
        Wait::Wait(Some(seconds))
    }

    /// After `CREATE [OR REPLACE] ALIAS`.
    fn parse_create_alias(&mut self, replace: bool) -> Result<DatabaseCommand> {
        let name = self.parse_database_name("an alias name")?;
        let if_not_exists = self.parse_keywords(&["IF", "NOT", "EXISTS"]);
        self.check_not_replace_and_if_not_exists(replace, if_not_exists, "database alias")?;
        self.expect_keyword("FOR")?;
        self.expect_keyword("DATABASE")?;
        let target = self.parse_database_name("a database name")?;
        let properties = self.parse_after_keyword("PROPERTIES", Self::parse_map_or_parameter)?;
        Ok(DatabaseCommand::CreateAlias(CreateAlias {
            name,
            replace,
            if_not_exists,
            target,
            properties,
        }))
    }

    /// After `ALTER ALIAS`: `name [IF EXISTS] SET DATABASE` then `TARGET` and `PROPERTIES`,
    /// in either order, at least one, each at most once.
    fn parse_alter_alias(&mut self) -> Result<DatabaseCommand> {
        let name = self.parse_database_name("an alias name")?;
        let if_exists = self.parse_keywords(&["IF", "EXISTS"]);
        self.expect_keyword("SET")?;
        self.expect_keyword("DATABASE")?;
        let mut target = None;
        let mut properties = None;
        loop {
            if target.is_none() && self.parse_keyword("TARGET") {
                target = Some(self.parse_database_name("a database name")?);
            } else if properties.is_none() && self.parse_keyword("PROPERTIES") {
                properties = Some(self.parse_map_or_parameter()?);
            } else {
                break;
            }
        }
        if target.is_none() && properties.is_none() {
            return Err(self.expected("'TARGET' or 'PROPERTIES'"));
        }
        Ok(DatabaseCommand::AlterAlias(AlterAlias {
            name,
            if_exists,
            target,
            properties,
        }))
    }

    /// After `SHOW ALIAS[ES]`: `[name] FOR DATABASE[S]`.
    pub(super) fn parse_show_aliases(&mut self) -> Result<Option<AdminName>> {
        let for_databases = |p: &Self| {
            p.peek_keyword("FOR")
                && (p.peek_nth_keyword(1, "DATABASE") || p.peek_nth_keyword(1, "DATABASES"))
        };
        let name = if for_databases(self) {
            None
        } else {
            Some(self.parse_database_name("an alias name or 'FOR'")?)
        };
        self.expect_keyword("FOR")?;
        if !(self.parse_keyword("DATABASES") || self.parse_keyword("DATABASE")) {
            return Err(self.expected("'DATABASES'"));
        }
        Ok(name)
    }
}

impl AlterDatabase {
    fn has_option(&self, key: &str) -> bool {
        self.options.iter().any(|(k, _)| k.name == key)
    }
}

#[cfg(test)]
mod tests {
    use crate::ast::{Access, AdminName, DatabaseCommand, ShowKind, StatementKind, Wait};
    use crate::parse;

    fn command(text: &str) -> DatabaseCommand {
        match parse(text).unwrap_or_else(|e| panic!("{text}: {e}")).kind {
            StatementKind::Database(command) => command,
            other => panic!("{text}: not a database command: {other:?}"),
        }
    }

    #[test]
    fn create_database_reads_every_part() {
        let DatabaseCommand::Create(c) = command(
            "CREATE DATABASE main.db IF NOT EXISTS TOPOLOGY 2 SECONDARIES 1 PRIMARY OPTIONS \
             {existingData: 'use'} WAIT 5 SEC",
        ) else {
            panic!("CREATE DATABASE");
        };
        assert_eq!(c.name.literal(), Some("main.db"));
        assert!(c.if_not_exists && !c.replace);
        let topology = c.topology.expect("a topology");
        assert_eq!(
            (topology.primaries, topology.secondaries),
            (Some(1), Some(2))
        );
        assert!(c.options.is_some());
        assert_eq!(c.wait, Wait::Wait(Some(5)));
    }

    #[test]
    fn alter_database_keeps_options_in_order() {
        let DatabaseCommand::Alter(a) = command(
            "ALTER DATABASE d SET OPTION txLogEnrichment 'FULL' SET ACCESS READ ONLY REMOVE \
             OPTION other NOWAIT",
        ) else {
            panic!("ALTER DATABASE");
        };
        assert_eq!(a.access, Some(Access::ReadOnly));
        let keys: Vec<(&str, bool)> = a
            .options
            .iter()
            .map(|(k, v)| (k.name.as_str(), v.is_some()))
            .collect();
        assert_eq!(keys, [("txLogEnrichment", true), ("other", false)]);
        assert_eq!(a.wait, Wait::NoWait);
    }

    #[test]
    fn names_may_be_parameters_bound_before_the_command_runs() {
        let c = command("CREATE ALIAS $alias FOR DATABASE $db PROPERTIES $props");
        assert_eq!(c.name_parameters(), ["alias", "db"]);
        assert_eq!(c.expressions().len(), 1);
        let bound = c.bind(|p| (p == "db").then(|| "neo4j".to_owned()));
        let DatabaseCommand::CreateAlias(alias) = &bound else {
            panic!("{bound:?}");
        };
        assert_eq!(alias.target.literal(), Some("neo4j"));
        assert!(matches!(alias.name, AdminName::Parameter(_)));
        assert_eq!(bound.name_parameters(), ["alias"]);
    }

    #[test]
    fn create_still_reads_a_path_named_like_a_command() {
        assert!(matches!(
            parse("CREATE database = (n)").expect("a path").kind,
            StatementKind::Query(_)
        ));
        assert!(matches!(
            parse("CREATE alias = ()-[:R]->()").expect("a path").kind,
            StatementKind::Query(_)
        ));
    }

    #[test]
    fn show_aliases_with_and_without_a_name() {
        let show = |text: &str| match parse(text).unwrap_or_else(|e| panic!("{text}: {e}")).kind {
            StatementKind::Show(show) => show.kind,
            other => panic!("{text}: {other:?}"),
        };
        assert_eq!(show("SHOW ALIASES FOR DATABASES"), ShowKind::Aliases(None));
        let ShowKind::Aliases(Some(name)) = show("SHOW ALIAS a.b FOR DATABASE YIELD name") else {
            panic!("SHOW ALIAS name");
        };
        assert_eq!(name.literal(), Some("a.b"));
        // An alias named `for`.
        assert!(matches!(
            show("SHOW ALIAS for FOR DATABASE"),
            ShowKind::Aliases(Some(_))
        ));
    }
}
