// Quiver's web console in headless Chromium, against `quiver serve`: connecting over Bolt over
// WebSocket, the graph, table and plan views, errors with their position, cancelling a running
// query, and the console's speed (first paint; frame rate while dragging 1,000 nodes and 3,000
// relationships). Every test saves a screenshot under target/browser/.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import puppeteer from 'puppeteer-core'
import { USER, startQuiver as startServer, waitUntil as waitFor } from '../drivers/js/quiver.mjs'

const PASSWORD = 'quiver-console-test'
const CHROMIUM = process.env.QUIVER_CHROMIUM ?? '/usr/bin/chromium'
const ARTEFACTS = process.env.QUIVER_BROWSER_ARTEFACTS ?? path.resolve('../../target/browser')
const LONG_QUERY = 'UNWIND range(1, 20000) AS a UNWIND range(1, 20000) AS b WITH a, b WHERE a + b < 0 RETURN count(*) AS c'

let quiver
let browser

// The server, with its HTTP address's GET /stats as the test user.
async function startQuiver () {
  const server = await startServer({
    password: PASSWORD,
    binary: process.env.QUIVER_BIN ?? '../../target/debug/quiver',
    checkExit: false
  })
  const authorization = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`
  return {
    ...server,
    async stats () {
      return (await fetch(`http://${server.http}/stats`, { headers: { authorization } })).json()
    }
  }
}

// Polls more patiently than the driver tests: the console's work runs in a browser.
function waitUntil (condition, timeoutMs = 10000) {
  return waitFor(condition, timeoutMs, 50)
}

/// A page with the console open and connected.
async function connectedPage (name) {
  const page = await browser.newPage()
  await page.setViewport({ width: 1400, height: 1000 })
  page.on('pageerror', (error) => console.error(`[${name}] page error: ${error.message}`))
  await page.goto(`http://${quiver.http}/browser/`)
  await page.waitForFunction(() => document.getElementById('url').value !== '')
  // The form may remember an earlier connection: fill it afresh.
  await page.$eval('#url', (input, url) => { input.value = url }, `bolt://${quiver.bolt}`)
  await page.$eval('#user', (input) => { input.value = '' })
  await page.type('#user', USER)
  await page.type('#password', PASSWORD)
  await page.click('#connect-form button[type=submit]')
  await page.waitForSelector('#state[data-state=connected]', { timeout: 15000 })
  return page
}

/// Types `query` into the editor, runs it with Ctrl+Enter and returns the new frame's handle.
async function run (page, query, { wait = true } = {}) {
  const before = await page.$$eval('.frame', (frames) => frames.length)
  await page.evaluate((text) => {
    const editor = window.quiverEditor
    editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } })
  }, query)
  await page.click('#editor .cm-content')
  await page.keyboard.down('Control')
  await page.keyboard.press('Enter')
  await page.keyboard.up('Control')
  await page.waitForFunction((count) => document.querySelectorAll('.frame').length > count, {}, before)
  if (wait) await page.waitForFunction(() => !document.querySelector('.frame.running'), { timeout: 60000 })
  return page.$('.frame')
}

async function screenshot (page, name) {
  await page.screenshot({ path: path.join(ARTEFACTS, `${name}.png`) })
}

before(async () => {
  mkdirSync(ARTEFACTS, { recursive: true })
  quiver = await startQuiver()
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage']
  })
})

after(async () => {
  await browser?.close()
  await quiver?.stop()
})

test('GET / is the console for a browser and the discovery document for a driver', async () => {
  const json = await (await fetch(`http://${quiver.http}/`, { headers: { accept: 'application/json' } })).json()
  assert.ok(json.bolt_direct, JSON.stringify(json))
  const page = await browser.newPage()
  await page.goto(`http://${quiver.http}/`)
  assert.equal(await page.title(), 'Quiver console')
  await page.close()
})

test('connects with the official driver over Bolt over WebSocket and remembers the connection', async () => {
  const upgrades = (await quiver.stats()).bolt.websocket_upgrades_total
  const connected = await connectedPage('connect')
  const info = await connected.$eval('#server-info', (element) => element.textContent)
  assert.match(info, /^Neo4j\/.* · Bolt \d/)
  assert.match(await connected.$eval('#user-info', (element) => element.textContent), /neo4j/)
  assert.ok((await quiver.stats()).bolt.websocket_upgrades_total > upgrades, 'no WebSocket upgrade counted')
  // The schema sidebar and the server panel fill in.
  await connected.waitForFunction(() => document.getElementById('counts'))
  await connected.waitForFunction(() => document.querySelectorAll('#server-panel dt').length > 3)
  await screenshot(connected, 'connected')
  // The page's sockets are WebSockets to the Bolt port.
  const cdp = await connected.createCDPSession()
  await cdp.send('Network.enable')
  const seen = []
  cdp.on('Network.webSocketCreated', ({ url }) => seen.push(url))
  await connected.reload()
  await connected.waitForFunction(() => document.getElementById('url').value !== '')
  assert.equal(await connected.$eval('#url', (input) => input.value), `bolt://${quiver.bolt}`)
  assert.equal(await connected.$eval('#user', (input) => input.value), USER)
  await connected.type('#password', PASSWORD)
  await connected.click('#connect-form button[type=submit]')
  await connected.waitForSelector('#state[data-state=connected]')
  assert.ok(seen.some((url) => url.startsWith(`ws://${quiver.bolt}`)), `WebSockets opened: ${seen}`)
  await connected.close()
})

test('a query shows its graph and its table', async () => {
  const page = await connectedPage('graph')
  await run(page, "CREATE (a:Person {name: 'Ada'})-[:KNOWS]->(b:Person {name: 'Alan'})-[:KNOWS]->(c:Person {name: 'Grace'})")
  const frame = await run(page, 'MATCH (a:Person)-[r:KNOWS]->(b:Person) RETURN a, r, b')
  assert.equal(await frame.evaluate((f) => f.dataset.nodes), '3')
  assert.equal(await frame.evaluate((f) => f.dataset.relationships), '2')
  assert.equal(await page.evaluate(() => window.quiverGraph.nodes().length), 3)
  assert.equal(await page.evaluate(() => window.quiverGraph.edges().length), 2)
  await screenshot(page, 'graph')
  await frame.$eval('.tabs button[data-view=table]', (button) => button.click())
  const rows = await frame.$$eval('table.results tbody tr', (trs) => trs.length)
  assert.equal(rows, 2)
  const header = await frame.$$eval('table.results th', (ths) => ths.map((th) => th.textContent))
  assert.deepEqual(header, ['a', 'r', 'b'])
  await screenshot(page, 'table')
  await page.close()
})

test('an error shows its code and a caret at its position', async () => {
  const page = await connectedPage('error')
  const frame = await run(page, 'MATCH (n)\nRETURN n ORDER BY')
  const code = await frame.evaluate((f) => f.dataset.code)
  assert.match(code, /^Neo\.ClientError\.Statement\.SyntaxError$/)
  const caret = await frame.$('.caret')
  assert.ok(caret, 'no caret shown')
  const where = await caret.evaluate((c) => ({ line: c.dataset.line, column: c.dataset.column }))
  assert.equal(where.line, '2', JSON.stringify(where))
  await screenshot(page, 'error')
  await page.close()
})

test('the database selector and :use choose where queries run', async () => {
  const page = await connectedPage('databases')
  await run(page, 'CREATE DATABASE `console-db`')
  const options = () => page.$$eval('#database option', (o) => o.map((x) => x.value))
  await waitUntil(async () => (await options()).includes('console-db'))
  await run(page, ':use console-db')
  assert.equal(await page.$eval('#database', (s) => s.value), 'console-db')
  await run(page, "CREATE (:OnlyHere {from: 'console'})")
  const count = async () => {
    const frame = await run(page, 'MATCH (n:OnlyHere) RETURN count(n) AS c')
    return frame.evaluate((f) => f.querySelector('table.results tbody td')?.textContent?.trim())
  }
  assert.equal(await count(), '1')
  await page.select('#database', 'neo4j')
  assert.equal(await count(), '0')
  await page.select('#database', 'console-db')
  assert.equal(await count(), '1')
  await screenshot(page, 'databases')
  await page.close()
})

test('EXPLAIN shows the plan as a tree', async () => {
  const page = await connectedPage('plan')
  const frame = await run(page, 'EXPLAIN MATCH (a:Person)-[:KNOWS]->(b) WHERE a.name = "Ada" RETURN b.name')
  const operators = await frame.$$eval('ul.plan .operator strong', (names) => names.map((n) => n.textContent))
  assert.ok(operators.length >= 2, `operators: ${operators}`)
  assert.ok(operators.some((name) => /ProduceResults/i.test(name)), `operators: ${operators}`)
  await screenshot(page, 'plan')
  await page.close()
})

test('cancel stops a running query, and the server counts it', async () => {
  const page = await connectedPage('cancel')
  // Cancelling closes the query's driver: its connection sends a RESET and then closes, so the
  // server ends the transaction as rolled back (the RESET came first) or abandoned (the close
  // did); either way it is counted once and no transaction stays open.
  const ended = (transactions) => transactions.rolled_back_total + transactions.abandoned_total
  const before = ended((await quiver.stats()).transactions)
  await run(page, LONG_QUERY, { wait: false })
  await page.waitForSelector('.frame.running')
  await waitUntil(async () => (await quiver.stats()).transactions.active > 0)
  await new Promise((resolve) => setTimeout(resolve, 300))
  await page.click('#cancel')
  await page.waitForSelector('.frame[data-cancelled=true]')
  // The server notices the RESET or the close between the query's cancellation checks: on a
  // loaded machine that takes a while, so the deadline is generous (the promise is "counted").
  await waitUntil(async () => {
    const { transactions } = await quiver.stats()
    return ended(transactions) > before && transactions.active === 0
  }, 60000)
  await screenshot(page, 'cancel')
  // The console runs the next query at once.
  const frame = await run(page, 'RETURN 1 AS one')
  assert.equal(await frame.evaluate((f) => f.dataset.rows), '1')
  await page.close()
})

test('speed: first paint, and dragging 1,000 nodes and 3,000 relationships', async () => {
  const page = await browser.newPage()
  await page.setViewport({ width: 1400, height: 1000 })
  const started = Date.now()
  await page.goto(`http://${quiver.http}/browser/`)
  await page.waitForFunction(() => document.getElementById('url').value !== '')
  const ready = Date.now() - started
  const paint = await page.evaluate(() =>
    performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null)
  await page.close()

  const connected = await connectedPage('speed')
  await run(connected, 'UNWIND range(0, 999) AS i CREATE (:P {name: toString(i), i: i})')
  // Each node links to the ones 1, 7 and 31 further round the ring.
  await run(connected, 'MATCH (n:P) WITH n ORDER BY n.i WITH collect(n) AS ring ' +
    'UNWIND range(0, 2999) AS j WITH ring[j % 1000] AS a, ring[(j % 1000 + [1, 7, 31][j / 1000]) % 1000] AS b ' +
    'CREATE (a)-[:L]->(b)')
  const queried = Date.now()
  const frame = await run(connected, 'MATCH (a:P)-[r:L]->(b:P) RETURN a, r, b')
  const shown = Date.now() - queried
  assert.equal(await frame.evaluate((f) => f.dataset.nodes), '1000')
  assert.equal(await frame.evaluate((f) => f.dataset.relationships), '3000')
  const layoutMs = Number(await frame.evaluate((f) => f.dataset.layoutMs))
  // Drag one node in a circle for two seconds, counting the frames the page draws.
  const start = await connected.evaluate(() => {
    const cy = window.quiverGraph
    const node = cy.nodes()[0]
    const box = cy.container().getBoundingClientRect()
    const at = node.renderedPosition()
    window.dragFrames = { raf: 0, renders: 0, running: true }
    cy.on('render', () => { window.dragFrames.renders += 1 })
    const tick = () => {
      if (!window.dragFrames.running) return
      window.dragFrames.raf += 1
      requestAnimationFrame(tick)
    }
    requestAnimationFrame(tick)
    return { x: box.left + at.x, y: box.top + at.y }
  })
  await connected.mouse.move(start.x, start.y)
  await connected.mouse.down()
  const dragStarted = Date.now()
  let step = 0
  while (Date.now() - dragStarted < 2000) {
    step += 1
    await connected.mouse.move(start.x + 80 * Math.cos(step / 10), start.y + 80 * Math.sin(step / 10))
  }
  const dragMs = Date.now() - dragStarted
  await connected.mouse.up()
  const counted = await connected.evaluate(() => {
    window.dragFrames.running = false
    return window.dragFrames
  })
  // The same without the test driver's round trips: the node moves every animation frame, and
  // the frames the page manages are counted (what a fast hand dragging would see).
  const perFrame = await connected.evaluate(() => new Promise((resolve) => {
    const cy = window.quiverGraph
    const node = cy.nodes()[1]
    const origin = { ...node.position() }
    let renders = 0
    const onRender = () => { renders += 1 }
    cy.on('render', onRender)
    let started = null
    let frames = 0
    const tick = (now) => {
      started ??= now
      frames += 1
      const t = (now - started) / 1000
      node.position({ x: origin.x + 80 * Math.cos(t * 3), y: origin.y + 80 * Math.sin(t * 3) })
      if (now - started < 2000) {
        requestAnimationFrame(tick)
      } else {
        cy.off('render', onRender)
        resolve({ frames, renders, ms: now - started })
      }
    }
    requestAnimationFrame(tick)
  }))
  const figures = {
    page_ready_ms: ready,
    first_contentful_paint_ms: paint === null ? null : Math.round(paint),
    query_to_graph_ms: shown,
    layout_ms: layoutMs,
    drag_ms: dragMs,
    drag_mouse_moves: step,
    drag_fps_animation_frames: Math.round(counted.raf * 1000 / dragMs),
    drag_fps_graph_renders: Math.round(counted.renders * 1000 / dragMs),
    moved_every_frame_fps: Math.round(perFrame.frames * 1000 / perFrame.ms),
    moved_every_frame_renders_per_s: Math.round(perFrame.renders * 1000 / perFrame.ms)
  }
  console.log(`console speed: ${JSON.stringify(figures)}`)
  writeFileSync(path.join(ARTEFACTS, 'speed.json'), JSON.stringify(figures, null, 2) + '\n')
  await screenshot(connected, 'speed-1000-nodes')
  assert.ok(paint !== null && paint < 1000, `first paint ${paint} ms`)
  // The floor is low on purpose: a loaded CI machine without a GPU is not a desktop; the figures
  // are written down (docs/PERFORMANCE.md) and the floor only catches a frozen page.
  assert.ok(figures.moved_every_frame_fps >= 5, JSON.stringify(figures))
  await connected.close()
})
