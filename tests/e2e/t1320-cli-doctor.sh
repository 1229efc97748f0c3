#!/bin/sh
# git threadmind doctor [--fix]: checks, exit codes, safe repairs.
. "$(dirname "$0")/test-lib.sh"

T=shop/.threadmind/threads/shop

# install_driver REPO: the merge driver, its attributes and the hooks.
install_driver() {
	(cd "$1" && git threadmind install -q)
}

test_expect_success 'without the merge driver: exit 1, only the attributes fixable' '
	new_repo shop &&
	(cd shop && git threadmind init -q && git threadmind new -q Auth) &&
	(cd shop && test_exit_code 1 git threadmind doctor) >out &&
	grep "^merge-driver: git config merge.threadmind.driver is not set" out &&
	grep "^gitattributes: .\.threadmind/\.gitattributes. is missing" out &&
	test $(grep -c "^hooks: missing hook p[a-z]*-[a-z]* (.*); run .git threadmind install.$" out) = 5 &&
	grep "^7 problems found; 1 can be repaired with .git threadmind doctor --fix.$" out
'

test_expect_success 'a healthy store: exit 0' '
	install_driver shop &&
	(cd shop && git threadmind doctor) >out &&
	printf "no problems found\n" >expect &&
	test_cmp expect out &&
	mkdir -p shop/sub &&
	(cd shop/sub && git threadmind doctor --fix) >out &&
	test_cmp expect out
'

test_expect_success 'half the attributes are not enough' '
	printf "threads/**/*.md merge=threadmind\n" >shop/.threadmind/.gitattributes &&
	(cd shop && test_exit_code 1 git threadmind doctor) >out &&
	grep "^gitattributes: .*lacks .threads/\*\*/\*\.md diff=markdown., .projects/\*\.json merge=threadmind.;" out &&
	install_driver shop
'

test_expect_success 'the line of earlier versions lacks diff=markdown: --fix upgrades it' '
	printf "# mine\nthreads/**/*.md merge=threadmind\nprojects/*.json merge=threadmind\n" \
		>shop/.threadmind/.gitattributes &&
	(cd shop && test_exit_code 1 git threadmind doctor) >out &&
	grep "^gitattributes: .*lacks .threads/\*\*/\*\.md diff=markdown.; --fix or .git threadmind install. adds the lines$" out &&
	grep "^1 problem found; 1 can be repaired" out &&
	(cd shop && git threadmind doctor --fix) >out &&
	grep "^fixed: wrote the threadmind lines of .\.threadmind/\.gitattributes.$" out &&
	printf "# mine\nthreads/**/*.md merge=threadmind diff=markdown\nprojects/*.json merge=threadmind\n" >expect &&
	test_cmp expect shop/.threadmind/.gitattributes &&
	(cd shop && git threadmind doctor) >out &&
	grep "^no problems found$" out
'

test_expect_success 'attributes are checked as git applies them' '
	cp shop/.threadmind/.gitattributes attrs.saved &&
	rm shop/.threadmind/.gitattributes &&
	printf "*.md merge=threadmind diff=markdown\n*.json merge=threadmind\n" >shop/.gitattributes &&
	(cd shop && git threadmind doctor) >out &&
	grep "^no problems found$" out &&
	rm shop/.gitattributes &&
	cp attrs.saved shop/.threadmind/.gitattributes &&
	printf "*.md merge=binary\n" >shop/.threadmind/threads/.gitattributes &&
	(cd shop && test_exit_code 1 git threadmind doctor) >out &&
	grep "^gitattributes: .*lacks .threads/\*\*/\*\.md merge=threadmind." out &&
	rm shop/.threadmind/threads/.gitattributes &&
	(cd shop && git threadmind doctor) >out &&
	grep "^no problems found$" out
'

test_expect_success 'id mismatch: found, fixed by --fix, body kept' '
	sed "s/^id: auth$/id: autj/" $T/auth.md >tmp && mv tmp $T/auth.md &&
	printf "\n## State\n- keep me\n" >>$T/auth.md &&
	sed "s/^id: autj$/id: auth/" $T/auth.md >expect &&
	(cd shop && test_exit_code 1 git threadmind doctor) >out &&
	grep "^id-mismatch: .*auth.md. has id .autj. but its file name says .auth." out &&
	grep "1 can be repaired with .git threadmind doctor --fix." out &&
	(cd shop && git threadmind doctor --fix) >out &&
	grep "^fixed: rewrote the id field of .\.threadmind/threads/shop/auth.md. (autj -> auth)$" out &&
	grep "^no problems left$" out &&
	test_cmp expect $T/auth.md
'

test_expect_success 'problems --fix cannot repair stay, exit 1' '
	printf -- "---\nid: Foo\ntitle: F\nparentId: main\n---\n" >$T/Foo.md &&
	printf -- "---\nid: broken\ntitle: B\n" >$T/broken.md &&
	printf -- "---\nid: lost\ntitle: L\nparentId: ghost\nstatus: wip\n---\n" >$T/lost.md &&
	printf -- "---\nid: a\ntitle: A\nparentId: b\ncreatedAt: 2026-01-01T00:00:00Z\n---\n" >$T/a.md &&
	printf -- "---\nid: b\ntitle: B\nparentId: a\ncreatedAt: 2026-01-02T00:00:00Z\n---\n" >$T/b.md &&
	(cd shop && test_exit_code 1 git threadmind doctor) >out &&
	grep "^bad-id: .\.threadmind/threads/shop/Foo.md.: the name is not a valid thread id" out &&
	grep "^unreadable: .*broken.md.: no closing" out &&
	grep "^orphan: thread .lost.: its parent .ghost. does not exist" out &&
	grep "^unknown-status: thread .lost. has an unknown status .wip." out &&
	grep "^cycle: thread .a. is in a parent cycle" out &&
	grep "^5 problems found$" out &&
	(cd shop && test_exit_code 1 git threadmind doctor --fix) >out &&
	! grep "^fixed" out &&
	grep "^5 problems left$" out &&
	test -f $T/Foo.md && test -f $T/broken.md &&
	rm $T/Foo.md $T/broken.md $T/lost.md $T/a.md $T/b.md
'

test_expect_success 'a fresh lock is fine, a stale one is removed by --fix' '
	echo "{\"pid\":99999,\"host\":\"elsewhere\"}" >shop/.threadmind/.lock &&
	(cd shop && git threadmind doctor) >out &&
	touch -d "1 minute ago" shop/.threadmind/.lock &&
	(cd shop && test_exit_code 1 git threadmind doctor) >out &&
	grep "^stale-lock: .\.threadmind/\.lock. (pid 99999 on host elsewhere) has not been touched for" out &&
	(cd shop && git threadmind doctor --fix) >out &&
	grep "^fixed: removed the stale lock" out &&
	test ! -e shop/.threadmind/.lock
'

test_expect_success 'stray *.tmp older than its file and no larger: old ones removed, young ones left' '
	echo half >$T/main.md.1234abcd.tmp &&
	echo half >shop/.threadmind/config.json.5678abcd.tmp &&
	touch -d "2 minutes ago" $T/main.md.1234abcd.tmp shop/.threadmind/config.json.5678abcd.tmp &&
	echo busy >$T/auth.md.9999abcd.tmp &&
	touch $T/auth.md &&
	touch -d "30 seconds ago" $T/auth.md.9999abcd.tmp &&
	(cd shop && test_exit_code 1 git threadmind doctor) >out &&
	test $(grep -c "^stray-tmp: " out) = 3 &&
	grep "3 problems found; 2 can be repaired" out &&
	(cd shop && test_exit_code 1 git threadmind doctor --fix) >out &&
	grep "^fixed: removed .\.threadmind/threads/shop/main.md.1234abcd.tmp.$" out &&
	grep "^fixed: removed .\.threadmind/config.json.5678abcd.tmp.$" out &&
	grep "^stray-tmp: .*auth.md.9999abcd.tmp. is a temporary file from" out &&
	grep "^1 problem left$" out &&
	test ! -e $T/main.md.1234abcd.tmp &&
	test -f $T/auth.md.9999abcd.tmp &&
	rm $T/auth.md.9999abcd.tmp
'

test_expect_success 'missing .gitignore lines are added' '
	printf "config.json\n# mine\n" >shop/.threadmind/.gitignore &&
	(cd shop && test_exit_code 1 git threadmind doctor) >out &&
	grep "^gitignore: .*does not ignore .lock, \*.tmp" out &&
	(cd shop && git threadmind doctor --fix) >out &&
	printf "config.json\n# mine\n.lock\n*.tmp\n" >expect &&
	test_cmp expect shop/.threadmind/.gitignore &&
	(cd shop && git threadmind doctor)
'

test_expect_success 'a config.json that does not parse is reported, renamed aside by --fix' '
	printf "{\n  \"activeProjectId\": \"shop\",\n  oops\n}\n" >shop/.threadmind/config.json &&
	cp shop/.threadmind/config.json before &&
	(cd shop && test_exit_code 1 git threadmind doctor) >out &&
	grep "^config: .*config.json. is not valid JSON (line 3, column 3).*--fix renames it aside" out &&
	cmp before shop/.threadmind/config.json &&
	sed "s/^id: auth$/id: wrong/" $T/auth.md >tmp && mv tmp $T/auth.md &&
	(cd shop && git threadmind doctor --fix) >out &&
	grep "^fixed: rewrote the id field" out &&
	grep "^fixed: renamed .\.threadmind/config.json. aside as .config.json.corrupt-[0-9]*T[0-9]*Z." out &&
	test ! -e shop/.threadmind/config.json &&
	cmp before shop/.threadmind/config.json.corrupt-* &&
	rm shop/.threadmind/config.json.corrupt-*
'

test_expect_success 'doctor --project checks one project' '
	(cd shop && git threadmind project new -q Other) &&
	printf -- "---\nid: x\ntitle: X\nparentId: main\nstatus: wip\n---\n" \
		>shop/.threadmind/threads/other/x.md &&
	(cd shop && git threadmind doctor --project shop) &&
	(cd shop && test_exit_code 1 git threadmind doctor --project other) >out &&
	grep "^unknown-status: thread .x." out &&
	(cd shop && test_exit_code 1 git threadmind --project other doctor) &&
	(cd shop && test_exit_code 128 git threadmind doctor --project nope) 2>err &&
	grep "^fatal: no project .nope." err
'

test_expect_success 'doctor: usage, and outside a store' '
	(cd shop && test_exit_code 129 git threadmind doctor now) 2>err &&
	grep "^usage: git threadmind doctor \[--fix\]" err &&
	new_repo plain &&
	(cd plain && test_exit_code 128 git threadmind doctor) 2>err &&
	grep "git threadmind init" err
'

test_done
