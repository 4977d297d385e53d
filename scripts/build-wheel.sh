#!/usr/bin/env bash
# Build the `confvet` wheel (the binary, as `pip install confvet` gets it)
# from this checkout. The wheel's maturin project is python/confvet; the
# root's pyproject.toml is the pre-commit hook's metadata-only package, so
# `maturin build` at the root is refused (see its [tool.maturin]).
#   scripts/build-wheel.sh [MATURIN ARGS...]   e.g. --release --out dist
set -euo pipefail
cd "$(dirname "$0")/../python/confvet"
exec maturin build "$@"
