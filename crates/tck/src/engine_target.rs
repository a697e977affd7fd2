//! The TCK target for Quiver's embedded engine: each query runs in its own auto-commit
//! transaction of an in-memory database, and `reset` starts over with a fresh database.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use quiver_engine::{
    Database, EngineConfig, Field, FieldType, Phase, ProcedureSignature, PullState, TableProcedure,
    TxOptions,
};
use quiver_status::Status;
use quiver_storage::{NodeId, RelId};
use quiver_tck::{
    ErrorKind, ErrorPhase, GraphState, Outcome, ProcedureBaseType, ProcedureFixture, ProcedureType,
    QueryError, Target, TargetError,
};
use quiver_value::Map;

/// Quiver's engine as a TCK target.
pub struct EngineTarget {
    db: Arc<Database>,
    deadline: Option<Instant>,
    /// The database's `LOAD CSV` import directory: the target's own, emptied by `reset`.
    import_dir: PathBuf,
}

/// Numbers the targets of one process, so each has an import directory of its own.
static TARGETS: AtomicU64 = AtomicU64::new(0);

impl EngineTarget {
    pub fn new() -> Self {
        let n = TARGETS.fetch_add(1, Ordering::Relaxed);
        let import_dir =
            std::env::temp_dir().join(format!("quiver-tck-import-{}-{n}", std::process::id()));
        EngineTarget {
            db: Self::open(&import_dir),
            deadline: None,
            import_dir,
        }
    }

    /// A fresh database with the procedure families a server has.
    fn open(import_dir: &std::path::Path) -> Arc<Database> {
        let db = Database::open_in_memory(Self::config(import_dir));
        quiver_procedures::register(&db);
        db
    }

    fn config(import_dir: &std::path::Path) -> EngineConfig {
        EngineConfig {
            import_dir: Some(import_dir.to_path_buf()),
            ..EngineConfig::default()
        }
    }
}

impl Drop for EngineTarget {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.import_dir);
    }
}

impl Default for EngineTarget {
    fn default() -> Self {
        Self::new()
    }
}

/// Classifies an engine error the way the TCK names errors.
fn query_error(e: &quiver_engine::Error) -> QueryError {
    let detail = e.detail();
    let kind = match detail {
        // Neo4j reports this one as a schema constraint failure; the TCK names it so.
        Some("DeleteConnectedNode") => ErrorKind::ConstraintVerificationFailed,
        _ if matches!(
            e.status_code(),
            Status::ProcedureNotFound | Status::ProcedureCallFailed
        ) =>
        {
            ErrorKind::ProcedureError
        }
        _ => ErrorKind::from_name(e.status_code().name()).unwrap_or(ErrorKind::SemanticError),
    };
    let phase = match e.phase() {
        Phase::CompileTime => ErrorPhase::CompileTime,
        Phase::Runtime => ErrorPhase::Runtime,
    };
    QueryError::new(kind, phase, detail, e.message())
}

fn field_type(t: &ProcedureType) -> FieldType {
    match &t.base {
        ProcedureBaseType::Any => FieldType::Any,
        ProcedureBaseType::Boolean => FieldType::Boolean,
        ProcedureBaseType::Integer => FieldType::Integer,
        ProcedureBaseType::Float => FieldType::Float,
        ProcedureBaseType::Number => FieldType::Number,
        ProcedureBaseType::String => FieldType::String,
        ProcedureBaseType::Map => FieldType::Map,
        ProcedureBaseType::Node => FieldType::Node,
        ProcedureBaseType::Relationship => FieldType::Relationship,
        ProcedureBaseType::Path => FieldType::Path,
        ProcedureBaseType::List(inner) => FieldType::List(Box::new(field_type(inner))),
    }
}

impl Target for EngineTarget {
    fn reset(&mut self) -> Result<(), TargetError> {
        self.db = Self::open(&self.import_dir);
        match std::fs::remove_dir_all(&self.import_dir) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(TargetError::Failed(
                format!("cannot empty the import directory: {e}"),
            )),
            _ => Ok(()),
        }
    }

    fn write_import_file(&mut self, name: &str, content: &[u8]) -> Result<(), TargetError> {
        let fail = |e: std::io::Error| TargetError::Failed(format!("import file {name}: {e}"));
        let path = self.import_dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(fail)?;
        }
        std::fs::write(path, content).map_err(fail)
    }

    fn execute(&mut self, query: &str, params: &Map) -> Result<Outcome, QueryError> {
        let mut opts = TxOptions::auto_commit();
        if let Some(d) = self.deadline {
            opts.timeout = Some(d.saturating_duration_since(Instant::now()));
        }
        let mut tx = self.db.begin(opts).map_err(|e| query_error(&e))?;
        let q = tx.run(query, params.clone()).map_err(|e| query_error(&e))?;
        let columns = tx.fields(q).iter().map(ToString::to_string).collect();
        let mut rows = Vec::new();
        while let PullState::HasMore = tx.pull(q, 1000, &mut rows).map_err(|e| query_error(&e))? {}
        Ok(Outcome { columns, rows })
    }

    fn register_procedure(&mut self, procedure: ProcedureFixture) -> Result<(), TargetError> {
        let signature = ProcedureSignature {
            name: procedure.name.clone(),
            inputs: procedure
                .inputs
                .iter()
                .map(|f| Field::new(&f.name, field_type(&f.ty)))
                .collect(),
            outputs: procedure
                .outputs
                .iter()
                .map(|f| Field::new(&f.name, field_type(&f.ty)))
                .collect(),
            writes: false,
        };
        let rows = procedure
            .rows
            .into_iter()
            .map(|r| (r.inputs, r.outputs))
            .collect();
        self.db
            .register_procedure(Arc::new(TableProcedure::new(signature, rows)));
        Ok(())
    }

    fn graph_state(&mut self) -> Result<GraphState, TargetError> {
        let tx = self.db.storage().begin_read();
        let mut state = GraphState::default();
        let fail = |e: quiver_storage::Error| TargetError::Failed(e.to_string());
        for id in tx.scan_nodes().map_err(fail)? {
            let id: NodeId = id.map_err(fail)?;
            let node = tx.materialize_node(id).map_err(fail)?;
            if let Some(data) = node.data {
                state.nodes.insert(id.0, (*data).clone());
            }
        }
        for id in tx.scan_rels(&[]).map_err(fail)? {
            let id: RelId = id.map_err(fail)?;
            let rel = tx.materialize_rel(id).map_err(fail)?;
            if let Some(data) = rel.data {
                state.relationships.insert(id.0, (*data).clone());
            }
        }
        Ok(state)
    }

    fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }
}
