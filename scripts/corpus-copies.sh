#!/usr/bin/env bash
# Copy ../shared/corpus (ytt, KubeVirt, Tekton) COPIES times below DEST, as
# a monorepo of that size: DEST/copy1/..., without the expectation files.
#   scripts/corpus-copies.sh COPIES DEST
set -euo pipefail
cd "$(dirname "$0")/.."
copies=${1:?usage: $0 COPIES DEST}
dest=${2:?usage: $0 COPIES DEST}
corpus=../shared/corpus
[ -d "$corpus" ] || { echo "no $corpus" >&2; exit 2; }
mkdir -p "$dest"
for i in $(seq 1 "$copies"); do
  mkdir -p "$dest/copy$i"
  for system in ytt kubevirt tekton; do
    cp -r "$corpus/$system" "$dest/copy$i/"
  done
done
find "$dest" -name expect.yml -delete
