//! Quiver http layer.
