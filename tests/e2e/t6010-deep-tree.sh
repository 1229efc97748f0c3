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
! sanitizer_build || MAX_S=60 MAX_KB=1048576

test_expect_success "setup: a chain of $N threads" '
	new_repo r &&
	(cd r && git threadmind init -q --title P) &&
	chain_files $P $N main
'

test_expect_success 'tree: linear output, depth marker past the cap' '
	(cd r && test_bounded_ok tree git threadmind tree --ascii) &&
	out="$TEST_ROOT/tree.out" &&
	test $(wc -l <"$out") = $((N + 1)) &&
	test_size_at_most "$out" $((N * 100)) &&
	grep "^  \(    \)\{14\}\`-- c14  C$" "$out" &&
	grep "^  \(    \)\{15\}\`-- c15  C$" "$out" &&
	grep "^  \(    \)\{15\}\`-- \[depth 17\] c16  C$" "$out" &&
	grep "^  \(    \)\{15\}\`-- \[depth $N\] c9999  C$" "$out"
'

test_expect_success 'tree --json: streamed, linear, the whole nesting kept' '
	(cd r && test_bounded_ok json git threadmind tree --json) &&
	out="$TEST_ROOT/json.out" &&
	test_size_at_most "$out" $((N * 1600)) &&
	# doc, roots, 2 per thread (its object and its children)
	test "$(json_depth "$out")" = $((2 * N + 4)) &&
	python3 - "$out" $N <<-\EOF
	import re, sys
	text, n = open(sys.argv[1]).read(), int(sys.argv[2])
	ids = re.findall(r"\"id\": \"(c?\d+|main)\"", text)
	assert len(ids) == n + 1, len(ids)
	assert ids[-1] == "c%d" % (n - 1)
	assert ("\"depth\": %d," % n) in text
	assert text.endswith("}\n")
	EOF
'

test_expect_success 'tree --dot and list stay linear' '
	(cd r && test_bounded_ok dot git threadmind tree --dot &&
		test_bounded_ok list git threadmind list --json) &&
	test_size_at_most "$TEST_ROOT/dot.out" $((N * 100))
'

test_done
