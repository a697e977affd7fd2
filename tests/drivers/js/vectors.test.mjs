// The official JavaScript driver (6.x) and Bolt 6's Vector type: typed arrays sent as
// parameters, stored, read back equal; vectors built in Cypher arrive as Vectors.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import neo4j from 'neo4j-driver'
import { PASSWORD, USER, serveTests } from './quiver.mjs'

const server = serveTests((quiver) => neo4j.driver(quiver.uri(), neo4j.auth.basic(USER, PASSWORD)))

test('Bolt 6 is negotiated', async () => {
  const info = await server.driver.getServerInfo()
  assert.ok(info.protocolVersion >= 6, `protocol ${info.protocolVersion}`)
})

test('typed arrays round-trip as vectors through a property', async () => {
  const arrays = {
    i8: new Int8Array([1, -2, 127]),
    i16: new Int16Array([300, -2, 7]),
    i32: new Int32Array([70000, -1, 0]),
    i64: new BigInt64Array([2n ** 40n, -5n, 0n]),
    f32: new Float32Array([0.5, -1.25, 3]),
    f64: new Float64Array([0.1, 2, -3.5])
  }
  for (const [kind, array] of Object.entries(arrays)) {
    await server.driver.executeQuery('CREATE (:Doc {kind: $kind, embedding: $v})', {
      kind, v: neo4j.vector(array)
    })
  }
  const { records } = await server.driver.executeQuery(
    'MATCH (d:Doc) RETURN d.kind AS kind, d.embedding AS v'
  )
  assert.equal(records.length, Object.keys(arrays).length)
  for (const record of records) {
    const got = record.get('v')
    assert.ok(neo4j.isVector(got), `${record.get('kind')} is a Vector`)
    const sent = arrays[record.get('kind')]
    assert.equal(got.asTypedArray().constructor, sent.constructor)
    assert.deepEqual(Array.from(got.asTypedArray()), Array.from(sent))
  }
})

test('a vector built in Cypher arrives as a Vector', async () => {
  const { records } = await server.driver.executeQuery('RETURN vector([1, 2, 3], 3, FLOAT32) AS v')
  const v = records[0].get('v')
  assert.ok(neo4j.isVector(v))
  assert.ok(v.asTypedArray() instanceof Float32Array)
  assert.deepEqual(Array.from(v.asTypedArray()), [1, 2, 3])
})
