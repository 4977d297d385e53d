#!/usr/bin/env bash
# Benchmark: rendering the ytt corpus (../shared/corpus/ytt, 106 packages),
# confvet beside the reference ytt in one hyperfine run. Run by hand, never
# in tests:
#   cargo build --release && scripts/bench-render.sh YTT_BIN [COPIES]
# YTT_BIN: the reference ytt (../shared/tools/build-ytt.sh builds it);
# COPIES: how many times the corpus is copied side by side (default 1).
# Compared, on all cores:
#   - `confvet lint --no-cache` of the whole corpus in one process
#     (schema, values, validations and every template rendered, parallel
#     over packages): cold, as the warm-up would otherwise fill the cache
#     and the timed runs reuse every unit's findings;
#   - `confvet render --each-package` of the whole corpus in one process
#     (every package rendered as `ytt -f PACKAGE`, parallel over packages);
#   - `confvet render DIR` once per package, two at a time;
#   - `ytt -f DIR` once per package, two at a time (what a CI job running
#     ytt per package costs).
set -euo pipefail
cd "$(dirname "$0")/.."
ytt=${1:?usage: $0 YTT_BIN}
ytt=$(realpath "$ytt")
copies=${2:-1}
bin=$PWD/target/release/confvet
corpus=$(realpath ../shared/corpus/ytt)
[ -x "$bin" ] || { echo "build first: cargo build --release" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "needs hyperfine (Debian package)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for i in $(seq 1 "$copies"); do
  mkdir -p "$work/copy$i"
  cp -r "$corpus"/. "$work/copy$i/"
done
packages=$(find "$work" -name expect.yml -printf '%h\n' | sort)
find "$work" -name expect.yml -delete
find "$work" -name README.md -delete
echo "$packages" > "$work.list"
echo "packages: $(wc -l < "$work.list")"
cores=$(nproc)
hyperfine --warmup 1 --runs 5 -i \
  -n "confvet lint --no-cache (one process, cold)" "$bin lint $work --no-cache --format json --output /dev/null" \
  -n "confvet render --each-package (one process)" "$bin render --each-package $work >/dev/null 2>&1" \
  -n "confvet render per package" "xargs -P $cores -I{} sh -c '$bin render {} >/dev/null 2>&1' < $work.list" \
  -n "ytt -f per package" "xargs -P $cores -I{} sh -c '$ytt -f {} >/dev/null 2>&1' < $work.list"
rm -f "$work.list"
