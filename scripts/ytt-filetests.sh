#!/usr/bin/env bash
# The measure of `confvet render`: ytt's own template filetests, run through
# confvet. Run by hand, never in tests (CI has no ytt source):
#   cargo build && scripts/ytt-filetests.sh [-v] YTT_GIT_DIR [CONFVET_BIN]
# YTT_GIT_DIR is a ytt checkout or a bare clone (read at HEAD); CONFVET_BIN
# defaults to target/debug/confvet. -v lists the failing tests.
#
# Suites: pkg/yamltemplate/filetests, pkg/texttemplate/filetests and
# pkg/validations/filetests. A test that mentions `@ytt:overlay` or
# `@overlay/` uses overlays; those are also counted apart.
#
# The file format is ytt's (test/filetests/filetests.go for the YAML suites,
# pkg/texttemplate/template_test.go for the text suite):
# - YAML suites: the template, then "\n+++\n\n", then the expected output,
#   or `ERR:` and an error message, or `OUTPUT POSITION:` and a position dump.
#   The template is written to tpl.yml and run as `render tpl.yml`. ytt's
#   runner gives every template of pkg/yamltemplate the same data values
#   (`defaultInput()` in pkg/yamltemplate/template_test.go); a test that
#   loads `@ytt:data` gets them as a second file, values.yml.
# - Text suite: every file is a text template, whatever its extension; the
#   template, then "\n+++\n", then the expected text, or "\nERR:" and a
#   message. ytt never prints text templates to stdout (`ytt -f x.txt` prints
#   nothing and warns), so the template is written to tpl.txt and run as
#   `render --output-files OUT tpl.txt`, ytt's own flag, and OUT/tpl.txt is
#   what is compared.
# - Validations suite: ytt's runner checks `@assert/validate` on the output of
#   the template, but `ytt -f` checks those annotations on data values only
#   (pkg/workspace/library_execution.go), never on templates. So the template
#   becomes values.yml, a data values file (`#@data/values` on its first
#   document), and tpl.yml prints the final values (`--- #@ data.values`):
#   `render tpl.yml values.yml`. One test differs in kind: in
#   when=/can-use-context `ctx.root` is the document set under ytt's runner
#   but the values map under `ytt -f`, so `ctx.root[0]` fails there; it is
#   still an error, as expected, for another reason.
#
# Verdict: an expected error passes when render exits 1. Expected output
# passes when render exits 0 and its output is byte-identical to the expected
# section; ytt's runner compares successes exactly (it trims trailing
# whitespace only from error messages), and so does this script. An
# `OUTPUT POSITION:` test passes on exit 0 (there is no position dump to
# compare). Error tests only check the exit code, so a program that always
# exits 1 passes them all: each line also gives the score on output tests and
# on error tests apart. Exits 0 whatever the score (2 on a usage error).
#
# Checking the script: as CONFVET_BIN, a wrapper that runs
# `ytt [FLAGS] -f PATH...` for `render [FLAGS] PATH...` (value-taking flags
# such as --output-files keep their value) must pass every test; ytt built
# from carvel-dev/ytt 4b40e30 passes 236 of 237 (40 of the 41 with overlays):
# its version is `develop`, so version.tpltest's require_at_least fails.
set -uo pipefail

verbose=0
if [ "${1:-}" = -v ]; then
  verbose=1
  shift
fi
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 [-v] YTT_GIT_DIR [CONFVET_BIN]" >&2
  exit 2
fi
ytt_dir=$1
bin=${2:-$(cd "$(dirname "$0")/.." && pwd)/target/debug/confvet}
case $bin in
  /*) ;;
  *) bin=$PWD/$bin ;;
esac
[ -x "$bin" ] || { echo "$bin: not an executable (build first: cargo build)" >&2; exit 2; }
git -C "$ytt_dir" rev-parse --verify -q HEAD >/dev/null ||
  { echo "$ytt_dir: not a git directory" >&2; exit 2; }
command -v perl >/dev/null || { echo "needs perl" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The data values ytt's yamltemplate runner gives every template.
values_yml='#@data/values
---
int: 123
intNeg: -49
float: 123.123
t: true
f: false
nullz: null
string: string
map:
  a: 123
list:
- a
- 123
- a: 123
'

# split SEP TEST TEMPLATE_OUT EXPECTED_OUT: the test's text before the first
# SEP into TEMPLATE_OUT, the rest into EXPECTED_OUT (exactly, as strings.SplitN).
split() {
  SEP=$1 perl -0777 -e '
    my ($test, $tpl, $exp) = @ARGV;
    open my $in, "<", $test or die; binmode $in; my $all = <$in>; $all //= "";
    my $i = index($all, $ENV{SEP}); exit 1 if $i < 0;
    open my $t, ">", $tpl or die; binmode $t; print $t substr($all, 0, $i);
    open my $e, ">", $exp or die; binmode $e; print $e substr($all, $i + length $ENV{SEP});
  ' "$2" "$3" "$4"
}

total_pass=0
total_fail=0
total_overlay=0
total_overlay_pass=0
total_out_pass=0
total_out=0
total_err_pass=0
total_err=0
failures=()

run_suite() {
  local suite=$1 dir=$2 kind=$3
  local pass=0 fail=0 overlay=0 overlay_pass=0 n=0 test case why is_err uses_overlay
  local out_pass=0 out_n=0 err_pass=0 err_n=0
  while IFS= read -r test; do
    [ -n "$test" ] || continue
    n=$((n + 1))
    case=$work/$n
    mkdir -p "$case"
    git -C "$ytt_dir" show "HEAD:$test" >"$case/test" 2>/dev/null || continue
    uses_overlay=0
    if grep -qE '@ytt:overlay|@overlay/' "$case/test"; then
      uses_overlay=1
      overlay=$((overlay + 1))
    fi
    why=
    is_err=0
    if [ "$kind" = text ]; then
      if ! split $'\n+++\n' "$case/test" "$case/tpl.txt" "$case/expected"; then
        why="no +++ separator"
      else
        mkdir "$case/out"
        "$bin" render --output-files "$case/out" "$case/tpl.txt" \
          >"$case/stdout" 2>"$case/stderr"
        local code=$?
        if [ "$(head -c 5 "$case/expected")" = $'\nERR:' ]; then
          is_err=1
          [ $code -eq 1 ] || why="exit $code, expected 1 (an error)"
        elif [ $code -ne 0 ]; then
          why="exit $code: $(head -c 300 "$case/stderr" | tr '\n' ' ')"
        elif [ ! -f "$case/out/tpl.txt" ]; then
          why="no $case/out/tpl.txt written"
        elif ! cmp -s "$case/out/tpl.txt" "$case/expected"; then
          why="output differs"
        fi
      fi
    else
      if ! split $'\n+++\n\n' "$case/test" "$case/tpl.yml" "$case/expected"; then
        why="no +++ separator"
      else
        local inputs=("$case/tpl.yml")
        if [ "$kind" = values ]; then
          # The template's first document becomes a data values document.
          if grep -q '^---' "$case/tpl.yml"; then
            awk '!done && /^---/ { print "#@data/values"; done = 1 } { print }' \
              "$case/tpl.yml" >"$case/values.yml"
          else
            { printf '#@data/values\n---\n'; cat "$case/tpl.yml"; } >"$case/values.yml"
          fi
          printf '#@ load("@ytt:data", "data")\n--- #@ data.values\n' >"$case/tpl.yml"
          inputs+=("$case/values.yml")
        elif grep -q '@ytt:data' "$case/tpl.yml"; then
          printf '%s' "$values_yml" >"$case/values.yml"
          inputs+=("$case/values.yml")
        fi
        "$bin" render "${inputs[@]}" >"$case/stdout" 2>"$case/stderr"
        local code=$?
        case $(head -c 16 "$case/expected") in
          ERR:*)
            is_err=1
            [ $code -eq 1 ] || why="exit $code, expected 1 (an error)"
            ;;
          "OUTPUT POSITION:")
            [ $code -eq 0 ] || why="exit $code: $(head -c 300 "$case/stderr" | tr '\n' ' ')"
            ;;
          *)
            if [ $code -ne 0 ]; then
              why="exit $code: $(head -c 300 "$case/stderr" | tr '\n' ' ')"
            elif ! cmp -s "$case/stdout" "$case/expected"; then
              why="output differs"
            fi
            ;;
        esac
      fi
    fi
    if [ $is_err -eq 1 ]; then
      err_n=$((err_n + 1))
      [ -n "$why" ] || err_pass=$((err_pass + 1))
    else
      out_n=$((out_n + 1))
      [ -n "$why" ] || out_pass=$((out_pass + 1))
    fi
    if [ -z "$why" ]; then
      pass=$((pass + 1))
      overlay_pass=$((overlay_pass + uses_overlay))
    else
      fail=$((fail + 1))
      failures+=("$test: $why")
    fi
    rm -rf "$case"
  done < <(git -C "$ytt_dir" ls-tree -r --name-only HEAD -- "$dir" | LC_ALL=C sort)
  echo "$suite: $pass passed, $fail failed (outputs $out_pass/$out_n, errors $err_pass/$err_n; with overlays $overlay_pass/$overlay)"
  total_out_pass=$((total_out_pass + out_pass))
  total_out=$((total_out + out_n))
  total_err_pass=$((total_err_pass + err_pass))
  total_err=$((total_err + err_n))
  total_pass=$((total_pass + pass))
  total_fail=$((total_fail + fail))
  total_overlay=$((total_overlay + overlay))
  total_overlay_pass=$((total_overlay_pass + overlay_pass))
}

run_suite yamltemplate pkg/yamltemplate/filetests yaml
run_suite texttemplate pkg/texttemplate/filetests text
run_suite validations pkg/validations/filetests values
echo "total: $total_pass passed, $total_fail failed (outputs $total_out_pass/$total_out, errors $total_err_pass/$total_err; with overlays $total_overlay_pass/$total_overlay)"
if [ $verbose -eq 1 ] && [ ${#failures[@]} -gt 0 ]; then
  echo "failing:"
  printf '  %s\n' "${failures[@]}"
fi
