#!/bin/sh
# `stale` and post-commit mention a detected rename of a thread's paths
# (issue 25, friction), as doctor does: the new name, the commit, and the
# `set paths=` that follows it.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: threads on a folder and on a file' '
	git init -q app && cd app &&
	printf "out\nerr\n" >>.git/info/exclude &&
	mkdir -p src/cart lib && echo "class Cart: pass" >src/cart/cart.py &&
	echo "def util(): pass" >lib/util.py && echo r >README &&
	git add -A && test_tick && git commit -q -m init &&
	git threadmind init -q && git threadmind install -q &&
	git threadmind new Cart --paths src/cart/,lib/util.py -q >/dev/null &&
	git threadmind new Docs --paths README -q >/dev/null &&
	for t in cart docs; do
		echo "- $t" | git threadmind summary -q $t -F - || return 1
	done &&
	git add -A && test_tick && git commit -q -m threads
'

test_expect_success 'post-commit: the commit that renames a folder of paths says so' '
	cd app &&
	git mv src/cart src/basket && test_tick &&
	git commit -q -m "rename cart to basket" 2>err &&
	cat >expect <<-EOF &&
	threadmind: summaries may be outdated: cart (git threadmind stale)
	threadmind: cart: '\''src/cart/'\'' renamed to '\''src/basket/'\'' (git threadmind set cart paths=src/basket/,lib/util.py)
	EOF
	test_cmp expect err
'

test_expect_success 'post-commit: a later commit says nothing more about it' '
	cd app &&
	echo more >>lib/util.py && test_tick && git commit -q -a -m util 2>err &&
	echo "threadmind: summaries may be outdated: cart (git threadmind stale)" >expect &&
	test_cmp expect err
'

test_expect_success 'stale: the rename under the stale thread, with the set that follows it' '
	cd app &&
	git threadmind stale --no-color >out 2>err &&
	c=$(git rev-parse --short=7 HEAD~1) &&
	cat >expect <<-EOF &&
	cart  Cart
	    newest: $(git rev-parse --short HEAD) util
	    changed: lib/util.py
	    changed: src/cart/cart.py
	    renamed: src/cart/ -> src/basket/ in $c
	    follow it: git threadmind set cart paths=src/basket/,lib/util.py
	EOF
	test_cmp expect out &&
	git threadmind set cart paths=src/basket/,lib/util.py &&
	git threadmind touch -q cart &&
	git threadmind stale >out 2>err &&
	test ! -s out
'

test_expect_success 'a file renamed: post-commit and stale name the new file' '
	cd app &&
	git add -A && test_tick && git commit -q -m "follow the rename" 2>/dev/null &&
	git mv README README.md && test_tick &&
	git commit -q -m "readme in markdown" 2>err &&
	grep "^threadmind: docs: '\''README'\'' renamed to '\''README.md'\'' (git threadmind set docs paths=README.md)$" err &&
	git threadmind stale >out 2>/dev/null &&
	grep "^    renamed: README -> README.md in $(git rev-parse --short=7 HEAD)$" out &&
	grep "^    follow it: git threadmind set docs paths=README.md$" out
'

test_expect_success 'a path removed, not renamed: nothing said about a rename' '
	cd app &&
	git threadmind set docs paths=README.md && git threadmind touch -q docs &&
	git add -A && test_tick && git commit -q -m "follow readme" 2>/dev/null &&
	git rm -q README.md && test_tick && git commit -q -m "no readme" 2>err &&
	echo "threadmind: summaries may be outdated: docs (git threadmind stale)" >expect &&
	test_cmp expect err &&
	git threadmind stale >out 2>/dev/null &&
	grep "^docs  " out &&
	! grep "renamed" out
'

test_done
