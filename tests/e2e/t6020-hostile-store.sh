#!/bin/sh
# Hostile store layouts and sizes a cloned repository can carry (issue 11;
# the reproductions d1, d9, d11 and d12 of ../shared/repro/reliability/):
# every loop is bounded, a listing error is an error, nothing is left
# behind, and the 1 MiB limit holds on every write.  Bounds:
# docs/SECURITY.md.
. "$(dirname "$0")/test-lib.sh"

P=.threadmind/threads/p

# t CMD...: CMD within 10 s (timeout's 124 or a signal fails the test).
t() {
	timeout 10 "$@"
	_rc=$?
	[ $_rc -ne 124 ] && [ $_rc -le 128 ] || {
		echo "timed out or died ($_rc): $*" >&2
		return 1
	}
	return $_rc
}

test_expect_success 'setup' '
	new_repo r && (cd r && git threadmind init -q --title P)
'

# d1: every listing error used to read as "id taken": an endless loop
# holding the lock.
for kind in symlink file; do
	test_expect_success "d1: project new with threads/ a $kind fails" "
		(cd r && mv .threadmind/threads threads.keep &&
			case $kind in
			symlink) ln -s \"\$TEST_ROOT\" .threadmind/threads ;;
			file) echo x >.threadmind/threads ;;
			esac &&
			{ t git threadmind project new $kind 2>err; test \$? -eq 128; } &&
			cat err && grep '.threadmind/threads' err &&
			test ! -e .threadmind/.lock &&
			test ! -e .threadmind/projects/$kind.json &&
			rm .threadmind/threads && mv threads.keep .threadmind/threads &&
			git threadmind project new $kind >out && grep '^$kind\$' out &&
			test -f .threadmind/threads/$kind/main.md)
	"
done

test_expect_success 'd1: thread ids are bounded too' '
	(cd r && git threadmind new -q Busy >/dev/null &&
		python3 - <<-\PY &&
		for i in range(2, 10001):
		    open(".threadmind/threads/p/busy-%d.md" % i, "w").write(
		        "---\nid: busy-%d\ntitle: B\nparentId: main\n---\n" % i)
		PY
		{ t git threadmind new -q Busy 2>err; test $? -eq 128; } &&
		grep "busy-10000" err && test ! -e .threadmind/.lock &&
		rm $P/busy-9999.md &&
		git threadmind new -q Busy >out && grep "^busy-9999\$" out &&
		rm $P/busy*.md)
'

test_done
