//! Graph algorithm kernels over compact, immutable adjacency snapshots.
//!
//! A [`Graph`] is a compressed sparse row (CSR) adjacency: nodes are dense `u32` indices
//! `0..n`, each node's neighbours one slice of one array, with optional `f64` weights beside
//! them. It is built once ([`GraphBuilder`]) and never changes, so every kernel may read it
//! from many threads at once. The crate knows nothing of where a graph came from: the
//! procedures that project one from the store map node ids to indices and back.
//!
//! Every kernel runs under a [`Control`]: a work-stealing pool with the number of threads the
//! caller asked for, and a check the kernel calls between bounded steps of work (a block of
//! nodes, an iteration), which stops it with [`Interrupted`] when the caller was cancelled or
//! ran out of time.
//!
//! Kernels, one module each:
//! - [`centrality`]: PageRank and ArticleRank, degree centrality, closeness and betweenness.
//! - [`components`]: weakly connected components (a concurrent union-find) and strongly
//!   connected components.
//! - [`triangles`]: triangle counts and the local clustering coefficient.
//! - [`community`]: Louvain modularity optimisation, label propagation, k-core decomposition.
//! - [`paths`]: breadth- and depth-first traversal, Dijkstra's shortest paths.
//! - [`similarity`]: node similarity (Jaccard over out-neighbours), each node's top k.
//! - [`embeddings`]: FastRP node embeddings.

pub mod centrality;
pub mod community;
pub mod components;
mod control;
pub mod embeddings;
mod graph;
pub mod paths;
pub mod similarity;
pub mod triangles;

pub use control::{Control, Interrupted, sample, unlimited};
pub use graph::{Aggregation, Graph, GraphBuilder};
