#!/usr/bin/env bash
# Benchmark at scale (issue "Scale"): ../shared/corpus copied 1x, 10x and 50x
# (scripts/corpus-copies.sh), linted in one process on all cores, beside
# `grep -r` reading the same tree and, up to 10x, the reference ytt run once
# per package (what CI without confvet pays). Prints time (hyperfine) and
# peak RSS (GNU time) per size. Run by hand, never in tests:
#   cargo build --release && scripts/bench-scale.sh [YTT_BIN] [SIZES...]
# Needs hyperfine and GNU time (Debian packages `hyperfine`, `time`).
set -euo pipefail
cd "$(dirname "$0")/.."
ytt=""
if [ $# -gt 0 ] && [ -x "$1" ]; then ytt=$(realpath "$1"); shift; fi
sizes=${*:-1 10 50}
bin=$PWD/target/release/confvet
[ -x "$bin" ] || { echo "build first: cargo build --release" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "needs hyperfine" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
peak() { /usr/bin/time -f "%M" "$@" 2>&1 >/dev/null | tail -1; }
for size in $sizes; do
  tree=$work/x$size
  scripts/corpus-copies.sh "$size" "$tree"
  yaml=$(find "$tree" -name '*.yml' -o -name '*.yaml' | wc -l)
  tekton=$(find "$tree" -path '*/tekton/*' \( -name '*.yml' -o -name '*.yaml' \) | wc -l)
  echo "== ${size}x: $(du -sh "$tree" | cut -f1), $yaml YAML files ($tekton Tekton)"
  commands=(-n "grep -r" "grep -r zzzz-not-there $tree"
            -n "confvet lint" "$bin lint $tree --format json --output /dev/null"
            -n "confvet lint --no-render" "$bin lint $tree --no-render --format json --output /dev/null"
            -n "confvet lint (Tekton files only)" "$bin lint $tree/copy*/tekton --format json --output /dev/null")
  if [ -n "$ytt" ] && [ "$size" -le 10 ]; then
    list=$work/packages-$size
    find ../shared/corpus/ytt -name expect.yml -printf '%h\n' | sed "s|^../shared/corpus/ytt|ytt|" > "$list.rel"
    for i in $(seq 1 "$size"); do sed "s|^|$tree/copy$i/|" "$list.rel"; done > "$list"
    commands+=(-n "ytt -f per package" "xargs -P $(nproc) -I{} sh -c '$ytt -f {} >/dev/null 2>&1' < $list")
  fi
  hyperfine --warmup 1 --runs 3 -i --export-markdown "$work/t$size.md" "${commands[@]}" >/dev/null
  cat "$work/t$size.md"
  echo "peak RSS: confvet lint $(( $(peak "$bin" lint "$tree" --format json --output /dev/null) / 1024 )) MB," \
       "--no-render $(( $(peak "$bin" lint "$tree" --no-render --format json --output /dev/null) / 1024 )) MB"
  rm -rf "$tree"
done
