// Cypher for the editor: a small tokenizer (StreamLanguage) for highlighting, and the
// completion of keywords and of the names the connected server knows.

import { StreamLanguage } from "./vendor/libs.js";

export const KEYWORDS = [
  "MATCH", "OPTIONAL", "WHERE", "RETURN", "WITH", "UNWIND", "CREATE", "MERGE", "DELETE", "DETACH",
  "SET", "REMOVE", "ORDER", "BY", "SKIP", "LIMIT", "ASC", "DESC", "ASCENDING", "DESCENDING",
  "DISTINCT", "AS", "AND", "OR", "XOR", "NOT", "IN", "IS", "NULL", "TRUE", "FALSE", "CASE", "WHEN",
  "THEN", "ELSE", "END", "CALL", "YIELD", "UNION", "ALL", "ON", "EXISTS", "COUNT", "COLLECT",
  "FOREACH", "LOAD", "CSV", "FROM", "HEADERS", "EXPLAIN", "PROFILE", "SHOW", "INDEXES",
  "CONSTRAINTS", "PROCEDURES", "FUNCTIONS", "TRANSACTIONS", "TERMINATE", "INDEX", "CONSTRAINT",
  "FOR", "REQUIRE", "UNIQUE", "KEY", "DROP", "IF", "STARTS", "ENDS", "CONTAINS", "USE", "FINISH",
  "OF", "TRANSACTIONS", "ROWS", "CURRENT", "USER", "DATABASES",
];

const KEYWORD_SET = new Set(KEYWORDS);

const cypherMode = {
  name: "cypher",
  startState: () => ({ inComment: false, afterColon: false, afterDot: false }),
  token(stream, state) {
    if (state.inComment) {
      if (stream.skipTo("*/")) {
        stream.match("*/");
        state.inComment = false;
      } else {
        stream.skipToEnd();
      }
      return "comment";
    }
    if (stream.eatSpace()) return null;
    if (stream.match("//")) {
      stream.skipToEnd();
      return "comment";
    }
    if (stream.match("/*")) {
      state.inComment = true;
      return "comment";
    }
    const quote = stream.peek();
    if (quote === "'" || quote === '"') {
      stream.next();
      let escaped = false;
      let ch;
      while ((ch = stream.next()) != null) {
        if (ch === quote && !escaped) break;
        escaped = !escaped && ch === "\\";
      }
      return "string";
    }
    if (quote === "`") {
      stream.next();
      stream.skipTo("`") ? stream.next() : stream.skipToEnd();
      const kind = state.afterColon ? "typeName" : state.afterDot ? "propertyName" : "variableName";
      state.afterColon = state.afterDot = false;
      return kind;
    }
    if (stream.match(/^\$[A-Za-z_][\w]*/) || stream.match(/^\$\d+/)) return "atom";
    if (stream.match(/^-?\d+(\.\d+)?([eE][-+]?\d+)?/)) return "number";
    if (stream.match(/^[A-Za-z_][\w]*/)) {
      const word = stream.current();
      if (state.afterColon) {
        state.afterColon = false;
        return "typeName";
      }
      if (state.afterDot) {
        state.afterDot = false;
        return stream.match(/^\s*\(/, false) ? "variableName.function" : "propertyName";
      }
      if (KEYWORD_SET.has(word.toUpperCase())) return "keyword";
      if (stream.match(/^\s*\(/, false)) return "variableName.function";
      return "variableName";
    }
    const ch = stream.next();
    state.afterColon = ch === ":";
    state.afterDot = ch === ".";
    return "operator";
  },
  languageData: { commentTokens: { line: "//", block: { open: "/*", close: "*/" } } },
};

export const cypher = StreamLanguage.define(cypherMode);

/// The completion source: `names()` returns what the server knows ({labels, types, keys,
/// procedures, functions}), read when the completion is asked for.
export function cypherCompletions(names) {
  return (context) => {
    const word = context.matchBefore(/[:.$]?[\w.`]*$/);
    if (!word || (word.from === word.to && !context.explicit)) return null;
    const known = names();
    const text = word.text;
    const before = context.state.sliceDoc(Math.max(0, word.from - 40), word.from).toUpperCase();
    let options;
    let from = word.from;
    if (text.startsWith(":")) {
      from += 1;
      options = [
        ...known.labels.map((label) => ({ label, type: "type", detail: "label" })),
        ...known.types.map((label) => ({ label, type: "type", detail: "relationship type" })),
      ];
    } else if (text.startsWith(".") || /\w\.\w*$/.test(text) && !/CALL\s+$/.test(before)) {
      const dot = text.lastIndexOf(".");
      const head = text.slice(0, dot);
      if (known.procedures.some((p) => p.startsWith(head + ".")) || known.functions.some((f) => f.startsWith(head + "."))) {
        options = [...known.procedures, ...known.functions].map((label) => ({ label, type: "function" }));
      } else {
        from += dot + 1;
        options = known.keys.map((label) => ({ label, type: "property" }));
      }
    } else if (/CALL\s+$/.test(before)) {
      options = known.procedures.map((label) => ({ label, type: "function", detail: "procedure" }));
    } else {
      options = [
        ...KEYWORDS.map((label) => ({ label, type: "keyword" })),
        ...known.functions.map((label) => ({ label, type: "function", apply: label + "(" })),
        ...known.procedures.map((label) => ({ label, type: "function", detail: "procedure" })),
      ];
    }
    return { from, options, validFor: /^[\w.`]*$/ };
  };
}

/// Splits a script into statements at `;` outside strings, backticks and comments.
export function splitStatements(script) {
  const statements = [];
  let start = 0;
  let quote = null;
  for (let i = 0; i < script.length; i++) {
    const ch = script[i];
    if (quote) {
      if (ch === "\\" && quote !== "`") i++;
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === "'" || ch === '"' || ch === "`") quote = ch;
    else if (ch === "/" && script[i + 1] === "/") {
      const end = script.indexOf("\n", i);
      i = end < 0 ? script.length : end;
    } else if (ch === "/" && script[i + 1] === "*") {
      const end = script.indexOf("*/", i + 2);
      i = end < 0 ? script.length : end + 1;
    } else if (ch === ";") {
      statements.push({ text: script.slice(start, i), offset: start });
      start = i + 1;
    }
  }
  statements.push({ text: script.slice(start), offset: start });
  return statements
    .map(({ text, offset }) => {
      const lead = text.length - text.trimStart().length;
      return { text: text.trim(), offset: offset + lead };
    })
    .filter(({ text }) => text.length > 0 && !/^(\/\/[^\n]*\s*)*$/.test(text));
}
