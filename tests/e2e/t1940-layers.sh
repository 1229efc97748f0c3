#!/bin/sh
# lib/ in layers (lib/README.md): scripts/check-layers passes on the tree and
# fails, naming the file, on each kind of wrong include planted in a copy:
# an upward include, a peer's header, the CLI reaching an internal header, a
# public header including an internal one, a .c file at lib/'s top level,
# a file in lib/ over 800 lines.
. "$(dirname "$0")/test-lib.sh"
skip_in_sanitizer_build 'the include rule of the source tree; no binary runs'

. "$TEST_SRC/tests/e2e/lib-layers.sh"

test_expect_success 'the tree keeps the layer rule' '
	"$TEST_SRC/scripts/check-layers" "$TEST_SRC" >out &&
	! test -s out &&
	copy && "$TEST_SRC/scripts/check-layers" "$TEST_ROOT/src"
'

test_expect_success 'a util file including a hooks header fails' '
	copy && plant lib/util/buf.c "#include \"hooks.h\"" &&
	fails_with "lib/util/buf.c:" &&
	grep -F "includes \"hooks.h\" of layer app, which is not below util" out
'

test_expect_success 'the store including the merge fails' '
	copy && plant lib/store/store_thread.c "#include \"merge.h\"" &&
	fails_with "lib/store/store_thread.c:" && grep -F "of layer merge" out
'

test_expect_success 'a peer: the merge including the staleness engine fails' '
	copy && plant lib/merge/merge_text.c "#include \"stale.h\"" &&
	fails_with "lib/merge/merge_text.c:" && grep -F "not below merge" out
'

test_expect_success 'the CLI including an internal header fails' '
	copy && plant git-threadmind/cmd-tree.c "#include \"store_internal.h\"" &&
	fails_with "git-threadmind/cmd-tree.c:" &&
	grep -F "lib/include/threadmind/ only" out
'

test_expect_success 'a public header including an internal one fails' '
	copy && plant lib/include/threadmind/store.h "#include \"store_internal.h\"" &&
	fails_with "lib/include/threadmind/store.h:" &&
	grep -F "a public header includes" out
'

test_expect_success 'a .c file at the top of lib/ fails' '
	copy && echo "int x;" >"$TEST_ROOT/src/lib/stray.c" &&
	fails_with "lib/stray.c: a file at lib/"
'

test_expect_success 'a file in lib/ over 800 lines fails, naming its count' '
	copy && f="$TEST_ROOT/src/lib/stale/stale_walk.c" &&
	n=$(wc -l <"$f") &&
	while [ "$n" -lt 800 ]; do echo >>"$f"; n=$((n + 1)); done &&
	"$TEST_SRC/scripts/check-layers" "$TEST_ROOT/src" >out &&
	! test -s out &&
	echo >>"$f" &&
	fails_with "lib/stale/stale_walk.c: 801 lines, over 800" &&
	test "$(wc -l <out)" -eq 1
'

test_done
