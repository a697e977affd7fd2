use std::sync::Arc;

use quiver_value::{Map, Value};

use crate::{Database, EngineConfig, QueryResult, Setting, TxOptions};

fn db() -> Arc<Database> {
    Database::open_in_memory(EngineConfig::default())
}

fn run(db: &Database, query: &str) -> QueryResult {
    db.execute(query, Map::new())
        .unwrap_or_else(|e| panic!("{query}: {e}"))
}

fn columns(result: &QueryResult) -> Vec<&str> {
    result.columns.iter().map(|c| &**c).collect()
}

/// Runs `query` in an explicit transaction begun with `opts`; returns columns and rows.
fn run_in(db: &Database, opts: TxOptions, queries: &[&str]) -> Vec<Vec<Value>> {
    let mut tx = db.begin(opts).expect("begin");
    let mut rows = Vec::new();
    for q in queries {
        rows.clear();
        let id = tx.run(q, Map::new()).unwrap_or_else(|e| panic!("{q}: {e}"));
        tx.pull(id, -1, &mut rows).expect("pull");
    }
    tx.rollback().expect("rollback");
    rows
}

fn column(result: &QueryResult, name: &str) -> Vec<Value> {
    let i = result
        .columns
        .iter()
        .position(|c| &**c == name)
        .unwrap_or_else(|| panic!("no column {name} in {:?}", result.columns));
    result.rows.iter().map(|r| r[i].clone()).collect()
}

fn s(text: &str) -> Value {
    Value::from(text)
}

fn graph(db: &Database) {
    run(
        db,
        "CREATE (a:Person {name: 'Ann', age: 42}), (b:Person {name: 'Bob', tags: ['x']}), \
         (c:Company:Org {name: 'Acme'}), (a)-[:WORKS_AT {since: 2020}]->(c), (a)-[:KNOWS]->(b)",
    );
}

#[test]
fn show_databases_lists_neo4j_with_neo4j_columns() {
    let db = db();
    let result = run(&db, "SHOW DATABASES");
    assert_eq!(
        columns(&result),
        [
            "name",
            "type",
            "aliases",
            "access",
            "address",
            "role",
            "writer",
            "requestedStatus",
            "currentStatus",
            "statusMessage",
            "default",
            "home",
            "constituents"
        ]
    );
    assert_eq!(column(&result, "name"), [s("neo4j")]);
    assert_eq!(column(&result, "currentStatus"), [s("online")]);
    assert_eq!(column(&result, "default"), [Value::Bool(true)]);
    assert_eq!(column(&result, "home"), [Value::Bool(true)]);
    assert_eq!(column(&result, "writer"), [Value::Bool(true)]);

    let all = run(&db, "SHOW DATABASES YIELD *");
    assert_eq!(all.columns.len(), 26);
    assert!(columns(&all).contains(&"databaseID"));
    assert!(columns(&all).contains(&"lastCommittedTxn"));

    let named = run(&db, "SHOW DATABASE neo4j YIELD name, currentStatus");
    assert_eq!(named.rows, [vec![s("neo4j"), s("online")]]);
    assert!(run(&db, "SHOW DATABASE other").rows.is_empty());
    let filtered = run(&db, "SHOW DATABASES WHERE name = 'system'");
    assert!(filtered.rows.is_empty());
    // WHERE may test a column the default output leaves out.
    let hidden = run(&db, "SHOW DATABASES WHERE store IS NOT NULL");
    assert_eq!(hidden.rows.len(), 1);
    assert!(!columns(&hidden).contains(&"store"));

    for query in ["SHOW DEFAULT DATABASE", "SHOW HOME DATABASE"] {
        let one = run(&db, query);
        assert_eq!(column(&one, "name"), [s("neo4j")], "{query}");
        assert!(!columns(&one).contains(&"default"), "{query}");
        assert!(!columns(&one).contains(&"home"), "{query}");
    }
    let returned = run(
        &db,
        "SHOW DATABASES YIELD name, type WHERE type = 'standard' RETURN name AS db",
    );
    assert_eq!(columns(&returned), ["db"]);
    assert_eq!(returned.rows, [vec![s("neo4j")]]);
}

#[test]
fn show_procedures_lists_every_procedure_with_its_signature() {
    let db = db();
    let result = run(&db, "SHOW PROCEDURES");
    assert_eq!(
        columns(&result),
        ["name", "description", "mode", "worksOnSystem"]
    );
    let names = column(&result, "name");
    for name in [
        "db.labels",
        "db.schema.visualization",
        "dbms.clientConfig",
        "tx.setMetaData",
        "apoc.meta.data",
    ] {
        assert!(names.contains(&s(name)), "{name} in {names:?}");
    }
    let mut sorted = names.clone();
    sorted.sort_by(quiver_value::order);
    assert_eq!(names, sorted);

    let all = run(&db, "SHOW PROCEDURES YIELD *");
    assert_eq!(all.columns.len(), 13);
    let one = run(
        &db,
        "SHOW PROCEDURES YIELD name, signature, mode, argumentDescription \
         WHERE name = 'db.awaitIndex' RETURN signature, mode, argumentDescription",
    );
    assert_eq!(
        one.rows[0][0],
        s("db.awaitIndex(indexName :: STRING, timeOutSeconds = 300 :: INTEGER)")
    );
    assert_eq!(one.rows[0][1], s("READ"));
    let Value::List(args) = &one.rows[0][2] else {
        panic!("{:?}", one.rows)
    };
    assert_eq!(args.len(), 2);
    let labels = run(
        &db,
        "SHOW PROCEDURES YIELD name, signature, description WHERE name = 'db.labels' \
         RETURN signature, description <> '' AS described",
    );
    assert_eq!(
        labels.rows,
        [vec![
            s("db.labels() :: (label :: STRING)"),
            Value::Bool(true)
        ]]
    );
    let dbms = run(
        &db,
        "SHOW PROCEDURES YIELD name, mode, worksOnSystem WHERE name = 'dbms.listConfig' \
         RETURN mode, worksOnSystem",
    );
    assert_eq!(dbms.rows, [vec![s("DBMS"), Value::Bool(true)]]);
}

#[test]
fn show_functions_lists_the_built_in_functions() {
    let db = db();
    let result = run(&db, "SHOW FUNCTIONS");
    assert_eq!(columns(&result), ["name", "category", "description"]);
    let names = column(&result, "name");
    assert!(names.contains(&s("toUpper")));
    assert!(names.contains(&s("datetime.truncate")));
    let all = run(&db, "SHOW FUNCTIONS YIELD *");
    assert_eq!(all.columns.len(), 12);
    let count = run(
        &db,
        "SHOW FUNCTIONS YIELD name, category, aggregating, isBuiltIn WHERE name IN ['count', 'apoc.version'] \
         RETURN name, category, aggregating, isBuiltIn ORDER BY name",
    );
    assert_eq!(
        count.rows,
        [
            vec![
                s("apoc.version"),
                s("Other"),
                Value::Bool(false),
                Value::Bool(false)
            ],
            vec![
                s("count"),
                s("Aggregating"),
                Value::Bool(true),
                Value::Bool(true)
            ],
        ]
    );
    let described = run(
        &db,
        "SHOW FUNCTIONS YIELD name, description WHERE description = '' RETURN name",
    );
    assert!(described.rows.is_empty(), "{:?}", described.rows);
}

#[test]
fn show_settings_lists_the_engine_settings_or_the_embedders() {
    let db = db();
    let result = run(&db, "SHOW SETTINGS");
    assert_eq!(
        columns(&result),
        ["name", "value", "isDynamic", "defaultValue", "description"]
    );
    assert!(column(&result, "name").contains(&s("db.transaction.timeout")));
    let one = run(&db, "SHOW SETTINGS 'db.memory.transaction.max' YIELD *");
    assert_eq!(one.rows.len(), 1);
    assert_eq!(one.columns.len(), 9);
    assert_eq!(column(&one, "value"), [s(&(1u64 << 30).to_string())]);
    let listed = run(
        &db,
        "SHOW SETTINGS ['db.transaction.timeout', 'nope'], 'db.lock.acquisition.timeout' YIELD name",
    );
    assert_eq!(listed.rows.len(), 2);

    db.set_settings(vec![Setting::new("server.custom", "7", "A setting.")]);
    let replaced = run(&db, "SHOW SETTINGS YIELD name, value");
    assert_eq!(replaced.rows, [vec![s("server.custom"), s("7")]]);
    let e = db
        .execute("SHOW SETTINGS 42", Map::new())
        .expect_err("a number is no setting name");
    assert!(e.message().contains("Setting names"), "{e}");
}

#[test]
fn show_current_user_names_the_transactions_user() {
    let db = db();
    let opts = TxOptions {
        user: Some(Arc::from("alice")),
        ..TxOptions::default()
    };
    let rows = run_in(&db, opts, &["SHOW CURRENT USER"]);
    assert_eq!(
        rows,
        [vec![
            s("alice"),
            Value::Null,
            Value::Bool(false),
            Value::Null,
            Value::Null
        ]]
    );
    let result = run(&db, "SHOW CURRENT USER");
    assert_eq!(
        columns(&result),
        [
            "user",
            "roles",
            "passwordChangeRequired",
            "suspended",
            "home"
        ]
    );
    assert!(result.rows.is_empty());
}

#[test]
fn tx_set_metadata_is_what_show_transactions_shows() {
    let db = db();
    let rows = run_in(
        &db,
        TxOptions::default(),
        &[
            "CALL tx.setMetaData({app: 'test', n: 1})",
            "SHOW TRANSACTIONS YIELD metaData RETURN metaData",
        ],
    );
    let Value::Map(m) = &rows[0][0] else {
        panic!("{rows:?}")
    };
    assert_eq!(m.get("app"), Some(&s("test")));
    assert_eq!(m.get("n"), Some(&Value::Int(1)));
    let e = db
        .execute("CALL tx.setMetaData('x')", Map::new())
        .expect_err("not a map");
    assert!(e.message().contains("data"), "{e}");
}

#[test]
fn db_info_client_config_and_list_config() {
    let db = db();
    let info = run(&db, "CALL db.info()");
    assert_eq!(columns(&info), ["id", "name", "creationDate"]);
    assert_eq!(column(&info, "name"), [s("neo4j")]);
    let Value::String(id) = &info.rows[0][0] else {
        panic!()
    };
    assert_eq!(id.len(), 64);

    let config = run(&db, "CALL dbms.clientConfig()");
    assert_eq!(columns(&config), ["name", "description", "value"]);
    assert!(column(&config, "name").contains(&s("browser.post_connect_cmd")));

    let listed = run(&db, "CALL dbms.listConfig('MEMORY') YIELD name RETURN name");
    assert_eq!(
        listed.rows,
        [
            vec![s("db.memory.transaction.max")],
            vec![s("dbms.memory.transaction.total.max")],
            vec![s("server.memory.query_cache.per_db_cache_num_entries")]
        ]
    );
    let all = run(&db, "CALL dbms.listConfig()");
    assert_eq!(columns(&all), ["name", "description", "value", "dynamic"]);
    assert!(all.rows.len() > 2);
}

#[test]
fn schema_procedures_describe_labels_types_and_properties() {
    let db = db();
    graph(&db);
    run(&db, "CREATE INDEX person_name FOR (p:Person) ON (p.name)");
    let vis = run(&db, "CALL db.schema.visualization()");
    assert_eq!(columns(&vis), ["nodes", "relationships"]);
    let (Value::List(nodes), Value::List(rels)) = (&vis.rows[0][0], &vis.rows[0][1]) else {
        panic!("{:?}", vis.rows)
    };
    let names: Vec<String> = nodes
        .iter()
        .map(|n| match n {
            Value::Node(n) => n.data.as_ref().unwrap().properties["name"].to_string(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    let person = nodes
        .iter()
        .find_map(|n| match n {
            Value::Node(n) if n.data.as_ref().unwrap().labels[0].as_ref() == "Person" => {
                n.data.clone()
            }
            _ => None,
        })
        .unwrap();
    assert_eq!(person.properties["indexes"], Value::from(vec![s("name")]));
    // WORKS_AT joins Person to both of Acme's labels; KNOWS, Person to Person.
    assert_eq!(rels.len(), 3, "{rels:?}");

    let nodes = run(
        &db,
        "CALL db.schema.nodeTypeProperties() YIELD nodeType, propertyName, propertyTypes, mandatory \
         RETURN nodeType, propertyName, propertyTypes, mandatory ORDER BY nodeType, propertyName",
    );
    assert_eq!(
        nodes.rows,
        [
            vec![
                s(":`Company`:`Org`"),
                s("name"),
                Value::from(vec![s("String")]),
                Value::Bool(true)
            ],
            vec![
                s(":`Person`"),
                s("age"),
                Value::from(vec![s("Long")]),
                Value::Bool(false)
            ],
            vec![
                s(":`Person`"),
                s("name"),
                Value::from(vec![s("String")]),
                Value::Bool(true)
            ],
            vec![
                s(":`Person`"),
                s("tags"),
                Value::from(vec![s("StringArray")]),
                Value::Bool(false)
            ],
        ]
    );
    let rels = run(
        &db,
        "CALL db.schema.relTypeProperties() YIELD relType, propertyName, mandatory \
         RETURN relType, propertyName, mandatory ORDER BY relType",
    );
    assert_eq!(
        rels.rows,
        [
            vec![s(":`KNOWS`"), Value::Null, Value::Bool(false)],
            vec![s(":`WORKS_AT`"), s("since"), Value::Bool(true)],
        ]
    );
}

#[test]
fn await_indexes_returns_once_online_and_names_bad_arguments() {
    let db = db();
    run(&db, "CREATE INDEX person_name FOR (p:Person) ON (p.name)");
    run(&db, "CALL db.awaitIndexes()");
    run(&db, "CALL db.awaitIndexes(5)");
    run(&db, "CALL db.awaitIndex('person_name')");
    run(&db, "CALL db.awaitIndex('person_name', 1)");
    let e = db
        .execute("CALL db.awaitIndex('missing')", Map::new())
        .expect_err("no such index");
    assert_eq!(e.status_code(), quiver_status::Status::ProcedureCallFailed);
    assert!(e.message().contains("missing"), "{e}");
    let e = db
        .execute("CALL db.awaitIndexes(-1)", Map::new())
        .expect_err("negative timeout");
    assert!(e.message().contains("timeOutSeconds"), "{e}");
}

#[test]
fn apoc_meta_data_answers_langchains_queries() {
    let db = db();
    graph(&db);
    run(
        &db,
        "CREATE CONSTRAINT company_name FOR (c:Company) REQUIRE c.name IS UNIQUE",
    );
    let result = run(&db, "CALL apoc.meta.data()");
    assert_eq!(
        columns(&result),
        [
            "label",
            "property",
            "count",
            "unique",
            "index",
            "existence",
            "type",
            "array",
            "sample",
            "left",
            "right",
            "other",
            "otherLabels",
            "elementType"
        ]
    );
    // LangChain's node, relationship-property and pattern queries.
    let nodes = run(
        &db,
        "CALL apoc.meta.data() YIELD label, other, elementType, type, property \
         WHERE NOT type = 'RELATIONSHIP' AND elementType = 'node' \
         WITH label AS nodeLabels, collect({property: property, type: type}) AS properties \
         RETURN {labels: nodeLabels, properties: properties} AS output ORDER BY nodeLabels",
    );
    let text: Vec<String> = nodes.rows.iter().map(|r| r[0].to_string()).collect();
    assert_eq!(text.len(), 3, "{text:?}");
    assert!(
        text[0].contains("Company") && text[0].contains("STRING"),
        "{text:?}"
    );
    assert!(
        text[2].contains("age") && text[2].contains("INTEGER"),
        "{text:?}"
    );
    assert!(
        text[2].contains("tags") && text[2].contains("LIST"),
        "{text:?}"
    );
    let rel_props = run(
        &db,
        "CALL apoc.meta.data() YIELD label, other, elementType, type, property \
         WHERE NOT type = 'RELATIONSHIP' AND elementType = 'relationship' \
         RETURN label, property, type",
    );
    assert_eq!(
        rel_props.rows,
        [vec![s("WORKS_AT"), s("since"), s("INTEGER")]]
    );
    let patterns = run(
        &db,
        "CALL apoc.meta.data() YIELD label, other, elementType, type, property \
         WHERE type = 'RELATIONSHIP' AND elementType = 'node' \
         UNWIND other AS other_node \
         RETURN {start: label, type: property, end: toString(other_node)} AS output",
    );
    let mut patterns: Vec<String> = patterns.rows.iter().map(|r| r[0].to_string()).collect();
    patterns.sort();
    assert_eq!(
        patterns,
        [
            "{end: 'Company', start: 'Person', type: 'WORKS_AT'}",
            "{end: 'Org', start: 'Person', type: 'WORKS_AT'}",
            "{end: 'Person', start: 'Person', type: 'KNOWS'}",
        ]
    );
    let unique = run(
        &db,
        "CALL apoc.meta.data() YIELD label, property, unique, count \
         WHERE label = 'Company' RETURN property, unique, count",
    );
    assert_eq!(
        unique.rows,
        [vec![s("name"), Value::Bool(true), Value::Int(1)]]
    );
}

#[test]
fn apoc_meta_data_config_filters_and_is_checked() {
    let db = db();
    graph(&db);
    let limited = run(
        &db,
        "CALL apoc.meta.data({includeLabels: ['Person'], excludeRels: ['KNOWS']}) YIELD label, property \
         RETURN DISTINCT label, property ORDER BY label, property",
    );
    assert!(
        limited
            .rows
            .iter()
            .all(|r| r[0] == s("Person") || r[0] == s("WORKS_AT")),
        "{:?}",
        limited.rows
    );
    assert!(!limited.rows.iter().any(|r| r[1] == s("KNOWS")));
    let e = db
        .execute("CALL apoc.meta.data({sample: 'all'})", Map::new())
        .expect_err("bad sample");
    assert_eq!(e.status_code(), quiver_status::Status::ProcedureCallFailed);
    assert!(e.message().contains("config.sample"), "{e}");
}

#[test]
fn apoc_meta_schema_stats_and_schema_listings() {
    let db = db();
    graph(&db);
    run(&db, "CREATE INDEX person_name FOR (p:Person) ON (p.name)");
    let schema = run(&db, "CALL apoc.meta.schema() YIELD value RETURN value");
    let Value::Map(schema) = &schema.rows[0][0] else {
        panic!()
    };
    let Value::Map(person) = &schema["Person"] else {
        panic!("{schema:?}")
    };
    assert_eq!(person["type"], s("node"));
    assert_eq!(person["count"], Value::Int(2));
    let Value::Map(props) = &person["properties"] else {
        panic!()
    };
    let Value::Map(name) = &props["name"] else {
        panic!()
    };
    assert_eq!(name["type"], s("STRING"));
    assert_eq!(name["indexed"], Value::Bool(true));
    let Value::Map(rels) = &person["relationships"] else {
        panic!()
    };
    assert!(rels.contains_key("WORKS_AT"));
    let Value::Map(works_at) = &schema["WORKS_AT"] else {
        panic!()
    };
    assert_eq!(works_at["type"], s("relationship"));

    let stats = run(&db, "CALL apoc.meta.stats()");
    assert_eq!(
        columns(&stats),
        [
            "labelCount",
            "relTypeCount",
            "propertyKeyCount",
            "nodeCount",
            "relCount",
            "labels",
            "relTypes",
            "relTypesCount",
            "stats"
        ]
    );
    assert_eq!(stats.rows[0][0], Value::Int(3));
    assert_eq!(stats.rows[0][1], Value::Int(2));
    assert_eq!(stats.rows[0][3], Value::Int(3));
    assert_eq!(stats.rows[0][4], Value::Int(2));
    let Value::Map(rel_types) = &stats.rows[0][6] else {
        panic!()
    };
    assert_eq!(rel_types["()-[:KNOWS]->()"], Value::Int(1));

    // LangChain's index query.
    let indexes = run(
        &db,
        "CALL apoc.schema.nodes() YIELD label, properties, type, size, valuesSelectivity \
         WHERE type = 'RANGE' RETURN *, size * valuesSelectivity as distinctValues",
    );
    assert_eq!(indexes.rows.len(), 1);
    assert_eq!(column(&indexes, "label"), [s("Person")]);
    assert_eq!(column(&indexes, "size"), [Value::Int(2)]);
    assert_eq!(column(&indexes, "distinctValues"), [Value::Float(2.0)]);
    let rels = run(&db, "CALL apoc.schema.relationships()");
    assert_eq!(columns(&rels), ["name", "type", "properties", "status"]);
    assert!(rels.rows.is_empty());

    let graph = run(&db, "CALL apoc.meta.graph()");
    let (Value::List(nodes), Value::List(rels)) = (&graph.rows[0][0], &graph.rows[0][1]) else {
        panic!("{:?}", graph.rows)
    };
    let props = |v: &Value| match v {
        Value::Node(n) => n.data.as_ref().map(|d| d.properties.clone()),
        Value::Relationship(r) => r.data.as_ref().map(|d| d.properties.clone()),
        _ => None,
    };
    let mut nodes: Vec<String> = nodes
        .iter()
        .map(|n| Value::map(props(n).unwrap_or_default()).to_string())
        .collect();
    nodes.sort();
    assert_eq!(
        nodes,
        [
            "{count: 1, name: 'Company'}",
            "{count: 1, name: 'Org'}",
            "{count: 2, name: 'Person'}"
        ]
    );
    let mut rels: Vec<String> = rels
        .iter()
        .map(|r| Value::map(props(r).unwrap_or_default()).to_string())
        .collect();
    rels.sort();
    assert_eq!(
        rels,
        [
            "{count: 1, type: 'KNOWS'}",
            "{count: 1, type: 'WORKS_AT'}",
            "{count: 1, type: 'WORKS_AT'}"
        ]
    );

    let version = run(&db, "RETURN apoc.version() AS v");
    assert_eq!(version.rows, [vec![s(crate::APOC_VERSION)]]);
}

#[test]
fn samples_are_bounded_and_spread() {
    let db = db();
    run(
        &db,
        "UNWIND range(1, 3000) AS i CREATE (:N {early: i <= 1500, late: CASE WHEN i > 2700 THEN i END})",
    );
    let result = run(
        &db,
        "CALL apoc.meta.data({sample: 100}) YIELD property, count RETURN property, count ORDER BY property",
    );
    // The late property is held by the last tenth of the nodes only: a sample from the
    // start alone would miss it.
    assert_eq!(
        result.rows,
        [
            vec![s("early"), Value::Int(3000)],
            vec![s("late"), Value::Int(3000)]
        ]
    );
}

#[test]
fn show_servers_lists_this_database_by_default_and_the_embedders_servers_when_given() {
    let db = db();
    let result = run(&db, "SHOW SERVERS");
    assert_eq!(
        columns(&result),
        ["name", "address", "state", "health", "hosting"]
    );
    assert_eq!(column(&result, "address"), [s("localhost:7687")]);
    assert_eq!(column(&result, "state"), [s("Enabled")]);
    assert_eq!(column(&result, "health"), [s("Available")]);
    assert_eq!(column(&result, "hosting"), [Value::from(vec![s("neo4j")])]);
    let all = run(&db, "SHOW SERVERS YIELD *");
    assert_eq!(
        columns(&all),
        [
            "serverId",
            "name",
            "address",
            "httpAddress",
            "httpsAddress",
            "state",
            "health",
            "hosting",
            "requestedHosting",
            "tags",
            "allowedDatabases",
            "deniedDatabases",
            "modeConstraint",
            "version",
        ]
    );
    assert_eq!(column(&all, "serverId"), column(&all, "name"));

    db.set_servers(Arc::new(|| {
        let server = |id: &str, address: Option<&str>, health| crate::ServerInfo {
            id: id.to_owned(),
            address: address.map(str::to_owned),
            http_address: address.map(|a| a.replace("7687", "7474")),
            https_address: None,
            health,
            version: "5.26.0".to_owned(),
        };
        vec![
            server("1", Some("a:7687"), crate::ServerHealth::Available),
            server("2", Some("b:7687"), crate::ServerHealth::Unavailable),
            server("3", None, crate::ServerHealth::Unknown),
        ]
    }));
    let members = run(
        &db,
        "SHOW SERVERS YIELD name, address, httpAddress, health, hosting, version \
         WHERE name <> '3' RETURN name, address, httpAddress, health, hosting, version",
    );
    assert_eq!(
        members.rows,
        [
            vec![
                s("1"),
                s("a:7687"),
                s("a:7474"),
                s("Available"),
                Value::from(vec![s("neo4j")]),
                s("5.26.0"),
            ],
            vec![
                s("2"),
                s("b:7687"),
                s("b:7474"),
                s("Unavailable"),
                Value::from(Vec::<Value>::new()),
                s("5.26.0"),
            ],
        ]
    );
    let unknown = run(&db, "SHOW SERVERS WHERE name = '3'");
    assert_eq!(
        unknown.rows,
        [vec![
            s("3"),
            Value::Null,
            s("Enabled"),
            Value::Null,
            Value::from(vec![s("neo4j")]),
        ]]
    );
}

#[test]
fn show_transactions_has_neo4j_5s_default_and_full_columns() {
    let db = db();
    let opts = TxOptions {
        user: Some(Arc::from("alice")),
        ..TxOptions::default()
    };
    let mut tx = db.begin(opts).expect("begin");
    let mut rows = Vec::new();
    let id = tx.run("SHOW TRANSACTIONS", Map::new()).expect("run");
    let columns_of = |tx: &crate::Transaction, id| -> Vec<String> {
        tx.fields(id).iter().map(ToString::to_string).collect()
    };
    assert_eq!(
        columns_of(&tx, id),
        [
            "database",
            "transactionId",
            "currentQueryId",
            "connectionId",
            "clientAddress",
            "username",
            "currentQuery",
            "startTime",
            "status",
            "elapsedTime",
        ]
    );
    tx.pull(id, -1, &mut rows).expect("pull");
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(row[0], s("neo4j"));
    assert_eq!(row[1], s(&tx.id()));
    assert_eq!(row[5], s("alice"));
    assert_eq!(row[6], s("SHOW TRANSACTIONS"));
    assert!(
        matches!(&row[7], Value::String(t) if t.ends_with('Z')),
        "{row:?}"
    );
    assert_eq!(row[8], s("Running"));
    assert!(matches!(row[9], Value::Duration(_)), "{row:?}");

    let id = tx
        .run("SHOW TRANSACTIONS YIELD *", Map::new())
        .expect("run");
    let all = columns_of(&tx, id);
    assert_eq!(all.len(), 39);
    assert_eq!(&all[..3], ["database", "transactionId", "currentQueryId"]);
    assert!(all.iter().any(|c| c == "metaData"));
    assert_eq!(
        all.last().map(String::as_str),
        Some("initializationStackTrace")
    );
    tx.rollback().expect("rollback");
}

#[test]
fn dbms_show_current_user_answers_in_neo4j_4s_columns() {
    let db = db();
    let result = run(&db, "CALL dbms.showCurrentUser()");
    assert_eq!(columns(&result), ["username", "roles", "flags"]);
    assert!(result.rows.is_empty(), "no user, no row");
    let opts = TxOptions {
        user: Some(Arc::from("alice")),
        ..TxOptions::default()
    };
    let rows = run_in(&db, opts, &["CALL dbms.showCurrentUser()"]);
    let empty = Value::from(Vec::<Value>::new());
    assert_eq!(rows, [vec![s("alice"), empty.clone(), empty]]);
}

#[test]
fn dbms_query_jmx_answers_the_metrics_beans_browser_reads_from_the_stores_figures() {
    let db = db();
    graph(&db);
    let result = run(
        &db,
        "CALL dbms.queryJmx('neo4j.metrics:name=neo4j.database.neo4j.ids_in_use.node') \
         YIELD name, attributes RETURN 'Primitive Count' AS group, name, attributes",
    );
    assert_eq!(columns(&result), ["group", "name", "attributes"]);
    assert_eq!(
        column(&result, "name"),
        [s("neo4j.metrics:name=neo4j.database.neo4j.ids_in_use.node")]
    );
    let Value::Map(attributes) = &result.rows[0][2] else {
        panic!("{result:?}")
    };
    let Some(Value::Map(value)) = attributes.get("Value") else {
        panic!("{attributes:?}")
    };
    assert_eq!(value.get("value"), Some(&Value::Int(3)));

    let figure = |metric: &str| {
        let r = run(
            &db,
            &format!(
                "CALL dbms.queryJmx('neo4j.metrics:name=neo4j.database.neo4j.{metric}') \
                 YIELD attributes RETURN coalesce(attributes.Count, attributes.Value).value AS v"
            ),
        );
        column(&r, "v")
    };
    assert_eq!(figure("ids_in_use.relationship"), [Value::Int(2)]);
    assert_eq!(figure("ids_in_use.relationship_type"), [Value::Int(2)]);
    let Value::Int(last) = figure("transaction.last_committed_tx_id")[0] else {
        panic!()
    };
    assert!(last >= 1, "the graph's creation committed");
    // Quiver has no page cache: no bean, as Neo4j answers for a metric it leaves out.
    assert!(figure("page_cache.hits").is_empty());

    let all = run(
        &db,
        "CALL dbms.queryJmx('*:*') YIELD name RETURN count(*) AS n",
    );
    assert!(
        matches!(column(&all, "n")[0], Value::Int(n) if n >= 6),
        "{all:?}"
    );
    let legacy = run(&db, "CALL dbms.queryJmx('org.neo4j:*')");
    assert_eq!(columns(&legacy), ["name", "description", "attributes"]);
    assert!(legacy.rows.is_empty());
    let e = db
        .execute("CALL dbms.queryJmx('no colon')", Map::new())
        .expect_err("not an object name");
    assert!(e.message().contains("object name"), "{e}");
}

#[test]
fn apoc_help_lists_quivers_apoc_procedures_and_functions_matching_the_keyword() {
    let db = db();
    let result = run(&db, "CALL apoc.help('apoc')");
    assert_eq!(
        columns(&result),
        [
            "type",
            "name",
            "text",
            "signature",
            "roles",
            "writes",
            "core",
            "isDeprecated"
        ]
    );
    let names = column(&result, "name");
    assert!(names.contains(&s("apoc.meta.data")), "{names:?}");
    assert!(names.contains(&s("apoc.version")), "{names:?}");
    assert!(
        names
            .iter()
            .all(|n| matches!(n, Value::String(n) if n.starts_with("apoc."))),
        "{names:?}"
    );
    let types = column(&result, "type");
    assert!(types.contains(&s("procedure")) && types.contains(&s("function")));

    let meta = run(
        &db,
        "CALL apoc.help('META.DATA') YIELD type, name, signature",
    );
    assert_eq!(column(&meta, "name"), [s("apoc.meta.data")]);
    assert_eq!(column(&meta, "type"), [s("procedure")]);
    let Value::String(signature) = &column(&meta, "signature")[0] else {
        panic!()
    };
    assert!(
        signature.starts_with("apoc.meta.data(config = {} :: MAP)"),
        "{signature}"
    );

    // A keyword ending in + searches the descriptions too.
    let by_name = run(&db, "CALL apoc.help('labels')").rows.len();
    let by_text = run(&db, "CALL apoc.help('labels+')").rows.len();
    assert!(by_text > by_name, "{by_name} {by_text}");
    assert!(run(&db, "CALL apoc.help('no such thing')").rows.is_empty());
}

#[test]
fn dbms_query_jmx_store_sizes_measure_the_data_directory_and_are_absent_in_memory() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let durable = Database::open(tmp.path(), crate::Mode::Sync).expect("open");
    graph(&durable);
    let sizes = run(
        &durable,
        "CALL dbms.queryJmx('neo4j.metrics:name=neo4j.database.neo4j.store.size.*') \
         YIELD name, attributes RETURN name, attributes.Value.value AS bytes ORDER BY name",
    );
    let names = column(&sizes, "name");
    assert_eq!(
        names,
        [
            s("neo4j.metrics:name=neo4j.database.neo4j.store.size.database"),
            s("neo4j.metrics:name=neo4j.database.neo4j.store.size.total"),
        ]
    );
    let bytes = column(&sizes, "bytes");
    let (Value::Int(database), Value::Int(total)) = (&bytes[0], &bytes[1]) else {
        panic!("{bytes:?}")
    };
    assert!(*total > 0, "the commit is in the log");
    assert!(total >= database);

    let in_memory = run(
        &db(),
        "CALL dbms.queryJmx('neo4j.metrics:name=*store.size*')",
    );
    assert!(in_memory.rows.is_empty());
}
