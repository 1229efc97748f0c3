# Helpers of the layer-rule tests (t1940, t1942): a copy of the sources
# with a planted include, and scripts/check-layers run on it.  Sourced
# after test-lib.sh.

# copy: a fresh copy of the folders the rule reads, in $TEST_ROOT/src
copy() {
	rm -rf "$TEST_ROOT/src" &&
	mkdir "$TEST_ROOT/src" &&
	cp -R "$TEST_SRC/lib" "$TEST_SRC/git-threadmind" \
		"$TEST_SRC/merge-driver" "$TEST_ROOT/src/"
}

# plant FILE LINE: add LINE after FILE's first include line in the copy
plant() {
	awk -v l="$2" '{ print } !done && /^#include/ { print l; done = 1 }' \
		"$TEST_ROOT/src/$1" >"$TEST_ROOT/src/$1.new" &&
	mv "$TEST_ROOT/src/$1.new" "$TEST_ROOT/src/$1"
}

# fails_with WHAT: check-layers on the copy exits 1 and prints WHAT
fails_with() {
	test_must_fail "$TEST_SRC/scripts/check-layers" "$TEST_ROOT/src" >out &&
	grep -F "$1" out
}
