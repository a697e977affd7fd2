//! Search procedures over the store's indexes: `db.index.fulltext.*`.

pub(crate) mod fulltext;
