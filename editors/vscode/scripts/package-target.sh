#!/usr/bin/env bash
# A platform-specific .vsix that bundles the confvet binary, so that the
# extension needs no separate install:
#
#   scripts/package-target.sh <target> <confvet binary> [<out.vsix>]
#
# <target> is a VS Code platform (linux-x64, linux-arm64, darwin-x64,
# darwin-arm64, win32-x64) and the binary one built for it (confvet.exe for
# win32-x64). It is copied to bin/confvet (bin/confvet.exe), where the
# extension looks when `confvet.path` is not set, and `vsce package
# --target` packs it with .vscodeignore's list less its `bin/**` line;
# bin/ is removed afterwards. The .vsix defaults to
# confvet-<target>-<version>.vsix here. Run `npm ci` first.
set -euo pipefail
if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: $0 <target> <confvet binary> [<out.vsix>]" >&2
  exit 2
fi
target=$1 binary=$2 out=${3:-}
case $target in
  linux-x64 | linux-arm64 | darwin-x64 | darwin-arm64) exe=confvet ;;
  win32-x64) exe=confvet.exe ;;
  *)
    echo "$0: unknown target $target (linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64)" >&2
    exit 2
    ;;
esac
[[ -f $binary ]] || {
  echo "$0: no binary at $binary" >&2
  exit 2
}
binary=$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")
if [[ -n $out && $out != /* ]]; then
  out=$PWD/$out
fi
cd "$(dirname "$0")/.."
version=$(node -p 'require("./package.json").version')
out=${out:-$PWD/confvet-$target-$version.vsix}
ignore=$(mktemp "${TMPDIR:-/tmp}/confvet-vscodeignore-XXXXXX")
trap 'rm -rf bin "$ignore"' EXIT
grep -v '^bin/\*\*$' .vscodeignore >"$ignore"
rm -rf bin
mkdir bin
cp "$binary" "bin/$exe"
chmod 755 "bin/$exe"
npx --no-install vsce package --target "$target" --ignoreFile "$ignore" --out "$out"
