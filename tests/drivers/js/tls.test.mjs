// TLS with the official JavaScript driver: bolt+s with the test CA, a custom CA over bolt://,
// bolt+ssc, and a certificate from an unknown CA refused.
//
// The CA, certificates and keys are made for the run by tests/drivers/run.sh in
// $QUIVER_TEST_CERTS; run.sh also names the CA in NODE_EXTRA_CA_CERTS, which Node reads at start,
// so that bolt+s (the system's CAs) trusts it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import neo4j from 'neo4j-driver'
import { PASSWORD, USER, startQuiver } from './quiver.mjs'

function certs (name) {
  const directory = process.env.QUIVER_TEST_CERTS
  assert.ok(directory, 'QUIVER_TEST_CERTS names the test certificates (tests/drivers/run.sh)')
  return path.join(directory, name)
}

// A server that requires TLS on Bolt, with the test CA's server certificate.
function startTlsQuiver () {
  return startQuiver({
    args: ['--tls-cert', certs('server.pem'), '--tls-key', certs('server.key'), '--bolt-tls', 'required']
  })
}

async function answer (driver) {
  const { records } = await driver.executeQuery('RETURN 1 AS one')
  return records[0].get('one').toNumber()
}

const auth = neo4j.auth.basic(USER, PASSWORD)

test('bolt+s trusts the test CA through the system store', async () => {
  assert.ok(process.env.NODE_EXTRA_CA_CERTS, 'run.sh names the test CA in NODE_EXTRA_CA_CERTS')
  const quiver = await startTlsQuiver()
  const driver = neo4j.driver(quiver.uri('bolt+s'), auth)
  try {
    assert.equal(await answer(driver), 1)
  } finally {
    await driver.close()
    await quiver.stop()
  }
})

test('a custom CA over bolt:// with encryption, and bolt+ssc', async () => {
  const quiver = await startTlsQuiver()
  const custom = neo4j.driver(quiver.uri('bolt'), auth, {
    encrypted: 'ENCRYPTION_ON',
    trust: 'TRUST_CUSTOM_CA_SIGNED_CERTIFICATES',
    trustedCertificates: [certs('ca.pem')]
  })
  const selfSigned = neo4j.driver(quiver.uri('bolt+ssc'), auth)
  try {
    assert.equal(await answer(custom), 1)
    assert.equal(await answer(selfSigned), 1)
  } finally {
    await custom.close()
    await selfSigned.close()
    await quiver.stop()
  }
})

test('a certificate from an unknown CA is refused, and plain bolt where TLS is required', async () => {
  const quiver = await startTlsQuiver()
  const wrongCa = neo4j.driver(quiver.uri('bolt'), auth, {
    encrypted: 'ENCRYPTION_ON',
    trust: 'TRUST_CUSTOM_CA_SIGNED_CERTIFICATES',
    trustedCertificates: [certs('other-ca.pem')]
  })
  const plain = neo4j.driver(quiver.uri('bolt'), auth, { connectionTimeout: 5000 })
  const good = neo4j.driver(quiver.uri('bolt+ssc'), auth)
  try {
    await assert.rejects(wrongCa.verifyConnectivity())
    await assert.rejects(plain.verifyConnectivity())
    assert.equal(await answer(good), 1, 'the server is still up')
  } finally {
    await wrongCa.close()
    await plain.close()
    await good.close()
    await quiver.stop()
  }
})
