#!/usr/bin/env bash
# Reproduces vendor/libs.js (and the licences beside it) from package-lock.json: the exact
# libraries the console uses, bundled once with esbuild. The Rust build embeds what is committed
# and never runs this.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
npx esbuild vendor-entry.js --bundle --format=esm --platform=browser --target=es2020 \
    --minify --legal-comments=none --outfile=vendor/libs.js
mkdir -p vendor/licences
node -e '
const fs = require("fs");
const lock = require("./package-lock.json").packages;
for (const [path, meta] of Object.entries(lock)) {
    if (!path.startsWith("node_modules/") || meta.dev) continue;
    const dir = path;
    const name = path.slice("node_modules/".length);
    const file = fs.readdirSync(dir).find((f) => /^(licen[cs]e|copying)/i.test(f));
    const text = file ? fs.readFileSync(`${dir}/${file}`, "utf8") : `${name} ${meta.version}: ${meta.license}\n`;
    fs.writeFileSync(`vendor/licences/${name.replace(/\//g, "__")}.txt`,
        `${name} ${meta.version} (${meta.license})\n\n${text}`);
}'
