"""Users, roles and privileges over Bolt with the official driver: the built-in roles'
privilege matrix, the first-login password change, a dropped user's connection losing
access at once, and the audit log's lines."""

import base64
import json
import os
import tempfile
import urllib.request

import neo4j
import pytest
from neo4j.exceptions import AuthError, ClientError, Forbidden

from conftest import PASSWORD, USER, Quiver

MATRIX = [
    # role, sees nodes, sets properties, creates names, schema, manages users, others' transactions
    ("PUBLIC", [False, False, False, False, False, False]),
    ("reader", [True, False, False, False, False, False]),
    ("editor", [True, True, False, False, False, False]),
    ("publisher", [True, True, True, False, False, False]),
    ("architect", [True, True, True, True, False, False]),
    ("admin", [True, True, True, True, True, True]),
]


@pytest.fixture
def audited():
    directory = tempfile.mkdtemp()
    path = os.path.join(directory, "audit.log")
    server = Quiver("--audit-log", path)
    server.audit_path = path
    yield server
    server.stop()


def admin_driver(server):
    return neo4j.GraphDatabase.driver(server.uri(), auth=(USER, PASSWORD))


def create_user(driver, name, role, must_change=False):
    change = "CHANGE REQUIRED" if must_change else "CHANGE NOT REQUIRED"
    driver.execute_query(f"CREATE USER {name} SET PASSWORD 'password-{name}' {change}")
    if role != "PUBLIC":
        driver.execute_query(f"GRANT ROLE {role} TO {name}")


def attempt(session, query):
    """True when the statement ran, False when it was refused as Forbidden."""
    try:
        session.run(query).consume()
        return True
    except Forbidden:
        return False


def sees(session, query):
    """True when the read finds the node. A role without read privileges is not refused:
    as in Neo4j, what it may not traverse is invisible to it, so it counts nothing."""
    return session.run(query).single()[0] == 1


def changes(session, query):
    """True when the write set a property. Refused, or run over nodes the role cannot see,
    it sets nothing."""
    try:
        return session.run(query).consume().counters.properties_set == 1
    except Forbidden:
        return False


def test_every_built_in_role_is_allowed_exactly_what_neo4j_allows(audited):
    with admin_driver(audited) as admin:
        admin.execute_query("CREATE (:Existing {x: 0})")
        for role, allowed in MATRIX:
            name = f"u_{role.lower()}"
            create_user(admin, name, role)
            with neo4j.GraphDatabase.driver(
                audited.uri(), auth=(name, f"password-{name}")
            ) as driver, driver.session() as session:
                actions = [
                    "MATCH (n:Existing) RETURN count(n)",
                    "MATCH (n:Existing) SET n.x = 1",
                    f"CREATE (:New_{name})",
                    f"CREATE INDEX idx_{name} FOR (n:Existing) ON (n.k_{name})",
                    f"CREATE USER made_by_{name} SET PASSWORD 'password-xyz'",
                ]
                probes = [sees, changes, attempt, attempt, attempt]
                for probe, query, may in zip(probes, actions, allowed):
                    assert probe(session, query) == may, f"{role}: {query}"
                # Another user's open transaction: only an administrator sees and ends it.
                with admin.session() as other_session:
                    other = other_session.begin_transaction()
                    other.run("RETURN 1").consume()
                    ids = [
                        r["transactionId"]
                        for r in session.run("SHOW TRANSACTIONS YIELD transactionId")
                    ]
                    assert (len(ids) > 1) == allowed[5], f"{role} sees others' transactions"
                    rows = admin.execute_query(
                        "SHOW TRANSACTIONS YIELD transactionId, currentQuery "
                        "WHERE currentQuery IS NULL OR NOT currentQuery STARTS WITH 'SHOW' "
                        "RETURN transactionId"
                    ).records
                    assert rows, "the admin sees the open transaction"
                    target = rows[0]["transactionId"]
                    message = session.run(
                        f"TERMINATE TRANSACTIONS '{target}' YIELD message"
                    ).single()["message"]
                    assert (message == "Transaction terminated.") == allowed[5], role
                    try:
                        other.rollback()
                    except neo4j.exceptions.Neo4jError:
                        pass
        records = admin.execute_query("MATCH (n:Existing) RETURN n.x AS x").records
        assert [r["x"] for r in records] == [1]
    # A change made over the HTTP transactional API is audited with the client's address too.
    host, port = audited.http
    request = urllib.request.Request(
        f"http://{host}:{port}/db/neo4j/tx/commit",
        data=json.dumps({"statements": [{"statement": "CREATE ROLE over_http"}]}).encode(),
        headers={
            "Content-Type": "application/json",
            "Authorization": "Basic "
            + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode(),
        },
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert json.load(response)["errors"] == []
    lines = [json.loads(line) for line in open(audited.audit_path)]
    events = {line["event"] for line in lines}
    assert {"login", "create_user", "grant_role", "terminate_transaction"} <= events
    assert [line["target"] for line in lines if line["event"] == "create_role"] == ["over_http"]
    assert all("time" in line and "user" in line for line in lines)
    # Logins and every change name the client's address.
    named = [line for line in lines if line["event"] != "login_failed"]
    assert all(line["client"] == "127.0.0.1" for line in named), named
    text = open(audited.audit_path).read()
    assert "password-u_" not in text and "argon2" not in text


def test_first_login_must_change_the_password(quiver):
    with admin_driver(quiver) as admin:
        create_user(admin, "fresh", "reader", must_change=True)
    with neo4j.GraphDatabase.driver(quiver.uri(), auth=("fresh", "password-fresh")) as driver:
        with driver.session() as session:
            with pytest.raises(ClientError) as error:
                session.run("MATCH (n) RETURN n").consume()
            assert error.value.code == "Neo.ClientError.Security.CredentialsExpired"
        with driver.session() as session:
            session.run(
                "ALTER CURRENT USER SET PASSWORD FROM 'password-fresh' TO 'changed-password'"
            ).consume()
    with neo4j.GraphDatabase.driver(
        quiver.uri(), auth=("fresh", "changed-password")
    ) as driver:
        records = driver.execute_query("SHOW CURRENT USER").records
        assert records[0]["roles"] == ["PUBLIC", "reader"]
        assert records[0]["passwordChangeRequired"] is False
        driver.execute_query("MATCH (n) RETURN count(n)")
    with neo4j.GraphDatabase.driver(quiver.uri(), auth=("fresh", "password-fresh")) as driver:
        with pytest.raises(AuthError):
            driver.verify_connectivity()


def test_a_dropped_user_loses_access_at_once(quiver):
    with admin_driver(quiver) as admin:
        create_user(admin, "leaver", "editor")
        with neo4j.GraphDatabase.driver(
            quiver.uri(), auth=("leaver", "password-leaver")
        ) as driver, driver.session() as session:
            session.run("MATCH (n) RETURN count(n)").consume()
            tx = session.begin_transaction()
            tx.run("MATCH (n) RETURN count(n)").consume()
            admin.execute_query("DROP USER leaver")
            with pytest.raises(Exception) as error:
                tx.run("MATCH (n) RETURN count(n)").consume()
                tx.commit()
            assert "Unauthorized" in str(error.value) or "no longer exists" in str(
                error.value
            ), error.value
        with neo4j.GraphDatabase.driver(
            quiver.uri(), auth=("leaver", "password-leaver")
        ) as driver:
            with pytest.raises(AuthError):
                driver.verify_connectivity()
