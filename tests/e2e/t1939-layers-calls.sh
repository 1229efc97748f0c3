#!/bin/sh
# lib/ in layers, on the built objects (scripts/check-layers-calls): every
# symbol a lib/ object uses from another folder is defined in a layer below
# its own, so no cycle between folders exists even through a declaration
# written by hand.  Planted: a util object calling the app layer, a stale
# object calling its peer merge.
. "$(dirname "$0")/test-lib.sh"

# plant FOLDER NAME FUNCTION: a copy of the objects with lib/FOLDER/NAME.o
# calling FUNCTION (declared by hand, no header)
plant() {
	rm -rf "$TEST_ROOT/obj" && mkdir "$TEST_ROOT/obj" &&
	cp -R "$TM_BUILD/obj/lib" "$TEST_ROOT/obj/" &&
	printf 'void %s(void);\nvoid planted_%s(void) { %s(); }\n' "$3" "$2" "$3" >"$TEST_ROOT/$2.c" &&
	${CC:-cc} -c -o "$TEST_ROOT/obj/lib/$1/$2.o" "$TEST_ROOT/$2.c"
}

test_expect_success 'the built library keeps the layer rule' '
	"$TEST_SRC/scripts/check-layers-calls" "$TM_BUILD/obj" >out &&
	! test -s out
'

test_expect_success 'a util object calling the read view of app fails' '
	plant util planted tm_view_listed &&
	test_must_fail "$TEST_SRC/scripts/check-layers-calls" "$TEST_ROOT/obj" >out &&
	grep -F "lib/util/planted.c: uses tm_view_listed of lib/app/view.c (layer app), which is not below util" out
'

test_expect_success 'the staleness engine calling its peer, the merge, fails' '
	plant stale planted tm_merge_files &&
	test_must_fail "$TEST_SRC/scripts/check-layers-calls" "$TEST_ROOT/obj" >out &&
	grep -F "uses tm_merge_files of lib/merge/" out && grep -F "not below stale" out
'

test_expect_success 'no objects: a clear error, exit 2' '
	test_exit_code 2 "$TEST_SRC/scripts/check-layers-calls" "$TEST_ROOT/none" 2>err &&
	grep -F "build first" err
'

test_done
