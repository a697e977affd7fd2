//! The server's databases: which exist, which are online, their aliases, and the one a session
//! gets when it names none.
//!
//! The server's first database, `neo4j`, is its data directory's own store (the layout a
//! server has always had) and keeps the server's users, roles and privileges; `system`, where
//! administration commands are sent, names it too. Every other database has a store of its
//! own (see [`Stores`]), opened when it is created or started and closed when it is stopped or
//! dropped. Which databases and aliases exist, and whether each is wanted online and
//! writable, is the catalog, written whole to a file at each change (atomically: a crash
//! leaves the old catalog or the new one) and read at start, when every database wanted
//! online is opened again.
//!
//! Every database is told of the catalog ([`quiver_engine::Database::set_catalog`]): the
//! engine lists the databases, checks `USE` and hands database management commands here.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use parking_lot::{Mutex, RwLock};
use quiver_engine::catalog::{
    AliasInfo, CatalogChange, DEFAULT_DATABASE, DatabaseCatalog, DatabaseInfo, DatabaseKind,
    SYSTEM_DATABASE, key, not_found,
};
use quiver_engine::{Database, Error};
use quiver_status::Status;
use quiver_value::{Map, Value};

use crate::graph::Graph;

/// Where databases other than the first keep their stores.
pub trait Stores: Send + Sync + 'static {
    /// Opens the store of database `name`, creating it when it is new (and recovering it when
    /// it is not).
    fn open(&self, name: &str) -> Result<Arc<Database>, String>;

    /// Closes a store opened by [`Stores::open`]: its log flushed, its closing snapshot
    /// written.
    fn close(&self, db: Arc<Database>);

    /// Removes the store of dropped database `name`, or with `keep` moves it aside where an
    /// operator can still read it.
    fn remove(&self, name: &str, keep: bool) -> Result<(), String>;
}

/// What the server does to each database it opens (registers its procedures, settings,
/// servers, users): given every graph, those open now and those opened later.
pub type Equipment = Arc<dyn Fn(&Arc<Graph>) + Send + Sync>;

/// Why a session cannot have the database it named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unavailable {
    pub status: Status,
    pub message: String,
}

/// The server's databases (see the module's documentation).
pub struct Databases {
    root: Arc<Graph>,
    default: String,
    stores: Arc<dyn Stores>,
    file: Option<PathBuf>,
    state: RwLock<State>,
    /// Held while a change is carried out, so changes (which open and close stores) happen
    /// one at a time, while sessions go on looking databases up.
    changing: Mutex<()>,
    equipment: RwLock<Vec<Equipment>>,
    /// The catalog as the engine sees it: a weak handle on this registry.
    this: std::sync::Weak<Databases>,
}

impl std::fmt::Debug for Databases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Databases")
            .field("default", &self.default)
            .field("databases", &self.state.read().entries.keys())
            .finish_non_exhaustive()
    }
}

#[derive(Default)]
struct State {
    entries: BTreeMap<String, Entry>,
    aliases: BTreeMap<String, AliasEntry>,
}

struct Entry {
    id: String,
    created: SystemTime,
    read_only: bool,
    requested_online: bool,
    options: Map,
    graph: Option<Arc<Graph>>,
    /// Why it failed to open, when it did.
    failure: Option<String>,
    last_start: Option<SystemTime>,
    last_stop: Option<SystemTime>,
}

#[derive(Clone)]
struct AliasEntry {
    database: String,
    properties: Map,
}

impl Databases {
    /// The databases of a server whose first database is `root`: the catalog read from
    /// `file` (none in memory), every database wanted online opened, and `default` created
    /// if it does not exist.
    pub fn open(
        root: Arc<Graph>,
        default: &str,
        stores: Arc<dyn Stores>,
        file: Option<PathBuf>,
    ) -> Result<Arc<Databases>, String> {
        let default = key(default);
        let mut state = match &file {
            Some(path) => read_catalog(path)?,
            None => State::default(),
        };
        let now = SystemTime::now();
        // The first database, and the configured default when it is new, opened below.
        for name in [DEFAULT_DATABASE, &default] {
            state
                .entries
                .entry(name.to_owned())
                .or_insert_with(|| Entry::new(now, Map::new()));
        }
        for (name, entry) in &mut state.entries {
            if name == DEFAULT_DATABASE {
                entry.graph = Some(Arc::clone(&root));
                entry.requested_online = true;
                entry.last_start = Some(now);
            } else if entry.requested_online {
                entry.open(name, &*stores, now);
            }
        }
        let databases = Arc::new_cyclic(|this| Databases {
            root,
            default: default.clone(),
            stores,
            file,
            state: RwLock::new(state),
            changing: Mutex::new(()),
            equipment: RwLock::new(Vec::new()),
            this: this.clone(),
        });
        databases.save().map_err(|error| error.to_string())?;
        let opened: Vec<(String, Arc<Graph>)> = databases
            .state
            .read()
            .entries
            .iter()
            .filter_map(|(name, e)| Some((name.clone(), e.graph.clone()?)))
            .collect();
        for (name, graph) in opened {
            databases.introduce(&name, &graph);
        }
        Ok(databases)
    }

    /// The server's first database, which keeps its users and roles.
    pub fn root(&self) -> &Arc<Graph> {
        &self.root
    }

    /// The database sessions get when they name none and their user has no home.
    pub fn default_name(&self) -> &str {
        &self.default
    }

    /// Gives every database, open now and opened later, `equipment`.
    pub fn equip(&self, equipment: Equipment) {
        for graph in self.graphs() {
            equipment(&graph);
        }
        self.equipment.write().push(equipment);
    }

    /// The database `name` (or the one alias `name` names; `system` is the first database),
    /// or why a session cannot have it.
    pub fn get(&self, name: &str) -> Result<Arc<Graph>, Unavailable> {
        let name = key(name);
        let state = self.state.read();
        match resolve_in(&state, &name)
            .and_then(|target| Some((state.entries.get(&target)?, target)))
        {
            Some((entry, target)) => entry.graph.clone().ok_or_else(|| Unavailable {
                status: Status::DatabaseUnavailable,
                message: format!(
                    "Database '{target}' is unavailable: {}",
                    entry
                        .failure
                        .as_deref()
                        .unwrap_or("it is stopped (START DATABASE starts it)")
                ),
            }),
            None => Err(Unavailable {
                status: Status::DatabaseNotFound,
                message: format!("Database does not exist. Database name: '{name}'."),
            }),
        }
    }

    /// Each database's figures for the metrics labelled by database.
    pub fn figures(&self) -> Vec<crate::metrics::DatabaseFigures> {
        self.state
            .read()
            .entries
            .iter()
            .map(|(name, e)| crate::metrics::DatabaseFigures {
                name: name.clone(),
                online: e.graph.is_some(),
                last_committed: e
                    .graph
                    .as_ref()
                    .map_or(0, |g| g.database().storage().last_committed()),
                transactions_open: e
                    .graph
                    .as_ref()
                    .map_or(0, |g| g.database().transactions_open() as u64),
            })
            .collect()
    }

    /// Every open database.
    pub fn graphs(&self) -> Vec<Arc<Graph>> {
        self.state
            .read()
            .entries
            .values()
            .filter_map(|e| e.graph.clone())
            .collect()
    }

    /// Closes every database but the first (which the server closes itself), for a shutdown.
    pub fn close_others(&self) {
        let _changing = self.changing.lock();
        let graphs: Vec<Arc<Graph>> = {
            let mut state = self.state.write();
            state
                .entries
                .iter_mut()
                .filter(|(name, _)| *name != DEFAULT_DATABASE)
                .filter_map(|(_, e)| e.graph.take())
                .collect()
        };
        for graph in graphs {
            self.stores.close(Arc::clone(graph.database()));
        }
    }

    /// Tells newly opened database `name` of the catalog and gives it the server's equipment.
    fn introduce(&self, name: &str, graph: &Arc<Graph>) {
        let Some(this) = self.this.upgrade() else {
            return;
        };
        let db = graph.database();
        db.set_catalog(name, this);
        if !Arc::ptr_eq(db, self.root.database()) {
            db.share_security_of(self.root.database());
        }
        for equipment in self.equipment.read().iter() {
            equipment(graph);
        }
    }

    /// Writes the catalog (nothing in memory).
    fn save(&self) -> Result<(), Error> {
        let Some(path) = &self.file else {
            return Ok(());
        };
        let text = catalog_text(&self.state.read());
        write_atomically(path, text.as_bytes()).map_err(|error| {
            Error::runtime(
                Status::UnknownError,
                None,
                format!(
                    "cannot write the database catalog {}: {error}",
                    path.display()
                ),
            )
        })
    }

    /// Every database's plans that checked a `USE` are planned again.
    fn names_changed(&self) {
        for graph in self.graphs() {
            graph.database().catalog_changed();
        }
    }

    fn create(
        &self,
        name: String,
        if_not_exists: bool,
        replace: bool,
        options: Map,
    ) -> Result<(), Error> {
        if self.state.read().aliases.contains_key(&name) {
            return Err(Error::runtime(
                Status::ExistingAliasFound,
                None,
                format!(
                    "Failed to create the specified database '{name}': An alias with that name already exists."
                ),
            ));
        }
        if self.state.read().entries.contains_key(&name) {
            if if_not_exists {
                return Ok(());
            }
            if !replace {
                return Err(Error::runtime(
                    Status::ExistingDatabaseFound,
                    None,
                    format!(
                        "Failed to create the specified database '{name}': Database already exists."
                    ),
                ));
            }
            self.drop_database(&name, false, false)?;
        }
        let now = SystemTime::now();
        let mut entry = Entry::new(now, options);
        entry.open(&name, &*self.stores, now);
        if let Some(failure) = &entry.failure {
            return Err(Error::runtime(
                Status::UnknownError,
                None,
                format!("Failed to create the specified database '{name}': {failure}"),
            ));
        }
        let graph = entry.graph.clone();
        self.state.write().entries.insert(name.clone(), entry);
        self.save()?;
        if let Some(graph) = graph {
            self.introduce(&name, &graph);
        }
        self.names_changed();
        Ok(())
    }

    fn drop_database(&self, name: &str, if_exists: bool, dump: bool) -> Result<(), Error> {
        if name == DEFAULT_DATABASE {
            return Err(first_database("delete"));
        }
        let Some(entry) = self.state.write().entries.remove(name) else {
            return if if_exists {
                Ok(())
            } else {
                Err(not_found("delete", name))
            };
        };
        self.state
            .write()
            .aliases
            .retain(|_, alias| alias.database != name);
        self.save()?;
        if let Some(graph) = entry.graph {
            self.stores.close(Arc::clone(graph.database()));
        }
        self.stores.remove(name, dump).map_err(|error| {
            Error::runtime(
                Status::UnknownError,
                None,
                format!(
                    "The database '{name}' was dropped, but its files were not removed: {error}"
                ),
            )
        })?;
        self.names_changed();
        Ok(())
    }

    fn start(&self, name: &str) -> Result<(), Error> {
        let opened = {
            let mut state = self.state.write();
            let Some(entry) = state.entries.get_mut(name) else {
                return Err(not_found("start", name));
            };
            entry.requested_online = true;
            if entry.graph.is_none() {
                entry.open(name, &*self.stores, SystemTime::now());
            }
            entry.graph.clone()
        };
        self.save()?;
        if let Some(graph) = opened {
            self.introduce(name, &graph);
        }
        Ok(())
    }

    fn stop(&self, name: &str) -> Result<(), Error> {
        if name == DEFAULT_DATABASE {
            return Err(first_database("stop"));
        }
        let closed = {
            let mut state = self.state.write();
            let Some(entry) = state.entries.get_mut(name) else {
                return Err(not_found("stop", name));
            };
            entry.requested_online = false;
            entry.failure = None;
            if entry.graph.is_some() {
                entry.last_stop = Some(SystemTime::now());
            }
            entry.graph.take()
        };
        self.save()?;
        if let Some(graph) = closed {
            self.stores.close(Arc::clone(graph.database()));
        }
        Ok(())
    }

    fn alter(
        &self,
        name: &str,
        if_exists: bool,
        read_only: Option<bool>,
        options: Vec<(String, Option<Value>)>,
    ) -> Result<(), Error> {
        {
            let mut state = self.state.write();
            let Some(entry) = state.entries.get_mut(name) else {
                return if if_exists {
                    Ok(())
                } else {
                    Err(not_found("alter", name))
                };
            };
            if let Some(read_only) = read_only {
                entry.read_only = read_only;
                if let Some(graph) = &entry.graph {
                    graph.database().set_read_only(read_only);
                }
            }
            for (option, value) in options {
                match value {
                    Some(value) => entry.options.insert(Arc::from(option.as_str()), value),
                    None => entry.options.remove(option.as_str()),
                };
            }
        }
        self.save()
    }

    fn create_alias(
        &self,
        name: String,
        target: String,
        if_not_exists: bool,
        replace: bool,
        properties: Map,
    ) -> Result<(), Error> {
        {
            let mut state = self.state.write();
            if state.entries.contains_key(&name) {
                return Err(Error::runtime(
                    Status::ExistingDatabaseFound,
                    None,
                    format!(
                        "Failed to create the specified database alias '{name}': Database name already exists."
                    ),
                ));
            }
            if state.aliases.contains_key(&name) {
                if if_not_exists {
                    return Ok(());
                }
                if !replace {
                    return Err(Error::runtime(
                        Status::ExistingAliasFound,
                        None,
                        format!(
                            "Failed to create the specified database alias '{name}': Database name already exists."
                        ),
                    ));
                }
            }
            if !state.entries.contains_key(&target) {
                return Err(Error::runtime(
                    Status::DatabaseNotFound,
                    None,
                    format!(
                        "Failed to create the specified database alias '{name}': Database '{target}' does not exist."
                    ),
                ));
            }
            state.aliases.insert(
                name,
                AliasEntry {
                    database: target,
                    properties,
                },
            );
        }
        self.save()?;
        self.names_changed();
        Ok(())
    }

    fn alter_alias(
        &self,
        name: &str,
        if_exists: bool,
        target: Option<String>,
        properties: Option<Map>,
    ) -> Result<(), Error> {
        {
            let mut state = self.state.write();
            if let Some(target) = &target
                && !state.entries.contains_key(target)
            {
                return Err(Error::runtime(
                    Status::DatabaseNotFound,
                    None,
                    format!(
                        "Failed to alter the specified database alias '{name}': Database '{target}' does not exist."
                    ),
                ));
            }
            let Some(alias) = state.aliases.get_mut(name) else {
                return if if_exists {
                    Ok(())
                } else {
                    Err(Error::runtime(
                        Status::DatabaseNotFound,
                        None,
                        format!(
                            "Failed to alter the specified database alias '{name}': Database alias does not exist."
                        ),
                    ))
                };
            };
            if let Some(target) = target {
                alias.database = target;
            }
            if let Some(properties) = properties {
                alias.properties = properties;
            }
        }
        self.save()?;
        self.names_changed();
        Ok(())
    }

    fn drop_alias(&self, name: &str, if_exists: bool) -> Result<(), Error> {
        if self.state.write().aliases.remove(name).is_none() {
            return if if_exists {
                Ok(())
            } else {
                Err(Error::runtime(
                    Status::DatabaseNotFound,
                    None,
                    format!(
                        "Failed to delete the specified database alias '{name}': Database alias does not exist."
                    ),
                ))
            };
        }
        self.save()?;
        self.names_changed();
        Ok(())
    }
}

/// The database that serves `name` in `state` (see [`DatabaseCatalog::resolve`]).
fn resolve_in(state: &State, name: &str) -> Option<String> {
    if name == SYSTEM_DATABASE {
        return Some(DEFAULT_DATABASE.to_owned());
    }
    match state.aliases.get(name) {
        Some(alias) => Some(alias.database.clone()),
        None => state.entries.contains_key(name).then(|| name.to_owned()),
    }
}

/// The first database keeps the server's users and roles: it is neither dropped nor stopped.
fn first_database(action: &str) -> Error {
    Error::runtime(
        Status::NotSystemDatabaseError,
        None,
        format!(
            "Not allowed to {action} the database '{DEFAULT_DATABASE}': it keeps the server's \
             users, roles and privileges (the system database's)."
        ),
    )
}

impl DatabaseCatalog for Databases {
    fn databases(&self) -> Vec<DatabaseInfo> {
        let state = self.state.read();
        let mut out: Vec<DatabaseInfo> =
            state.entries.iter().map(|(name, e)| e.info(name)).collect();
        // `system` is the first database under its administration name.
        if let Some(first) = state.entries.get(DEFAULT_DATABASE) {
            out.push(DatabaseInfo {
                name: SYSTEM_DATABASE.to_owned(),
                kind: DatabaseKind::System,
                id: format!("{:064x}", 1),
                read_only: false,
                options: Map::new(),
                ..first.info(SYSTEM_DATABASE)
            });
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    fn aliases(&self) -> Vec<AliasInfo> {
        self.state
            .read()
            .aliases
            .iter()
            .map(|(name, a)| AliasInfo {
                name: name.clone(),
                database: a.database.clone(),
                properties: a.properties.clone(),
            })
            .collect()
    }

    fn resolve(&self, name: &str) -> Option<String> {
        resolve_in(&self.state.read(), &key(name))
    }

    fn default_database(&self) -> String {
        self.default.clone()
    }

    fn open_databases(&self) -> Vec<Arc<Database>> {
        self.graphs()
            .iter()
            .map(|graph| Arc::clone(graph.database()))
            .collect()
    }

    fn change(&self, change: CatalogChange) -> Result<(), Error> {
        let _changing = self.changing.lock();
        match change {
            CatalogChange::Create {
                name,
                if_not_exists,
                replace,
                options,
            } => self.create(name, if_not_exists, replace, options),
            CatalogChange::Drop {
                name,
                if_exists,
                dump_data,
            } => self.drop_database(&name, if_exists, dump_data),
            CatalogChange::Alter {
                name,
                if_exists,
                read_only,
                options,
            } => self.alter(&name, if_exists, read_only, options),
            CatalogChange::Start { name } => self.start(&name),
            CatalogChange::Stop { name } => self.stop(&name),
            CatalogChange::CreateAlias {
                name,
                target,
                if_not_exists,
                replace,
                properties,
            } => self.create_alias(name, target, if_not_exists, replace, properties),
            CatalogChange::AlterAlias {
                name,
                if_exists,
                target,
                properties,
            } => self.alter_alias(&name, if_exists, target, properties),
            CatalogChange::DropAlias { name, if_exists } => self.drop_alias(&name, if_exists),
        }
    }
}

impl Entry {
    fn new(created: SystemTime, options: Map) -> Entry {
        Entry {
            id: new_id(created),
            created,
            read_only: false,
            requested_online: true,
            options,
            graph: None,
            failure: None,
            last_start: None,
            last_stop: None,
        }
    }

    /// Opens the store; a failure stops this database only, its reason kept for
    /// `SHOW DATABASES`.
    fn open(&mut self, name: &str, stores: &dyn Stores, now: SystemTime) {
        match stores.open(name) {
            Ok(db) => {
                db.set_read_only(self.read_only);
                self.graph = Some(Arc::new(Graph::new(db)));
                self.failure = None;
                self.last_start = Some(now);
            }
            Err(error) => {
                tracing::error!(database = name, %error, "the database could not be opened");
                self.failure = Some(error);
            }
        }
    }

    fn info(&self, name: &str) -> DatabaseInfo {
        let current_status = match (&self.graph, &self.failure) {
            (Some(_), _) => "online",
            (None, Some(_)) => "dirty",
            (None, None) => "offline",
        };
        // An online database whose disk failed serves reads and refuses writes: it says why.
        let refusal = self
            .graph
            .as_ref()
            .and_then(|g| g.database().write_refusal())
            .map(|(_, reason)| format!("writes are refused: {reason}"));
        DatabaseInfo {
            name: name.to_owned(),
            kind: DatabaseKind::Standard,
            id: self.id.clone(),
            read_only: self.read_only,
            requested_online: self.requested_online,
            current_status,
            status_message: self.failure.clone().or(refusal).unwrap_or_default(),
            created: self.created,
            last_start: self.last_start,
            last_stop: self.last_stop,
            last_committed: self
                .graph
                .as_ref()
                .map(|g| g.database().storage().last_committed()),
            options: self.options.clone(),
        }
    }
}

/// A database id: 64 hex digits, from the creation time and the process's randomness.
fn new_id(created: SystemTime) -> String {
    let nanos = created
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    let random: [u64; 2] = [rand::random(), rand::random()];
    format!("{nanos:032x}{:016x}{:016x}", random[0], random[1])
}

/// The catalog file's text: the databases and aliases with what each keeps.
fn catalog_text(state: &State) -> String {
    let databases: Vec<serde_json::Value> = state
        .entries
        .iter()
        .map(|(name, e)| {
            serde_json::json!({
                "name": name,
                "id": e.id,
                "created_ms": millis(e.created),
                "read_only": e.read_only,
                "online": e.requested_online,
                "options": map_json(&e.options),
            })
        })
        .collect();
    let aliases: Vec<serde_json::Value> = state
        .aliases
        .iter()
        .map(|(name, a)| {
            serde_json::json!({
                "name": name,
                "database": a.database,
                "properties": map_json(&a.properties),
            })
        })
        .collect();
    serde_json::json!({"version": 1, "databases": databases, "aliases": aliases}).to_string()
}

fn millis(t: SystemTime) -> u64 {
    u64::try_from(t.duration_since(UNIX_EPOCH).unwrap_or_default().as_millis()).unwrap_or(u64::MAX)
}

/// Reads the catalog file; a missing file is an empty catalog (a data directory from before
/// there were several databases), an unreadable one an error naming it.
fn read_catalog(path: &std::path::Path) -> Result<State, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(State::default()),
        Err(error) => return Err(format!("cannot read {}: {error}", path.display())),
    };
    let invalid = |why: &str| format!("the database catalog {} is invalid: {why}", path.display());
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| invalid(&e.to_string()))?;
    let mut state = State::default();
    let list = |field: &str| {
        json.get(field)
            .and_then(serde_json::Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    for d in list("databases") {
        let name = d
            .get("name")
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| invalid("a database has no name"))?;
        let created = UNIX_EPOCH
            + Duration::from_millis(
                d.get("created_ms")
                    .and_then(serde_json::Value::as_u64)
                    .unwrap_or(0),
            );
        let mut entry = Entry::new(created, json_map(d.get("options")));
        if let Some(id) = d.get("id").and_then(serde_json::Value::as_str) {
            id.clone_into(&mut entry.id);
        }
        entry.read_only = d
            .get("read_only")
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false);
        entry.requested_online = d
            .get("online")
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(true);
        state.entries.insert(key(name), entry);
    }
    for a in list("aliases") {
        let (Some(name), Some(database)) = (
            a.get("name").and_then(serde_json::Value::as_str),
            a.get("database").and_then(serde_json::Value::as_str),
        ) else {
            return Err(invalid("an alias has no name or database"));
        };
        state.aliases.insert(
            key(name),
            AliasEntry {
                database: key(database),
                properties: json_map(a.get("properties")),
            },
        );
    }
    Ok(state)
}

/// A map of option values as JSON: scalars, lists and maps as themselves, any other value as
/// its Cypher text.
fn map_json(map: &Map) -> serde_json::Value {
    serde_json::Value::Object(
        map.iter()
            .map(|(k, v)| (k.to_string(), value_json(v)))
            .collect(),
    )
}

/// A value as JSON: JSON's own types where it has them (lists and maps element by element),
/// any other value as its Cypher text.
pub fn value_json(value: &Value) -> serde_json::Value {
    match value {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Int(i) => serde_json::Value::from(*i),
        Value::Float(f) => serde_json::Value::from(*f),
        Value::String(s) => serde_json::Value::String(s.to_string()),
        Value::List(items) => serde_json::Value::Array(items.iter().map(value_json).collect()),
        Value::Map(map) => map_json(map),
        other => serde_json::Value::String(quiver_value::to_string_cypher(other)),
    }
}

fn json_map(json: Option<&serde_json::Value>) -> Map {
    let mut map = Map::new();
    if let Some(serde_json::Value::Object(fields)) = json {
        for (k, v) in fields {
            map.insert(Arc::from(k.as_str()), json_value(v));
        }
    }
    map
}

fn json_value(json: &serde_json::Value) -> Value {
    match json {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => n
            .as_i64()
            .map_or_else(|| Value::Float(n.as_f64().unwrap_or(0.0)), Value::Int),
        serde_json::Value::String(s) => Value::from(s.as_str()),
        serde_json::Value::Array(items) => {
            Value::from(items.iter().map(json_value).collect::<Vec<_>>())
        }
        object @ serde_json::Value::Object(_) => Value::map(json_map(Some(object))),
    }
}

/// Writes `bytes` to `path` so that a crash leaves the old file or the new one: a temporary
/// file beside it, synced, renamed over it, and the directory synced.
fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path.parent().unwrap_or_else(|| std::path::Path::new("."));
    std::fs::create_dir_all(dir)?;
    let temporary = path.with_extension("json.tmp");
    {
        let mut file = std::fs::File::create(&temporary)?;
        file.write_all(bytes)?;
        file.sync_all()?;
    }
    std::fs::rename(&temporary, path)?;
    std::fs::File::open(dir)?.sync_all()
}
