#!/bin/sh
# git threadmind show / new / switch on the seed's example store.
. "$(dirname "$0")/test-lib.sh"

SEED="$TEST_SRC/tests/resources/seed-example"
TD=r/.threadmind/threads/mon-app

test_expect_success 'setup: the seed example in a repository' '
	new_repo r &&
	cp -R "$SEED/.threadmind" r/ &&
	(cd r && git add .threadmind && git commit -q -m seed) &&
	test -f $TD/auth-ui.md
'

# ---- show ----

test_expect_success 'show prints the file: frontmatter and summary' '
	(cd r && git threadmind show auth-ui) >out &&
	test_cmp $TD/auth-ui.md out
'

test_expect_success 'show --json has the fields, the summary, active' '
	(cd r && git threadmind show auth-ui --json) >out &&
	json_is "d[\"id\"] == \"auth-ui\" and d[\"title\"] == \"Auth UI\"" &&
	json_is "d[\"parentId\"] == \"auth\" and d[\"author\"] == \"mahmoud-a3f9\"" &&
	json_is "d[\"createdAt\"] == \"2026-04-15T10:00:00.000Z\"" &&
	json_is "d[\"updatedAt\"] == \"2026-04-15T12:30:00.000Z\"" &&
	json_is "d[\"branch\"] == \"feature/auth-ui\" and d[\"status\"] is None" &&
	json_is "d[\"commit\"] == \"3f2a9c1e5b7d4a8f0c6e2b1d9a7f5c3e1b0d8a6f\"" &&
	json_is "d[\"paths\"] == [\"src/auth\"] and d[\"mergedInto\"] is None" &&
	json_is "d[\"summary\"].startswith(\"## Décisions\n- Formulaire\")" &&
	json_is "d[\"summary\"].endswith(\"à faire\n\")" &&
	json_is "d[\"active\"] is False and d[\"flags\"] == []"
'

test_expect_success 'show --json of a root: parentId null; active on main' '
	(cd r && git threadmind show main --json) >out &&
	json_is "d[\"parentId\"] is None and d[\"id\"] == \"main\"" &&
	json_is "d[\"active\"] is True"
'

test_expect_success 'show without a thread shows the active one' '
	(cd r && git threadmind show && git threadmind show main) >out &&
	(cd r && git threadmind show main && git threadmind show main) >expect &&
	test_cmp expect out
'

test_expect_success 'show by unique prefix' '
	(cd r && git threadmind show auth- --json) >out &&
	json_is "d[\"id\"] == \"auth-ui\""
'

test_expect_success 'show of a CRLF file without a final newline' '
	printf -- "---\r\nid: win\r\ntitle: Win\r\nparentId: main\r\n---\r\n\r\n## A\r\n- last" \
		>$TD/win.md &&
	(cd r && git threadmind show win) >out &&
	printf -- "---\nid: win\ntitle: Win\nparentId: main\n---\n\n## A\n- last\n" \
		>expect &&
	test_cmp expect out &&
	(cd r && git threadmind show win --json) >out &&
	json_is "d[\"summary\"] == \"## A\n- last\"" &&
	rm $TD/win.md
'

test_expect_success 'show of an unreadable thread is fatal and names it' '
	printf -- "---\nid: broken\ntitle: [oops\n" >$TD/broken.md &&
	(cd r && test_exit_code 128 git threadmind show broken) 2>err &&
	grep "^fatal: .*broken.md" err &&
	rm $TD/broken.md
'

test_expect_success 'show: unknown thread, bad ids, ambiguous prefix' '
	(cd r && test_exit_code 128 git threadmind show nope) 2>err &&
	grep "^fatal: no thread matches .nope." err &&
	(cd r && test_exit_code 128 git threadmind show ../x) &&
	(cd r && test_exit_code 128 git threadmind show Foo) &&
	(cd r && test_exit_code 128 git threadmind show au --json) >out 2>err &&
	grep "^fatal: .au. is ambiguous: auth, auth-ui" err &&
	test_must_fail test -s out
'

test_expect_success 'show -h and usage errors exit 129' '
	(cd r && test_exit_code 129 git threadmind show -h) >out &&
	grep "^usage: git threadmind show" out &&
	(cd r && test_exit_code 129 git threadmind show main auth extra) 2>err &&
	grep "^usage: git threadmind show" err
'

# ---- new ----

test_expect_success 'new prints the id; parent, branch, commit from HEAD' '
	(cd r && git checkout -q -b feature/pay &&
		git threadmind new "Paiement: Stripe" --parent main) >out &&
	echo paiement-stripe >expect &&
	test_cmp expect out &&
	echo "\"Paiement: Stripe\"" >expect &&
	fm $TD/paiement-stripe.md title >actual &&
	test_cmp expect actual &&
	echo main >expect &&
	fm $TD/paiement-stripe.md parentId >actual &&
	test_cmp expect actual &&
	echo feature/pay >expect &&
	fm $TD/paiement-stripe.md branch >actual &&
	test_cmp expect actual &&
	(cd r && git rev-parse HEAD) >expect &&
	fm $TD/paiement-stripe.md commit >actual &&
	test_cmp expect actual &&
	echo mahmoud-a3f9 >expect &&
	fm $TD/paiement-stripe.md author >actual &&
	test_cmp expect actual
'

test_expect_success 'new: the parent defaults to the active thread' '
	(cd r && git threadmind show --json) >out &&
	python3 -c "import json; print(json.load(open(\"out\"))[\"id\"])" \
		>active &&
	(cd r && git threadmind new Webhooks) >out &&
	fm $TD/webhooks.md parentId >actual &&
	test_cmp active actual
'

test_expect_success 'new: a title collision gets -2, -3' '
	(cd r && git threadmind new "Paiement Stripe" --parent main &&
		git threadmind new "paiement  stripe!" --parent main) >out &&
	printf "paiement-stripe-2\npaiement-stripe-3\n" >expect &&
	test_cmp expect out &&
	(cd r && git threadmind new Main) >out &&
	echo main-2 >expect &&
	test_cmp expect out
'

test_expect_success 'new --paths is a comma list and may be repeated' '
	(cd r && git threadmind new Cart --parent main --paths src/cart,lib \
		--paths docs) &&
	echo "[\"src/cart\",\"lib\",\"docs\"]" >expect &&
	fm $TD/cart.md paths >actual &&
	test_cmp expect actual
'

test_expect_success 'new --parent takes a prefix; --switch makes it active' '
	(cd r && git threadmind new Checkout --parent car --switch) &&
	echo cart >expect &&
	fm $TD/checkout.md parentId >actual &&
	test_cmp expect actual &&
	(cd r && git threadmind show --json) >out &&
	json_is "d[\"id\"] == \"checkout\" and d[\"active\"] is True" &&
	python3 -c "import json; c=json.load(open(\"r/.threadmind/config.json\")); assert c[\"activeThreadId\"]==\"checkout\", c; assert c[\"branchThreads\"][\"mon-app\"][\"feature/pay\"]==\"checkout\", c; assert len(c[\"sessions\"])==1, c"
'

test_expect_success 'new: an unknown parent is fatal, nothing created' '
	ls $TD >before &&
	(cd r && test_exit_code 128 git threadmind new Orphan --parent nope) \
		2>err &&
	grep "^fatal: no thread matches .nope." err &&
	(cd r && test_exit_code 128 git threadmind new Orphan --parent ../x) &&
	(cd r && test_exit_code 128 git threadmind new Orphan --parent au) \
		2>err &&
	grep "is ambiguous" err &&
	ls $TD >after &&
	test_cmp before after
'

test_expect_success 'new without a title or with a bad option: 129' '
	(cd r && test_exit_code 129 git threadmind new) 2>err &&
	grep "^usage: git threadmind new" err &&
	(cd r && test_exit_code 129 git threadmind new X --paths) &&
	(cd r && test_exit_code 129 git threadmind new -h) >out &&
	grep "^usage: git threadmind new <title>" out &&
	ls $TD >after &&
	test_cmp before after
'

# ---- switch ----

test_expect_success 'switch sets the active thread for this branch' '
	(cd r && git threadmind switch auth) 2>err &&
	grep "Switched to thread .auth. (Auth)" err &&
	(cd r && git threadmind show --json) >out &&
	json_is "d[\"id\"] == \"auth\" and d[\"active\"] is True" &&
	python3 -c "import json; c=json.load(open(\"r/.threadmind/config.json\")); assert c[\"activeThreadId\"]==\"auth\", c; assert c[\"activeProjectId\"]==\"mon-app\", c; assert c[\"branchThreads\"][\"mon-app\"][\"feature/pay\"]==\"auth\", c; assert c[\"branchThreads\"][\"mon-app\"][\"main\"]==\"main\", c"
'

test_expect_success 'the active thread follows the branch' '
	(cd r && git checkout -q main && git threadmind show --json) >out &&
	json_is "d[\"id\"] == \"main\"" &&
	(cd r && git checkout -q feature/pay && git threadmind show --json) \
		>out &&
	json_is "d[\"id\"] == \"auth\""
'

test_expect_success 'switch by prefix; thread files are not touched' '
	cp -R r/.threadmind/threads snap &&
	(cd r && git threadmind switch webh) &&
	(cd r && git threadmind show --json) >out &&
	json_is "d[\"id\"] == \"webhooks\"" &&
	diff -r snap r/.threadmind/threads
'

test_expect_success 'switch: unknown thread, bad ids, ambiguous prefix' '
	cp r/.threadmind/config.json config-before &&
	(cd r && test_exit_code 128 git threadmind switch nope) 2>err &&
	grep "^fatal: no thread matches .nope." err &&
	(cd r && test_exit_code 128 git threadmind switch ../x) &&
	(cd r && test_exit_code 128 git threadmind switch Foo) &&
	(cd r && test_exit_code 128 git threadmind switch pai) 2>err &&
	grep "^fatal: .pai. is ambiguous: paiement-stripe, paiement-stripe-2, paiement-stripe-3" err &&
	cmp config-before r/.threadmind/config.json
'

test_expect_success 'switch never overwrites a corrupt config.json' '
	printf "{\"activeThreadId\": \"main\",\n oops}\n" >r/.threadmind/config.json &&
	cp r/.threadmind/config.json corrupt &&
	(cd r && test_exit_code 128 git threadmind switch auth) 2>err &&
	grep "^fatal: .*config.json.* is not valid JSON (line 2" err &&
	cmp corrupt r/.threadmind/config.json &&
	cp config-before r/.threadmind/config.json
'

test_expect_success 'switch -h and usage errors exit 129' '
	(cd r && test_exit_code 129 git threadmind switch -h) >out &&
	grep "^usage: git threadmind switch <thread>" out &&
	(cd r && test_exit_code 129 git threadmind switch) &&
	(cd r && test_exit_code 129 git threadmind switch a b) &&
	cmp config-before r/.threadmind/config.json
'

test_done
