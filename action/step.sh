#!/usr/bin/env bash
# The steps of the confvet GitHub Action (action.yml), one subcommand each:
#
#   find     is a usable confvet on PATH? If not: where to install it and the
#            cache key of that build (outputs found, root, cache-key)
#   build    cargo install confvet into $CONFVET_ROOT
#   lint     run confvet once: text log, annotations, SARIF and a Markdown
#            job summary; record the exit code (outputs exit-code,
#            sarif-file, sarif-written); never fails by itself
#   verdict  fail or pass on the recorded exit code
#
# Inputs arrive as INPUT_* environment variables; GitHub's files
# (GITHUB_OUTPUT, GITHUB_PATH, GITHUB_STEP_SUMMARY) and RUNNER_TEMP are
# taken from the environment, so the steps can run outside GitHub (the
# integration test gives them temporary files).
set -euo pipefail

action_path=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

output() {
  printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"
}

# A hash of everything the binary is built from, so that a cached build is
# used only for the same source and Cargo.lock.
source_hash() {
  local sha256=(sha256sum)
  command -v sha256sum >/dev/null || sha256=(shasum -a 256) # macOS runners
  (cd "$action_path" && find Cargo.toml Cargo.lock src -type f -print0 |
    LC_ALL=C sort -z | xargs -0 "${sha256[@]}") | "${sha256[@]}" | cut -c1-32
}

find_confvet() {
  local version=${INPUT_VERSION:-}
  if command -v confvet >/dev/null; then
    local found
    found=$(confvet --version 2>/dev/null || true)
    if [[ -z $version || $found == "confvet $version" ]]; then
      echo "Using $found at $(command -v confvet)"
      output found true
      return
    fi
    echo "$found is on PATH, but version $version was asked for"
  fi
  local root=${RUNNER_TEMP:?}/confvet-install key
  if [[ -n $version ]]; then
    key="confvet-${RUNNER_OS:-os}-${RUNNER_ARCH:-arch}-crates-$version"
  else
    key="confvet-${RUNNER_OS:-os}-${RUNNER_ARCH:-arch}-source-$(source_hash)"
  fi
  output found false
  output root "$root"
  output cache-key "$key"
  echo "$root/bin" >>"$GITHUB_PATH"
}

build_confvet() {
  local root=${CONFVET_ROOT:?} version=${INPUT_VERSION:-}
  if ! command -v cargo >/dev/null; then
    echo "::error title=confvet::confvet is not on PATH and cargo is missing to build it: add a Rust toolchain step (such as dtolnay/rust-toolchain@stable) or put a confvet binary on PATH"
    exit 1
  fi
  # Build outside the action's directory, which may be shared by jobs.
  export CARGO_TARGET_DIR=${RUNNER_TEMP:?}/confvet-target
  if [[ -n $version ]]; then
    cargo install --locked --root "$root" confvet --version "$version"
  else
    cargo install --locked --root "$root" --path "$action_path"
  fi
}

lint() {
  local sarif=${INPUT_SARIF_FILE:-}
  [[ -n $sarif ]] || sarif=${RUNNER_TEMP:?}/confvet.sarif
  local summary=${RUNNER_TEMP:?}/confvet-summary.md
  rm -f -- "$sarif" "$summary"
  mkdir -p -- "$(dirname -- "$sarif")"

  # Paths are split on whitespace, without glob expansion.
  local paths=()
  read -r -d '' -a paths <<<"${INPUT_PATHS:-}" || true
  ((${#paths[@]})) || paths=(.)

  local args=(lint --fail-on "${INPUT_FAIL_ON:-error}" --format text --color always)
  if [[ -n ${INPUT_CONFIG:-} ]]; then
    args+=(--config "$INPUT_CONFIG")
  fi
  if [[ ${INPUT_ANNOTATIONS:-true} == true ]]; then
    args+=(--format github)
  fi
  args+=(--format sarif --output "$sarif" --format markdown --output "$summary" -- "${paths[@]}")

  local code=0
  confvet "${args[@]}" || code=$?

  if [[ -s $summary ]]; then
    cat -- "$summary" >>"${GITHUB_STEP_SUMMARY:-/dev/null}"
  fi
  output exit-code "$code"
  output sarif-file "$sarif"
  if [[ -s $sarif ]]; then
    output sarif-written true
  fi
}

verdict() {
  case ${CONFVET_EXIT_CODE:-} in
  0)
    echo "confvet: no finding at or above the fail-on level"
    ;;
  1)
    echo "::error title=confvet::confvet found problems at or above the fail-on level; see the annotations, the job summary or code scanning"
    exit 1
    ;;
  '')
    echo "::error title=confvet::confvet did not run; see the steps above"
    exit 2
    ;;
  *)
    echo "::error title=confvet::confvet could not lint (exit code $CONFVET_EXIT_CODE: a usage, configuration or I/O error); see the Lint step's log"
    exit 2
    ;;
  esac
}

case ${1:-} in
find) find_confvet ;;
build) build_confvet ;;
lint) lint ;;
verdict) verdict ;;
*)
  echo "usage: $0 find|build|lint|verdict" >&2
  exit 2
  ;;
esac
