#!/usr/bin/env bash
# The VS Code extension in editors/vscode, built as CI and a packager would:
# `npm ci` from the committed lock file, `tsc`, eslint, the unit tests
# (`npm test`: node:test), `vsce package`; then the .vsix must hold
# out/extension.js and package.json and no binary (not even one left in
# bin/), and its extension must load from the unpacked .vsix alone (its
# runtime dependencies packed) with a stand-in `vscode` module. Last, the
# .vsix for this machine's platform (linux-x64 in CI) with the debug
# binary bundled (scripts/package-target.sh; a stripped copy, when `strip`
# exists): it must hold extension/bin/confvet, executable and whole, say
# its target, and the binary unpacked from it must run.
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
planted=
cleanup() {
  if [[ -n $planted ]]; then rm -f "$planted"; fi
  if [[ -z "${KEEP_TEMP:-}" ]]; then rm -rf "$tmp"; fi
}
trap cleanup EXIT
if [[ -n "${KEEP_TEMP:-}" ]]; then
  echo "kept $tmp"
fi
cd editors/vscode
npm ci --prefer-offline --no-audit --no-fund --loglevel=error
npm run --silent compile
npm run --silent lint
npm test --silent >"$tmp/test.log" 2>&1 || {
  cat "$tmp/test.log" >&2
  exit 1
}
# A binary left in bin/ (by a targeted build that stopped) stays out.
if [[ ! -e bin/confvet ]]; then
  mkdir -p bin
  planted=$PWD/bin/confvet
  echo "a stale binary" >"$planted"
fi
vsix="$tmp/confvet.vsix"
npx --no-install vsce package --out "$vsix" >"$tmp/vsce.log" 2>&1 || {
  cat "$tmp/vsce.log" >&2
  exit 1
}
listing=$(unzip -l "$vsix")
if grep -q " extension/bin/" <<<"$listing"; then
  echo "vscode: the untargeted .vsix holds a binary:" >&2
  echo "$listing" >&2
  exit 1
fi
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
echo "vscode: the extension compiles, lints clean, passes its unit tests and packages ($(wc -c <"$vsix") bytes, no binary), and loads from its .vsix"

# The .vsix for this platform, with the binary.
case $(uname -s)/$(uname -m) in
  Linux/x86_64) target=linux-x64 ;;
  Linux/aarch64) target=linux-arm64 ;;
  Darwin/x86_64) target=darwin-x64 ;;
  Darwin/arm64) target=darwin-arm64 ;;
  *)
    echo "vscode: no VS Code target for $(uname -sm): the platform .vsix was not built"
    exit 0
    ;;
esac
cd ../..
binary=${CARGO_TARGET_DIR:-target}/debug/confvet
[[ -x $binary ]] || cargo build --quiet
cp "$binary" "$tmp/confvet"
# Debug info is most of the debug binary (about 280 of 290 MB).
if command -v strip >/dev/null; then strip "$tmp/confvet"; fi
vsix="$tmp/confvet-$target.vsix"
editors/vscode/scripts/package-target.sh "$target" "$tmp/confvet" "$vsix" >"$tmp/vsce.log" 2>&1 || {
  cat "$tmp/vsce.log" >&2
  exit 1
}
if [[ -e editors/vscode/bin ]]; then
  echo "vscode: package-target.sh left editors/vscode/bin behind" >&2
  exit 1
fi
python3 - "$vsix" "$target" "$tmp/confvet" <<'PY'
import os, re, sys, zipfile
vsix, target, binary = sys.argv[1:]
with zipfile.ZipFile(vsix) as z:
    entries = {i.filename: i for i in z.infolist()}
    entry = entries.get("extension/bin/confvet")
    assert entry, f"no extension/bin/confvet in {vsix}: {sorted(entries)[:20]}"
    mode = entry.external_attr >> 16
    assert mode & 0o111 == 0o111, f"extension/bin/confvet is not executable: {oct(mode)}"
    assert entry.file_size == os.path.getsize(binary) > 1_000_000, f"size {entry.file_size}"
    manifest = z.read("extension.vsixmanifest").decode()
    assert f'TargetPlatform="{target}"' in manifest, "the manifest names no target"
    assert not any(n.startswith("extension/out/test/") for n in entries), "tests packed"
PY
unzip -q "$vsix" extension/bin/confvet -d "$tmp/platform"
# Run as unpacked: the mode comes from the .vsix.
version=$("$tmp/platform/extension/bin/confvet" --version)
expected="confvet $(sed -n '/^\[package\]/,/^\[/ s/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n 1)"
if [[ $version != "$expected" ]]; then
  echo "vscode: the bundled binary says '$version', not '$expected'" >&2
  exit 1
fi
echo "vscode: the $target .vsix ($(wc -c <"$vsix") bytes) bundles bin/confvet, which runs: $version"
