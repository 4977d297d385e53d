#!/usr/bin/env bash
# The integration tests of the Python wheel, the pre-commit hooks, the
# GitHub Action and the editors, and the manual's site build: installs their tools from PyPI into target/integration-venv
# (once per requirements.txt), builds the debug binary, then runs each test
# (wheel_test first: precommit_test installs the hook from its wheel;
# nvim_test runs the server in Neovim, emacs_test in Emacs with eglot),
# then builds the VS Code extension (vscode.sh: npm ci, tsc, eslint, vsce
# package). The built manual is opened
# in headless Chromium (browser/check.js) right after its build.
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
# Every page of it in Debian's headless Chromium at 1280 px (no overflow,
# code highlighted, in the navigation): served on a free localhost port.
start=$SECONDS
npm ci --prefix tests/integration/browser --prefer-offline --no-audit --no-fund --loglevel=error
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory target/site >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null' EXIT
sleep 1
node tests/integration/browser/check.js target/site "http://127.0.0.1:$port/"
kill $server; trap - EXIT
echo "docs browser: passed in $((SECONDS - start)) s"
cargo build --quiet
for test in wheel_test schema_export_test action_test precommit_test nvim_test emacs_test; do
  start=$SECONDS
  "$venv/bin/python" "tests/integration/$test.py"
  echo "$test: passed in $((SECONDS - start)) s"
done
start=$SECONDS
tests/integration/vscode.sh
echo "vscode: passed in $((SECONDS - start)) s"
