//! The typed dictionaries requests carry. Keys are matched on the borrowed bytes of the
//! message, so an extra costs allocations only for the values Quiver keeps; unknown keys are
//! checked and skipped (drivers add keys over time).

use std::fmt;

use bytes::BufMut;
use quiver_value::Map;

use crate::error::Error;
use crate::packstream::encode::{write_int, write_map, write_string};
use crate::packstream::{Decoder, Dialect, write_list_header, write_map_header};
use crate::version::Version;

pub(crate) fn invalid(message: &'static str, field: &'static str, problem: &'static str) -> Error {
    Error::InvalidField {
        message,
        field,
        problem,
    }
}

/// A field read by `read`; `null` reads as absent, and a value of another type is an
/// invalid field whose problem is `problem`.
fn opt<'a, T>(
    d: &mut Decoder<'a>,
    message: &'static str,
    field: &'static str,
    problem: &'static str,
    read: impl FnOnce(&mut Decoder<'a>) -> Result<T, Error>,
) -> Result<Option<T>, Error> {
    if d.take_null()? {
        return Ok(None);
    }
    read(d)
        .map(Some)
        .map_err(|e| retag(e, message, field, problem))
}

/// A string field; `null` reads as absent.
pub(crate) fn opt_string(
    d: &mut Decoder<'_>,
    message: &'static str,
    field: &'static str,
) -> Result<Option<String>, Error> {
    opt(d, message, field, "must be a string", |d| {
        d.string().map(str::to_owned)
    })
}

pub(crate) fn opt_int(
    d: &mut Decoder<'_>,
    message: &'static str,
    field: &'static str,
) -> Result<Option<i64>, Error> {
    opt(d, message, field, "must be an integer", Decoder::int)
}

pub(crate) fn string_list(
    d: &mut Decoder<'_>,
    message: &'static str,
    field: &'static str,
) -> Result<Vec<String>, Error> {
    if d.take_null()? {
        return Ok(Vec::new());
    }
    let len = d
        .list_len()
        .map_err(|e| retag(e, message, field, "must be a list of strings"))?;
    let mut out = Vec::with_capacity(len.min(d.remaining()));
    for _ in 0..len {
        out.push(
            d.string()
                .map_err(|e| retag(e, message, field, "must be a list of strings"))?
                .to_owned(),
        );
    }
    Ok(out)
}

pub(crate) fn opt_map(
    d: &mut Decoder<'_>,
    message: &'static str,
    field: &'static str,
) -> Result<Option<Map>, Error> {
    opt(d, message, field, "must be a dictionary", Decoder::map)
}

/// Type mismatches become field errors; framing and limit errors keep their own kind.
fn retag(e: Error, message: &'static str, field: &'static str, problem: &'static str) -> Error {
    match e {
        Error::InvalidValue { .. } | Error::NonStringKey { .. } => invalid(message, field, problem),
        other => other,
    }
}

/// Entries of a dictionary being written, counted before the header goes out.
pub(crate) struct DictWriter<'b, B: BufMut> {
    buf: &'b mut B,
}

impl<'b, B: BufMut> DictWriter<'b, B> {
    pub(crate) fn new(buf: &'b mut B, len: usize) -> Result<Self, Error> {
        write_map_header(buf, len)?;
        Ok(DictWriter { buf })
    }

    pub(crate) fn string(&mut self, key: &str, value: &str) -> Result<(), Error> {
        write_string(self.buf, key)?;
        write_string(self.buf, value)
    }

    pub(crate) fn bool(&mut self, key: &str, value: bool) -> Result<(), Error> {
        write_string(self.buf, key)?;
        crate::packstream::encode::write_bool(self.buf, value);
        Ok(())
    }

    /// Writes `key` and hands back the buffer for its value.
    pub(crate) fn key(&mut self, key: &str) -> Result<&mut B, Error> {
        write_string(self.buf, key)?;
        Ok(self.buf)
    }

    pub(crate) fn int(&mut self, key: &str, value: i64) -> Result<(), Error> {
        write_string(self.buf, key)?;
        write_int(self.buf, value);
        Ok(())
    }

    pub(crate) fn strings(&mut self, key: &str, values: &[String]) -> Result<(), Error> {
        write_string(self.buf, key)?;
        write_list_header(self.buf, values.len())?;
        for v in values {
            write_string(self.buf, v)?;
        }
        Ok(())
    }

    pub(crate) fn map(&mut self, key: &str, value: &Map) -> Result<(), Error> {
        write_string(self.buf, key)?;
        write_map(self.buf, value, Dialect::BOLT5)
    }
}

/// Credentials, from LOGON (5.1+) or HELLO (4.4, 5.0). `Debug` never shows the secret.
#[derive(Clone, Default)]
pub struct Auth {
    /// `none`, `basic`, `bearer`, `kerberos` or a custom scheme; absent means `none`.
    pub scheme: String,
    pub principal: Option<String>,
    pub credentials: Option<String>,
    pub realm: Option<String>,
    pub parameters: Option<Map>,
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Auth")
            .field("scheme", &self.scheme)
            .field("principal", &self.principal)
            .field(
                "credentials",
                &self.credentials.as_ref().map(|_| "<redacted>"),
            )
            .field("realm", &self.realm)
            .finish_non_exhaustive()
    }
}

impl Auth {
    pub fn basic(principal: &str, credentials: &str) -> Auth {
        Auth {
            scheme: "basic".into(),
            principal: Some(principal.into()),
            credentials: Some(credentials.into()),
            ..Auth::default()
        }
    }

    pub fn none() -> Auth {
        Auth {
            scheme: "none".into(),
            ..Auth::default()
        }
    }

    /// Reads an auth entry; returns false if `key` is not one.
    fn read_entry(
        &mut self,
        key: &str,
        d: &mut Decoder<'_>,
        message: &'static str,
    ) -> Result<bool, Error> {
        match key {
            "scheme" => self.scheme = opt_string(d, message, "scheme")?.unwrap_or_default(),
            "principal" => self.principal = opt_string(d, message, "principal")?,
            "credentials" => self.credentials = opt_string(d, message, "credentials")?,
            "realm" => self.realm = opt_string(d, message, "realm")?,
            "parameters" => self.parameters = opt_map(d, message, "parameters")?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn finish(&mut self) {
        if self.scheme.is_empty() {
            "none".clone_into(&mut self.scheme);
        }
    }

    pub(crate) fn decode(d: &mut Decoder<'_>) -> Result<Auth, Error> {
        let mut auth = Auth::default();
        let len = d.map_len()?;
        for _ in 0..len {
            let key = d.key()?;
            if !auth.read_entry(key, d, "LOGON")? {
                d.skip()?;
            }
        }
        auth.finish();
        Ok(auth)
    }

    fn entry_count(&self) -> usize {
        1 + usize::from(self.principal.is_some())
            + usize::from(self.credentials.is_some())
            + usize::from(self.realm.is_some())
            + usize::from(self.parameters.is_some())
    }

    fn write_entries<B: BufMut>(&self, w: &mut DictWriter<'_, B>) -> Result<(), Error> {
        w.string(
            "scheme",
            if self.scheme.is_empty() {
                "none"
            } else {
                &self.scheme
            },
        )?;
        if let Some(p) = &self.principal {
            w.string("principal", p)?;
        }
        if let Some(c) = &self.credentials {
            w.string("credentials", c)?;
        }
        if let Some(r) = &self.realm {
            w.string("realm", r)?;
        }
        if let Some(p) = &self.parameters {
            w.map("parameters", p)?;
        }
        Ok(())
    }

    pub(crate) fn encode<B: BufMut>(&self, buf: &mut B) -> Result<(), Error> {
        let mut w = DictWriter::new(buf, self.entry_count())?;
        self.write_entries(&mut w)
    }
}

/// Notification filters (5.2+), in HELLO, BEGIN and RUN.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct NotificationConfig {
    /// `OFF`, `WARNING` or `INFORMATION`.
    pub minimum_severity: Option<String>,
    /// Categories (5.2–5.4, `notifications_disabled_categories`) or classifications (5.6+,
    /// `notifications_disabled_classifications`): the same names either way.
    pub disabled_classifications: Option<Vec<String>>,
}

impl NotificationConfig {
    fn read_entry(
        &mut self,
        key: &str,
        d: &mut Decoder<'_>,
        message: &'static str,
    ) -> Result<bool, Error> {
        match key {
            "notifications_minimum_severity" => {
                self.minimum_severity = opt_string(d, message, "notifications_minimum_severity")?;
            }
            "notifications_disabled_categories" | "notifications_disabled_classifications" => {
                self.disabled_classifications = Some(string_list(
                    d,
                    message,
                    "notifications_disabled_classifications",
                )?);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn entry_count(&self, version: Version) -> usize {
        if !version.has_notification_filters() {
            return 0;
        }
        usize::from(self.minimum_severity.is_some())
            + usize::from(self.disabled_classifications.is_some())
    }

    fn write_entries<B: BufMut>(
        &self,
        w: &mut DictWriter<'_, B>,
        version: Version,
    ) -> Result<(), Error> {
        if !version.has_notification_filters() {
            return Ok(());
        }
        if let Some(s) = &self.minimum_severity {
            w.string("notifications_minimum_severity", s)?;
        }
        if let Some(c) = &self.disabled_classifications {
            let key = if version.has_gql_statuses() {
                "notifications_disabled_classifications"
            } else {
                "notifications_disabled_categories"
            };
            w.strings(key, c)?;
        }
        Ok(())
    }
}

/// Who the client is (5.3+): free-form, for server logs.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct BoltAgent {
    pub product: String,
    pub platform: Option<String>,
    pub language: Option<String>,
    pub language_details: Option<String>,
}

impl BoltAgent {
    fn decode(d: &mut Decoder<'_>) -> Result<BoltAgent, Error> {
        let mut agent = BoltAgent::default();
        let len = d
            .map_len()
            .map_err(|e| retag(e, "HELLO", "bolt_agent", "must be a dictionary"))?;
        for _ in 0..len {
            match d.key()? {
                "product" => {
                    agent.product =
                        opt_string(d, "HELLO", "bolt_agent.product")?.unwrap_or_default();
                }
                "platform" => agent.platform = opt_string(d, "HELLO", "bolt_agent.platform")?,
                "language" => agent.language = opt_string(d, "HELLO", "bolt_agent.language")?,
                "language_details" => {
                    agent.language_details = opt_string(d, "HELLO", "bolt_agent.language_details")?;
                }
                _ => d.skip()?,
            }
        }
        Ok(agent)
    }

    fn encode<B: BufMut>(&self, buf: &mut B) -> Result<(), Error> {
        let count = 1
            + usize::from(self.platform.is_some())
            + usize::from(self.language.is_some())
            + usize::from(self.language_details.is_some());
        let mut w = DictWriter::new(buf, count)?;
        w.string("product", &self.product)?;
        for (k, v) in [
            ("platform", &self.platform),
            ("language", &self.language),
            ("language_details", &self.language_details),
        ] {
            if let Some(v) = v {
                w.string(k, v)?;
            }
        }
        Ok(())
    }
}

/// HELLO's dictionary.
#[derive(Clone, Debug, Default)]
pub struct HelloExtra {
    pub user_agent: String,
    /// Present (possibly empty) when the client routes (`neo4j://`): the routing context.
    pub routing: Option<Map>,
    /// 4.3 and 4.4: protocol patches asked for (`"utc"`).
    pub patch_bolt: Vec<String>,
    pub bolt_agent: Option<BoltAgent>,
    pub notifications: NotificationConfig,
    /// 4.x and 5.0 carry credentials in HELLO; 5.1+ sends them in LOGON.
    pub auth: Option<Auth>,
}

impl HelloExtra {
    pub(crate) fn decode(d: &mut Decoder<'_>, version: Version) -> Result<HelloExtra, Error> {
        let mut hello = HelloExtra::default();
        let mut auth = Auth::default();
        let mut saw_agent = false;
        let len = d.map_len()?;
        for _ in 0..len {
            let key = d.key()?;
            match key {
                "user_agent" => {
                    hello.user_agent = opt_string(d, "HELLO", "user_agent")?.unwrap_or_default();
                    saw_agent = true;
                }
                "routing" => hello.routing = opt_map(d, "HELLO", "routing")?,
                "patch_bolt" => hello.patch_bolt = string_list(d, "HELLO", "patch_bolt")?,
                "bolt_agent" => {
                    hello.bolt_agent = if d.take_null()? {
                        None
                    } else {
                        Some(BoltAgent::decode(d)?)
                    };
                }
                _ if !version.has_logon() && auth.read_entry(key, d, "HELLO")? => {}
                _ if hello.notifications.read_entry(key, d, "HELLO")? => {}
                _ => d.skip()?,
            }
        }
        if !saw_agent || hello.user_agent.is_empty() {
            return Err(invalid("HELLO", "user_agent", "must be a non-empty string"));
        }
        if !version.has_logon() {
            // Without a scheme the credentials mean "no auth", as in Neo4j.
            auth.finish();
            hello.auth = Some(auth);
        }
        Ok(hello)
    }

    pub(crate) fn encode<B: BufMut>(&self, buf: &mut B, version: Version) -> Result<(), Error> {
        let auth = if version.has_logon() {
            None
        } else {
            Some(self.auth.clone().unwrap_or_else(Auth::none))
        };
        let patch = version < Version::V5_0 && !self.patch_bolt.is_empty();
        let agent = version.has_bolt_agent() && self.bolt_agent.is_some();
        let count = 1
            + usize::from(self.routing.is_some())
            + usize::from(patch)
            + usize::from(agent)
            + self.notifications.entry_count(version)
            + auth.as_ref().map_or(0, Auth::entry_count);
        let mut w = DictWriter::new(buf, count)?;
        w.string("user_agent", &self.user_agent)?;
        if let Some(r) = &self.routing {
            w.map("routing", r)?;
        }
        if patch {
            w.strings("patch_bolt", &self.patch_bolt)?;
        }
        if let (true, Some(a)) = (agent, &self.bolt_agent) {
            write_string(w.buf, "bolt_agent")?;
            a.encode(w.buf)?;
        }
        self.notifications.write_entries(&mut w, version)?;
        if let Some(a) = &auth {
            a.write_entries(&mut w)?;
        }
        Ok(())
    }
}

/// Whether a transaction may write. Absent means write, as in Neo4j.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AccessMode {
    Read,
    #[default]
    Write,
}

/// The dictionary of BEGIN, and of RUN outside an explicit transaction.
#[derive(Clone, Debug, Default)]
pub struct TxExtra {
    pub bookmarks: Vec<String>,
    pub tx_timeout_ms: Option<i64>,
    pub tx_metadata: Option<Map>,
    pub mode: AccessMode,
    /// The database to use; `None` (or `""` on the wire) means the home database.
    pub db: Option<String>,
    pub imp_user: Option<String>,
    pub notifications: NotificationConfig,
}

impl TxExtra {
    pub(crate) fn decode(d: &mut Decoder<'_>, message: &'static str) -> Result<TxExtra, Error> {
        let mut extra = TxExtra::default();
        if d.take_null()? {
            return Ok(extra);
        }
        let len = d
            .map_len()
            .map_err(|e| retag(e, message, "extra", "must be a dictionary"))?;
        for _ in 0..len {
            let key = d.key()?;
            match key {
                "bookmarks" => extra.bookmarks = string_list(d, message, "bookmarks")?,
                "tx_timeout" => {
                    extra.tx_timeout_ms = opt_int(d, message, "tx_timeout")?;
                    if extra.tx_timeout_ms.is_some_and(|t| t < 0) {
                        return Err(invalid(message, "tx_timeout", "must not be negative"));
                    }
                }
                "tx_metadata" => extra.tx_metadata = opt_map(d, message, "tx_metadata")?,
                "mode" => {
                    extra.mode = match opt_string(d, message, "mode")?.as_deref() {
                        None | Some("w") => AccessMode::Write,
                        Some("r") => AccessMode::Read,
                        Some(_) => return Err(invalid(message, "mode", "must be \"r\" or \"w\"")),
                    };
                }
                "db" => extra.db = opt_string(d, message, "db")?.filter(|s| !s.is_empty()),
                "imp_user" => extra.imp_user = opt_string(d, message, "imp_user")?,
                _ if extra.notifications.read_entry(key, d, message)? => {}
                _ => d.skip()?,
            }
        }
        Ok(extra)
    }

    pub(crate) fn encode<B: BufMut>(&self, buf: &mut B, version: Version) -> Result<(), Error> {
        let count = usize::from(!self.bookmarks.is_empty())
            + usize::from(self.tx_timeout_ms.is_some())
            + usize::from(self.tx_metadata.is_some())
            + usize::from(self.mode == AccessMode::Read)
            + usize::from(self.db.is_some())
            + usize::from(self.imp_user.is_some())
            + self.notifications.entry_count(version);
        let mut w = DictWriter::new(buf, count)?;
        if !self.bookmarks.is_empty() {
            w.strings("bookmarks", &self.bookmarks)?;
        }
        if let Some(t) = self.tx_timeout_ms {
            w.int("tx_timeout", t)?;
        }
        if let Some(m) = &self.tx_metadata {
            w.map("tx_metadata", m)?;
        }
        if self.mode == AccessMode::Read {
            w.string("mode", "r")?;
        }
        if let Some(db) = &self.db {
            w.string("db", db)?;
        }
        if let Some(u) = &self.imp_user {
            w.string("imp_user", u)?;
        }
        self.notifications.write_entries(&mut w, version)
    }
}

/// ROUTE's third field.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct RouteExtra {
    pub db: Option<String>,
    pub imp_user: Option<String>,
}

impl RouteExtra {
    /// 4.4+ send a dictionary; 4.3 sent the database name alone, which is accepted too.
    pub(crate) fn decode(d: &mut Decoder<'_>) -> Result<RouteExtra, Error> {
        let mut extra = RouteExtra::default();
        if d.take_null()? {
            return Ok(extra);
        }
        if let Ok(marker) = d.peek()
            && (marker & 0xF0 == 0x80 || (0xD0..=0xD2).contains(&marker))
        {
            extra.db = Some(d.string()?.to_owned()).filter(|s| !s.is_empty());
            return Ok(extra);
        }
        let len = d
            .map_len()
            .map_err(|e| retag(e, "ROUTE", "extra", "must be a dictionary"))?;
        for _ in 0..len {
            match d.key()? {
                "db" => extra.db = opt_string(d, "ROUTE", "db")?.filter(|s| !s.is_empty()),
                "imp_user" => extra.imp_user = opt_string(d, "ROUTE", "imp_user")?,
                _ => d.skip()?,
            }
        }
        Ok(extra)
    }

    pub(crate) fn encode<B: BufMut>(&self, buf: &mut B) -> Result<(), Error> {
        let mut w = DictWriter::new(
            buf,
            usize::from(self.db.is_some()) + usize::from(self.imp_user.is_some()),
        )?;
        if let Some(db) = &self.db {
            w.string("db", db)?;
        }
        if let Some(u) = &self.imp_user {
            w.string("imp_user", u)?;
        }
        Ok(())
    }
}

/// Which driver API a TELEMETRY message reports (5.4+).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TelemetryApi {
    ManagedTransaction,
    ExplicitTransaction,
    ImplicitTransaction,
    ExecuteQuery,
    /// A value newer drivers may send; accepted and passed on.
    Other(i64),
}

impl TelemetryApi {
    pub fn from_wire(v: i64) -> TelemetryApi {
        match v {
            0 => TelemetryApi::ManagedTransaction,
            1 => TelemetryApi::ExplicitTransaction,
            2 => TelemetryApi::ImplicitTransaction,
            3 => TelemetryApi::ExecuteQuery,
            other => TelemetryApi::Other(other),
        }
    }

    pub fn to_wire(self) -> i64 {
        match self {
            TelemetryApi::ManagedTransaction => 0,
            TelemetryApi::ExplicitTransaction => 1,
            TelemetryApi::ImplicitTransaction => 2,
            TelemetryApi::ExecuteQuery => 3,
            TelemetryApi::Other(v) => v,
        }
    }
}
