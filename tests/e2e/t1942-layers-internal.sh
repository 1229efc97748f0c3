#!/bin/sh
# A module's *_internal.h is for that module's files only (issue 23, item
# 11): the layers above use the layer's header (store_files.h,
# git_libgit2.h); scripts/check-layers fails, naming the file, on a planted
# include of another module's internal header, in its folder or above it.
. "$(dirname "$0")/test-lib.sh"
skip_in_sanitizer_build 'the include rule of the source tree; no binary runs'

. "$TEST_SRC/tests/e2e/lib-layers.sh"

test_expect_success 'internal headers stay in their module' '
	copy && "$TEST_SRC/scripts/check-layers" "$TEST_ROOT/src" >out &&
	! test -s out &&
	for d in util format io git store stale merge ops app; do
		grep -l "#include \"[a-z_]*_internal.h\"" "$TEST_SRC"/lib/$d/*.[ch] \
			2>/dev/null
	done >users &&
	test -s users
'

test_expect_success 'a layer above including the store internal header fails' '
	copy && plant lib/app/doctor.c "#include \"store_internal.h\"" &&
	fails_with "lib/app/doctor.c:" &&
	grep -F "internal to a module of lib/store: use its layer" out
'

test_expect_success 'another module of the same folder including it fails' '
	copy && plant lib/store/recover.c "#include \"store_internal.h\"" &&
	fails_with "lib/store/recover.c:" &&
	grep -F "internal to the files store*" out &&
	copy && plant lib/git/paths.c "#include \"git_internal.h\"" &&
	fails_with "lib/git/paths.c:"
'

test_expect_success 'the staleness engine has no exemption: its internal headers too' '
	copy && plant lib/ops/ops_tree.c "#include \"stale_internal.h\"" &&
	fails_with "lib/ops/ops_tree.c:" &&
	grep -F "internal to a module of lib/stale: use its layer" out &&
	copy && plant lib/stale/stale_walk.c "#include \"stale_cidx_internal.h\"" &&
	fails_with "lib/stale/stale_walk.c:" &&
	grep -F "internal to the files stale_cidx*" out &&
	copy && plant lib/stale/paths_index.c "#include \"stale_internal.h\"" &&
	fails_with "lib/stale/paths_index.c:"
'

test_expect_success 'the layer headers are fine above their layer' '
	copy && plant lib/app/doctor.c "#include \"store_files.h\"" &&
	plant lib/app/hooks.c "#include \"git_libgit2.h\"" &&
	"$TEST_SRC/scripts/check-layers" "$TEST_ROOT/src"
'

test_done
