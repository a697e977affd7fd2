//! Quiver lab layer.
