// The console's libraries, bundled into vendor/libs.js by build-vendor.sh.
export { basicSetup } from "codemirror";
export { EditorView, keymap } from "@codemirror/view";
export { EditorState, Prec } from "@codemirror/state";
export { StreamLanguage, HighlightStyle, syntaxHighlighting } from "@codemirror/language";
export { autocompletion } from "@codemirror/autocomplete";
export { default as cytoscape } from "cytoscape";
import * as neo4j from "neo4j-driver-lite";
export { neo4j };
