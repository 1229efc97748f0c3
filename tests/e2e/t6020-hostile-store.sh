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

# d11: the 1 MiB limit holds on every write, not only on reads.
test_expect_success 'd11: set title= refuses to write a file over 1 MiB' '
	(cd r && python3 -c "print(\"x\" * 1040000)" >s &&
		git threadmind summary main -F s >/dev/null &&
		cp $P/main.md before &&
		title=$(python3 -c "print(\"T\" * 100000)") &&
		{ t git threadmind set main title="$title" 2>err; test $? -eq 128; } &&
		grep "main.md.* more than the 1 MiB limit; not written" err &&
		cmp before $P/main.md && test ! -e .threadmind/.lock &&
		git threadmind show main >/dev/null)
'

test_expect_success 'd11: merge refuses to grow the parent past 1 MiB' '
	(cd r && git threadmind new -q Child >/dev/null &&
		python3 -c "print(\"## Notes\n\" + \"y\" * 600000)" >s &&
		git threadmind summary child -F s >/dev/null &&
		cp $P/main.md main.before && cp $P/child.md child.before &&
		{ t git threadmind merge child 2>err; test $? -eq 128; } &&
		grep "main.md.* more than the 1 MiB limit" err &&
		cmp main.before $P/main.md && cmp child.before $P/child.md &&
		git threadmind rm -q child 2>/dev/null || rm $P/child.md)
'

# thread_file TITLE BODY-BYTES: a thread file whose body is that many x.
thread_file() {
	python3 - "$1" "$2" <<-\PY
	import sys
	sys.stdout.write("---\nid: big\ntitle: %s\nparentId: main\n---\n\n" % sys.argv[1])
	sys.stdout.write(("x" * 99 + "\n") * (int(sys.argv[2]) // 100))
	PY
}

test_expect_success 'd11: resolve leaves a conflict with a side over 1 MiB alone' '
	git init -q big && (cd big && mkdir -p $P &&
		thread_file Base 1000 >$P/big.md &&
		git add . && git commit -q -m base &&
		git switch -q -c side && thread_file Side 2200000 >$P/big.md &&
		git commit -q -am side && git switch -q main &&
		thread_file Main 2000 >$P/big.md && git commit -q -am main &&
		test_must_fail git merge -q side >/dev/null 2>&1 &&
		cp $P/big.md before &&
		{ t git threadmind resolve >out 2>err; test $? -eq 1; } &&
		cat out err &&
		grep "skipped $P/big.md: a side is larger than 1 MiB" out &&
		cmp before $P/big.md &&
		git diff --name-only --diff-filter=U >unmerged &&
		grep big.md unmerged)
'

# d9: libgit2 follows committed .gitattributes / .gitignore symbolic links
# when it stages or re-hashes racily clean entries.  The links point at a
# fifo: opening it would block (the 10 s timeout fails the test), and the
# victim file's content and atime show nothing read it.
for name in .threadmind/.gitattributes .threadmind/.gitignore .gitattributes; do
	test_expect_success "d9: resolve refuses a committed $name link" "
		rm -rf src clone victim && mkdir victim && mkfifo victim/fifo &&
		new_repo src && (cd src && git threadmind init -q --title P &&
			rm -f $name && ln -s \"\$TEST_ROOT/victim/fifo\" $name &&
			git add -f -A . && git commit -q -m s) &&
		git clone -q src clone 2>/dev/null &&
		(cd clone && touch -d 2000-01-01 .git/index &&
			{ t git threadmind resolve 2>err; test \$? -eq 128; } &&
			grep \"'$name' is a symbolic link\" err)
	"
done

test_expect_success 'd9: a linked victim file is not read' '
	rm -rf src clone victim && mkdir victim && echo SECRET >victim/ga &&
	touch -a -d 2001-01-01 victim/ga &&
	new_repo src && (cd src && git threadmind init -q --title P &&
		ln -s "$TEST_ROOT/victim/ga" .threadmind/.gitattributes &&
		git add -f -A . && git commit -q -m s) &&
	git clone -q src clone 2>/dev/null &&
	touch -a -d 2001-01-01 victim/ga &&
	(cd clone && touch -d 2000-01-01 .git/index &&
		test_must_fail t git threadmind resolve 2>/dev/null) &&
	test "$(stat -c %X victim/ga)" = "$(date -d 2001-01-01 +%s)"
'

# d12: a key twice in config.json: we edited the first while JSON.parse (the
# editor plugin) reads the last.  Now both read the last and a rewrite keeps
# only that one, where the first was.
test_expect_success 'd12: duplicate keys in config.json: the last wins' '
	(cd r && git threadmind project use p >/dev/null 2>&1;
		git threadmind new -q A >/dev/null &&
		git threadmind new -q B >/dev/null &&
		printf "{\"activeProjectId\":\"p\",\"activeThreadId\":\"a\",\"x\":1,\"activeThreadId\":\"b\",\"branchThreads\":{\"p\":{\"main\":\"a\",\"main\":\"b\"}},\"sessions\":[],\"activeThreadId\":\"b\"}\n" \
			>.threadmind/config.json &&
		git threadmind status >out && grep "^active thread: b " out &&
		git threadmind switch a >/dev/null 2>&1 &&
		cat .threadmind/config.json &&
		test $(grep -c "\"activeThreadId\"" .threadmind/config.json) = 1 &&
		python3 - <<-\PY
		import json
		text = open(".threadmind/config.json").read()
		c = json.loads(text)
		assert c["activeThreadId"] == "a", c
		assert c["branchThreads"] == {"p": {"main": "a"}}, c
		keys = list(c)
		assert keys.index("activeThreadId") == 1 and keys.index("x") == 3, keys
		assert keys[2] == "activeThreadIdentity", keys
		assert text.count("\"main\"") == 1, text
		PY
	)
'

test_done
