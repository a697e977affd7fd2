//! `quiver lab --workload ldbc-snb`: the LDBC Social Network Benchmark's Interactive workload
//! (v1: 14 complex reads, 7 short reads, 8 updates), generated, loaded, driven and checked here.
//!
//! - [`ops`] names every operation and its substitution parameters: the seam between the
//!   generator that picks them and the queries that bind them.
//! - [`datagen`] generates the data set at a scale: the bulk files `quiver import` loads (and
//!   [`datagen::import`] loads), the update stream and the substitution parameters.
//! - [`queries`] holds each operation's Cypher, as Neo4j 5 runs it, and binds an operation's
//!   parameters to it; it names the result columns that carry person and message ids.
//! - [`driver`] schedules the mix as LDBC's driver does (updates at their compressed times and
//!   after what they depend on, complex reads by frequency, short-read walks) over Bolt, and
//!   measures each operation and the on-time ratio.
//! - [`durable`] looks, after `kill -9` and a restart, for every update the server
//!   acknowledged.
//! - [`run`] is `quiver lab --workload ldbc-snb`: generate and load once, copy, serve, drive,
//!   report, and the crash check; or (`--snb-answers`) every curated read once, its rows
//!   written for comparison with another implementation.
//!
//! # The graph
//! The schema is SNB's, as Neo4j holds it. Ids are 64-bit integers in an `id` property; a
//! `Post` and a `Comment` are both `Message`s and share one id space. Dates of birth are
//! `date`s, every other time a UTC `datetime` to the millisecond.
//!
//! | label | properties |
//! |---|---|
//! | `Person` | `id`, `firstName`, `lastName`, `gender`, `birthday` (date), `creationDate`, `locationIP`, `browserUsed`, `languages` (list of strings), `emails` (list of strings) |
//! | `City`, `Country`, `Continent` (each also `Place`) | `id`, `name`, `url` |
//! | `University`, `Company` (each also `Organisation`) | `id`, `name`, `url` |
//! | `Tag`, `TagClass` | `id`, `name`, `url` |
//! | `Forum` | `id`, `title`, `creationDate` |
//! | `Post` (also `Message`) | `id`, `imageFile`, `creationDate`, `locationIP`, `browserUsed`, `language`, `content`, `length` |
//! | `Comment` (also `Message`) | `id`, `creationDate`, `locationIP`, `browserUsed`, `content`, `length` |
//!
//! | relationship | properties |
//! |---|---|
//! | `(Person)-[:KNOWS]->(Person)` | `creationDate` (one direction stored; read undirected) |
//! | `(Person)-[:IS_LOCATED_IN]->(City)` | |
//! | `(Person)-[:HAS_INTEREST]->(Tag)` | |
//! | `(Person)-[:STUDY_AT]->(University)` | `classYear` (integer) |
//! | `(Person)-[:WORK_AT]->(Company)` | `workFrom` (integer year) |
//! | `(Person)-[:LIKES]->(Post or Comment)` | `creationDate` |
//! | `(Forum)-[:HAS_MEMBER]->(Person)` | `joinDate` |
//! | `(Forum)-[:HAS_MODERATOR]->(Person)` | |
//! | `(Forum)-[:HAS_TAG]->(Tag)`, `(Post or Comment)-[:HAS_TAG]->(Tag)` | |
//! | `(Forum)-[:CONTAINER_OF]->(Post)` | |
//! | `(Post or Comment)-[:HAS_CREATOR]->(Person)` | |
//! | `(Post or Comment)-[:IS_LOCATED_IN]->(Country)` | |
//! | `(Comment)-[:REPLY_OF]->(Post or Comment)` | |
//! | `(City)-[:IS_PART_OF]->(Country)-[:IS_PART_OF]->(Continent)` | |
//! | `(University)-[:IS_LOCATED_IN]->(City)`, `(Company)-[:IS_LOCATED_IN]->(Country)` | |
//! | `(Tag)-[:HAS_TYPE]->(TagClass)`, `(TagClass)-[:IS_SUBCLASS_OF]->(TagClass)` | |

pub mod datagen;
pub mod driver;
pub mod durable;
pub mod ops;
pub mod queries;
pub mod run;
