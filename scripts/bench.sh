#!/usr/bin/env bash
# Benchmark: lint the ytt corpus (../shared/corpus/ytt) copied COPIES times
# (default 50) in one process, with hyperfine. Run by hand, never in tests:
#   cargo build --release && scripts/bench.sh [COPIES]
#   scripts/bench.sh tekton [COPIES]   # the Tekton corpus instead (default 20)
# Needs hyperfine (Debian package `hyperfine`) and GNU time for peak memory.
set -euo pipefail
cd "$(dirname "$0")/.."
system=ytt
if [ "${1:-}" = tekton ]; then
  system=tekton
  shift
fi
if [ "$system" = tekton ]; then copies=${1:-20}; else copies=${1:-50}; fi
corpus=../shared/corpus/$system
bin=$PWD/target/release/confvet
[ -x "$bin" ] || { echo "build first: cargo build --release" >&2; exit 2; }
[ -d "$corpus" ] || { echo "no $corpus" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for i in $(seq 1 "$copies"); do
  mkdir -p "$work/copy$i"
  cp -r "$corpus"/. "$work/copy$i/"
  find "$work/copy$i" -name expect.yml -delete
done
if [ "$system" = tekton ]; then
  # Every copy repeats the same resource names, so no taskRef is followed
  # across files; that part of the work is small anyway.
  files=$(find "$work" -name '*.yaml' -o -name '*.yml' | wc -l)
  echo "files: $files ($((files / copies)) x $copies)"
  hyperfine --warmup 1 --runs 10 -i "$bin lint $work --format json --output /dev/null"
  exit 0
fi
packages=$(find "$corpus" -name expect.yml | wc -l)
echo "packages: $((packages * copies)) ($packages x $copies)"
hyperfine --warmup 1 --runs 5 -i "$bin lint $work --format json --output /dev/null"
if command -v /usr/bin/time >/dev/null; then
  /usr/bin/time -v "$bin" lint "$work" --format json --output /dev/null 2>&1 >/dev/null | grep -E "Maximum resident|Elapsed" || true
fi
