//! Quiver engine layer.
