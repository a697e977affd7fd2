//! Quiver tck layer.
