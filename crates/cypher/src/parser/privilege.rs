//! `GRANT`, `DENY` and `REVOKE [GRANT | DENY]` of privileges, as Neo4j 5 spells them (see
//! [`crate::ast::PrivilegeCommand`]). Forms Neo4j has that the AST cannot say (`CREATE
//! INDEX`, `SHOW TRANSACTION`, `IMMUTABLE`, `EXECUTE BOOSTED`, ...) fail here as unsupported,
//! by name; which of the forms read here the server enforces is the engine's to decide.

use super::{Parser, Result};
use crate::ast::{
    AdminCommand, BinaryOp, DatabaseAction, DbmsAction, Elements, Expr, ExprKind, GraphAction,
    Ident, NameSet, Privilege, PrivilegeCommand, PrivilegeTarget, PrivilegeVerb,
};
use crate::error::Detail;
use crate::token::TokenKind;

/// Where a privilege applies, as `ON` introduces it.
enum Scope {
    Graph,
    Database,
    Dbms,
}

impl Parser<'_> {
    /// Whether the statement is a privilege command: `GRANT`, `DENY` or `REVOKE` not of roles
    /// (`GRANT ROLE MANAGEMENT ON DBMS` is a privilege, `GRANT ROLE r TO u` is not).
    pub(crate) fn peek_privilege(&self) -> bool {
        let at = |n, k| self.peek_nth_keyword(n, k);
        let of_roles = (at(1, "ROLE") || at(1, "ROLES")) && !(at(2, "MANAGEMENT") && at(3, "ON"));
        at(0, "DENY") || ((at(0, "GRANT") || at(0, "REVOKE")) && !of_roles)
    }

    pub(crate) fn parse_privilege_command(&mut self) -> Result<AdminCommand> {
        let verb = if self.parse_keyword("GRANT") {
            PrivilegeVerb::Grant
        } else if self.parse_keyword("DENY") {
            PrivilegeVerb::Deny
        } else {
            self.expect_keyword("REVOKE")?;
            let denied = if self.parse_keyword("GRANT") {
                Some(false)
            } else if self.parse_keyword("DENY") {
                Some(true)
            } else {
                None
            };
            PrivilegeVerb::Revoke { denied }
        };
        if self.peek_keyword("IMMUTABLE") {
            return Err(self.unsupported("An IMMUTABLE privilege", self.peek().span));
        }
        let privilege = self.parse_privilege()?;
        let to = if matches!(verb, PrivilegeVerb::Revoke { .. }) {
            "FROM"
        } else {
            "TO"
        };
        self.expect_keyword(to)?;
        let roles = self.parse_admin_names("a role name")?;
        Ok(AdminCommand::Privilege(PrivilegeCommand {
            verb,
            privilege,
            roles,
        }))
    }

    fn parse_privilege(&mut self) -> Result<Privilege> {
        let start = self.peek().span;
        let graph = |action| (Action::Graph(action), Scope::Graph);
        let (action, scope) = if self.parse_keyword("TRAVERSE") {
            graph(GraphAction::Traverse)
        } else if self.parse_keyword("READ") {
            graph(GraphAction::Read(self.parse_braced_names()?))
        } else if self.parse_keyword("MATCH") {
            graph(GraphAction::Match(self.parse_braced_names()?))
        } else if self.parse_keyword("WRITE") {
            graph(GraphAction::Write)
        } else if self.peek_keyword("CREATE") && self.peek_nth_keyword(1, "ON") {
            self.advance();
            graph(GraphAction::Create)
        } else if self.peek_keyword("DELETE") && self.peek_nth_keyword(1, "ON") {
            self.advance();
            graph(GraphAction::Delete)
        } else if self.parse_keywords(&["SET", "LABEL"]) {
            graph(GraphAction::SetLabel(self.parse_name_set()?))
        } else if self.parse_keywords(&["REMOVE", "LABEL"]) {
            graph(GraphAction::RemoveLabel(self.parse_name_set()?))
        } else if self.parse_keywords(&["SET", "PROPERTY"]) {
            graph(GraphAction::SetProperty(self.parse_braced_names()?))
        } else if self.parse_keyword("MERGE") {
            graph(GraphAction::Merge(self.parse_braced_names()?))
        } else if self.parse_keyword("ALL") {
            self.parse_all_privileges()
        } else if let Some(action) = self.parse_database_action()? {
            (Action::Database(action), Scope::Database)
        } else if let Some(action) = self.parse_dbms_action()? {
            (Action::Dbms(action), Scope::Dbms)
        } else {
            return Err(self.unsupported_privilege(start));
        };
        self.expect_keyword("ON")?;
        match (action, scope) {
            (Action::Graph(action), Scope::Graph) => {
                let graphs = self.parse_privilege_target("GRAPH", "GRAPHS")?;
                let elements = self.parse_elements()?;
                Ok(Privilege::Graph {
                    action,
                    graphs,
                    elements,
                })
            }
            (Action::Database(action), Scope::Database) => {
                let databases = self.parse_privilege_target("DATABASE", "DATABASES")?;
                Ok(Privilege::Database { action, databases })
            }
            (Action::Dbms(action), Scope::Dbms) => {
                self.expect_keyword("DBMS")?;
                Ok(Privilege::Dbms(action))
            }
            _ => Err(self.expected("'GRAPH', 'DATABASE' or 'DBMS'")),
        }
    }

    /// The privilege named at `start` is one Neo4j has but the AST cannot say.
    fn unsupported_privilege(&self, start: crate::Span) -> crate::Error {
        let mut words = Vec::new();
        let mut n = 0;
        while n < 4 && !self.peek_nth_keyword(n, "ON") {
            let token = self.peek_nth(n);
            if token.kind != TokenKind::Word {
                break;
            }
            words.push(self.text(token.span).to_uppercase());
            n += 1;
        }
        let what = if words.is_empty() {
            "This privilege".to_owned()
        } else {
            format!("The privilege {}", words.join(" "))
        };
        self.unsupported(&what, start)
    }

    /// After `ALL`: `[GRAPH | DATABASE | DBMS] [PRIVILEGES]`, the scope read from `ON` when
    /// not written.
    fn parse_all_privileges(&mut self) -> (Action, Scope) {
        let written = if self.parse_keyword("GRAPH") {
            Some(Scope::Graph)
        } else if self.parse_keyword("DATABASE") {
            Some(Scope::Database)
        } else if self.parse_keyword("DBMS") {
            Some(Scope::Dbms)
        } else {
            None
        };
        self.parse_keyword("PRIVILEGES");
        let scope = written.unwrap_or_else(|| {
            let at = |n, k| self.peek_nth_keyword(n, k);
            if at(1, "DBMS") {
                Scope::Dbms
            } else if at(1, "GRAPH") || at(1, "GRAPHS") || at(2, "GRAPH") {
                Scope::Graph
            } else {
                Scope::Database
            }
        });
        let action = match scope {
            Scope::Graph => Action::Graph(GraphAction::All),
            Scope::Database => Action::Database(DatabaseAction::All),
            Scope::Dbms => Action::Dbms(DbmsAction::All),
        };
        (action, scope)
    }

    fn parse_database_action(&mut self) -> Result<Option<DatabaseAction>> {
        let at_on = |p: &Self, n| p.peek_nth_keyword(n, "ON");
        let management = |p: &mut Self, word: &str| {
            if p.peek_keyword(word)
                && (at_on(p, 1) || (p.peek_nth_keyword(1, "MANAGEMENT") && at_on(p, 2)))
            {
                p.advance();
                p.parse_keyword("MANAGEMENT");
                true
            } else {
                false
            }
        };
        let action = if self.peek_keyword("ACCESS") && at_on(self, 1) {
            self.advance();
            DatabaseAction::Access
        } else if self.peek_keyword("START") && at_on(self, 1) {
            self.advance();
            DatabaseAction::Start
        } else if self.peek_keyword("STOP") && at_on(self, 1) {
            self.advance();
            DatabaseAction::Stop
        } else if management(self, "INDEX") || management(self, "INDEXES") {
            DatabaseAction::Index
        } else if management(self, "CONSTRAINT") || management(self, "CONSTRAINTS") {
            DatabaseAction::Constraint
        } else if self.peek_keyword("SHOW")
            && (self.peek_nth_keyword(1, "INDEX") || self.peek_nth_keyword(1, "INDEXES"))
            && at_on(self, 2)
        {
            self.advance();
            self.advance();
            DatabaseAction::ShowIndex
        } else if self.peek_keyword("SHOW")
            && (self.peek_nth_keyword(1, "CONSTRAINT") || self.peek_nth_keyword(1, "CONSTRAINTS"))
            && at_on(self, 2)
        {
            self.advance();
            self.advance();
            DatabaseAction::ShowConstraint
        } else if management(self, "NAME") {
            DatabaseAction::NameManagement
        } else if self.peek_keyword("TRANSACTION")
            && (at_on(self, 1)
                || self.peek_nth_keyword(1, "MANAGEMENT")
                || self.peek_nth(1).kind == TokenKind::LParen)
        {
            self.advance();
            self.parse_keyword("MANAGEMENT");
            DatabaseAction::TransactionManagement(self.parse_user_list()?)
        } else {
            return Ok(None);
        };
        Ok(Some(action))
    }

    fn parse_dbms_action(&mut self) -> Result<Option<DbmsAction>> {
        let managed = |p: &mut Self, word: &str| {
            if p.peek_keyword(word)
                && p.peek_nth_keyword(1, "MANAGEMENT")
                && p.peek_nth_keyword(2, "ON")
            {
                p.advance();
                p.advance();
                true
            } else {
                false
            }
        };
        let action = if managed(self, "ROLE") {
            DbmsAction::RoleManagement
        } else if managed(self, "USER") {
            DbmsAction::UserManagement
        } else if managed(self, "PRIVILEGE") {
            DbmsAction::PrivilegeManagement
        } else if managed(self, "DATABASE") {
            DbmsAction::DatabaseManagement
        } else if self.peek_keyword("EXECUTE")
            && (self.peek_nth_keyword(1, "PROCEDURE") || self.peek_nth_keyword(1, "PROCEDURES"))
        {
            self.advance();
            self.advance();
            DbmsAction::ExecuteProcedure(self.parse_globs()?)
        } else if self.peek_keyword("EXECUTE")
            && (self.peek_nth_keyword(1, "FUNCTION")
                || self.peek_nth_keyword(1, "FUNCTIONS")
                || self.peek_nth_keyword(1, "USER"))
        {
            self.advance();
            if self.parse_keyword("USER") {
                self.parse_keyword("DEFINED");
            }
            if !(self.parse_keyword("FUNCTIONS") || self.parse_keyword("FUNCTION")) {
                return Err(self.expected("'FUNCTION'"));
            }
            DbmsAction::ExecuteFunction(self.parse_globs()?)
        } else if self.parse_keyword("IMPERSONATE") {
            DbmsAction::Impersonate(self.parse_user_list()?)
        } else {
            return Ok(None);
        };
        Ok(Some(action))
    }

    /// `(*)`, `(a, b)` or nothing (everyone).
    fn parse_user_list(&mut self) -> Result<NameSet> {
        if !self.consume(&TokenKind::LParen) {
            return Ok(NameSet::All);
        }
        let users = self.parse_name_set()?;
        self.expect(&TokenKind::RParen)?;
        Ok(users)
    }

    /// Procedure or function globs up to `ON`: `*`, `apoc.*`, `db.index.fulltext.query*`.
    fn parse_globs(&mut self) -> Result<Vec<String>> {
        let mut globs = Vec::new();
        let mut glob = String::new();
        loop {
            let token = self.peek().clone();
            match &token.kind {
                TokenKind::Word if self.is_word(&token, "ON") && !glob.ends_with('.') => break,
                TokenKind::Word => glob.push_str(self.text(token.span)),
                TokenKind::QuotedName(name) => glob.push_str(name),
                TokenKind::Dot => glob.push('.'),
                TokenKind::Star => glob.push('*'),
                TokenKind::Comma if !glob.is_empty() => globs.push(std::mem::take(&mut glob)),
                _ => return Err(self.expected("a procedure or function name or glob")),
            }
            self.advance();
        }
        if glob.is_empty() {
            return Err(self.expected("a procedure or function name or glob"));
        }
        globs.push(glob);
        Ok(globs)
    }

    /// `*` or names.
    fn parse_name_set(&mut self) -> Result<NameSet> {
        if self.consume(&TokenKind::Star) {
            return Ok(NameSet::All);
        }
        Ok(NameSet::Names(self.parse_names("a name")?))
    }

    /// `{*}` or `{a, b}`.
    fn parse_braced_names(&mut self) -> Result<NameSet> {
        self.expect(&TokenKind::LBrace)?;
        let names = self.parse_name_set()?;
        self.expect(&TokenKind::RBrace)?;
        Ok(names)
    }

    /// After `ON`: `GRAPH[S] * | names`, `HOME GRAPH` or `DEFAULT GRAPH` (`word` is `GRAPH`
    /// or `DATABASE`).
    fn parse_privilege_target(&mut self, word: &str, words: &str) -> Result<PrivilegeTarget> {
        if self.parse_keyword("HOME") {
            self.expect_keyword(word)?;
            return Ok(PrivilegeTarget::Home);
        }
        if self.parse_keyword("DEFAULT") {
            self.expect_keyword(word)?;
            return Ok(PrivilegeTarget::Default);
        }
        if !(self.parse_keyword(words) || self.parse_keyword(word)) {
            return Err(self.expected(&format!("'{word}'")));
        }
        Ok(match self.parse_name_set()? {
            NameSet::All => PrivilegeTarget::All,
            NameSet::Names(names) => PrivilegeTarget::Names(names),
        })
    }

    /// The elements after a graph: `NODE[S] labels`, `RELATIONSHIP[S] types`, `ELEMENT[S]
    /// names`, `FOR (n:L) WHERE ...`, or nothing (every element).
    fn parse_elements(&mut self) -> Result<Elements> {
        let kind = if self.parse_keyword("NODES") || self.parse_keyword("NODE") {
            Elements::Nodes
        } else if self.parse_keyword("RELATIONSHIPS") || self.parse_keyword("RELATIONSHIP") {
            Elements::Relationships
        } else if self.parse_keyword("ELEMENTS") || self.parse_keyword("ELEMENT") {
            Elements::Elements
        } else if self.parse_keyword("FOR") {
            return self.parse_property_rule();
        } else {
            return Ok(Elements::Elements(NameSet::All));
        };
        let names = self.parse_name_set()?;
        // Neo4j 4's `NODES A (*)` is still read.
        if self.peek_is(&TokenKind::LParen) && self.peek_nth(1).kind == TokenKind::Star {
            self.advance();
            self.advance();
            self.expect(&TokenKind::RParen)?;
        }
        Ok(kind(names))
    }

    /// After `FOR`: `(n[:A|B]) WHERE predicate`, `(n[:A|B] WHERE predicate)`, or
    /// `([n][:A|B] {p: value})`, which is `n.p = value` (the variable `n` when none is written).
    fn parse_property_rule(&mut self) -> Result<Elements> {
        self.expect(&TokenKind::LParen)?;
        let variable = if self.peek_variable() {
            Some(self.parse_variable()?)
        } else {
            None
        };
        let mut labels: Vec<Ident> = Vec::new();
        if self.consume(&TokenKind::Colon) {
            labels.push(self.parse_name("a label")?);
            while self.consume(&TokenKind::Pipe) {
                labels.push(self.parse_name("a label")?);
            }
        }
        if self.peek_is(&TokenKind::LBrace) {
            let start = self.start();
            let entries = self.parse_map_entries()?;
            let span = self.span_from(start);
            self.expect(&TokenKind::RParen)?;
            let variable = variable.unwrap_or_else(|| Ident::with_span("n", span));
            let [entry] = <[_; 1]>::try_from(entries).map_err(|_| {
                self.error(
                    Detail::UnexpectedSyntax,
                    "A property rule tests exactly one property: `{p: value}`".to_owned(),
                    span,
                )
            })?;
            let property = Expr::new(
                ExprKind::Property {
                    base: Box::new(Expr::new(ExprKind::Variable(variable.clone()), span)),
                    key: entry.key,
                },
                span,
            );
            let predicate = Expr::new(
                ExprKind::Binary {
                    op: BinaryOp::Eq,
                    left: Box::new(property),
                    right: Box::new(entry.value),
                },
                span,
            );
            return Ok(Elements::Where {
                variable,
                labels,
                predicate,
            });
        }
        let Some(variable) = variable else {
            return Err(
                self.expected("a variable name, as the WHERE form of a property rule needs one")
            );
        };
        let predicate = if self.parse_keyword("WHERE") {
            let predicate = self.parse_expr()?;
            self.expect(&TokenKind::RParen)?;
            predicate
        } else {
            self.expect(&TokenKind::RParen)?;
            self.expect_keyword("WHERE")?;
            self.parse_expr()?
        };
        Ok(Elements::Where {
            variable,
            labels,
            predicate,
        })
    }
}

/// A privilege's action before its scope is read.
enum Action {
    Graph(GraphAction),
    Database(DatabaseAction),
    Dbms(DbmsAction),
}

#[cfg(test)]
mod tests {
    use crate::ast::{
        AdminCommand, DatabaseAction, DbmsAction, Elements, GraphAction, NameSet, Privilege,
        PrivilegeCommand, PrivilegeTarget, PrivilegeVerb, StatementKind,
    };
    use crate::error::Detail;
    use crate::parse;

    fn command(text: &str) -> PrivilegeCommand {
        match parse(text).unwrap_or_else(|e| panic!("{text}: {e}")).kind {
            StatementKind::Admin(AdminCommand::Privilege(command)) => command,
            other => panic!("{text}: not a privilege command: {other:?}"),
        }
    }

    #[test]
    fn graph_privileges_read_their_action_graph_and_elements() {
        let c = command("GRANT TRAVERSE ON GRAPH * NODES Person, Movie TO reader2, auditor");
        assert_eq!(c.verb, PrivilegeVerb::Grant);
        assert_eq!(c.roles.len(), 2);
        let Privilege::Graph {
            action,
            graphs,
            elements,
        } = c.privilege
        else {
            panic!("graph privilege");
        };
        assert_eq!(action, GraphAction::Traverse);
        assert_eq!(graphs, PrivilegeTarget::All);
        assert!(matches!(elements, Elements::Nodes(NameSet::Names(ref n)) if n.len() == 2));
        let c = command("DENY READ {secret} ON GRAPH neo4j RELATIONSHIP KNOWS TO r");
        assert_eq!(c.verb, PrivilegeVerb::Deny);
        assert!(matches!(
            c.privilege,
            Privilege::Graph {
                action: GraphAction::Read(NameSet::Names(_)),
                graphs: PrivilegeTarget::Names(_),
                elements: Elements::Relationships(_),
            }
        ));
        let c = command("REVOKE DENY MATCH {*} ON HOME GRAPH ELEMENTS * FROM r");
        assert_eq!(c.verb, PrivilegeVerb::Revoke { denied: Some(true) });
        let c = command("GRANT WRITE ON GRAPH * TO editor2");
        assert!(matches!(
            c.privilege,
            Privilege::Graph {
                action: GraphAction::Write,
                elements: Elements::Elements(NameSet::All),
                ..
            }
        ));
        let c = command("GRANT SET LABEL * ON GRAPH * TO r");
        assert!(matches!(
            c.privilege,
            Privilege::Graph {
                action: GraphAction::SetLabel(NameSet::All),
                ..
            }
        ));
        let c = command("GRANT ALL GRAPH PRIVILEGES ON GRAPH * TO r");
        assert!(matches!(
            c.privilege,
            Privilege::Graph {
                action: GraphAction::All,
                ..
            }
        ));
        let c = command("DENY MATCH {salary} ON GRAPH * FOR (n:Person) WHERE n.secret = true TO r");
        assert!(matches!(
            c.privilege,
            Privilege::Graph {
                elements: Elements::Where { ref labels, .. },
                ..
            } if labels.len() == 1
        ));
        assert!(matches!(
            command("GRANT READ {*} ON GRAPH * FOR (n WHERE n.level > 2) TO r").privilege,
            Privilege::Graph {
                elements: Elements::Where { ref labels, .. },
                ..
            } if labels.is_empty()
        ));
    }

    #[test]
    fn a_property_rule_takes_a_label_disjunction_and_the_map_form() {
        let rule = |text| match command(text).privilege {
            Privilege::Graph { elements, .. } => elements,
            other => panic!("{text}: {other:?}"),
        };
        let Elements::Where { labels, .. } =
            rule("GRANT TRAVERSE ON GRAPH * FOR (n:Email|Website) WHERE n.domain = 'x' TO r")
        else {
            panic!("a property rule");
        };
        let names: Vec<&str> = labels.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["Email", "Website"]);
        // The map form is the equality it stands for, on `n` when no variable is written.
        let map = rule("GRANT READ {a} ON GRAPH * FOR (:Email|Website {domain: 'x'}) TO r");
        assert_eq!(
            map.to_string(),
            "FOR (n:Email|Website) WHERE n.domain = 'x'"
        );
        let err = parse("GRANT TRAVERSE ON GRAPH * FOR (n:A {p: 1, q: 2}) TO r")
            .expect_err("two properties");
        assert!(err.to_string().contains("exactly one property"), "{err}");
    }

    #[test]
    fn database_and_dbms_privileges_read_their_action() {
        let database = |text| match command(text).privilege {
            Privilege::Database { action, databases } => (action, databases),
            other => panic!("{text}: {other:?}"),
        };
        assert_eq!(
            database("GRANT ACCESS ON DATABASE * TO r"),
            (DatabaseAction::Access, PrivilegeTarget::All)
        );
        assert_eq!(
            database("DENY INDEX MANAGEMENT ON HOME DATABASE TO r").0,
            DatabaseAction::Index
        );
        assert_eq!(
            database("GRANT CONSTRAINT ON DATABASES a, b TO r").0,
            DatabaseAction::Constraint
        );
        assert_eq!(
            database("GRANT NAME MANAGEMENT ON DEFAULT DATABASE TO r"),
            (DatabaseAction::NameManagement, PrivilegeTarget::Default)
        );
        assert_eq!(
            database("GRANT TRANSACTION MANAGEMENT (*) ON DATABASE * TO r").0,
            DatabaseAction::TransactionManagement(NameSet::All)
        );
        assert_eq!(
            database("GRANT ALL DATABASE PRIVILEGES ON DATABASE * TO r").0,
            DatabaseAction::All
        );
        assert_eq!(
            database("GRANT ALL PRIVILEGES ON DATABASE neo4j TO r").0,
            DatabaseAction::All
        );
        assert_eq!(
            database("GRANT START ON DATABASE * TO r").0,
            DatabaseAction::Start
        );
        let dbms = |text| match command(text).privilege {
            Privilege::Dbms(action) => action,
            other => panic!("{text}: {other:?}"),
        };
        assert_eq!(
            dbms("GRANT ROLE MANAGEMENT ON DBMS TO r"),
            DbmsAction::RoleManagement
        );
        assert_eq!(
            dbms("REVOKE ROLE MANAGEMENT ON DBMS FROM r"),
            DbmsAction::RoleManagement
        );
        assert_eq!(
            dbms("DENY EXECUTE PROCEDURE apoc.*, db.labels ON DBMS TO r"),
            DbmsAction::ExecuteProcedure(vec!["apoc.*".into(), "db.labels".into()])
        );
        assert_eq!(
            dbms("GRANT EXECUTE USER DEFINED FUNCTION * ON DBMS TO r"),
            DbmsAction::ExecuteFunction(vec!["*".into()])
        );
        assert_eq!(
            dbms("GRANT IMPERSONATE (ann) ON DBMS TO r"),
            DbmsAction::Impersonate(NameSet::Names(vec![crate::ast::Ident::new("ann")]))
        );
        assert_eq!(dbms("GRANT ALL ON DBMS TO r"), DbmsAction::All);
        // Granting roles is still what it was.
        assert!(matches!(
            parse("GRANT ROLE management TO ann").expect("parses").kind,
            StatementKind::Admin(AdminCommand::GrantRoles { .. })
        ));
    }

    #[test]
    fn forms_without_a_meaning_here_are_named_as_unsupported() {
        for (text, named) in [
            ("GRANT CREATE INDEX ON DATABASE * TO r", "CREATE INDEX"),
            (
                "GRANT SHOW TRANSACTION ON DATABASE * TO r",
                "SHOW TRANSACTION",
            ),
            ("DENY IMMUTABLE WRITE ON GRAPH * TO r", "IMMUTABLE"),
            (
                "GRANT EXECUTE BOOSTED PROCEDURE * ON DBMS TO r",
                "EXECUTE BOOSTED",
            ),
        ] {
            let error = parse(text).expect_err(text);
            assert_eq!(error.kind.detail, Detail::UnsupportedFeature, "{text}");
            assert!(error.message.contains(named), "{text}: {}", error.message);
        }
        assert!(parse("GRANT TRAVERSE ON GRAPH * NODES A").is_err());
        assert!(parse("DENY WRITE ON DBMS TO r").is_err());
    }

    #[test]
    fn printed_privilege_commands_parse_back() {
        for text in [
            "GRANT TRAVERSE ON GRAPH * NODES Person, Movie TO a, b",
            "DENY READ {secret, salary} ON GRAPH neo4j RELATIONSHIPS KNOWS TO r",
            "REVOKE GRANT MATCH {*} ON HOME GRAPH ELEMENTS * FROM r",
            "REVOKE WRITE ON GRAPH * FROM r",
            "GRANT SET LABEL A, B ON GRAPH * TO r",
            "GRANT REMOVE LABEL * ON DEFAULT GRAPH TO r",
            "DENY SET PROPERTY {p} ON GRAPH * NODES * TO r",
            "GRANT MERGE {*} ON GRAPH * TO r",
            "GRANT CREATE ON GRAPH * NODES A TO r",
            "DENY DELETE ON GRAPH * RELATIONSHIPS * TO r",
            "GRANT ALL GRAPH PRIVILEGES ON GRAPH * TO r",
            "DENY MATCH {*} ON GRAPH * FOR (n:Person) WHERE n.secret = true TO r",
            "GRANT ACCESS ON DATABASES a, b TO r",
            "GRANT SHOW INDEX ON DATABASE * TO r",
            "DENY SHOW CONSTRAINTS ON HOME DATABASE TO r",
            "GRANT TRANSACTION MANAGEMENT (ann, bob) ON DATABASE * TO r",
            "DENY ALL DATABASE PRIVILEGES ON HOME DATABASE TO r",
            "GRANT EXECUTE PROCEDURE apoc.*, db.labels ON DBMS TO r",
            "DENY EXECUTE FUNCTION apoc.text.* ON DBMS TO r",
            "GRANT IMPERSONATE (*) ON DBMS TO r",
            "REVOKE DENY ALL DBMS PRIVILEGES ON DBMS FROM r",
        ] {
            let printed = parse(text).expect(text).to_string();
            let again = parse(&printed).expect(&printed).to_string();
            assert_eq!(printed, again, "{text}");
            assert_eq!(command(text), command(&printed), "{text}");
        }
    }
}
