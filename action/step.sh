#!/usr/bin/env bash
# The steps of the confvet GitHub Action (action.yml), one subcommand each:
#
#   find      is a usable confvet on PATH? If not, how to install it
#             (outputs found, install = download or source, and for a
#             download version and target, for a source build root and
#             cache-key)
#   download  download the release archive of $CONFVET_VERSION for
#             $CONFVET_TARGET, check its SHA-256 against the release's
#             checksum file, install the binary into $CONFVET_ROOT/bin
#   build     cargo install the action's own source into $CONFVET_ROOT
#   cache-key where confvet's cache is kept in the job, and the key it is
#             saved and restored under (outputs dir, key, restore-keys):
#             confvet's version, the configuration and the shard, then the
#             run, so each run saves a cache of its own
#   lint      run confvet once: text log, annotations, SARIF and a Markdown
#             job summary; record the exit code (outputs exit-code,
#             sarif-file, sarif-written). Findings never fail it; a usage,
#             configuration or I/O error (exit code 2) does, and then no
#             SARIF is offered for upload
#   verdict   fail or pass on the recorded exit code
#
# Inputs arrive as INPUT_* environment variables; GitHub's files
# (GITHUB_OUTPUT, GITHUB_PATH, GITHUB_STEP_SUMMARY) and RUNNER_TEMP,
# RUNNER_OS, RUNNER_ARCH are taken from the environment, so the steps can
# run outside GitHub (the integration test gives them temporary files).
#
# CONFVET_RELEASES_URL replaces the release download base URL; it exists for
# the integration test (a local HTTP server) only.
set -euo pipefail

action_path=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

releases_url=${CONFVET_RELEASES_URL:-https://github.com/confvet/confvet/releases/download}

sha256=(sha256sum)
command -v sha256sum >/dev/null || sha256=(shasum -a 256) # macOS runners

output() {
  printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"
}

# An error annotation; the message is escaped as workflow command data, so
# text from inputs or files cannot start a command of its own.
annotate_error() {
  local message=${1//'%'/%25}
  message=${message//$'\r'/%0D}
  message=${message//$'\n'/%0A}
  echo "::error title=confvet::$message"
}

fail() {
  annotate_error "$1"
  exit 1
}

# A hash of everything the binary is built from, so that a cached build is
# used only for the same source and Cargo.lock.
source_hash() {
  (cd "$action_path" && find Cargo.toml Cargo.lock src -type f -print0 |
    LC_ALL=C sort -z | xargs -0 "${sha256[@]}") | "${sha256[@]}" | cut -c1-32
}

# The action's own version: the crate's, in the Cargo.toml at its ref.
action_version() {
  sed -n '/^\[package\]/,/^\[/ s/^version *= *"\(.*\)"/\1/p' "$action_path/Cargo.toml" | head -n 1
}

# The target triple of the release archive for this runner, into $target.
runner_target() {
  case "${RUNNER_OS:-}/${RUNNER_ARCH:-}" in
  Linux/X64) target=x86_64-unknown-linux-musl ;;
  Linux/ARM64) target=aarch64-unknown-linux-musl ;;
  macOS/X64) target=x86_64-apple-darwin ;;
  macOS/ARM64) target=aarch64-apple-darwin ;;
  Windows/X64) target=x86_64-pc-windows-msvc ;;
  *) fail "no confvet release binary for ${RUNNER_OS:-this OS} on ${RUNNER_ARCH:-this architecture}: set the input version: source to build it with cargo" ;;
  esac
}

# The input `version`: empty for the action's own version, X.Y.Z for that
# release, `source` to build the action's own source with cargo.
find_confvet() {
  local version=${INPUT_VERSION:-}
  if [[ -n $version && $version != source && ! $version =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]]; then
    fail "version must be empty, a release such as 1.2.3, or source; got '$version'"
  fi
  if [[ $version != source ]] && command -v confvet >/dev/null; then
    local found
    found=$(confvet --version 2>/dev/null || true)
    if [[ -z $version || $found == "confvet $version" ]]; then
      echo "Using $found at $(command -v confvet)"
      output found true
      return
    fi
    echo "$found is on PATH, but version $version was asked for"
  fi
  local root=${RUNNER_TEMP:?}/confvet-install
  output found false
  output root "$root"
  if [[ $version == source ]]; then
    output install source
    output cache-key "confvet-${RUNNER_OS:-os}-${RUNNER_ARCH:-arch}-source-$(source_hash)"
    # A restored or fresh build lands here.
    echo "$root/bin" >>"$GITHUB_PATH"
  else
    local target
    runner_target
    output install download
    output version "${version:-$(action_version)}"
    output target "$target"
  fi
}

download_confvet() {
  local root=${CONFVET_ROOT:?} version=${CONFVET_VERSION:?} target=${CONFVET_TARGET:?}
  local archive=confvet-$target.tar.gz exe=confvet
  if [[ $target == *-windows-* ]]; then
    archive=confvet-$target.zip
    exe=confvet.exe
  fi
  local url=$releases_url/v$version
  local tmp
  tmp=$(mktemp -d "${RUNNER_TEMP:?}/confvet-download.XXXXXX")
  echo "Downloading $url/$archive"
  for file in "$archive" "confvet-$target.sha256"; do
    curl --fail --silent --show-error --location --retry 3 --output "$tmp/$file" "$url/$file" ||
      fail "could not download $url/$file: is $version a released confvet version? (version: source builds the action's own source)"
  done
  # The checksum file is sha256sum's output: the digest, then the archive's name.
  local expected actual
  expected=$(tr 'A-F' 'a-f' <"$tmp/confvet-$target.sha256" | awk '{ print $1; exit }')
  actual=$(cd "$tmp" && "${sha256[@]}" "$archive" | awk '{ print $1 }')
  if [[ $expected != "$actual" ]]; then
    rm -rf -- "$tmp"
    fail "the SHA-256 of $archive is $actual, but confvet-$target.sha256 of release v$version says ${expected:-nothing}: not installed"
  fi
  echo "SHA-256 verified: $actual"
  mkdir -p -- "$tmp/unpacked" "$root/bin"
  if [[ $archive == *.zip ]]; then
    if command -v unzip >/dev/null; then
      unzip -q -o "$tmp/$archive" -d "$tmp/unpacked"
    else
      7z x -y -o"$tmp/unpacked" "$tmp/$archive" >/dev/null # Windows runners have 7-Zip
    fi
  else
    tar -xzf "$tmp/$archive" -C "$tmp/unpacked"
  fi
  [[ -f $tmp/unpacked/$exe ]] || fail "$archive holds no $exe"
  mv -f -- "$tmp/unpacked/$exe" "$root/bin/$exe"
  chmod +x "$root/bin/$exe"
  rm -rf -- "$tmp"
  "$root/bin/$exe" --version
  echo "$root/bin" >>"$GITHUB_PATH"
}

build_confvet() {
  local root=${CONFVET_ROOT:?}
  if ! command -v cargo >/dev/null; then
    fail "cargo is missing to build confvet (version: source): add a Rust toolchain step (such as dtolnay/rust-toolchain@stable) first, or leave version empty to download the release binary"
  fi
  # Build outside the action's directory, which may be shared by jobs.
  export CARGO_TARGET_DIR=${RUNNER_TEMP:?}/confvet-target
  cargo install --locked --root "$root" --path "$action_path"
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
  # A shard's SARIF names its own category (`CATEGORY/shard-K-of-N/`), which
  # the upload keeps, so the alerts of every shard stay open.
  if [[ -n ${INPUT_SHARD:-} ]]; then
    args+=(--shard "$INPUT_SHARD")
  fi
  if [[ -n ${INPUT_CHANGED_SINCE:-} ]]; then
    args+=(--changed-since "$INPUT_CHANGED_SINCE")
  fi
  if [[ -n ${INPUT_CATEGORY:-} ]]; then
    args+=(--category "$INPUT_CATEGORY")
  fi
  if [[ ${INPUT_ALLOW_CONFIG_ENV:-false} == true ]]; then
    args+=(--allow-config-env)
  fi
  if [[ ${INPUT_CACHE:-true} != true ]]; then
    args+=(--no-cache)
  fi
  # An empty directory name would put the cache in the workspace itself.
  [[ -n ${CONFVET_CACHE_DIR:-} ]] || unset CONFVET_CACHE_DIR
  if [[ ${INPUT_ANNOTATIONS:-true} == true ]]; then
    args+=(--format github)
  fi
  args+=(--format sarif --output "$sarif" --format markdown --output "$summary" -- "${paths[@]}")

  local code=0 errors=${RUNNER_TEMP:?}/confvet-stderr.txt
  confvet "${args[@]}" 2>"$errors" || code=$?
  cat -- "$errors" >&2

  if [[ -s $summary ]]; then
    cat -- "$summary" >>"${GITHUB_STEP_SUMMARY:-/dev/null}"
  fi
  output exit-code "$code"
  output sarif-file "$sarif"
  if ((code == 0 || code == 1)); then
    if [[ -s $sarif ]]; then
      output sarif-written true
    fi
    return
  fi
  # A usage, configuration or I/O error: a SARIF report of this run would be
  # empty, and uploading it would close every open code scanning alert.
  local error
  error=$(sed $'s/\x1b\\[[0-9;]*m//g' -- "$errors" | grep -m 1 . || true)
  annotate_error "confvet could not lint (exit code $code: a usage, configuration or I/O error): ${error:-see the log above}. No SARIF report was uploaded."
  exit "$code"
}

cache_key() {
  local version config=${INPUT_CONFIG:-.confvet.yaml} settings
  version=$(confvet --version 2>/dev/null | cut -d' ' -f2)
  [[ -n $version ]] || fail "confvet is not on PATH: the cache cannot be keyed"
  # The configuration's content (none: no file) and the shard.
  settings=$({
    if [[ -f $config ]]; then cat -- "$config"; else echo "no configuration"; fi
    echo "shard ${INPUT_SHARD:-}"
  } | "${sha256[@]}" | cut -c1-16)
  local prefix="confvet-lint-${RUNNER_OS:-os}-${RUNNER_ARCH:-arch}-$version-$settings-"
  output dir "${RUNNER_TEMP:?}/confvet-cache"
  output key "$prefix${GITHUB_RUN_ID:-0}-${GITHUB_RUN_ATTEMPT:-1}"
  output restore-keys "$prefix"
}

verdict() {
  case ${CONFVET_EXIT_CODE:-} in
  0)
    echo "confvet: no finding at or above the fail-on level"
    ;;
  1)
    annotate_error "confvet found problems at or above the fail-on level; see the annotations, the job summary or code scanning"
    exit 1
    ;;
  '')
    annotate_error "confvet did not run; see the steps above"
    exit 2
    ;;
  *)
    annotate_error "confvet could not lint (exit code $CONFVET_EXIT_CODE: a usage, configuration or I/O error); see the Lint step's log"
    exit 2
    ;;
  esac
}

case ${1:-} in
find) find_confvet ;;
download) download_confvet ;;
build) build_confvet ;;
cache-key) cache_key ;;
lint) lint ;;
verdict) verdict ;;
*)
  echo "usage: $0 find|download|build|cache-key|lint|verdict" >&2
  exit 2
  ;;
esac
