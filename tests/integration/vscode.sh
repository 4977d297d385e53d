#!/usr/bin/env bash
# The VS Code extension in editors/vscode, built as CI and a packager would:
# `npm ci` from the committed lock file, `tsc`, eslint, `vsce package`; then
# the .vsix must hold out/extension.js and package.json, and its
# extension must load from the unpacked .vsix alone (its runtime
# dependencies packed) with a stand-in `vscode` module.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v npm >/dev/null; then
  if [[ -n "${CI:-}" || "${CONFVET_REQUIRE_SHARED:-}" == 1 ]]; then
    echo "vscode: npm not found (needed in CI)" >&2
    exit 1
  fi
  echo "vscode: SKIPPED, npm not found: the VS Code extension was not built"
  exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/confvet-vscode-XXXXXX")
if [[ -n "${KEEP_TEMP:-}" ]]; then
  echo "kept $tmp"
else
  trap 'rm -rf "$tmp"' EXIT
fi
cd editors/vscode
npm ci --prefer-offline --no-audit --no-fund --loglevel=error
npm run --silent compile
npm run --silent lint
vsix="$tmp/confvet.vsix"
npx --no-install vsce package --out "$vsix" >"$tmp/vsce.log" 2>&1 || {
  cat "$tmp/vsce.log" >&2
  exit 1
}
listing=$(unzip -l "$vsix")
for file in extension/out/extension.js extension/package.json extension/schema/confvet.schema.json extension/images/icon.png; do
  if ! grep -q " $file\$" <<<"$listing"; then
    echo "vscode: $file is not in the .vsix:" >&2
    echo "$listing" >&2
    exit 1
  fi
done
unzip -q "$vsix" -d "$tmp/unpacked"
node - "$tmp/unpacked/extension/out/extension.js" <<'JS'
// `vscode` exists only inside the editor: a stand-in whose every member is
// a callable, constructible stand-in lets the module load outside it.
const Module = require("module");
const handler = {
  get: (target, key) => (key in target ? target[key] : (target[key] = new Proxy(function () {}, handler))),
  construct: () => new Proxy({}, handler),
  apply: () => new Proxy(function () {}, handler),
};
const vscode = new Proxy(function () {}, handler);
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === "vscode" ? "vscode" : resolve.call(this, request, ...rest);
};
require.cache.vscode = { id: "vscode", filename: "vscode", loaded: true, exports: vscode };
const extension = require(process.argv[2]);
for (const name of ["activate", "deactivate"]) {
  if (typeof extension[name] !== "function") {
    console.error(`vscode: the packaged extension exports no ${name}()`);
    process.exit(1);
  }
}
JS
echo "vscode: the extension compiles, lints clean and packages ($(wc -c <"$vsix") bytes), and loads from its .vsix"
