#!/usr/bin/env bash
# Compare confvet with a reference ytt on ytt package directories.
#   scripts/ytt-compare.sh YTT CONFVET OUT DIR...
# For each DIR: `ytt -f DIR` against `confvet render DIR` (exit class and
# standard output), `ytt -f DIR --data-values-inspect` against
# `confvet values DIR`, and `confvet lint DIR` against ytt's verdict.
# One line per DIR on standard output:
#   DIR render=same|DIFF(ytt=E,cv=E) values=same|DIFF(...) lint=ok|DIFF(...)
# and the outputs of each run under OUT/<n>/ for a look at the differences.
set -uo pipefail
ytt=${1:?usage: $0 YTT CONFVET OUT DIR...}
confvet=${2:?usage: $0 YTT CONFVET OUT DIR...}
out=${3:?usage: $0 YTT CONFVET OUT DIR...}
shift 3
mkdir -p "$out"
class() { [ "$1" = 0 ] && echo 0 || echo 1; }
n=0
for dir in "$@"; do
  n=$((n + 1))
  o="$out/$n"
  mkdir -p "$o"
  echo "$dir" > "$o/dir"
  timeout 60 "$ytt" -f "$dir" > "$o/ytt.out" 2> "$o/ytt.err"; ye=$(class $?)
  timeout 60 "$confvet" render "$dir" > "$o/cv.out" 2> "$o/cv.err"; ce=$(class $?)
  timeout 60 "$ytt" -f "$dir" --data-values-inspect > "$o/ytt.values" 2> "$o/ytt.values.err"; yve=$(class $?)
  timeout 60 "$confvet" values "$dir" > "$o/cv.values" 2> "$o/cv.values.err"; cve=$(class $?)
  timeout 60 "$confvet" lint --no-config --no-progress --color never "$dir" > "$o/cv.lint" 2>&1; le=$?
  r=same
  if [ "$ye" != "$ce" ]; then r="DIFF(ytt=$ye,cv=$ce)"
  elif [ "$ye" = 0 ] && ! cmp -s "$o/ytt.out" "$o/cv.out"; then r="DIFF(stdout)"; fi
  v=same
  if [ "$yve" != "$cve" ]; then v="DIFF(ytt=$yve,cv=$cve)"
  elif [ "$yve" = 0 ] && ! cmp -s "$o/ytt.values" "$o/cv.values"; then v="DIFF(stdout)"; fi
  l=ok
  if [ "$le" != "$ye" ]; then
    # lint warns (exit 0) where ytt stops only for a value the consumer must give.
    if [ "$ye" = 1 ] && [ "$le" = 0 ] && grep -q 'until the consumer gives' "$o/cv.lint"; then l=ok-consumer
    else l="DIFF(ytt=$ye,lint=$le)"; fi
  fi
  echo "$n $dir render=$r values=$v lint=$l"
done
