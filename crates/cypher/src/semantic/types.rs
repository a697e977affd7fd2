//! Static types, where the text tells them: enough to catch the type errors Neo4j reports at
//! compile time (`WHERE 1`, `labels(path)`, `MATCH (n)` on a list), never a full type system.
//! Whatever is not known is [`Type::Any`], and `Any` never causes an error.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// Not known statically.
    Any,
    Null,
    Boolean,
    Integer,
    Float,
    String,
    List(Box<Type>),
    Map,
    Node,
    Relationship,
    Path,
}

impl Type {
    pub(crate) fn list_of(element: Type) -> Type {
        Type::List(Box::new(element))
    }

    /// Whether a value of this type could be of `wanted` at run time.
    pub(crate) fn may_be(&self, wanted: &Type) -> bool {
        match (self, wanted) {
            (Type::Any | Type::Null, _) | (_, Type::Any) => true,
            (Type::List(_), Type::List(_)) => true,
            (a, b) => a == b,
        }
    }

    /// Known, and not of `wanted`.
    pub(crate) fn is_not(&self, wanted: &Type) -> bool {
        !self.may_be(wanted)
    }

    /// Known, and none of `wanted`.
    pub(crate) fn is_none_of(&self, wanted: &[Type]) -> bool {
        wanted.iter().all(|w| self.is_not(w))
    }

    /// What iterating over a value of this type gives.
    pub(crate) fn element(&self) -> Type {
        match self {
            Type::List(element) => (**element).clone(),
            _ => Type::Any,
        }
    }

    /// The type covering both (`Any` unless they agree; `null` fits anything).
    pub(crate) fn join(&self, other: &Type) -> Type {
        match (self, other) {
            (Type::Null, t) | (t, Type::Null) => t.clone(),
            (a, b) if a == b => a.clone(),
            (Type::List(a), Type::List(b)) => Type::list_of(a.join(b)),
            _ => Type::Any,
        }
    }

    pub(crate) fn is_number(&self) -> bool {
        matches!(self, Type::Integer | Type::Float)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Any => f.write_str("Any"),
            Type::Null => f.write_str("Null"),
            Type::Boolean => f.write_str("Boolean"),
            Type::Integer => f.write_str("Integer"),
            Type::Float => f.write_str("Float"),
            Type::String => f.write_str("String"),
            Type::List(element) => write!(f, "List<{element}>"),
            Type::Map => f.write_str("Map"),
            Type::Node => f.write_str("Node"),
            Type::Relationship => f.write_str("Relationship"),
            Type::Path => f.write_str("Path"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_and_null_fit_anything() {
        assert!(Type::Any.may_be(&Type::Node));
        assert!(Type::Null.may_be(&Type::Boolean));
        assert!(Type::Integer.is_not(&Type::Boolean));
        assert!(Type::list_of(Type::Integer).may_be(&Type::list_of(Type::Any)));
        assert!(Type::Path.is_none_of(&[Type::Node, Type::Relationship]));
    }

    #[test]
    fn join_keeps_agreement_only() {
        assert_eq!(Type::Integer.join(&Type::Null), Type::Integer);
        assert_eq!(Type::Integer.join(&Type::Float), Type::Any);
        assert_eq!(
            Type::list_of(Type::String).join(&Type::list_of(Type::String)),
            Type::list_of(Type::String)
        );
        assert_eq!(Type::list_of(Type::Any).to_string(), "List<Any>");
    }
}
