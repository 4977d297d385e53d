#!/usr/bin/env bash
# The integration tests of the Python wheel, the pre-commit hooks, the
# GitHub Action and the editors, and the manual's site build: installs their tools from PyPI into target/integration-venv
# (once per requirements.txt), builds the debug binary, then runs each test
# (wheel_test first: precommit_test installs the hook from its wheel;
# nvim_test runs the server in Neovim), then builds the VS Code extension
# (vscode.sh: npm ci, tsc, eslint, vsce package).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PYTHONDONTWRITEBYTECODE=1
venv=target/integration-venv
requirements=tests/integration/requirements.txt
if ! cmp -s "$requirements" "$venv/requirements.txt"; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$venv/requirements.txt"
fi
# The manual in docs/ builds as a site; a link to a missing page or
# anchor fails it (mkdocs.yml).
"$venv/bin/mkdocs" build --strict --quiet
echo "docs: the site builds with every internal link found"
cargo build --quiet
for test in wheel_test schema_export_test action_test precommit_test nvim_test; do
  start=$SECONDS
  "$venv/bin/python" "tests/integration/$test.py"
  echo "$test: passed in $((SECONDS - start)) s"
done
start=$SECONDS
tests/integration/vscode.sh
echo "vscode: passed in $((SECONDS - start)) s"
