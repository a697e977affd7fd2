//! Quiver storage layer.
