#!/bin/sh
# doctor-paths-quadratic (issue 24), small scale (the full one, 45,000
# entries under a 100,000-file folder, is in `make bad`): doctor's check of
# `paths` entries that match nothing in HEAD matched every entry against
# every file and re-read a folder's tree for each entry and each recent
# commit.  Now each folder is read once per commit, an unchanged folder not
# at all, and the rename search stops at its bound (docs/SECURITY.md),
# saying so.
. "$(dirname "$0")/test-lib.sh"

MAX_S=2 MAX_KB=65536
! sanitizer_build || MAX_S=10 MAX_KB=1048576

# with_entries N: the thread 'auth' gets N entries m/fNNNNNN/x (nothing in
# HEAD: m/fNNNNNN is a file), committed.  The files need not be checked
# out: the entries match nothing in the work tree either.
with_entries() {
	python3 - "$1" <<-'EOF' &&
	import glob, sys
	n = int(sys.argv[1])
	f = glob.glob('.threadmind/threads/*/auth.md')[0]
	s = open(f).read()
	head, rest = s.split('paths: ["src"]\n', 1)
	open(f, 'w').write(head + 'paths: [' +
	    ','.join('"m/f%06d/x"' % i for i in range(n)) + ']\n' + rest)
	EOF
	git add .threadmind && git commit -q -m entries
}

test_expect_success 'setup: a thread with paths: [src]' '
	new_repo r && mkdir r/src && echo a >r/src/a.c &&
	(cd r && git add src && git commit -q -m src &&
		git threadmind init -q --title P &&
		git threadmind new -q Auth --paths src && git add -A &&
		git commit -q -m threads)
'

test_expect_success '8,000 unmatched entries under an 8,000-file folder: quick' '
	git clone -q r wide && (cd wide &&
		b=$(echo x | git hash-object -w --stdin) &&
		awk -v b=$b "BEGIN { for (i = 0; i < 8000; i++)
			printf \"100644 %s\tm/f%06d\n\", b, i }" |
			git update-index --index-info &&
		git commit -q -m "many small files" && with_entries 8000 &&
		test_bounded doctor git threadmind doctor) &&
	test "$(cat doctor.rc)" = 1 &&
	test "$(grep -c "paths entry .m/f0.* matches nothing" doctor.out)" = 8000 &&
	! grep "stopped at its bound" doctor.out
'

# A long history that never touches m/: 2,500 entries x 450 commits is
# past the bound (1,000,000); the newest commits rename m/old/x.
test_expect_success 'a long history: the search stops at its bound and says so' '
	git clone -q r long && (cd long &&
		echo y >m-old && mkdir -p m/old && mv m-old m/old/x &&
		git add m && git commit -q -m old &&
		{
			echo "reset refs/heads/main" &&
			echo "from $(git rev-parse HEAD)" &&
			awk "BEGIN { for (i = 0; i < 450; i++) {
				printf \"commit refs/heads/main\n\"
				printf \"committer T <t@e.x> %d +0000\n\", 1700000000 + i
				printf \"data 1\nc\nM 644 inline c/n\ndata <<E\n%d\nE\n\n\", i } }"
		} | git fast-import --quiet &&
		git reset -q --hard &&
		git mv m/old m/new && git commit -q -m rename &&
		python3 - <<-\EOF &&
		import glob
		f = glob.glob(".threadmind/threads/*/auth.md")[0]
		s = open(f).read()
		head, rest = s.split("paths: [\"src\"]\n", 1)
		open(f, "w").write(head + "paths: [\"m/old\"," +
		    ",".join("\"m/f%06d/x\"" % i for i in range(2500)) + "]\n" + rest)
		EOF
		git add .threadmind && git commit -q -m entries &&
		test_bounded doctor git threadmind doctor) &&
	test "$(cat doctor.rc)" = 1 &&
	grep "paths entry .m/old. matches nothing in HEAD; renamed to .m/new. in" doctor.out &&
	grep "the search for renamed paths entries stopped at its bound (1000000 checks" doctor.out &&
	test "$(grep -c "paths entry .m/f0.* matches nothing" doctor.out)" = 2500
'

test_done
