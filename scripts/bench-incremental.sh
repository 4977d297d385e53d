#!/usr/bin/env bash
# Benchmark of the incremental core (issue "An incremental core"): the
# corpus copied 1x, 10x and 50x (scripts/corpus-copies.sh), linted cold
# (--no-cache), warm (the cache of an earlier run, nothing changed), warm
# with one template changed, and warm from a cache restored into a fresh
# copy of the tree (new modification times, same content), beside `grep -r`
# over the same tree, the changed file's package linted alone, and the
# reference ytt run once per package (up to 10x). Then peak RSS (GNU time)
# cold and warm, and a pre-commit run on one named file of the 10x tree.
# CONFVET_BEFORE=BIN adds an earlier build's lint to each run, side by side.
# Run by hand, never in tests:
#   cargo build --release && scripts/bench-incremental.sh [YTT_BIN] [SIZES...]
# Needs hyperfine and GNU time (Debian packages `hyperfine`, `time`).
set -euo pipefail
cd "$(dirname "$0")/.."
ytt=""
if [ $# -gt 0 ] && [ -x "$1" ]; then ytt=$(realpath "$1"); shift; fi
sizes=${*:-1 10 50}
bin=${CONFVET_BIN:-$PWD/target/release/confvet}
[ -x "$bin" ] || { echo "build first: cargo build --release" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "needs hyperfine" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
peak() { /usr/bin/time -f "%M" "$@" 2>&1 >/dev/null | tail -1; }
# The package and template edited in the "one file changed" runs.
package=ytt/kadras-io__package-for-contour/package/config
for size in $sizes; do
  tree=$work/x$size
  scripts/corpus-copies.sh "$size" "$tree"
  git -C "$tree" init -q   # a repository, as confvet meets one
  yaml=$(find "$tree" -name '*.yml' -o -name '*.yaml' | wc -l)
  echo "== ${size}x: $(du -sh "$tree" | cut -f1), $yaml YAML files"
  lint="$bin lint . --format json --output /dev/null"
  edited=$tree/copy1/$package/$(cd "$tree/copy1/$package" && ls ./*.y*ml | head -1)
  (cd "$tree" && $lint || true)   # fills the cache
  clone=$work/clone$size
  # hyperfine takes one --prepare per command, matched in order.
  commands=(-n "grep -r" --prepare true "grep -r zzzz-not-there $tree"
            -n "cold (--no-cache)" --prepare true "cd $tree && $lint --no-cache"
            -n "warm, nothing changed" --prepare true "cd $tree && $lint"
            -n "warm, one template changed" --prepare "echo '# edit' \$RANDOM >> $edited" "cd $tree && $lint"
            -n "that package alone (--no-cache)" --prepare true "cd $tree/copy1/$package && $lint --no-cache"
            -n "warm, cache restored into a fresh copy" --prepare "rm -rf $clone && cp -r $tree $clone" "cd $clone && $lint")
  if [ -n "${CONFVET_BEFORE:-}" ]; then
    commands+=(-n "before: lint" --prepare true "cd $tree && $CONFVET_BEFORE lint . --format json --output /dev/null --no-cache")
  fi
  if [ -n "$ytt" ] && [ "$size" -le 10 ]; then
    list=$work/packages-$size
    find ../shared/corpus/ytt -name expect.yml -printf '%h\n' | sed "s|^../shared/corpus/ytt|ytt|" > "$list.rel"
    for i in $(seq 1 "$size"); do sed "s|^|$tree/copy$i/|" "$list.rel"; done > "$list"
    commands+=(-n "ytt -f per package" --prepare true "xargs -P $(nproc) -I{} sh -c '$ytt -f {} >/dev/null 2>&1' < $list")
  fi
  hyperfine --warmup 1 --runs "${RUNS:-5}" -i --export-markdown "$work/t$size.md" "${commands[@]}" >/dev/null
  cat "$work/t$size.md"
  echo "peak RSS: cold $(( $(cd "$tree" && peak $lint --no-cache) / 1024 )) MB," \
       "warm $(( $(cd "$tree" && peak $lint) / 1024 )) MB" \
       "${CONFVET_BEFORE:+before $(( $(cd "$tree" && peak $CONFVET_BEFORE lint . --format json --output /dev/null --no-cache) / 1024 )) MB}"
  if [ "$size" -eq 10 ]; then
    file=copy1/tekton/tektoncd-pipeline/examples/v1/pipelineruns/pipelinerun-param-array-indexing.yaml
    mkdir -p "$work/alone" && cp "$tree/$file" "$work/alone/"
    hyperfine --warmup 2 --runs 10 -i \
      -n "pre-commit, one named file, warm" "cd $tree && $bin lint $file --format json --output /dev/null" \
      -n "the file alone" "cd $work/alone && $bin lint $(basename "$file") --no-cache --format json --output /dev/null" \
      2>&1 | grep -E "^Benchmark|Time \(mean"
  fi
  rm -rf "$tree" "$clone"
done
