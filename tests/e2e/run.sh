#!/bin/sh
# Run every tests/e2e/tNNNN-*.sh script, print their TAP, sum up at the end.
cd "$(dirname "$0")" || exit 1
pass=0
fail=0
failed_scripts=
for t in t[0-9]*.sh; do
	out=$(sh "$t" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed "s|^|$t: |"
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	pass=$((pass + p))
	fail=$((fail + f))
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		fail=$((fail + 1))
		echo "$t: exited $rc"
	fi
	[ $rc -ne 0 ] && failed_scripts="$failed_scripts $t"
done
echo "e2e: $pass passed, $fail failed"
[ -z "$failed_scripts" ] || { echo "failed:$failed_scripts"; exit 1; }
