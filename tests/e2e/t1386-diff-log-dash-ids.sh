#!/bin/sh
# diff, log and show <commit> with what the command line accepts elsewhere:
# ThreadMind 0.4's ids `-2`, `-3` as threads (as is when they name a thread
# of the work tree, after `--` always), abbreviated long options, and the
# commits of `summary --append`.
. "$(dirname "$0")/test-lib.sh"

T=r/.threadmind

# th ID PARENT TITLE [BODY]: a thread file as ThreadMind 0.4.1 writes it.
n=0
th() {
	n=$((n + 1))
	ts=$(printf '2026-04-15T10:%02d:00.000Z' "$n")
	printf -- '---\nid: %s\ntitle: %s\nparentId: %s\nauthor: alice-1a2b\ncreatedAt: %s\nupdatedAt: %s\n---\n\n%s' \
		"$1" "$3" "$2" "$ts" "$ts" "${4:-}" >"$T/threads/p/$1.md"
}

test_expect_success 'setup: a 0.4 store, then -2 retitled and appended to' '
	git init -q r &&
	mkdir -p $T/projects $T/threads/p $T/trees &&
	printf "config.json\n\n" >$T/.gitignore &&
	printf "{\n  \"id\": \"p\",\n  \"title\": \"P\",\n  \"systemContext\": \"\",\n  \"mode\": \"solo\",\n  \"rootThreadId\": \"main\"\n}" >$T/projects/p.json &&
	printf "{\n  \"activeProjectId\": \"p\",\n  \"activeThreadId\": \"main\",\n  \"author\": \"alice-1a2b\",\n  \"version\": 1\n}" >$T/config.json &&
	th main null P &&
	th -2 main Pay "## State
- started" &&
	th -3 main Rocket "body of -3" &&
	(cd r && git add -A && test_tick && git commit -q -m "0.4 store" &&
	 git threadmind set -q -2 title=Paiement &&
	 echo "- paid" |
		git threadmind summary -q -2 --append --section State &&
	 git add -A && test_tick && git commit -q -m "-2: paid")
'

test_expect_success 'diff: -2 as a thread after the revisions, or after --' '
	cat >expect <<-EOF &&
	M -2  Paiement
	    title: Pay -> Paiement
	    branch: (none) -> main
	    reviewed at $(cd r && git rev-parse --short=7 HEAD~1)
	    ## State
	      + - paid
	EOF
	(cd r && git threadmind diff HEAD~1 HEAD -2) >out &&
	test_cmp expect out &&
	(cd r && test_exit_code 128 git threadmind diff -2 HEAD~1 HEAD) 2>err &&
	grep "^fatal: a revision (.HEAD~1.) comes after a thread; revisions come first$" err &&
	(cd r && git threadmind diff HEAD~1 HEAD -- -2) >out &&
	test_cmp expect out &&
	(cd r && git threadmind diff HEAD~1 HEAD -3) >out &&
	test_must_fail test -s out &&
	(cd r && git threadmind diff --name-status HEAD~1 -- -2 -3) >out &&
	printf "M\t-2\n" >expect &&
	test_cmp expect out
'

test_expect_success 'diff: a -<n> that names no thread is a usage error with the hint' '
	(cd r && test_exit_code 129 git threadmind diff HEAD -5) 2>err &&
	grep "^error: unknown switch .5.$" err &&
	grep "^hint: .* -- -5.$" err
'

test_expect_success 'log: -2 is the thread, its history through 0.4 and --append' '
	(cd r && git threadmind log --oneline -2) >out &&
	cat >expect <<-EOF &&
	$(cd r && git rev-parse --short=7 HEAD) -2: paid (-2: +1 items, title, branch, reviewed)
	$(cd r && git rev-parse --short=7 HEAD~1) 0.4 store (-2: added, +1 items)
	EOF
	test_cmp expect out &&
	(cd r && git threadmind log --oneline -- -2) >out2 &&
	test_cmp expect out2 &&
	(cd r && git threadmind log --oneline -2 HEAD~1) >out &&
	sed -n 2p expect >expect2 &&
	test_cmp expect2 out &&
	(cd r && git threadmind log --json -n 1 -2) >out &&
	json_is "d[\"thread\"] == \"-2\" and d[\"commits\"][0][\"thread\"] == \"-2\""
'

test_expect_success 'show: <commit>:-2, -2 <commit> and -- -2 <commit>' '
	(cd r && git threadmind show HEAD~1:-2) >out &&
	grep "^id: \"-2\"$" out &&
	grep "^title: Pay$" out &&
	(cd r && git threadmind show -2 HEAD~1) >out2 &&
	test_cmp out out2 &&
	(cd r && git threadmind show -- -2 HEAD~1) >out2 &&
	test_cmp out out2 &&
	(cd r && git threadmind show --summary-only -2 HEAD) >out &&
	printf "## State\n- started\n- paid\n" >expect &&
	test_cmp expect out
'

test_expect_success 'abbreviated options of diff, log and show' '
	(cd r && git threadmind diff --name-s HEAD~1 HEAD) >out &&
	printf "M\t-2\n" >expect &&
	test_cmp expect out &&
	(cd r && test_exit_code 1 git threadmind diff --exit HEAD~1 HEAD) >out &&
	test -s out &&
	(cd r && git threadmind diff --all-f HEAD~1 HEAD) >out &&
	grep "^    updatedAt: " out &&
	(cd r && git threadmind diff --form=markdown HEAD~1 HEAD) >out &&
	grep "^#### M \`-2\` Paiement$" out &&
	(cd r && test_exit_code 129 git threadmind diff --sta HEAD) 2>err &&
	grep "^error: ambiguous option .--sta.: could be .--staged. or .--stat.$" err &&
	(cd r && git threadmind log --one --rev -2) >out &&
	head -n 1 out | grep " 0.4 store " &&
	(cd r && git threadmind log --max=1 --one -2) >out &&
	test $(wc -l <out) -eq 1 &&
	(cd r && git threadmind show --summary-o HEAD~1:-2) >out &&
	printf "## State\n- started\n" >expect &&
	test_cmp expect out
'

test_done
