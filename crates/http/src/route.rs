//! Which endpoint a request is for.
//!
//! ```text
//! GET    /                                  discovery
//! POST   /db/{db}/tx/commit                 run statements in a one-shot transaction
//! POST   /db/{db}/tx                        open a transaction (and run statements in it)
//! POST   /db/{db}/tx/{id}                   run more statements, reset the idle deadline
//! POST   /db/{db}/tx/{id}/commit            run statements, then commit
//! DELETE /db/{db}/tx/{id}                   roll back
//! POST   /db/{db}/query/v2                  Query API
//! POST   /db/{db}/query/v2/tx               Query API: open a transaction (and run a statement)
//! POST   /db/{db}/query/v2/tx/{id}          run a statement, reset the idle deadline
//! POST   /db/{db}/query/v2/tx/{id}/commit   run a statement, then commit
//! DELETE /db/{db}/query/v2/tx/{id}          roll back
//! ...    /db/data/transaction[/{id}][/commit]   the same under Neo4j 3.x paths, default database
//! ```

use http::Method;

/// The transactional endpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxEndpoint {
    Begin,
    Autocommit,
    Run(u64),
    Commit(u64),
    Rollback(u64),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    Discovery,
    Tx {
        /// `None` for the 3.x paths, which address the default database.
        database: Option<String>,
        endpoint: TxEndpoint,
    },
    Query {
        database: String,
    },
    /// The Query API's explicit transactions (`Autocommit` never: that is `Query`).
    QueryTx {
        database: String,
        endpoint: TxEndpoint,
    },
}

/// Why a request has no route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Miss {
    NotFound,
    /// The path exists but not for this method; carries the `Allow` header.
    Method(&'static str),
    /// A transaction path whose id is not a number: no such transaction.
    BadTransactionId,
    /// The same on a Query API path, which answers in its own form naming the id.
    BadQueryTransactionId(String),
}

/// Longest database name accepted in a path (Neo4j allows 63 characters).
const DATABASE_NAME_BYTES_MAX: usize = 63;

pub fn route(method: &Method, path: &str) -> Result<Route, Miss> {
    let path = path
        .strip_suffix('/')
        .filter(|p| !p.is_empty())
        .unwrap_or(path);
    if path == "/" {
        return if method == Method::GET || method == Method::HEAD {
            Ok(Route::Discovery)
        } else {
            Err(Miss::Method("GET, HEAD"))
        };
    }
    let mut segments = path.strip_prefix('/').unwrap_or(path).split('/');
    if segments.next() != Some("db") {
        return Err(Miss::NotFound);
    }
    let Some(database) = segments.next().filter(|d| valid_database(d)) else {
        return Err(Miss::NotFound);
    };
    let rest: Vec<&str> = segments.collect();
    match (database, rest.as_slice()) {
        ("data", ["transaction", tail @ ..]) => tx_route(method, None, tail),
        (db, ["tx", tail @ ..]) => tx_route(method, Some(db.to_owned()), tail),
        (db, ["query", "v2", "tx", tail @ ..]) => {
            let endpoint = match tx_route(method, None, tail) {
                Ok(Route::Tx { endpoint, .. }) if endpoint != TxEndpoint::Autocommit => endpoint,
                Err(Miss::BadTransactionId) => {
                    return Err(Miss::BadQueryTransactionId(tail[0].to_owned()));
                }
                Err(miss) => return Err(miss),
                Ok(_) => return Err(Miss::NotFound),
            };
            Ok(Route::QueryTx {
                database: db.to_owned(),
                endpoint,
            })
        }
        (db, ["query", "v2"]) => {
            if method == Method::POST {
                Ok(Route::Query {
                    database: db.to_owned(),
                })
            } else {
                Err(Miss::Method("POST"))
            }
        }
        _ => Err(Miss::NotFound),
    }
}

fn valid_database(name: &str) -> bool {
    !name.is_empty() && name.len() <= DATABASE_NAME_BYTES_MAX
}

fn tx_route(method: &Method, database: Option<String>, tail: &[&str]) -> Result<Route, Miss> {
    let endpoint = match tail {
        [] => post_only(method, TxEndpoint::Begin)?,
        ["commit"] => post_only(method, TxEndpoint::Autocommit)?,
        [id] => {
            let id = id.parse().map_err(|_| Miss::BadTransactionId)?;
            if method == Method::POST {
                TxEndpoint::Run(id)
            } else if method == Method::DELETE {
                TxEndpoint::Rollback(id)
            } else {
                return Err(Miss::Method("POST, DELETE"));
            }
        }
        [id, "commit"] => {
            let id = id.parse().map_err(|_| Miss::BadTransactionId)?;
            post_only(method, TxEndpoint::Commit(id))?
        }
        _ => return Err(Miss::NotFound),
    };
    Ok(Route::Tx { database, endpoint })
}

fn post_only(method: &Method, endpoint: TxEndpoint) -> Result<TxEndpoint, Miss> {
    if method == Method::POST {
        Ok(endpoint)
    } else {
        Err(Miss::Method("POST"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[allow(clippy::unnecessary_wraps)] // compared with `route`'s result
    fn tx(db: Option<&str>, endpoint: TxEndpoint) -> Result<Route, Miss> {
        Ok(Route::Tx {
            database: db.map(str::to_owned),
            endpoint,
        })
    }

    #[test]
    fn neo4j_5_paths() {
        let post = Method::POST;
        assert_eq!(route(&Method::GET, "/"), Ok(Route::Discovery));
        assert_eq!(
            route(&post, "/db/neo4j/tx"),
            tx(Some("neo4j"), TxEndpoint::Begin)
        );
        assert_eq!(
            route(&post, "/db/neo4j/tx/commit"),
            tx(Some("neo4j"), TxEndpoint::Autocommit)
        );
        assert_eq!(
            route(&post, "/db/neo4j/tx/7"),
            tx(Some("neo4j"), TxEndpoint::Run(7))
        );
        assert_eq!(
            route(&post, "/db/neo4j/tx/7/commit/"),
            tx(Some("neo4j"), TxEndpoint::Commit(7))
        );
        assert_eq!(
            route(&Method::DELETE, "/db/neo4j/tx/7"),
            tx(Some("neo4j"), TxEndpoint::Rollback(7))
        );
        assert_eq!(
            route(&post, "/db/neo4j/query/v2"),
            Ok(Route::Query {
                database: "neo4j".to_owned()
            })
        );
    }

    #[test]
    fn query_api_transaction_paths() {
        let query_tx = |endpoint| {
            Ok(Route::QueryTx {
                database: "neo4j".to_owned(),
                endpoint,
            })
        };
        let post = Method::POST;
        assert_eq!(
            route(&post, "/db/neo4j/query/v2/tx"),
            query_tx(TxEndpoint::Begin)
        );
        assert_eq!(
            route(&post, "/db/neo4j/query/v2/tx/9"),
            query_tx(TxEndpoint::Run(9))
        );
        assert_eq!(
            route(&post, "/db/neo4j/query/v2/tx/9/commit"),
            query_tx(TxEndpoint::Commit(9))
        );
        assert_eq!(
            route(&Method::DELETE, "/db/neo4j/query/v2/tx/9"),
            query_tx(TxEndpoint::Rollback(9))
        );
        assert_eq!(
            route(&post, "/db/neo4j/query/v2/tx/lyU"),
            Err(Miss::BadQueryTransactionId("lyU".to_owned()))
        );
        assert_eq!(
            route(&post, "/db/neo4j/query/v2/tx/commit"),
            Err(Miss::NotFound)
        );
        assert_eq!(
            route(&Method::GET, "/db/neo4j/query/v2/tx"),
            Err(Miss::Method("POST"))
        );
    }

    #[test]
    fn legacy_paths_address_the_default_database() {
        let post = Method::POST;
        assert_eq!(
            route(&post, "/db/data/transaction/commit"),
            tx(None, TxEndpoint::Autocommit)
        );
        assert_eq!(
            route(&post, "/db/data/transaction"),
            tx(None, TxEndpoint::Begin)
        );
        assert_eq!(
            route(&post, "/db/data/transaction/3"),
            tx(None, TxEndpoint::Run(3))
        );
        assert_eq!(
            route(&post, "/db/data/transaction/3/commit"),
            tx(None, TxEndpoint::Commit(3))
        );
    }

    #[test]
    fn misses() {
        assert_eq!(
            route(&Method::GET, "/db/neo4j/tx"),
            Err(Miss::Method("POST"))
        );
        assert_eq!(
            route(&Method::PUT, "/db/neo4j/tx/1"),
            Err(Miss::Method("POST, DELETE"))
        );
        assert_eq!(
            route(&Method::POST, "/db/neo4j/tx/x"),
            Err(Miss::BadTransactionId)
        );
        assert_eq!(
            route(&Method::POST, "/db/neo4j/tx/1/2"),
            Err(Miss::NotFound)
        );
        assert_eq!(route(&Method::POST, "/nothing"), Err(Miss::NotFound));
        assert_eq!(route(&Method::POST, "/db//tx"), Err(Miss::NotFound));
        assert_eq!(route(&Method::POST, ""), Err(Miss::NotFound));
        let long = format!("/db/{}/tx", "a".repeat(64));
        assert_eq!(route(&Method::POST, &long), Err(Miss::NotFound));
    }
}
