//! The namespaced function library: APOC's functions (`apoc.any.*`, `apoc.coll.*`,
//! `apoc.map.*`, `apoc.text.*`, `apoc.convert.*`, `apoc.version`) under APOC's names and semantics,
//! and Graph Data Science's (`gds.version`, `gds.util.*`).
//!
//! One sorted table ([`TABLE`]) gives each function its canonical name, arity and
//! implementation; the semantic pass checks calls against it after Neo4j's built-ins (see
//! [`super::Functions`]) and the planner resolves a call to its entry once, so a call costs an
//! argument evaluation and a function-pointer call. Implementations get the query's context,
//! for the few that read the graph (`apoc.any.*`, `apoc.coll.sortNodes`, `apoc.convert.toJson`) and for the
//! memory limit every built list or string is held to.

// Every implementation has the table's signature, whether or not it can fail.
pub(crate) mod any;
#[allow(clippy::unnecessary_wraps)]
pub(crate) mod coll;
#[allow(clippy::unnecessary_wraps)]
pub(crate) mod convert;
#[allow(clippy::unnecessary_wraps)]
pub(crate) mod gds;
#[allow(clippy::unnecessary_wraps)]
pub(crate) mod map;
#[allow(clippy::unnecessary_wraps)]
pub(crate) mod text;

use quiver_cypher::semantic::{FunctionSignature, Type};
use quiver_value::Value;

use crate::error::Result;
use crate::eval::{Cx, Row, held_bytes};
use crate::ir::Expr;

/// An implementation: arguments (missing optional ones are absent) in, value out.
pub(crate) type Implementation = fn(&[Value], &mut Cx) -> Result<Value>;

/// A library function.
pub(crate) struct LibraryFn {
    /// Canonical spelling, such as `apoc.coll.sum`.
    pub name: &'static str,
    pub min_args: usize,
    pub max_args: usize,
    /// Whether two calls with the same arguments always agree (not `apoc.text.random`).
    pub deterministic: bool,
    implementation: Implementation,
}

impl std::fmt::Debug for LibraryFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl LibraryFn {
    pub fn signature(&self) -> FunctionSignature {
        FunctionSignature {
            name: self.name,
            min_args: self.min_args,
            max_args: Some(self.max_args),
            aggregate: false,
            deterministic: self.deterministic,
            returns: Type::Any,
        }
    }

    /// Checks that the caller may execute the function, evaluates the arguments, then the
    /// function; a string, list or map it builds is held to the query's memory limit.
    pub fn eval(&self, args: &[Expr], row: &mut Row, cx: &mut Cx) -> Result<Value> {
        cx.subject.require_function(self.name)?;
        let mut values: smallvec::SmallVec<[Value; 4]> = smallvec::SmallVec::new();
        for a in args {
            values.push(a.eval(row, cx)?);
        }
        let v = (self.implementation)(&values, cx)?;
        if matches!(v, Value::String(_) | Value::List(_) | Value::Map(_)) {
            cx.transient(held_bytes(&v), "a function's result")?;
        }
        Ok(v)
    }
}

const fn f(
    name: &'static str,
    min_args: usize,
    max_args: usize,
    implementation: Implementation,
) -> LibraryFn {
    LibraryFn {
        name,
        min_args,
        max_args,
        deterministic: true,
        implementation,
    }
}

/// A function whose result may differ between calls with the same arguments.
const fn random(
    name: &'static str,
    min_args: usize,
    max_args: usize,
    implementation: Implementation,
) -> LibraryFn {
    LibraryFn {
        deterministic: false,
        ..f(name, min_args, max_args, implementation)
    }
}

#[allow(clippy::unnecessary_wraps)]
fn version(_: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(Value::from(super::APOC_VERSION))
}

/// Sorted by lower-case name, for binary search.
static TABLE: &[LibraryFn] = &[
    f("apoc.any.properties", 1, 2, any::properties),
    f("apoc.any.property", 2, 2, any::property),
    f("apoc.coll.avg", 1, 1, coll::avg),
    f("apoc.coll.contains", 2, 2, coll::contains),
    f("apoc.coll.containsAll", 2, 2, coll::contains_all),
    f(
        "apoc.coll.containsDuplicates",
        1,
        1,
        coll::contains_duplicates,
    ),
    f("apoc.coll.different", 1, 1, coll::different),
    f("apoc.coll.disjunction", 2, 2, coll::disjunction),
    f(
        "apoc.coll.dropDuplicateNeighbors",
        1,
        1,
        coll::drop_duplicate_neighbors,
    ),
    f("apoc.coll.duplicates", 1, 1, coll::duplicates),
    f(
        "apoc.coll.duplicatesWithCount",
        1,
        1,
        coll::duplicates_with_count,
    ),
    f("apoc.coll.fill", 2, 2, coll::fill),
    f("apoc.coll.flatten", 1, 2, coll::flatten),
    f("apoc.coll.frequencies", 1, 1, coll::frequencies),
    f("apoc.coll.frequenciesAsMap", 1, 1, coll::frequencies_as_map),
    f("apoc.coll.indexOf", 2, 2, coll::index_of),
    f("apoc.coll.insert", 3, 3, coll::insert),
    f("apoc.coll.insertAll", 3, 3, coll::insert_all),
    f("apoc.coll.intersection", 2, 2, coll::intersection),
    f(
        "apoc.coll.isEqualCollection",
        2,
        2,
        coll::is_equal_collection,
    ),
    f("apoc.coll.max", 1, 1, coll::max),
    f("apoc.coll.min", 1, 1, coll::min),
    f("apoc.coll.occurrences", 2, 2, coll::occurrences),
    f("apoc.coll.pairs", 1, 1, coll::pairs),
    f("apoc.coll.pairsMin", 1, 1, coll::pairs_min),
    f("apoc.coll.partition", 2, 2, coll::partition),
    f("apoc.coll.remove", 2, 3, coll::remove),
    f("apoc.coll.removeAll", 2, 2, coll::remove_all),
    f("apoc.coll.reverse", 1, 1, coll::reverse),
    f("apoc.coll.set", 3, 3, coll::set),
    f("apoc.coll.sort", 1, 1, coll::sort),
    f("apoc.coll.sortMaps", 2, 2, coll::sort_maps),
    f("apoc.coll.sortNodes", 2, 2, coll::sort_nodes),
    f("apoc.coll.subtract", 2, 2, coll::subtract),
    f("apoc.coll.sum", 1, 1, coll::sum),
    f("apoc.coll.sumLongs", 1, 1, coll::sum_longs),
    f("apoc.coll.toSet", 1, 1, coll::to_set),
    f("apoc.coll.union", 2, 2, coll::union),
    f("apoc.coll.unionAll", 2, 2, coll::union_all),
    f("apoc.coll.zip", 2, 2, coll::zip),
    f("apoc.convert.fromJsonList", 1, 3, convert::from_json_list),
    f("apoc.convert.fromJsonMap", 1, 3, convert::from_json_map),
    f("apoc.convert.toBoolean", 1, 1, convert::to_boolean),
    f("apoc.convert.toBooleanList", 1, 1, convert::to_boolean_list),
    f("apoc.convert.toFloat", 1, 1, convert::to_float),
    f("apoc.convert.toFloatList", 1, 1, convert::to_float_list),
    f("apoc.convert.toInteger", 1, 1, convert::to_integer),
    f("apoc.convert.toIntList", 1, 1, convert::to_int_list),
    f("apoc.convert.toJson", 1, 1, convert::to_json),
    f("apoc.convert.toList", 1, 1, convert::to_list),
    f("apoc.convert.toMap", 1, 1, convert::to_map),
    f("apoc.convert.toNode", 1, 1, convert::to_node),
    f(
        "apoc.convert.toRelationship",
        1,
        1,
        convert::to_relationship,
    ),
    f("apoc.convert.toSet", 1, 1, convert::to_set),
    f(
        "apoc.convert.toSortedJsonMap",
        1,
        2,
        convert::to_sorted_json_map,
    ),
    f("apoc.convert.toString", 1, 1, convert::to_string),
    f("apoc.convert.toStringList", 1, 1, convert::to_string_list),
    f("apoc.map.clean", 3, 3, map::clean),
    f("apoc.map.flatten", 1, 2, map::flatten),
    f("apoc.map.fromLists", 2, 2, map::from_lists),
    f("apoc.map.fromPairs", 1, 1, map::from_pairs),
    f("apoc.map.fromValues", 1, 1, map::from_values),
    f("apoc.map.get", 2, 4, map::get),
    f("apoc.map.groupBy", 2, 2, map::group_by),
    f("apoc.map.merge", 2, 2, map::merge),
    f("apoc.map.mergeList", 1, 1, map::merge_list),
    f("apoc.map.removeKey", 2, 3, map::remove_key),
    f("apoc.map.removeKeys", 2, 3, map::remove_keys),
    f("apoc.map.setEntry", 3, 3, map::set_key),
    f("apoc.map.setKey", 3, 3, map::set_key),
    f("apoc.map.setLists", 3, 3, map::set_lists),
    f("apoc.map.setPairs", 2, 2, map::set_pairs),
    f("apoc.map.setValues", 2, 2, map::set_values),
    f("apoc.map.sortedProperties", 1, 2, map::sorted_properties),
    f("apoc.map.submap", 2, 4, map::submap),
    f("apoc.map.values", 1, 3, map::values),
    f("apoc.text.byteCount", 1, 2, text::byte_count),
    f("apoc.text.camelCase", 1, 1, text::camel_case),
    f("apoc.text.capitalize", 1, 1, text::capitalize),
    f("apoc.text.capitalizeAll", 1, 1, text::capitalize_all),
    f("apoc.text.charAt", 2, 2, text::char_at),
    f("apoc.text.clean", 1, 1, text::clean),
    f("apoc.text.code", 1, 1, text::code),
    f("apoc.text.compareCleaned", 2, 2, text::compare_cleaned),
    f("apoc.text.decapitalize", 1, 1, text::decapitalize),
    f("apoc.text.decapitalizeAll", 1, 1, text::decapitalize_all),
    f("apoc.text.distance", 2, 2, text::levenshtein_distance),
    f("apoc.text.format", 2, 3, text::format),
    f("apoc.text.fuzzyMatch", 2, 2, text::fuzzy_match),
    f("apoc.text.hammingDistance", 2, 2, text::hamming_distance),
    f("apoc.text.indexOf", 2, 4, text::index_of),
    f(
        "apoc.text.jaroWinklerDistance",
        2,
        2,
        text::jaro_winkler_distance,
    ),
    f("apoc.text.join", 2, 2, text::join),
    f(
        "apoc.text.levenshteinDistance",
        2,
        2,
        text::levenshtein_distance,
    ),
    f(
        "apoc.text.levenshteinSimilarity",
        2,
        2,
        text::levenshtein_similarity,
    ),
    f("apoc.text.lpad", 2, 3, text::lpad),
    random("apoc.text.random", 1, 2, text::random),
    f("apoc.text.regexGroups", 2, 2, text::regex_groups),
    f("apoc.text.regreplace", 3, 3, text::replace),
    f("apoc.text.repeat", 2, 2, text::repeat),
    f("apoc.text.replace", 3, 3, text::replace),
    f("apoc.text.rpad", 2, 3, text::rpad),
    f("apoc.text.slug", 1, 2, text::slug),
    f("apoc.text.snakeCase", 1, 1, text::snake_case),
    f("apoc.text.split", 2, 3, text::split),
    f("apoc.text.swapCase", 1, 1, text::swap_case),
    f("apoc.text.toUpperCase", 1, 1, text::to_upper_case),
    f("apoc.text.upperCamelCase", 1, 1, text::upper_camel_case),
    f("apoc.text.urldecode", 1, 1, text::url_decode),
    f("apoc.text.urlencode", 1, 1, text::url_encode),
    f("apoc.version", 0, 0, version),
    f("gds.util.asNode", 1, 1, gds::as_node),
    f("gds.util.asNodes", 1, 1, gds::as_nodes),
    f("gds.util.infinity", 0, 0, gds::infinity),
    f("gds.util.isFinite", 1, 1, gds::is_finite),
    f("gds.util.isInfinite", 1, 1, gds::is_infinite),
    f("gds.util.NaN", 0, 0, gds::nan),
    f("gds.version", 0, 0, gds::version),
];

/// Resolves a (case-insensitive, dotted) name.
/// Every library function, in the table's order (for `SHOW FUNCTIONS`).
pub(crate) fn all() -> &'static [LibraryFn] {
    TABLE
}

pub(crate) fn lookup(qualified: &str) -> Option<&'static LibraryFn> {
    let namespaced = |prefix: &str| {
        qualified
            .get(..prefix.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
    };
    if qualified.len() > 64 || !(namespaced("apoc.") || namespaced("gds.")) {
        return None;
    }
    let lower = qualified.to_ascii_lowercase();
    TABLE
        .binary_search_by(|e| e.name.to_ascii_lowercase().cmp(&lower))
        .ok()
        .map(|i| &TABLE[i])
}

/// An integer argument (a float is truncated, as APOC's Java conversion does); fails naming
/// the function and the argument for anything else.
pub(crate) fn int(name: &str, argument: &str, v: &Value) -> Result<i64> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Float(f) => Ok(*f as i64),
        other => Err(bad(
            name,
            argument,
            format!("must be an integer, got {}", other.value_type().name()),
        )),
    }
}

/// Argument `i`, or `null` when the call left it out.
pub(crate) fn nth(args: &[Value], i: usize) -> &Value {
    args.get(i).unwrap_or(&Value::Null)
}

/// The failure of function `name` for a bad argument.
pub(crate) fn bad(name: &str, argument: &str, problem: impl std::fmt::Display) -> crate::Error {
    crate::procedures::native::bad_arg(name, argument, problem)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_found_by_any_case() {
        assert!(
            TABLE
                .windows(2)
                .all(|w| { w[0].name.to_ascii_lowercase() < w[1].name.to_ascii_lowercase() })
        );
        for e in TABLE {
            assert!(std::ptr::eq(lookup(e.name).unwrap(), e), "{}", e.name);
            assert!(lookup(&e.name.to_ascii_uppercase()).is_some());
        }
        assert!(lookup("apoc.coll.nothing").is_none());
        assert!(lookup("toUpper").is_none());
    }
}
