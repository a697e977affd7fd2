// The official JavaScript driver and many databases: created, chosen by the session's
// database (and by USE), listed, kept apart, dropped; errors with Neo4j's codes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import neo4j from 'neo4j-driver'
import { PASSWORD, USER, serveTests } from './quiver.mjs'

// neo4j:// so that the driver asks for a routing table per database.
const server = serveTests((quiver) => neo4j.driver(quiver.uri('neo4j'), neo4j.auth.basic(USER, PASSWORD)))

const names = async () => {
  const { records } = await server.driver.executeQuery('SHOW DATABASES YIELD name')
  return records.map((r) => r.get('name'))
}

test('a database is created, used, listed and dropped, its data its own', async () => {
  const driver = server.driver
  await driver.executeQuery('CREATE DATABASE `js-db`')
  assert.deepEqual(await names(), ['js-db', 'neo4j', 'system'])
  await driver.executeQuery('CREATE (:Js {n: 1})', {}, { database: 'js-db' })
  const count = async (database) => {
    const { records } = await driver.executeQuery('MATCH (n) RETURN count(n) AS c', {}, { database })
    return records[0].get('c').toNumber()
  }
  assert.equal(await count('js-db'), 1)
  assert.equal(await count('neo4j'), 0)
  const { records } = await driver.executeQuery('USE `js-db` MATCH (n:Js) RETURN n.n AS n')
  assert.equal(records[0].get('n').toNumber(), 1)
  await driver.executeQuery('DROP DATABASE `js-db`')
  assert.deepEqual(await names(), ['neo4j', 'system'])
})

test('management errors carry Neo4j codes', async () => {
  const session = server.driver.session()
  try {
    for (const [query, code] of [
      ['CREATE DATABASE neo4j', 'Neo.ClientError.Database.ExistingDatabaseFound'],
      ['DROP DATABASE nowhere', 'Neo.ClientError.Database.DatabaseNotFound'],
      ['CREATE DATABASE `no_underscores`', 'Neo.ClientError.Statement.ArgumentError'],
      ['DROP DATABASE system', 'Neo.ClientError.Statement.NotSystemDatabaseError']
    ]) {
      await assert.rejects(session.run(query), (error) => error.code === code, query)
    }
  } finally {
    await session.close()
  }
  const unknown = server.driver.session({ database: 'nowhere' })
  try {
    await assert.rejects(unknown.run('RETURN 1'),
      (error) => error.code === 'Neo.ClientError.Database.DatabaseNotFound')
  } finally {
    await unknown.close()
  }
})
