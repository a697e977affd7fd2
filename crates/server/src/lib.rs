//! Quiver server layer.
