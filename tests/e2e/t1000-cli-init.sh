#!/bin/sh
# git threadmind init / status: creating the store and reading it back.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'init creates the store at the worktree root' '
	new_repo shop &&
	mkdir -p shop/src/deep &&
	(cd shop/src/deep && git threadmind init) >out &&
	grep "Initialized ThreadMind project .shop." out &&
	test -f shop/.threadmind/.gitignore &&
	test -f shop/.threadmind/projects/shop.json &&
	test -f shop/.threadmind/threads/shop/main.md &&
	test -f shop/.threadmind/config.json &&
	printf "config.json\n.lock\n*.tmp\n" >expect &&
	test_cmp expect shop/.threadmind/.gitignore
'

test_expect_success 'init writes the root thread main' '
	sed -n 2,3p shop/.threadmind/threads/shop/main.md >actual &&
	printf "id: main\ntitle: Main\n" >expect &&
	test_cmp expect actual &&
	grep "^parentId: null$" shop/.threadmind/threads/shop/main.md &&
	grep "^author: a-u-thor-" shop/.threadmind/threads/shop/main.md
'

test_expect_success 'config.json is gitignored, the rest is tracked' '
	(cd shop && git add .threadmind && git status --porcelain) >st &&
	grep "A  .threadmind/threads/shop/main.md" st &&
	! grep config.json st
'

test_expect_success 'init refuses to clobber an existing store' '
	cp shop/.threadmind/projects/shop.json before &&
	(cd shop && test_exit_code 128 git threadmind init --title Other) 2>err &&
	grep "^fatal: .*already exists" err &&
	test_cmp before shop/.threadmind/projects/shop.json
'

test_expect_success 'init --title and --mode' '
	new_repo r2 &&
	(cd r2 && git threadmind init --title "Système Auth v2" --mode team) &&
	grep "\"id\": \"systeme-auth-v2\"" r2/.threadmind/projects/systeme-auth-v2.json &&
	grep "\"mode\": \"team\"" r2/.threadmind/projects/systeme-auth-v2.json
'

test_expect_success 'init rejects a bad mode with a usage error' '
	new_repo r3 &&
	(cd r3 && test_exit_code 129 git threadmind init --mode duo) 2>err &&
	grep "usage: git threadmind init" err &&
	test ! -e r3/.threadmind
'

test_expect_success 'status is the default command' '
	(cd shop && git threadmind status >../a && git threadmind >../b) &&
	test_cmp a b &&
	grep "^project: shop (shop)$" a &&
	grep "^active thread: main (Main)$" a &&
	grep "^threads: 1 active, 0 done, 0 abandoned$" a &&
	grep "^lock: free$" a
'

test_expect_success 'status --json' '
	(cd shop && git threadmind status --json) >out &&
	python3 -c "import json,sys; d=json.load(open(\"out\")); assert d[\"project\"]==\"shop\", d; assert d[\"activeThreadId\"]==\"main\"; assert d[\"counts\"][\"active\"]==1; assert d[\"lock\"] is None; assert d[\"branch\"]==\"main\""
'

test_expect_success 'outside a ThreadMind repository: fatal, exit 128' '
	new_repo plain &&
	(cd plain && test_exit_code 128 git threadmind status) 2>err &&
	grep "^fatal: not a ThreadMind repository" err &&
	grep "git threadmind init" err
'

test_expect_success 'unknown command exits 1 as git does; unknown option is a usage error' '
	(cd shop && test_exit_code 1 git threadmind frobnicate) 2>err &&
	grep "not a threadmind command" err &&
	(cd shop && test_exit_code 129 git threadmind tree --frob) 2>err &&
	grep "unknown option .--frob." err
'

test_expect_success '-h prints the usage and exits 129' '
	(cd shop && test_exit_code 129 git threadmind tree -h) >out &&
	grep "^usage: git threadmind tree" out
'

test_done
