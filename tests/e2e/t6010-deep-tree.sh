#!/bin/sh
# A 10,000-deep parent chain (issue 11, d10 of ../shared/repro/reliability/):
# `tree` and `tree --json` gave output and memory growing with the square
# of the depth (3.6 GB of JSON).  Now both are linear: the drawn depth is
# capped (deeper threads flat, with a depth marker) and --json is streamed.
. "$(dirname "$0")/test-lib.sh"

N=10000
P=r/.threadmind/threads/p
# Coarse bounds (docs/SECURITY.md): loading 10,000 files is most of the time.
MAX_S=10 MAX_KB=65536
case "$TM_BUILD" in *-san*) MAX_S=60 MAX_KB=1048576 ;; esac

# bounded NAME CMD...: test_bounded, and CMD must exit 0.
bounded() {
	test_bounded "$@" || return 1
	[ "$(cat "$TEST_ROOT/$1.rc")" -eq 0 ] || { cat "$TEST_ROOT/$1.err"; return 1; }
}

# size_at_most FILE BYTES
size_at_most() {
	_s=$(wc -c <"$1")
	echo "$1: $_s bytes (bound $2)"
	[ "$_s" -le "$2" ]
}

test_expect_success "setup: a chain of $N threads" '
	new_repo r &&
	(cd r && git threadmind init -q --title P) &&
	python3 - $N $P <<-\EOF
	import sys
	n, d = int(sys.argv[1]), sys.argv[2]
	for i in range(n):
	    open("%s/c%d.md" % (d, i), "w").write(
	        "---\nid: c%d\ntitle: C\nparentId: %s\n---\n"
	        % (i, "main" if i == 0 else "c%d" % (i - 1)))
	EOF
'

test_expect_success 'tree: linear output, depth marker past the cap' '
	(cd r && bounded tree git threadmind tree --ascii) &&
	out="$TEST_ROOT/tree.out" &&
	test $(wc -l <"$out") = $((N + 1)) &&
	size_at_most "$out" $((N * 100)) &&
	grep "^  \(    \)\{14\}\`-- c14  C$" "$out" &&
	grep "^  \(    \)\{15\}\`-- c15  C$" "$out" &&
	grep "^  \(    \)\{15\}\`-- \[depth 17\] c16  C$" "$out" &&
	grep "^  \(    \)\{15\}\`-- \[depth $N\] c9999  C$" "$out"
'

test_expect_success 'tree --json: streamed, linear, the whole nesting kept' '
	(cd r && bounded json git threadmind tree --json) &&
	out="$TEST_ROOT/json.out" &&
	size_at_most "$out" $((N * 1600)) &&
	python3 - "$out" $N <<-\EOF
	import re, sys
	text, n = open(sys.argv[1]).read(), int(sys.argv[2])
	# balanced and nested N+1 levels deep, checked without recursion
	depth = top = 0
	for tok in re.finditer(r"\"(?:[^\"\\\\]|\\\\.)*\"|[][{}]", text):
	    t = tok.group()
	    if t in "[{":
	        depth += 1
	        top = max(top, depth)
	    elif t in "]}":
	        depth -= 1
	        assert depth >= 0
	assert depth == 0, depth
	assert top == 2 * n + 4, top  # doc, roots, 2 per thread, its arrays
	ids = re.findall(r"\"id\": \"(c?\d+|main)\"", text)
	assert len(ids) == n + 1, len(ids)
	assert ids[-1] == "c%d" % (n - 1)
	assert ("\"depth\": %d," % n) in text
	assert text.endswith("}\n")
	EOF
'

test_expect_success 'tree --dot and list stay linear' '
	(cd r && bounded dot git threadmind tree --dot &&
		bounded list git threadmind list --json) &&
	size_at_most "$TEST_ROOT/dot.out" $((N * 100))
'

test_done
