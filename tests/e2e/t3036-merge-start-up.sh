#!/bin/sh
# The merge driver's cost next to git merge-file (issue 19, reproduction
# 13; DESIGN.md section 8: at most 1.5 times).  Wall times drift on these
# shared machines, so this counts instructions with valgrind's callgrind,
# which repeat exactly whatever the load (docs/PERFORMANCE.md): libgit2 is
# never initialised (its TLS and SSH set-up was most of the driver's
# start-up), and the median ratio over the reproduction's kind of cases
# stays under 1.5.  `make bench` measures the wall-time ratio.
. "$(dirname "$0")/test-lib.sh"
. "$TEST_SRC/tests/e2e/lib-merge.sh"

# test_skip TITLE WHY: a TAP skip
test_skip() {
	test_count=$((test_count + 1))
	echo "ok $test_count # skip $1 ($2)"
}

# why_skip: why callgrind cannot count here, or nothing: valgrind is not
# installed, or the driver is the sanitizer build's (ASan does not run
# under valgrind, and its instructions are not the driver's).
why_skip() {
	if ! command -v valgrind >/dev/null 2>&1; then
		echo 'valgrind is not installed'
	elif sanitizer_build; then
		echo 'the sanitizer build'
	fi
}
why=$(why_skip)
if [ -n "$why" ]; then
	test_skip 'the driver never initialises libgit2' "$why"
	test_skip 'the driver runs under 1.5 times git merge-file' "$why"
	test_done
fi

# cases N: N cases as the reproduction makes them (five sections of 5 to
# 40 items; each side inserts 1 to 3 items, and now and then marks one
# done), in c<k>/O, A, B.
cases() {
	python3 - "$1" <<-\EOF
	import os, random, sys
	rng = random.Random(13)
	words = "cart session token search index gateway webhook worker cache queue".split()
	def item():
	    return "- %s the %s %s (%d)" % (rng.choice(["Use", "Keep", "Drop", "Wire"]),
	        rng.choice(words), rng.choice(words), rng.randrange(10**6))
	def doc(upd, secs):
	    fm = ("---\nid: x\ntitle: X\nparentId: main\nauthor: ana-1c2e\n"
	          "createdAt: 2026-04-15T10:00:00.000Z\nupdatedAt: %s\nbranch: main\n"
	          "commit: %s\n---\n" % (upd, "a" * 40))
	    return fm + "".join("\n## %s\n%s\n" % (h, "\n".join(l)) for h, l in secs)
	def edit(secs):
	    secs = [(h, list(l)) for h, l in secs]
	    for _ in range(rng.randint(1, 3)):
	        h, l = rng.choice(secs)
	        l.insert(rng.randint(0, len(l)), item())
	    if rng.random() < 0.4:
	        h, l = rng.choice(secs)
	        l[rng.randrange(len(l))] += " (done)"
	    return secs
	for c in range(int(sys.argv[1])):
	    base = [(h, [item() for _ in range(rng.randint(5, 40))]) for h in
	            ("Decisions", "Constraints", "State", "Open questions", "Next steps")]
	    os.mkdir("c%d" % c)
	    for n, d in (("O", doc("2026-04-15T12:00:00.000Z", base)),
	                 ("A", doc("2026-04-16T12:00:00.000Z", edit(base))),
	                 ("B", doc("2026-04-17T12:00:00.000Z", edit(base)))):
	        open("c%d/%s" % (c, n), "w").write(d)
	EOF
}

# counted NAME CMD...: run CMD under callgrind (its profile in NAME.cg);
# the instructions it ran on stdout, its exit code.
counted() {
	_n=$1
	shift
	valgrind --tool=callgrind --callgrind-out-file="$TEST_ROOT/$_n.cg" \
		"$@" >/dev/null 2>"$TEST_ROOT/$_n.vg"
	_rc=$?
	sed -n 's/^summary: //p' "$TEST_ROOT/$_n.cg"
	return $_rc
}

test_expect_success 'the driver never initialises libgit2: clean merges, a conflict' '
	cases 5 &&
	for c in c0 c1 c2 c3 c4; do
		cp $c/A $c/R && (cd $c && counted $c git-threadmind-merge O R B 7 $X19 >n) &&
		! grep "git_libgit2_init" $c.cg || return 1
	done &&
	mkdir cf && { x19_fm && printf "## State\nBase.\n"; } >cf/O &&
	{ x19_fm && printf "## State\nOurs.\n"; } >cf/R &&
	{ x19_fm && printf "## State\nTheirs.\n"; } >cf/B &&
	git init -q cf && (cd cf && test_exit_code 1 counted cf git-threadmind-merge O R B 7 $X19 >n) &&
	grep "^<<<<<<< ours" cf/R && ! grep "git_libgit2_init" cf.cg
'

test_expect_success 'the driver runs under 1.5 times the instructions of git merge-file' '
	for c in c0 c1 c2 c3 c4; do
		cp $c/A $c/R && d=$(cd $c && counted d$c git-threadmind-merge O R B 7 $X19) &&
		cp $c/A $c/G && g=$(cd $c && { counted g$c git merge-file G O B || :; }) &&
		echo "$c: driver $d, git merge-file $g" &&
		echo "$d $g" >>counts || return 1
	done &&
	ratio=$(awk "{ print \$1 / \$2 }" counts | sort -n | sed -n 3p) &&
	echo "median ratio $ratio" &&
	awk -v r="$ratio" "BEGIN { exit !(r <= 1.5) }"
'

test_done
