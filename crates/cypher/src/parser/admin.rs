//! User and role administration and the `SHOW` commands that list them (see
//! [`crate::ast::AdminCommand`]). Privilege commands (`GRANT MATCH ...`, `DENY ...`) are
//! read in `privilege.rs`.

use super::{Parser, Result};
use crate::ast::{
    AdminCommand, AdminName, AlterUser, CreateRole, CreateUser, Expr, ExprKind, Ident, Literal,
    Password, PrivilegeScope, ShowKind, ShowPrivileges,
};
use crate::error::Detail;
use crate::token::TokenKind;

impl Parser<'_> {
    /// Whether the statement is one [`Parser::parse_admin`] reads.
    pub(crate) fn peek_admin(&self) -> bool {
        let at = |n, k| self.peek_nth_keyword(n, k);
        let user_or_role = |n| at(n, "USER") || at(n, "ROLE");
        (at(0, "CREATE")
            && (user_or_role(1) || (at(1, "OR") && at(2, "REPLACE") && user_or_role(3))))
            || (at(0, "DROP") && user_or_role(1))
            || (at(0, "ALTER") && (at(1, "USER") || (at(1, "CURRENT") && at(2, "USER"))))
            || ((at(0, "GRANT") || at(0, "REVOKE")) && (at(1, "ROLE") || at(1, "ROLES")))
    }

    pub(crate) fn parse_admin(&mut self) -> Result<AdminCommand> {
        if self.parse_keyword("CREATE") {
            let replace = self.parse_keywords(&["OR", "REPLACE"]);
            if self.parse_keyword("USER") {
                return self.parse_create_user(replace);
            }
            self.expect_keyword("ROLE")?;
            let name = self.parse_admin_name("a role name")?;
            let if_not_exists = self.parse_keywords(&["IF", "NOT", "EXISTS"]);
            let copy_of = if self.parse_keywords(&["AS", "COPY", "OF"]) {
                Some(self.parse_admin_name("a role name")?)
            } else {
                None
            };
            self.check_not_replace_and_if_not_exists(replace, if_not_exists, "user/role")?;
            return Ok(AdminCommand::CreateRole(CreateRole {
                name,
                replace,
                if_not_exists,
                copy_of,
            }));
        }
        if self.parse_keyword("DROP") {
            let user = self.parse_keyword("USER");
            if !user {
                self.expect_keyword("ROLE")?;
            }
            let name = self.parse_admin_name(if user { "a user name" } else { "a role name" })?;
            let if_exists = self.parse_keywords(&["IF", "EXISTS"]);
            return Ok(if user {
                AdminCommand::DropUser { name, if_exists }
            } else {
                AdminCommand::DropRole { name, if_exists }
            });
        }
        if self.parse_keyword("ALTER") {
            if self.parse_keywords(&["CURRENT", "USER"]) {
                self.expect_keyword("SET")?;
                self.expect_keyword("PASSWORD")?;
                self.expect_keyword("FROM")?;
                let old = self.parse_password_value()?;
                self.expect_keyword("TO")?;
                let new = self.parse_password_value()?;
                return Ok(AdminCommand::AlterCurrentUser { old, new });
            }
            self.expect_keyword("USER")?;
            return self.parse_alter_user();
        }
        let grant = self.parse_keyword("GRANT");
        if !grant {
            self.expect_keyword("REVOKE")?;
        }
        if !(self.parse_keyword("ROLES") || self.parse_keyword("ROLE")) {
            return Err(self.expected("'ROLE'"));
        }
        let roles = self.parse_admin_names("a role name")?;
        self.expect_keyword(if grant { "TO" } else { "FROM" })?;
        let users = self.parse_admin_names("a user name")?;
        Ok(if grant {
            AdminCommand::GrantRoles { roles, users }
        } else {
            AdminCommand::RevokeRoles { roles, users }
        })
    }

    /// A user or role name, or a parameter holding one (`$name`).
    fn parse_admin_name(&mut self, what: &str) -> Result<AdminName> {
        let token = self.peek().clone();
        if let TokenKind::Parameter(name) = token.kind {
            self.advance();
            return Ok(AdminName::Parameter(Ident::with_span(name, token.span)));
        }
        Ok(AdminName::Literal(self.parse_name(what)?))
    }

    pub(super) fn parse_admin_names(&mut self, what: &str) -> Result<Vec<AdminName>> {
        let mut names = vec![self.parse_admin_name(what)?];
        while self.consume(&TokenKind::Comma) {
            names.push(self.parse_admin_name(what)?);
        }
        Ok(names)
    }

    pub(super) fn parse_names(&mut self, what: &str) -> Result<Vec<Ident>> {
        let mut names = vec![self.parse_name(what)?];
        while self.consume(&TokenKind::Comma) {
            names.push(self.parse_name(what)?);
        }
        Ok(names)
    }

    /// A password: a string literal or a parameter, nothing computed.
    fn parse_password_value(&mut self) -> Result<Expr> {
        let span = self.peek().span;
        let value = self.parse_expr()?;
        match value.kind {
            ExprKind::Literal(Literal::String(_)) | ExprKind::Parameter(_) => Ok(value),
            _ => Err(self.error(
                Detail::UnexpectedSyntax,
                "A password is a string literal or a parameter",
                span,
            )),
        }
    }

    /// `[PLAINTEXT | ENCRYPTED] PASSWORD value`, after `SET`.
    fn parse_password(&mut self) -> Result<Password> {
        let encrypted = self.parse_keyword("ENCRYPTED");
        if !encrypted {
            self.parse_keyword("PLAINTEXT");
        }
        self.expect_keyword("PASSWORD")?;
        let value = self.parse_password_value()?;
        Ok(Password { value, encrypted })
    }

    /// `CHANGE [NOT] REQUIRED`, if next.
    fn parse_change_required(&mut self) -> Result<Option<bool>> {
        if !self.parse_keyword("CHANGE") {
            return Ok(None);
        }
        let not = self.parse_keyword("NOT");
        self.expect_keyword("REQUIRED")?;
        Ok(Some(!not))
    }

    /// `STATUS ACTIVE | SUSPENDED`, after `SET`: whether suspended.
    fn parse_status(&mut self) -> Result<bool> {
        self.expect_keyword("STATUS")?;
        if self.parse_keyword("SUSPENDED") {
            return Ok(true);
        }
        self.expect_keyword("ACTIVE")?;
        Ok(false)
    }

    fn parse_create_user(&mut self, replace: bool) -> Result<AdminCommand> {
        let name = self.parse_admin_name("a user name")?;
        let if_not_exists = self.parse_keywords(&["IF", "NOT", "EXISTS"]);
        self.check_not_replace_and_if_not_exists(replace, if_not_exists, "user/role")?;
        self.expect_keyword("SET")?;
        let password = self.parse_password()?;
        let change_required = self.parse_change_required()?;
        let mut suspended = None;
        let mut home = None;
        while self.parse_keyword("SET") {
            if self.peek_keyword("STATUS") && suspended.is_none() {
                suspended = Some(self.parse_status()?);
            } else if self.peek_keyword("HOME") && home.is_none() {
                self.expect_keyword("HOME")?;
                self.expect_keyword("DATABASE")?;
                home = Some(self.parse_dotted_name("a database name")?);
            } else {
                return Err(self.expected("'STATUS' or 'HOME DATABASE'"));
            }
        }
        Ok(AdminCommand::CreateUser(CreateUser {
            name,
            replace,
            if_not_exists,
            password,
            change_required,
            suspended,
            home,
        }))
    }

    fn parse_alter_user(&mut self) -> Result<AdminCommand> {
        let name = self.parse_admin_name("a user name")?;
        let if_exists = self.parse_keywords(&["IF", "EXISTS"]);
        let mut alter = AlterUser {
            name,
            if_exists,
            password: None,
            change_required: None,
            suspended: None,
            home: None,
        };
        let mut any = false;
        loop {
            if self.parse_keywords(&["REMOVE", "HOME", "DATABASE"]) && alter.home.is_none() {
                alter.home = Some(None);
            } else if self.parse_keyword("SET") {
                if self.peek_keyword("STATUS") && alter.suspended.is_none() {
                    alter.suspended = Some(self.parse_status()?);
                } else if self.peek_keyword("HOME") && alter.home.is_none() {
                    self.expect_keyword("HOME")?;
                    self.expect_keyword("DATABASE")?;
                    alter.home = Some(Some(self.parse_dotted_name("a database name")?));
                } else if self.peek_keyword("PASSWORD") && self.peek_nth_keyword(1, "CHANGE") {
                    self.expect_keyword("PASSWORD")?;
                    alter.change_required = self.parse_change_required()?;
                } else if alter.password.is_none() {
                    alter.password = Some(self.parse_password()?);
                    if let Some(required) = self.parse_change_required()? {
                        alter.change_required = Some(required);
                    }
                } else {
                    return Err(self.expected("'STATUS', 'HOME DATABASE' or 'PASSWORD'"));
                }
            } else {
                break;
            }
            any = true;
        }
        if !any {
            return Err(self.expected("'SET' or 'REMOVE'"));
        }
        Ok(AdminCommand::AlterUser(alter))
    }

    /// `SHOW` followed by `USERS`, `[ALL|POPULATED] ROLES [WITH USERS]` or a `PRIVILEGES`
    /// form; `None` (nothing consumed) for any other `SHOW`.
    pub(crate) fn parse_show_admin(&mut self) -> Result<Option<ShowKind>> {
        let at = |p: &Self, n, k| p.peek_nth_keyword(n, k);
        let privileges = |p: &Self, n| at(p, n, "PRIVILEGES") || at(p, n, "PRIVILEGE");
        if privileges(self, 0) || (at(self, 0, "ALL") && privileges(self, 1)) {
            self.parse_keyword("ALL");
            self.advance();
            return Ok(Some(self.finish_show_privileges(PrivilegeScope::All)?));
        }
        let users = at(self, 0, "USERS") || at(self, 0, "USER");
        let roles = at(self, 0, "ROLES") || at(self, 0, "ROLE");
        if (users || roles) && !privileges(self, 1) && !at(self, 1, "YIELD") {
            // `SHOW USER[S] names PRIVILEGES` or `SHOW ROLE[S] names PRIVILEGES`, else a
            // plain listing below.
            let mut n = 1;
            let mut names_then_privileges = false;
            while matches!(
                self.peek_nth(n).kind,
                TokenKind::Word | TokenKind::QuotedName(_)
            ) {
                if privileges(self, n + 1) {
                    names_then_privileges = true;
                    break;
                }
                if self.peek_nth(n + 1).kind != TokenKind::Comma {
                    break;
                }
                n += 2;
            }
            if names_then_privileges {
                self.advance();
                let names = self.parse_names(if users { "a user name" } else { "a role name" })?;
                self.advance();
                let scope = if users {
                    PrivilegeScope::Users(names)
                } else {
                    PrivilegeScope::Roles(names)
                };
                return Ok(Some(self.finish_show_privileges(scope)?));
            }
        }
        if users && privileges(self, 1) {
            self.advance();
            self.advance();
            return Ok(Some(
                self.finish_show_privileges(PrivilegeScope::Users(Vec::new()))?,
            ));
        }
        if at(self, 0, "USERS") {
            self.advance();
            return Ok(Some(ShowKind::Users));
        }
        let qualified = (at(self, 0, "ALL") || at(self, 0, "POPULATED")) && at(self, 1, "ROLES");
        let mut populated = false;
        if qualified {
            populated = self.parse_keyword("POPULATED");
            self.parse_keyword("ALL");
        }
        if qualified || at(self, 0, "ROLES") {
            self.advance();
            let with_users = self.parse_keywords(&["WITH", "USERS"]);
            return Ok(Some(ShowKind::Roles {
                with_users,
                populated,
            }));
        }
        Ok(None)
    }

    /// After `PRIVILEGES`: `[AS [REVOKE] COMMAND[S]]`.
    fn finish_show_privileges(&mut self, scope: PrivilegeScope) -> Result<ShowKind> {
        let mut as_revoke = false;
        let as_commands = if self.parse_keyword("AS") {
            as_revoke = self.parse_keyword("REVOKE");
            if !(self.parse_keyword("COMMANDS") || self.parse_keyword("COMMAND")) {
                return Err(self.expected("'COMMANDS'"));
            }
            true
        } else {
            false
        };
        Ok(ShowKind::Privileges(ShowPrivileges {
            scope,
            as_commands,
            as_revoke,
        }))
    }
}

#[cfg(test)]
mod tests {
    use crate::ast::{AdminCommand, AdminName, PrivilegeScope, ShowKind, StatementKind};
    use crate::parse;

    fn admin(text: &str) -> AdminCommand {
        match parse(text).unwrap_or_else(|e| panic!("{text}: {e}")).kind {
            StatementKind::Admin(command) => command,
            other => panic!("{text}: not an admin command: {other:?}"),
        }
    }

    fn show(text: &str) -> ShowKind {
        match parse(text).unwrap_or_else(|e| panic!("{text}: {e}")).kind {
            StatementKind::Show(show) => show.kind,
            other => panic!("{text}: not a SHOW: {other:?}"),
        }
    }

    #[test]
    fn create_user_reads_every_option() {
        let AdminCommand::CreateUser(c) = admin(
            "CREATE USER ann IF NOT EXISTS SET PLAINTEXT PASSWORD 'secret-1' CHANGE NOT \
             REQUIRED SET STATUS SUSPENDED SET HOME DATABASE neo4j",
        ) else {
            panic!("CREATE USER");
        };
        assert_eq!(c.name.literal(), Some("ann"));
        assert!(c.if_not_exists && !c.replace && !c.password.encrypted);
        assert_eq!(c.change_required, Some(false));
        assert_eq!(c.suspended, Some(true));
        assert_eq!(c.home.map(|h| h.name).as_deref(), Some("neo4j"));
        let AdminCommand::CreateUser(c) =
            admin("create or replace user `b o b` set encrypted password $hash")
        else {
            panic!("CREATE OR REPLACE USER");
        };
        assert!(c.replace && c.password.encrypted);
        assert_eq!(c.name.literal(), Some("b o b"));
        assert_eq!(c.change_required, None);
        let error =
            parse("CREATE OR REPLACE USER a IF NOT EXISTS SET PASSWORD 'x'").expect_err("both");
        assert!(error.message.contains("OR REPLACE"));
        assert!(parse("CREATE USER a SET PASSWORD 1 + 2").is_err());
    }

    #[test]
    fn alter_user_forms() {
        let AdminCommand::AlterUser(a) =
            admin("ALTER USER ann IF EXISTS SET PASSWORD 'new-password' CHANGE REQUIRED")
        else {
            panic!("ALTER USER");
        };
        assert!(a.if_exists && a.password.is_some());
        assert_eq!(a.change_required, Some(true));
        let AdminCommand::AlterUser(a) =
            admin("ALTER USER ann SET PASSWORD CHANGE NOT REQUIRED SET STATUS ACTIVE")
        else {
            panic!("ALTER USER");
        };
        assert!(a.password.is_none());
        assert_eq!((a.change_required, a.suspended), (Some(false), Some(false)));
        let AdminCommand::AlterUser(a) = admin("ALTER USER ann REMOVE HOME DATABASE") else {
            panic!("ALTER USER");
        };
        assert_eq!(a.home, Some(None));
        assert!(parse("ALTER USER ann").is_err());
        assert!(matches!(
            admin("ALTER CURRENT USER SET PASSWORD FROM 'old' TO $new"),
            AdminCommand::AlterCurrentUser { .. }
        ));
    }

    #[test]
    fn roles_drop_grant_and_revoke() {
        assert!(matches!(
            admin("DROP USER ann IF EXISTS"),
            AdminCommand::DropUser {
                if_exists: true,
                ..
            }
        ));
        assert!(matches!(
            admin("DROP ROLE auditor"),
            AdminCommand::DropRole {
                if_exists: false,
                ..
            }
        ));
        let AdminCommand::CreateRole(r) =
            admin("CREATE ROLE auditor IF NOT EXISTS AS COPY OF reader")
        else {
            panic!("CREATE ROLE");
        };
        assert_eq!(
            r.copy_of.as_ref().and_then(AdminName::literal),
            Some("reader")
        );
        let AdminCommand::GrantRoles { roles, users } = admin("GRANT ROLES reader, editor TO a, b")
        else {
            panic!("GRANT ROLE");
        };
        assert_eq!((roles.len(), users.len()), (2, 2));
        assert!(matches!(
            admin("REVOKE ROLE reader FROM a"),
            AdminCommand::RevokeRoles { .. }
        ));
    }

    #[test]
    fn show_users_roles_and_privileges() {
        assert_eq!(show("SHOW USERS"), ShowKind::Users);
        assert_eq!(
            show("SHOW ROLES"),
            ShowKind::Roles {
                with_users: false,
                populated: false
            }
        );
        assert_eq!(
            show("SHOW ALL ROLES WITH USERS YIELD role, member"),
            ShowKind::Roles {
                with_users: true,
                populated: false
            }
        );
        assert_eq!(
            show("SHOW POPULATED ROLES"),
            ShowKind::Roles {
                with_users: false,
                populated: true
            }
        );
        let ShowKind::Privileges(p) = show("SHOW PRIVILEGES AS COMMANDS") else {
            panic!("SHOW PRIVILEGES");
        };
        assert!(p.as_commands && !p.as_revoke);
        assert_eq!(p.scope, PrivilegeScope::All);
        let ShowKind::Privileges(p) = show("SHOW ROLE r PRIVILEGES AS REVOKE COMMANDS") else {
            panic!("SHOW PRIVILEGES AS REVOKE COMMANDS");
        };
        assert!(p.as_commands && p.as_revoke);
        let ShowKind::Privileges(p) = show("SHOW ROLE reader, editor PRIVILEGES") else {
            panic!("SHOW ROLE PRIVILEGES");
        };
        assert!(matches!(p.scope, PrivilegeScope::Roles(ref r) if r.len() == 2));
        let ShowKind::Privileges(p) = show("SHOW USER ann PRIVILEGES WHERE access = 'GRANTED'")
        else {
            panic!("SHOW USER PRIVILEGES");
        };
        assert!(matches!(p.scope, PrivilegeScope::Users(ref u) if u.len() == 1));
        let ShowKind::Privileges(p) = show("SHOW USER PRIVILEGES") else {
            panic!("SHOW USER PRIVILEGES");
        };
        assert_eq!(p.scope, PrivilegeScope::Users(Vec::new()));
        assert!(matches!(
            show("SHOW ALL PRIVILEGES"),
            ShowKind::Privileges(_)
        ));
        // The other SHOW commands are untouched.
        assert!(matches!(show("SHOW ALL INDEXES"), ShowKind::Indexes(_)));
        assert_eq!(show("SHOW CURRENT USER"), ShowKind::CurrentUser);
    }

    #[test]
    fn printed_commands_parse_back_and_hide_passwords() {
        for text in [
            "CREATE USER ann IF NOT EXISTS SET PASSWORD $p CHANGE NOT REQUIRED SET STATUS ACTIVE SET HOME DATABASE neo4j",
            "ALTER USER ann SET ENCRYPTED PASSWORD $h CHANGE REQUIRED SET STATUS SUSPENDED",
            "ALTER USER ann SET PASSWORD CHANGE NOT REQUIRED",
            "DROP USER ann IF EXISTS",
            "CREATE OR REPLACE ROLE r AS COPY OF reader",
            "GRANT ROLE reader, editor TO a, b",
            "REVOKE ROLE reader FROM a",
            "CREATE USER $name SET PASSWORD $p",
            "ALTER USER $name SET STATUS SUSPENDED",
            "DROP USER $name",
            "CREATE ROLE $role AS COPY OF $other",
            "DROP ROLE $role IF EXISTS",
            "GRANT ROLE $role, editor TO $user",
            "REVOKE ROLES $role FROM $user, bob",
            "GRANT TRAVERSE ON GRAPH * TO $role, r",
        ] {
            let statement = parse(text).expect(text);
            let printed = statement.to_string();
            assert_eq!(
                parse(&printed).expect(&printed).kind,
                statement.kind,
                "{text}"
            );
        }
        let printed = parse("CREATE USER ann SET PASSWORD 'hunter22'")
            .expect("parses")
            .to_string();
        assert!(!printed.contains("hunter22"), "{printed}");
        let printed = parse("ALTER CURRENT USER SET PASSWORD FROM 'old-one' TO 'new-one'")
            .expect("parses")
            .to_string();
        assert!(!printed.contains("old-one") && !printed.contains("new-one"));
    }

    #[test]
    fn user_and_role_names_may_be_parameters_bound_before_the_command_runs() {
        let command = admin("GRANT ROLE $role, editor TO $user, $role");
        assert_eq!(command.name_parameters(), ["role", "user"]);
        let bound = command.bind(|p| (p == "role").then(|| "auditor".to_owned()));
        let AdminCommand::GrantRoles { roles, users } = &bound else {
            panic!("{bound:?}");
        };
        let names = |names: &[AdminName]| -> Vec<Option<String>> {
            names
                .iter()
                .map(|n| n.literal().map(str::to_owned))
                .collect()
        };
        assert_eq!(
            names(roles),
            [Some("auditor".to_owned()), Some("editor".to_owned())]
        );
        // A parameter the binding has no value for stays one.
        assert_eq!(names(users), [None, Some("auditor".to_owned())]);
        assert_eq!(bound.name_parameters(), ["user"]);
        let AdminCommand::CreateUser(c) = admin("CREATE USER $u SET PASSWORD 'secret123'") else {
            panic!("not CREATE USER");
        };
        assert_eq!(c.name, AdminName::Parameter(crate::ast::Ident::new("u")));
        assert!(c.name.literal().is_none());
    }
}
