"""Bolt 6's Vector type with the official Python driver: a 6.x driver negotiates Bolt 6.0 and
sends and receives `neo4j.vector.Vector`; a 5.x driver stays on Bolt 5, where a vector cannot
be sent and the query fails with a clear error while the connection goes on."""

from conftest import driver_5x, needs_6x, negotiated, refused_on_bolt_5

bolt6 = needs_6x("Vector")


@bolt6
def test_a_6x_driver_negotiates_bolt_6(driver):
    assert negotiated(driver) >= (6, 0)


@bolt6
def test_a_vector_parameter_is_stored_and_read_back_equal(driver):
    from neo4j.vector import Vector

    cases = {
        "f32": [0.5, -1.25, 3.0],
        "f64": [0.1, 2.0, -3.5],
        "i8": [1, -2, 127],
        "i16": [300, -2, 7],
        "i32": [70000, -1, 0],
        "i64": [2**40, -(2**40), 5],
    }
    for dtype, values in cases.items():
        sent = Vector.from_native(values, dtype)
        driver.execute_query(
            "CREATE (:Doc {dtype: $dtype, embedding: $v})", dtype=dtype, v=sent
        )
    records = driver.execute_query(
        "MATCH (d:Doc) RETURN d.dtype AS dtype, d.embedding AS v, valueType(d.embedding) AS t"
    ).records
    assert len(records) == len(cases)
    for record in records:
        got = record["v"]
        assert isinstance(got, Vector)
        sent = Vector.from_native(cases[record["dtype"]], record["dtype"])
        assert got.dtype == sent.dtype
        assert got.raw() == sent.raw()
        assert got.to_native() == sent.to_native()
        assert record["t"].startswith("VECTOR<")


@bolt6
def test_vector_built_in_cypher(driver):
    from neo4j.vector import Vector

    record = driver.execute_query(
        "RETURN vector([1, 2, 3], 3, FLOAT32) AS v, size(vector([1, 2, 3], 3, FLOAT32)) AS n"
    ).records[0]
    v = record["v"]
    assert isinstance(v, Vector)
    assert v.dtype == "f32"
    assert v.to_native() == [1.0, 2.0, 3.0]
    assert record["n"] == 3


@bolt6
def test_a_large_vector_round_trips(driver):
    from neo4j.vector import Vector

    values = [float(i) / 7 for i in range(4096)]
    sent = Vector.from_native(values, "f64")
    got = driver.execute_query("RETURN $v AS v", v=sent).records[0]["v"]
    assert got.raw() == sent.raw()


@driver_5x
def test_a_5x_driver_stays_on_bolt_5_and_a_vector_fails_clearly(driver):
    with refused_on_bolt_5(driver, "RETURN vector([1, 2, 3], 3, FLOAT32) AS v", "6.0") as session:
        # The connection goes on, and lists of numbers are untouched.
        assert session.run("RETURN [1.0, 2.0] AS l").single()["l"] == [1.0, 2.0]
