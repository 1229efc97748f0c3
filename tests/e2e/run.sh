#!/bin/sh
# Run every tests/e2e/tNNNN-*.sh script, print their TAP, sum up at the end.
# Scripts are independent (each works in its own temporary folder with its
# own HOME): TM_E2E_JOBS of them run at a time (default: the number of
# processors), and their outputs are printed whole, in name order.
cd "$(dirname "$0")" || exit 1
jobs=${TM_E2E_JOBS:-$(nproc 2>/dev/null || echo 1)}
out=$(mktemp -d "${TMPDIR:-/tmp}/tm-e2e-run.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT
trap 'exit 130' INT TERM
# Started in reverse name order: the heavy hostile-input scripts (t6xxx)
# start first instead of making the tail of the run.  Each script's wall
# time is kept, and the slowest are named at the end (CI's time budget).
# shellcheck disable=SC2016,SC2012,SC2011 # expanded by the inner sh; plain names
ls -r t[0-9]*.sh | xargs -P "$jobs" -n 1 sh -c \
	's=$(date +%s); sh "$1" >"$0/$1.out" 2>&1; echo $? >"$0/$1.rc";
	 echo "$(($(date +%s) - s)) $1" >"$0/$1.time"' "$out"
pass=0
fail=0
failed_scripts=
for t in t[0-9]*.sh; do
	rc=$(cat "$out/$t.rc" 2>/dev/null) || rc=1
	sed "s|^|$t: |" "$out/$t.out"
	p=$(grep -c '^ok ' "$out/$t.out")
	f=$(grep -c '^not ok ' "$out/$t.out")
	pass=$((pass + p))
	fail=$((fail + f))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		fail=$((fail + 1))
		echo "$t: exited $rc"
	fi
	[ "$rc" -ne 0 ] && failed_scripts="$failed_scripts $t"
done
# The failures again, at the end where a CI log's tail shows them: each
# failing test with its output, or the script's last lines when it died.
for t in $failed_scripts; do
	echo "--- $t:"
	if grep -q '^not ok ' "$out/$t.out"; then
		awk '/^not ok /{ p = 1 } /^ok /{ p = 0 } p' "$out/$t.out"
	else
		tail -n 20 "$out/$t.out"
	fi
done
echo "e2e: $pass passed, $fail failed"
echo "e2e: slowest: $(cat "$out"/*.time | sort -rn | head -n 5 |
	awk '{ printf "%s%s %s s", (NR > 1 ? ", " : ""), $2, $1 }')"
[ -z "$failed_scripts" ] || { echo "failed:$failed_scripts"; exit 1; }
