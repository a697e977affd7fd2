// Quiver's web console: connects with the official JavaScript driver (Bolt over WebSocket),
// edits and runs Cypher, and shows results as a graph, a table, JSON and a plan.

import {
  basicSetup, EditorView, keymap, EditorState, Prec, autocompletion, cytoscape, neo4j,
} from "./vendor/libs.js";
import { cypher, cypherCompletions, splitStatements } from "./cypher.js";

/// Rows kept per result; the rest are counted ("showing N of M").
const RESULT_ROWS_MAX = 5000;
/// Nodes drawn per graph; more make the layout too slow to be useful.
const GRAPH_NODES_MAX = 2000;
/// Past this many nodes, the layout is our grid force layout: cose's is quadratic per iteration.
const GRAPH_GRID_LAYOUT_MIN = 200;
/// Past this many relationships, edges are drawn straight and unlabelled, so dragging stays smooth.
const GRAPH_FAST_EDGES_MIN = 1000;
const HISTORY_MAX = 50;
const SERVER_PANEL_PERIOD_MS = 5000;
const PALETTE = ["#4c8eda", "#da7194", "#57c7e3", "#f79767", "#8dcc93", "#c990c0",
  "#ffc454", "#d9c8ae", "#ecb5c9", "#569480", "#f16667", "#a5abb6"];

const $ = (id) => document.getElementById(id);
const store = {
  get(key, fallback) {
    try {
      const value = JSON.parse(localStorage.getItem(`quiver.${key}`));
      return value ?? fallback;
    } catch {
      return fallback;
    }
  },
  set(key, value) {
    localStorage.setItem(`quiver.${key}`, JSON.stringify(value));
  },
};

const state = {
  connection: null, // { url, user, password, driver, queries (driver for user queries) }
  names: { labels: [], types: [], keys: [], procedures: [], functions: [] },
  params: {},
  // The database queries run on; null: the user's home (the server chooses).
  database: null,
  running: null, // { cancel() }
  panelTimer: null,
};

// ---- connect ------------------------------------------------------------------------------

function defaultUrl() {
  const host = location.hostname || "localhost";
  return `bolt://${host.includes(":") ? `[${host}]` : host}:7687`;
}

function makeDriver(url, user, password) {
  const auth = user ? neo4j.auth.basic(user, password) : neo4j.auth.none();
  return neo4j.driver(url, auth, {
    disableLosslessIntegers: true,
    userAgent: "quiver-console/1",
    maxConnectionPoolSize: 8,
  });
}

function setState(name, text) {
  const badge = $("state");
  badge.className = `state ${name}`;
  badge.dataset.state = name;
  badge.textContent = text ?? name;
}

async function connect(url, user, password) {
  setState("connecting");
  $("connect-error").textContent = "";
  const driver = makeDriver(url, user, password);
  try {
    await driver.verifyConnectivity();
    const info = await driver.getServerInfo();
    state.connection = { url, user, password, driver, queries: null, info };
    store.set("connection", { url, user });
    setState("connected", `connected to ${info.address}`);
    $("server-info").textContent = `${info.agent} · Bolt ${info.protocolVersion}`;
    $("connect-form").hidden = true;
    $("workspace").hidden = false;
    $("disconnect").hidden = false;
    showUser();
    loadDatabases();
    loadSchema();
    refreshServerPanel();
    state.panelTimer = setInterval(refreshServerPanel, SERVER_PANEL_PERIOD_MS);
    editor.focus();
  } catch (error) {
    await driver.close().catch(() => {});
    setState("disconnected");
    $("connect-error").textContent = `${error.code ? `${error.code}: ` : ""}${error.message}`;
  }
}

async function disconnect() {
  const connection = state.connection;
  state.connection = null;
  clearInterval(state.panelTimer);
  if (connection) {
    await connection.driver.close().catch(() => {});
    await connection.queries?.close().catch(() => {});
  }
  setState("disconnected");
  $("server-info").textContent = "";
  $("user-info").textContent = "";
  $("connect-form").hidden = false;
  $("workspace").hidden = true;
  $("disconnect").hidden = true;
  $("database-picker").hidden = true;
  state.database = null;
}

/// A session on the chosen database (the home database when none is chosen).
function sessionOf(driver) {
  return state.database ? driver.session({ database: state.database }) : driver.session();
}

/// Fills the database selector with the databases the user may use (`system` aside).
async function loadDatabases() {
  const select = $("database");
  const names = (await column("SHOW DATABASES YIELD name, type WHERE type <> 'system' RETURN name", "name"));
  const home = (await column("SHOW HOME DATABASE YIELD name", "name"))[0];
  select.replaceChildren(
    ...names.map((name) => {
      const option = document.createElement("option");
      option.value = name;
      option.textContent = name === home ? `${name} (home)` : name;
      return option;
    }),
  );
  select.value = state.database ?? home ?? names[0] ?? "";
  $("database-picker").hidden = names.length === 0;
}

/// Runs the next queries on database `name`: the selector, `:use name`.
function useDatabase(name) {
  state.database = name || null;
  $("database").value = name;
  loadSchema();
}

/// Runs a query on the connection's own driver (metadata, the schema) and returns its records.
async function read(query, params = {}) {
  const session = sessionOf(state.connection.driver);
  try {
    const result = await session.run(query, params);
    return result.records;
  } finally {
    await session.close();
  }
}

async function showUser() {
  const { user } = state.connection;
  try {
    const [record] = await read("SHOW CURRENT USER");
    const roles = record?.has("roles") ? record.get("roles") : null;
    $("user-info").textContent = `${record?.get("user") ?? user ?? "anonymous"}${roles?.length ? ` (${roles.join(", ")})` : ""}`;
  } catch {
    $("user-info").textContent = user || "anonymous";
  }
}

// ---- schema and server panel ----------------------------------------------------------------

async function column(query, key) {
  try {
    return (await read(query)).map((record) => record.get(key));
  } catch {
    return [];
  }
}

async function loadSchema() {
  if (!state.connection) return;
  const [labels, types, keys, procedures, functions, indexes, constraints, nodes, rels] = await Promise.all([
    column("CALL db.labels() YIELD label RETURN label ORDER BY label", "label"),
    column("CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType ORDER BY relationshipType", "relationshipType"),
    column("CALL db.propertyKeys() YIELD propertyKey RETURN propertyKey ORDER BY propertyKey", "propertyKey"),
    column("SHOW PROCEDURES YIELD name RETURN name ORDER BY name", "name"),
    column("SHOW FUNCTIONS YIELD name RETURN name ORDER BY name", "name"),
    column("SHOW INDEXES YIELD name, labelsOrTypes, properties RETURN name + ' ' + coalesce(labelsOrTypes[0], '') + '(' + coalesce(reduce(s = '', p IN properties | s + p + ' '), '') + ')' AS text", "text"),
    column("SHOW CONSTRAINTS YIELD name, type RETURN name + ' ' + type AS text", "text"),
    column("MATCH (n) RETURN count(n) AS c", "c"),
    column("MATCH ()-[r]->() RETURN count(r) AS c", "c"),
  ]);
  state.names = { labels, types, keys, procedures, functions };
  const schema = $("schema");
  schema.replaceChildren();
  const group = (title, items, kind, toQuery) => {
    const heading = document.createElement("h3");
    heading.textContent = `${title} (${items.length})`;
    const list = document.createElement("div");
    list.className = "chips";
    for (const item of items) {
      const chip = document.createElement(toQuery ? "button" : "span");
      chip.className = `chip ${kind}`;
      chip.textContent = item;
      if (toQuery) {
        chip.type = "button";
        chip.addEventListener("click", () => runScript(toQuery(item)));
      }
      list.append(chip);
    }
    schema.append(heading, list);
  };
  const counts = document.createElement("p");
  counts.id = "counts";
  counts.textContent = `${nodes[0] ?? "?"} nodes, ${rels[0] ?? "?"} relationships`;
  schema.append(counts);
  group("Labels", labels, "label", (l) => `MATCH (n:${quoteName(l)}) RETURN n LIMIT 25`);
  group("Relationship types", types, "type", (t) => `MATCH p = ()-[:${quoteName(t)}]->() RETURN p LIMIT 25`);
  group("Property keys", keys, "key", null);
  group("Indexes", indexes, "index", null);
  group("Constraints", constraints, "constraint", null);
}

function quoteName(name) {
  return /^[A-Za-z_][\w]*$/.test(name) ? name : `\`${name.replace(/`/g, "``")}\``;
}

function authHeader() {
  const { user, password } = state.connection ?? {};
  return user ? { Authorization: `Basic ${btoa(`${user}:${password ?? ""}`)}` } : {};
}

async function refreshServerPanel() {
  if (!state.connection) return;
  const panel = $("server-panel");
  const rows = [];
  try {
    const stats = await (await fetch("/stats", { headers: authHeader() })).json();
    rows.push(
      ["Readiness", stats.readiness],
      ["Durability", stats.durability],
      ["Bolt connections", stats.bolt?.active],
      ["… over WebSocket (total)", stats.bolt?.websocket_upgrades_total],
      ["HTTP connections", stats.http?.active],
      ["Transactions open", stats.transactions?.active],
      ["Commits", stats.transactions?.committed_total],
      ["Rollbacks", stats.transactions?.rolled_back_total],
      ["Abandoned", stats.transactions?.abandoned_total],
    );
  } catch {
    rows.push(["/stats", "unavailable"]);
  }
  try {
    const text = await (await fetch("/metrics", { headers: authHeader() })).text();
    const latency = text.match(/^quiver_query_latency_seconds_count (\d+)/m);
    if (latency) rows.push(["Queries", latency[1]]);
  } catch {
    // The panel shows what /stats gave.
  }
  panel.replaceChildren(...rows.flatMap(([name, value]) => {
    const dt = document.createElement("dt");
    dt.textContent = name;
    const dd = document.createElement("dd");
    dd.textContent = value ?? "–";
    return [dt, dd];
  }));
}

// ---- history and favourites -----------------------------------------------------------------

function remember(script) {
  const history = store.get("history", []).filter((entry) => entry !== script);
  history.unshift(script);
  store.set("history", history.slice(0, HISTORY_MAX));
  renderSaved();
}

function renderSaved() {
  const fill = (list, entries, remove) => {
    list.replaceChildren(...entries.map((entry, index) => {
      const item = document.createElement("li");
      const load = document.createElement("button");
      load.type = "button";
      load.className = "load";
      load.textContent = entry.name ?? entry;
      load.title = entry.text ?? entry;
      load.addEventListener("click", () => setEditor(entry.text ?? entry));
      item.append(load);
      if (remove) {
        const drop = document.createElement("button");
        drop.type = "button";
        drop.className = "drop";
        drop.textContent = "×";
        drop.title = "Remove";
        drop.addEventListener("click", () => remove(index));
        item.append(drop);
      }
      return item;
    }));
  };
  fill($("history"), store.get("history", []), null);
  fill($("favourites"), store.get("favourites", []), (index) => {
    const favourites = store.get("favourites", []);
    favourites.splice(index, 1);
    store.set("favourites", favourites);
    renderSaved();
  });
}

function saveFavourite() {
  const text = editor.state.doc.toString().trim();
  if (!text) return;
  const name = text.split("\n")[0].slice(0, 60);
  const favourites = store.get("favourites", []).filter((entry) => entry.text !== text);
  favourites.unshift({ name, text });
  store.set("favourites", favourites);
  renderSaved();
}

// ---- the editor -----------------------------------------------------------------------------

function setEditor(text) {
  editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } });
  editor.focus();
}

const editor = new EditorView({
  parent: $("editor"),
  state: EditorState.create({
    doc: "",
    extensions: [
      Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => { runEditor(); return true; } }])),
      basicSetup,
      cypher,
      autocompletion({ override: [cypherCompletions(() => state.names)] }),
      EditorView.lineWrapping,
    ],
  }),
});

// The editor, for tests and the browser's developer tools.
window.quiverEditor = editor;

function runEditor() {
  const script = editor.state.doc.toString();
  if (script.trim()) runScript(script);
}

// ---- running --------------------------------------------------------------------------------

async function runScript(script) {
  if (!state.connection || state.running) return;
  remember(script.trim());
  const statements = splitStatements(script);
  for (const statement of statements) {
    const finished = statement.text.startsWith(":")
      ? await command(statement.text)
      : await runStatement(statement.text);
    if (!finished) break;
  }
}

/// `:param`, `:params`, `:clear`, `:use`; returns whether the script goes on.
async function command(text) {
  const [, name, rest] = text.match(/^:(\w+)\s*([\s\S]*)$/) ?? [];
  const frame = newFrame(text);
  if (name === "clear") {
    $("frames").replaceChildren();
    return true;
  }
  if (name === "param") {
    const assignment = rest.match(/^`?([\w]+)`?\s*(?:=>|:)\s*([\s\S]+)$/);
    if (!assignment) {
      showError(frame, text, { code: "Console.Usage", message: "Use :param name => value" });
      return false;
    }
    try {
      const [record] = await read(`RETURN ${assignment[2]} AS value`, state.params);
      state.params[assignment[1]] = record.get("value");
    } catch (error) {
      showError(frame, text, error);
      return false;
    }
  } else if (name === "params") {
    if (rest.trim() === "{}") state.params = {};
  } else if (name === "use") {
    const wanted = rest.trim().replace(/^`|`$/g, "");
    try {
      const found = await column(`SHOW DATABASE \`${wanted.replace(/`/g, "``")}\` YIELD name`, "name");
      if (!found.length) throw { code: "Neo.ClientError.Database.DatabaseNotFound", message: `No database ${wanted}` };
      useDatabase(found[0]);
      showJson(frame, { database: found[0] });
    } catch (error) {
      showError(frame, text, error);
      return false;
    }
    return true;
  } else {
    showError(frame, text, { code: "Console.UnknownCommand", message: `No command :${name}` });
    return false;
  }
  showJson(frame, toPlain(state.params));
  return true;
}

/// Runs one statement into a new frame; returns whether it succeeded.
function runStatement(text) {
  const frame = newFrame(text);
  const connection = state.connection;
  connection.queries ??= makeDriver(connection.url, connection.user, connection.password);
  const queries = connection.queries;
  const session = sessionOf(queries);
  const started = performance.now();
  const rows = [];
  let total = 0;
  let keys = [];
  let cancelled = false;
  $("cancel").disabled = false;
  $("run").disabled = true;
  frame.classList.add("running");
  const progress = setInterval(() => setNotice(frame, `running… ${total} rows`), 250);
  return new Promise((resolve) => {
    const finish = (ok) => {
      clearInterval(progress);
      state.running = null;
      $("cancel").disabled = true;
      $("run").disabled = false;
      frame.classList.remove("running");
      session.close().catch(() => {});
      resolve(ok);
    };
    state.running = {
      cancel() {
        cancelled = true;
        // Closing the query's connections makes the server stop the work (the client left).
        connection.queries = null;
        queries.close().catch(() => {});
        clearInterval(progress);
        frame.dataset.cancelled = "true";
        showError(frame, text, { code: "Console.Cancelled", message: "Cancelled: the server stops the query." });
        finish(false);
      },
    };
    session.run(text, state.params).subscribe({
      onKeys(names) {
        keys = names;
      },
      onNext(record) {
        total += 1;
        if (rows.length < RESULT_ROWS_MAX) rows.push(record);
      },
      onCompleted(summary) {
        if (cancelled) return;
        const elapsed = Math.round(performance.now() - started);
        showResult(frame, { keys, rows, total, summary, elapsed });
        if (summary.counters?.containsUpdates() || summary.counters?.containsSystemUpdates()) loadSchema();
        // A database or alias made, dropped or changed: the selector reads the list again.
        if (/^\s*(CREATE|DROP|ALTER|START|STOP)\b[\s\S]*\b(DATABASE|ALIAS)\b/i.test(text)) loadDatabases();
        finish(true);
      },
      onError(error) {
        if (cancelled) return;
        showError(frame, text, error);
        finish(false);
      },
    });
  });
}

// ---- frames ---------------------------------------------------------------------------------

function newFrame(text) {
  const frame = document.createElement("article");
  frame.className = "frame";
  const head = document.createElement("header");
  const query = document.createElement("code");
  query.textContent = text;
  query.className = "frame-query";
  query.title = "Edit";
  query.addEventListener("click", () => setEditor(text));
  const close = document.createElement("button");
  close.type = "button";
  close.className = "close";
  close.textContent = "×";
  close.title = "Close";
  close.addEventListener("click", () => frame.remove());
  head.append(query, close);
  const notice = document.createElement("p");
  notice.className = "notice";
  const body = document.createElement("div");
  body.className = "frame-body";
  frame.append(head, notice, body);
  $("frames").prepend(frame);
  return frame;
}

function setNotice(frame, text) {
  frame.querySelector(".notice").textContent = text;
}

function showError(frame, text, error) {
  frame.classList.add("failed");
  const code = error.code ?? "Neo.DatabaseError.General.UnknownError";
  frame.dataset.code = code;
  const box = document.createElement("div");
  box.className = "error";
  const title = document.createElement("strong");
  title.className = "error-code";
  title.textContent = code;
  const message = document.createElement("pre");
  message.className = "error-message";
  message.textContent = error.message;
  box.append(title, message);
  const position = errorPosition(error);
  if (position) {
    const lines = text.split("\n");
    const line = lines[position.line - 1] ?? "";
    const caret = document.createElement("pre");
    caret.className = "caret";
    caret.dataset.line = position.line;
    caret.dataset.column = position.column;
    caret.textContent = `${line}\n${" ".repeat(Math.max(0, position.column - 1))}^`;
    box.append(caret);
  }
  frame.querySelector(".frame-body").replaceChildren(box);
  setNotice(frame, "");
}

/// Where the error is: the GQL diagnostic record's `_position`, else the message's
/// "(line L, column C (offset: O))".
function errorPosition(error) {
  const recorded = error.diagnosticRecord?._position;
  if (recorded?.line) return { line: Number(recorded.line), column: Number(recorded.column) };
  const match = String(error.message ?? "").match(/line (\d+), column (\d+)/);
  return match ? { line: Number(match[1]), column: Number(match[2]) } : null;
}

function showJson(frame, value) {
  const pre = document.createElement("pre");
  pre.className = "json";
  pre.textContent = JSON.stringify(value, null, 2);
  frame.querySelector(".frame-body").replaceChildren(pre);
  setNotice(frame, "");
}

function showResult(frame, { keys, rows, total, summary, elapsed }) {
  const graph = collectGraph(rows);
  const plan = summary.profile || summary.plan || null;
  frame.dataset.rows = String(rows.length);
  frame.dataset.total = String(total);
  frame.dataset.nodes = String(graph.nodes.size);
  frame.dataset.relationships = String(graph.rels.size);
  const capped = rows.length < total ? `showing ${rows.length} of ${total} rows` : `${total} row${total === 1 ? "" : "s"}`;
  const updates = summary.counters?.containsUpdates() ? ` · ${describeUpdates(summary.counters.updates())}` : "";
  setNotice(frame, `${capped} in ${elapsed} ms${updates}`);
  const views = [];
  if (graph.nodes.size > 0) views.push(["Graph", (pane) => drawGraph(pane, graph, frame)]);
  if (keys.length > 0) views.push(["Table", (pane) => drawTable(pane, keys, rows)]);
  if (plan) views.push(["Plan", (pane) => drawPlan(pane, plan, Boolean(summary.profile))]);
  views.push(["JSON", (pane) => {
    const pre = document.createElement("pre");
    pre.className = "json";
    pre.textContent = JSON.stringify(rows.map((record) => toPlain(record.toObject())), null, 2);
    pane.append(pre);
  }]);
  const tabs = document.createElement("nav");
  tabs.className = "tabs";
  const pane = document.createElement("div");
  pane.className = "pane";
  const show = (index) => {
    for (const [i, button] of [...tabs.children].entries()) button.classList.toggle("active", i === index);
    frame.querySelector(".pane")?.replaceChildren();
    pane.dataset.view = views[index][0].toLowerCase();
    views[index][1](pane);
  };
  views.forEach(([name], index) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = name;
    button.dataset.view = name.toLowerCase();
    button.addEventListener("click", () => show(index));
    tabs.append(button);
  });
  frame.querySelector(".frame-body").replaceChildren(tabs, pane);
  show(plan && !summary.profile && rows.length === 0 ? views.findIndex(([n]) => n === "Plan") : 0);
}

function describeUpdates(updates) {
  return Object.entries(updates)
    .filter(([, count]) => count > 0)
    .map(([name, count]) => `${name.replace(/([A-Z])/g, " $1").toLowerCase()}: ${count}`)
    .join(", ");
}

// ---- values ---------------------------------------------------------------------------------

function toPlain(value) {
  if (value === null || value === undefined) return null;
  if (neo4j.isInt(value)) return value.toNumber();
  if (typeof value === "bigint") return value.toString();
  if (neo4j.isNode(value)) return { elementId: value.elementId, labels: value.labels, properties: toPlain(value.properties) };
  if (neo4j.isRelationship(value)) {
    return { elementId: value.elementId, type: value.type, start: value.startNodeElementId, end: value.endNodeElementId, properties: toPlain(value.properties) };
  }
  if (neo4j.isPath(value)) return { start: toPlain(value.start), segments: value.segments.map((s) => ({ relationship: toPlain(s.relationship), end: toPlain(s.end) })) };
  if (Array.isArray(value)) return value.map(toPlain);
  if (value instanceof Uint8Array || ArrayBuffer.isView(value)) return `bytes[${value.byteLength}]`;
  if (typeof value === "object") {
    if (value.constructor !== Object && typeof value.toString === "function") return value.toString();
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toPlain(v)]));
  }
  return value;
}

function collectGraph(rows) {
  const nodes = new Map();
  const rels = new Map();
  const visit = (value) => {
    if (value === null || typeof value !== "object") return;
    if (neo4j.isNode(value)) {
      if (nodes.size < GRAPH_NODES_MAX || nodes.has(value.elementId)) nodes.set(value.elementId, value);
    } else if (neo4j.isRelationship(value)) {
      rels.set(value.elementId, value);
    } else if (neo4j.isPath(value)) {
      visit(value.start);
      for (const segment of value.segments) {
        visit(segment.relationship);
        visit(segment.end);
      }
    } else if (Array.isArray(value)) {
      value.forEach(visit);
    } else if (value.constructor === Object) {
      Object.values(value).forEach(visit);
    }
  };
  for (const record of rows) record.forEach(visit);
  for (const [id, rel] of rels) {
    if (!nodes.has(rel.startNodeElementId) || !nodes.has(rel.endNodeElementId)) rels.delete(id);
  }
  return { nodes, rels };
}

function cell(value) {
  const plain = toPlain(value);
  return typeof plain === "string" ? plain : JSON.stringify(plain);
}

function drawTable(pane, keys, rows) {
  const table = document.createElement("table");
  table.className = "results";
  const head = table.createTHead().insertRow();
  for (const key of keys) {
    const th = document.createElement("th");
    th.textContent = key;
    head.append(th);
  }
  const body = table.createTBody();
  for (const record of rows) {
    const tr = body.insertRow();
    for (const key of keys) tr.insertCell().textContent = cell(record.get(key));
  }
  pane.append(table);
}

function drawPlan(pane, plan, profiled) {
  const operator = (step) => {
    const item = document.createElement("li");
    const box = document.createElement("div");
    box.className = "operator";
    const name = document.createElement("strong");
    name.textContent = step.operatorType;
    box.append(name);
    const figures = [];
    const estimated = step.arguments?.EstimatedRows;
    if (profiled) figures.push(`${step.rows ?? 0} rows`, `${step.dbHits ?? 0} db hits`);
    else if (estimated !== undefined) figures.push(`~${Math.round(Number(estimated))} rows`);
    const details = step.arguments?.Details ?? step.arguments?.details;
    if (details) figures.push(String(details));
    if (step.identifiers?.length) figures.push(step.identifiers.join(", "));
    const info = document.createElement("span");
    info.className = "figures";
    info.textContent = figures.join(" · ");
    box.append(info);
    item.append(box);
    if (step.children?.length) {
      const list = document.createElement("ul");
      list.append(...step.children.map(operator));
      item.append(list);
    }
    return item;
  };
  const tree = document.createElement("ul");
  tree.className = "plan";
  tree.append(operator(plan));
  pane.append(tree);
}

// ---- the graph ------------------------------------------------------------------------------

function styleOf(label) {
  const styles = store.get("styles", {});
  if (!styles[label]) {
    let hash = 0;
    for (const ch of label) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
    styles[label] = { color: PALETTE[hash % PALETTE.length], caption: null };
  }
  return styles[label];
}

function setStyle(label, change) {
  const styles = store.get("styles", {});
  styles[label] = { ...styleOf(label), ...change };
  store.set("styles", styles);
}

function caption(node) {
  const label = node.labels[0];
  const chosen = label ? styleOf(label).caption : null;
  const props = node.properties;
  const value = chosen && props[chosen] !== undefined ? props[chosen]
    : props.name ?? props.title ?? props.id ?? label ?? "";
  return String(toPlain(value)).slice(0, 24);
}

function nodeElement(node) {
  const label = node.labels[0] ?? "";
  return { group: "nodes", data: { id: node.elementId, label, caption: caption(node), color: label ? styleOf(label).color : "#a5abb6" } };
}

function relElement(rel) {
  return { group: "edges", data: { id: `r${rel.elementId}`, source: rel.startNodeElementId, target: rel.endNodeElementId, type: rel.type } };
}

function drawGraph(pane, graph, frame) {
  const legend = document.createElement("div");
  legend.className = "legend";
  const canvas = document.createElement("div");
  canvas.className = "graph";
  pane.append(legend, canvas);
  const fast = graph.rels.size >= GRAPH_FAST_EDGES_MIN;
  const elements = [...[...graph.nodes.values()].map(nodeElement), ...[...graph.rels.values()].map(relElement)];
  const started = performance.now();
  const cy = cytoscape({
    container: canvas,
    elements,
    wheelSensitivity: 0.3,
    hideEdgesOnViewport: fast,
    textureOnViewport: fast,
    style: [
      { selector: "node", style: {
        "background-color": "data(color)", label: "data(caption)", color: "#fff", "font-size": 9,
        "text-valign": "center", "text-halign": "center", width: 34, height: 34,
        "text-max-width": 32, "text-wrap": "ellipsis", "border-width": 1, "border-color": "#0003",
        "min-zoomed-font-size": 6,
      } },
      { selector: "node:selected", style: { "border-width": 3, "border-color": "#1b6ac9" } },
      { selector: "edge", style: fast
        ? { "curve-style": "haystack", "haystack-radius": 0, width: 1, "line-color": "#a5abb6" }
        : { "curve-style": "bezier", width: 1.5, "line-color": "#a5abb6", "target-arrow-color": "#a5abb6",
          "target-arrow-shape": "triangle", label: "data(type)", "font-size": 7, "text-rotation": "autorotate",
          "text-background-color": "#fff", "text-background-opacity": 0.8, "min-zoomed-font-size": 6 } },
    ],
    layout: graph.nodes.size >= GRAPH_GRID_LAYOUT_MIN
      ? { name: "preset", positions: gridForceLayout(graph), fit: true, padding: 20 }
      : { name: "cose", animate: false, randomize: true, numIter: 1000,
        nodeRepulsion: () => 8000, idealEdgeLength: () => 60, fit: true, padding: 20 },
  });
  frame.dataset.layoutMs = String(Math.round(performance.now() - started));
  window.quiverGraph = cy;
  cy.on("dbltap", "node", (event) => expand(cy, event.target.id()));
  drawLegend(legend, cy, graph);
}

/// A force-directed layout in linear time per step (Fruchterman and Reingold's forces, with
/// repulsion only between nodes in neighbouring cells of a grid as wide as its reach): nodes
/// repel, relationships pull, a weak gravity keeps components together, and the step shrinks
/// as it settles. Returns the positions by node id.
function gridForceLayout(graph, steps = 250) {
  const ids = [...graph.nodes.keys()];
  const n = ids.length;
  const index = new Map(ids.map((id, i) => [id, i]));
  const k = 50;
  const reach = 2 * k;
  const side = Math.sqrt(n) * k;
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  const dx = new Float64Array(n);
  const dy = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i] = (Math.random() - 0.5) * side;
    y[i] = (Math.random() - 0.5) * side;
  }
  const links = [];
  for (const rel of graph.rels.values()) {
    const s = index.get(rel.startNodeElementId);
    const t = index.get(rel.endNodeElementId);
    if (s !== t) links.push(s, t);
  }
  let step = side / 8;
  const cooling = Math.pow(1 / 200, 1 / steps);
  for (let round = 0; round < steps; round++) {
    dx.fill(0);
    dy.fill(0);
    const cells = new Map();
    for (let i = 0; i < n; i++) {
      const key = Math.floor(x[i] / reach) * 65536 + Math.floor(y[i] / reach);
      const cell = cells.get(key);
      if (cell) cell.push(i);
      else cells.set(key, [i]);
    }
    for (const [key, members] of cells) {
      const cx = Math.round(key / 65536);
      const cy = key - cx * 65536;
      for (let ox = -1; ox <= 1; ox++) {
        for (let oy = -1; oy <= 1; oy++) {
          const others = cells.get((cx + ox) * 65536 + (cy + oy));
          if (!others) continue;
          for (const i of members) {
            for (const j of others) {
              if (j <= i) continue;
              const ex = x[i] - x[j];
              const ey = y[i] - y[j];
              const d2 = ex * ex + ey * ey || 0.01;
              if (d2 > reach * reach) continue;
              const f = (k * k) / d2;
              dx[i] += ex * f; dy[i] += ey * f;
              dx[j] -= ex * f; dy[j] -= ey * f;
            }
          }
        }
      }
    }
    for (let e = 0; e < links.length; e += 2) {
      const i = links[e];
      const j = links[e + 1];
      const ex = x[i] - x[j];
      const ey = y[i] - y[j];
      const d = Math.sqrt(ex * ex + ey * ey) || 0.01;
      const f = d / k;
      dx[i] -= ex * f; dy[i] -= ey * f;
      dx[j] += ex * f; dy[j] += ey * f;
    }
    for (let i = 0; i < n; i++) {
      dx[i] -= x[i] * 0.02;
      dy[i] -= y[i] * 0.02;
      const length = Math.sqrt(dx[i] * dx[i] + dy[i] * dy[i]) || 1;
      const move = Math.min(length, step);
      x[i] += (dx[i] / length) * move;
      y[i] += (dy[i] / length) * move;
    }
    step *= cooling;
  }
  return Object.fromEntries(ids.map((id, i) => [id, { x: x[i], y: y[i] }]));
}

function drawLegend(legend, cy, graph) {
  const labels = new Map();
  for (const node of graph.nodes.values()) {
    for (const label of node.labels.slice(0, 1)) {
      const keys = labels.get(label) ?? new Set();
      Object.keys(node.properties).forEach((key) => keys.add(key));
      labels.set(label, keys);
    }
  }
  const restyle = () => {
    cy.batch(() => {
      for (const node of graph.nodes.values()) {
        const element = cy.getElementById(node.elementId);
        element.data("color", node.labels[0] ? styleOf(node.labels[0]).color : "#a5abb6");
        element.data("caption", caption(node));
      }
    });
  };
  legend.replaceChildren(...[...labels].map(([label, keys]) => {
    const chip = document.createElement("span");
    chip.className = "legend-label";
    const swatch = document.createElement("button");
    swatch.type = "button";
    swatch.className = "swatch";
    swatch.style.background = styleOf(label).color;
    swatch.title = "Next colour";
    swatch.textContent = label;
    swatch.addEventListener("click", () => {
      const next = PALETTE[(PALETTE.indexOf(styleOf(label).color) + 1) % PALETTE.length];
      setStyle(label, { color: next });
      swatch.style.background = next;
      restyle();
    });
    const select = document.createElement("select");
    select.title = "Caption";
    select.append(new Option("caption: auto", ""), ...[...keys].map((key) => new Option(key, key)));
    select.value = styleOf(label).caption ?? "";
    select.addEventListener("change", () => {
      setStyle(label, { caption: select.value || null });
      restyle();
    });
    chip.append(swatch, select);
    return chip;
  }), Object.assign(document.createElement("span"), {
    className: "muted",
    textContent: `${graph.nodes.size} nodes, ${graph.rels.size} relationships · double-click a node to expand it`,
  }));
}

async function expand(cy, id) {
  let records;
  try {
    records = await read("MATCH (n)-[r]-(m) WHERE elementId(n) = $id RETURN r, m LIMIT 100", { id });
  } catch {
    return;
  }
  const origin = cy.getElementById(id).position();
  const added = [];
  for (const record of records) {
    const m = record.get("m");
    const r = record.get("r");
    if (cy.getElementById(m.elementId).empty()) {
      const element = nodeElement(m);
      element.position = { x: origin.x + (Math.random() - 0.5) * 160, y: origin.y + (Math.random() - 0.5) * 160 };
      added.push(element);
    }
    if (cy.getElementById(`r${r.elementId}`).empty()) added.push(relElement(r));
  }
  cy.add(added);
}

// ---- wiring ---------------------------------------------------------------------------------

$("connect-form").addEventListener("submit", (event) => {
  event.preventDefault();
  connect($("url").value.trim(), $("user").value.trim(), $("password").value);
});
$("disconnect").addEventListener("click", disconnect);
$("run").addEventListener("click", runEditor);
$("cancel").addEventListener("click", () => state.running?.cancel());
$("favourite").addEventListener("click", saveFavourite);
$("refresh-schema").addEventListener("click", loadSchema);
$("database").addEventListener("change", (event) => useDatabase(event.target.value));

const last = store.get("connection", null);
$("url").value = last?.url ?? defaultUrl();
$("user").value = last?.user ?? "";
renderSaved();
