//! Quiver cypher layer.
