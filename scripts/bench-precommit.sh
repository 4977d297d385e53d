#!/usr/bin/env bash
# Benchmark of a pre-commit run (issue "Scale", item 4): one changed file
# named in a repository of ../shared/corpus copied COPIES times (10 copies:
# 15,240 YAML files), linted warm (.confvet-cache/ from an earlier run),
# cold (no cache) and with --no-cache, beside the same file linted alone.
# Run by hand, never in tests:
#   cargo build --release && scripts/bench-precommit.sh [COPIES]
# Needs hyperfine (Debian package `hyperfine`).
set -euo pipefail
cd "$(dirname "$0")/.."
copies=${1:-10}
bin=$PWD/target/release/confvet
[ -x "$bin" ] || { echo "build first: cargo build --release" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "needs hyperfine" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scripts/corpus-copies.sh "$copies" "$work/repo"
git -C "$work/repo" init -q
echo "== $(find "$work/repo" -type f | wc -l) files, $(find "$work/repo" -name '*.y*ml' | wc -l) YAML"
for file in tekton/tektoncd-pipeline/examples/v1/pipelineruns/pipelinerun-param-array-indexing.yaml \
            kubevirt/common-templates-v0.6.2-split/*.yaml; do
  file=copy1/$(cd "$work/repo/copy1" && ls $file | head -1)
  rm -rf "$work/alone"
  mkdir -p "$work/alone"
  cp "$work/repo/$file" "$work/alone/"
  echo "== $file"
  ( cd "$work/repo" && "$bin" lint "$file" --format json --output /dev/null || true )
  # Run from the repository, as pre-commit does: the cache is in it.
  in_repo="cd $work/repo && $bin lint $file --format json --output /dev/null"
  hyperfine --warmup 1 --runs 10 -i \
    -n "warm" "$in_repo" \
    -n "no cache" "$in_repo --no-cache" \
    -n "file alone" "cd $work/alone && $bin lint $(basename "$file") --format json --output /dev/null" \
    2>&1 | grep -E "^Benchmark|Time \(mean"
  hyperfine --runs 5 -i -n "cold" --prepare "rm -rf $work/repo/.confvet-cache" "$in_repo" \
    2>&1 | grep -E "^Benchmark|Time \(mean"
done
