//! Quiver bolt layer.
