//! What the analysis knows about functions and procedures.
//!
//! Functions: a built-in table of Neo4j 5's functions (name, arity, aggregate or not), which a
//! caller may replace through [`FunctionCatalog`]. Procedures live in the engine, so their
//! signatures come from the caller through [`ProcedureCatalog`].

use super::types::Type;

/// How a function may be called and what it does to grouping.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionSignature {
    /// The canonical spelling (`toInteger`), for messages.
    pub name: &'static str,
    pub min_args: usize,
    /// `None` when variadic (`coalesce`).
    pub max_args: Option<usize>,
    /// Aggregating functions (`count`, `collect`, ...) group the rows of a projection.
    pub aggregate: bool,
    /// Non-deterministic functions (`rand`) may not appear inside an aggregate.
    pub deterministic: bool,
    /// The result type where it does not depend on the arguments.
    pub returns: Type,
}

/// Resolves function names (case-insensitively, with namespace: `date.truncate`).
pub trait FunctionCatalog {
    fn function(&self, qualified_name: &str) -> Option<FunctionSignature>;
}

/// A procedure's declared inputs and outputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcedureSignature {
    pub inputs: Vec<ProcedureInput>,
    pub outputs: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcedureInput {
    pub name: String,
    /// Inputs with a default may be left out of a call.
    pub has_default: bool,
}

/// Resolves procedure names (`db.labels`).
pub trait ProcedureCatalog {
    fn procedure(&self, qualified_name: &str) -> Option<ProcedureSignature>;
}

/// Neo4j 5's built-in functions.
#[derive(Clone, Copy, Debug, Default)]
pub struct BuiltinFunctions;

impl FunctionCatalog for BuiltinFunctions {
    fn function(&self, qualified_name: &str) -> Option<FunctionSignature> {
        builtin(qualified_name)
    }
}

/// `(name, min, max, kind, result)`; `max == usize::MAX` means variadic.
type Entry = (&'static str, usize, usize, Kind, Ret);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Scalar,
    Aggregate,
    Random,
}

/// Result types, spelt compactly for the table.
#[derive(Clone, Copy)]
enum Ret {
    Any,
    Bool,
    Int,
    Float,
    Str,
    Node,
    Map,
    ListStr,
    ListInt,
    ListNode,
    ListRel,
    ListAny,
}

impl Ret {
    fn ty(self) -> Type {
        match self {
            Ret::Any => Type::Any,
            Ret::Bool => Type::Boolean,
            Ret::Int => Type::Integer,
            Ret::Float => Type::Float,
            Ret::Str => Type::String,
            Ret::Node => Type::Node,
            Ret::Map => Type::Map,
            Ret::ListStr => Type::List(Box::new(Type::String)),
            Ret::ListInt => Type::List(Box::new(Type::Integer)),
            Ret::ListNode => Type::List(Box::new(Type::Node)),
            Ret::ListRel => Type::List(Box::new(Type::Relationship)),
            Ret::ListAny => Type::List(Box::new(Type::Any)),
        }
    }
}

const VARIADIC: usize = usize::MAX;

use Kind::{Aggregate, Random, Scalar};

/// Sorted by lower-case name for binary search.
const BUILTINS: &[Entry] = &[
    ("abs", 1, 1, Scalar, Ret::Any),
    ("acos", 1, 1, Scalar, Ret::Float),
    ("asin", 1, 1, Scalar, Ret::Float),
    ("atan", 1, 1, Scalar, Ret::Float),
    ("atan2", 2, 2, Scalar, Ret::Float),
    ("avg", 1, 1, Aggregate, Ret::Any),
    ("btrim", 1, 2, Scalar, Ret::Str),
    ("ceil", 1, 1, Scalar, Ret::Float),
    ("char_length", 1, 1, Scalar, Ret::Int),
    ("character_length", 1, 1, Scalar, Ret::Int),
    ("coalesce", 1, VARIADIC, Scalar, Ret::Any),
    ("collect", 1, 1, Aggregate, Ret::ListAny),
    ("cos", 1, 1, Scalar, Ret::Float),
    ("cosh", 1, 1, Scalar, Ret::Float),
    ("cot", 1, 1, Scalar, Ret::Float),
    ("coth", 1, 1, Scalar, Ret::Float),
    ("count", 1, 1, Aggregate, Ret::Int),
    ("date", 0, 1, Scalar, Ret::Any),
    ("date.realtime", 0, 1, Scalar, Ret::Any),
    ("date.statement", 0, 1, Scalar, Ret::Any),
    ("date.transaction", 0, 1, Scalar, Ret::Any),
    ("date.truncate", 2, 3, Scalar, Ret::Any),
    ("datetime", 0, 1, Scalar, Ret::Any),
    ("datetime.fromepoch", 2, 2, Scalar, Ret::Any),
    ("datetime.fromepochmillis", 1, 1, Scalar, Ret::Any),
    ("datetime.realtime", 0, 1, Scalar, Ret::Any),
    ("datetime.statement", 0, 1, Scalar, Ret::Any),
    ("datetime.transaction", 0, 1, Scalar, Ret::Any),
    ("datetime.truncate", 2, 3, Scalar, Ret::Any),
    ("degrees", 1, 1, Scalar, Ret::Float),
    ("distance", 2, 2, Scalar, Ret::Float),
    ("duration", 1, 1, Scalar, Ret::Any),
    ("duration.between", 2, 2, Scalar, Ret::Any),
    ("duration.indays", 2, 2, Scalar, Ret::Any),
    ("duration.inmonths", 2, 2, Scalar, Ret::Any),
    ("duration.inseconds", 2, 2, Scalar, Ret::Any),
    ("e", 0, 0, Scalar, Ret::Float),
    ("elementid", 1, 1, Scalar, Ret::Str),
    ("endnode", 1, 1, Scalar, Ret::Node),
    ("exists", 1, 1, Scalar, Ret::Bool),
    ("exp", 1, 1, Scalar, Ret::Float),
    ("file", 0, 0, Random, Ret::Str),
    ("floor", 1, 1, Scalar, Ret::Float),
    ("haversin", 1, 1, Scalar, Ret::Float),
    ("head", 1, 1, Scalar, Ret::Any),
    ("id", 1, 1, Scalar, Ret::Int),
    ("isempty", 1, 1, Scalar, Ret::Bool),
    ("isnan", 1, 1, Scalar, Ret::Bool),
    ("keys", 1, 1, Scalar, Ret::ListStr),
    ("labels", 1, 1, Scalar, Ret::ListStr),
    ("last", 1, 1, Scalar, Ret::Any),
    ("left", 2, 2, Scalar, Ret::Str),
    ("length", 1, 1, Scalar, Ret::Int),
    ("linenumber", 0, 0, Random, Ret::Int),
    ("localdatetime", 0, 1, Scalar, Ret::Any),
    ("localdatetime.realtime", 0, 1, Scalar, Ret::Any),
    ("localdatetime.statement", 0, 1, Scalar, Ret::Any),
    ("localdatetime.transaction", 0, 1, Scalar, Ret::Any),
    ("localdatetime.truncate", 2, 3, Scalar, Ret::Any),
    ("localtime", 0, 1, Scalar, Ret::Any),
    ("localtime.realtime", 0, 1, Scalar, Ret::Any),
    ("localtime.statement", 0, 1, Scalar, Ret::Any),
    ("localtime.transaction", 0, 1, Scalar, Ret::Any),
    ("localtime.truncate", 2, 3, Scalar, Ret::Any),
    ("log", 1, 1, Scalar, Ret::Float),
    ("log10", 1, 1, Scalar, Ret::Float),
    ("lower", 1, 1, Scalar, Ret::Str),
    ("ltrim", 1, 2, Scalar, Ret::Str),
    ("max", 1, 1, Aggregate, Ret::Any),
    ("min", 1, 1, Aggregate, Ret::Any),
    ("nodes", 1, 1, Scalar, Ret::ListNode),
    ("normalize", 1, 2, Scalar, Ret::Str),
    ("nullif", 2, 2, Scalar, Ret::Any),
    ("percentilecont", 2, 2, Aggregate, Ret::Float),
    ("percentiledisc", 2, 2, Aggregate, Ret::Any),
    ("pi", 0, 0, Scalar, Ret::Float),
    ("point", 1, 1, Scalar, Ret::Any),
    ("point.distance", 2, 2, Scalar, Ret::Float),
    ("point.withinbbox", 3, 3, Scalar, Ret::Bool),
    ("properties", 1, 1, Scalar, Ret::Map),
    ("radians", 1, 1, Scalar, Ret::Float),
    ("rand", 0, 0, Random, Ret::Float),
    ("randomuuid", 0, 0, Random, Ret::Str),
    ("range", 2, 3, Scalar, Ret::ListInt),
    ("relationships", 1, 1, Scalar, Ret::ListRel),
    ("replace", 3, 3, Scalar, Ret::Str),
    ("reverse", 1, 1, Scalar, Ret::Any),
    ("right", 2, 2, Scalar, Ret::Str),
    ("round", 1, 3, Scalar, Ret::Float),
    ("rtrim", 1, 2, Scalar, Ret::Str),
    ("sign", 1, 1, Scalar, Ret::Int),
    ("sin", 1, 1, Scalar, Ret::Float),
    ("sinh", 1, 1, Scalar, Ret::Float),
    ("size", 1, 1, Scalar, Ret::Int),
    ("split", 2, 2, Scalar, Ret::ListStr),
    ("sqrt", 1, 1, Scalar, Ret::Float),
    ("startnode", 1, 1, Scalar, Ret::Node),
    ("stdev", 1, 1, Aggregate, Ret::Float),
    ("stdevp", 1, 1, Aggregate, Ret::Float),
    ("substring", 2, 3, Scalar, Ret::Str),
    ("sum", 1, 1, Aggregate, Ret::Any),
    ("tail", 1, 1, Scalar, Ret::Any),
    ("tan", 1, 1, Scalar, Ret::Float),
    ("tanh", 1, 1, Scalar, Ret::Float),
    ("time", 0, 1, Scalar, Ret::Any),
    ("time.realtime", 0, 1, Scalar, Ret::Any),
    ("time.statement", 0, 1, Scalar, Ret::Any),
    ("time.transaction", 0, 1, Scalar, Ret::Any),
    ("time.truncate", 2, 3, Scalar, Ret::Any),
    ("timestamp", 0, 0, Scalar, Ret::Int),
    ("toboolean", 1, 1, Scalar, Ret::Any),
    ("tobooleanlist", 1, 1, Scalar, Ret::ListAny),
    ("tobooleanornull", 1, 1, Scalar, Ret::Any),
    ("tofloat", 1, 1, Scalar, Ret::Any),
    ("tofloatlist", 1, 1, Scalar, Ret::ListAny),
    ("tofloatornull", 1, 1, Scalar, Ret::Any),
    ("tointeger", 1, 1, Scalar, Ret::Any),
    ("tointegerlist", 1, 1, Scalar, Ret::ListAny),
    ("tointegerornull", 1, 1, Scalar, Ret::Any),
    ("tolower", 1, 1, Scalar, Ret::Str),
    ("tostring", 1, 1, Scalar, Ret::Any),
    ("tostringlist", 1, 1, Scalar, Ret::ListAny),
    ("tostringornull", 1, 1, Scalar, Ret::Any),
    ("toupper", 1, 1, Scalar, Ret::Str),
    ("trim", 1, 1, Scalar, Ret::Str),
    ("type", 1, 1, Scalar, Ret::Str),
    ("upper", 1, 1, Scalar, Ret::Str),
    ("uuid", 0, 2, Random, Ret::Any),
    ("uuid.leastsignificantbits", 1, 1, Scalar, Ret::Int),
    ("uuid.mostsignificantbits", 1, 1, Scalar, Ret::Int),
    ("valuetype", 1, 1, Scalar, Ret::Str),
    ("vector", 3, 3, Scalar, Ret::Any),
    ("vector.similarity.cosine", 2, 2, Scalar, Ret::Float),
    ("vector.similarity.euclidean", 2, 2, Scalar, Ret::Float),
    ("vector_dimension_count", 1, 1, Scalar, Ret::Int),
    ("vector_distance", 3, 3, Scalar, Ret::Float),
    ("vector_norm", 2, 2, Scalar, Ret::Float),
];

/// Canonical spellings of the names whose camel case the table's lower case loses.
const SPELLINGS: &[&str] = &[
    "elementId",
    "endNode",
    "isEmpty",
    "isNaN",
    "nullIf",
    "percentileCont",
    "percentileDisc",
    "randomUUID",
    "startNode",
    "stDev",
    "stDevP",
    "toBoolean",
    "toBooleanList",
    "toBooleanOrNull",
    "toFloat",
    "toFloatList",
    "toFloatOrNull",
    "toInteger",
    "toIntegerList",
    "toIntegerOrNull",
    "toLower",
    "toString",
    "toStringList",
    "toStringOrNull",
    "toUpper",
    "valueType",
    "datetime.fromEpoch",
    "datetime.fromEpochMillis",
    "duration.inDays",
    "duration.inMonths",
    "duration.inSeconds",
    "point.withinBBox",
    "uuid.leastSignificantBits",
    "uuid.mostSignificantBits",
];

/// Every built-in function, in name order (what `SHOW FUNCTIONS` lists).
pub fn builtin_functions() -> Vec<FunctionSignature> {
    BUILTINS
        .iter()
        .filter_map(|(name, ..)| builtin(name))
        .collect()
}

fn builtin(qualified_name: &str) -> Option<FunctionSignature> {
    if qualified_name.len() > 40 {
        return None;
    }
    let lower = qualified_name.to_ascii_lowercase();
    let index = BUILTINS
        .binary_search_by(|(name, ..)| (*name).cmp(lower.as_str()))
        .ok()?;
    let (name, min, max, kind, ret) = BUILTINS[index];
    let name = SPELLINGS
        .iter()
        .find(|s| s.eq_ignore_ascii_case(name))
        .copied()
        .unwrap_or(name);
    Some(FunctionSignature {
        name,
        min_args: min,
        max_args: (max != VARIADIC).then_some(max),
        aggregate: kind == Aggregate,
        deterministic: kind != Random,
        returns: ret.ty(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_lower_case() {
        assert!(BUILTINS.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(BUILTINS.iter().all(|e| e.0 == e.0.to_ascii_lowercase()));
        for spelling in SPELLINGS {
            assert!(builtin(spelling).is_some(), "{spelling}");
        }
    }

    #[test]
    fn lookups_ignore_case_and_report_canonical_names() {
        let f = BuiltinFunctions.function("TOINTEGER").unwrap();
        assert_eq!(f.name, "toInteger");
        assert_eq!((f.min_args, f.max_args), (1, Some(1)));
        assert!(BuiltinFunctions.function("count").unwrap().aggregate);
        assert!(!BuiltinFunctions.function("rand").unwrap().deterministic);
        assert_eq!(
            BuiltinFunctions.function("coalesce").unwrap().max_args,
            None
        );
        assert!(BuiltinFunctions.function("date.truncate").is_some());
        assert!(BuiltinFunctions.function("nope").is_none());
    }
}
