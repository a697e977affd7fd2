// The official JavaScript driver (6.2+) and Bolt 6.1's UUID type: neo4j.uuid values sent as
// parameters, stored, read back equal; UUIDs built in Cypher arrive as UUIDs.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import neo4j from 'neo4j-driver'
import { PASSWORD, USER, serveTests } from './quiver.mjs'

const TEXT = '550e8400-e29b-41d4-a716-446655440000'

const server = serveTests((quiver) => neo4j.driver(quiver.uri(), neo4j.auth.basic(USER, PASSWORD)))

test('Bolt 6.1 is negotiated', async () => {
  const info = await server.driver.getServerInfo()
  assert.ok(info.protocolVersion >= 6.1, `protocol ${info.protocolVersion}`)
})

test('a UUID parameter round-trips through a property', async () => {
  const sent = [neo4j.uuid(TEXT), neo4j.uuid('00000000-0000-0000-0000-000000000000'),
    neo4j.uuid('ffffffff-ffff-ffff-ffff-ffffffffffff')]
  for (const [n, id] of sent.entries()) {
    await server.driver.executeQuery('CREATE (:Thing {n: $n, id: $id})', { n, id })
  }
  const { records } = await server.driver.executeQuery(
    'MATCH (t:Thing) RETURN t.id AS id, valueType(t.id) AS type ORDER BY t.n'
  )
  assert.equal(records.length, sent.length)
  for (const [i, record] of records.entries()) {
    const id = record.get('id')
    assert.ok(neo4j.isUUID(id), `record ${i} holds a UUID`)
    assert.equal(id.toString(), sent[i].toString())
    assert.equal(record.get('type'), 'UUID NOT NULL')
  }
})

test('UUIDs built in Cypher arrive as UUIDs', async () => {
  const { records } = await server.driver.executeQuery(
    `RETURN uuid('${TEXT}') AS parsed, uuid(42, 42) AS halves, randomUUID() AS text`
  )
  const record = records[0]
  assert.ok(neo4j.isUUID(record.get('parsed')))
  assert.equal(record.get('parsed').toString(), TEXT)
  assert.equal(record.get('halves').toString(), '00000000-0000-002a-0000-00000000002a')
  assert.equal(typeof record.get('text'), 'string')
})
