#!/bin/sh
# git threadmind tree: drawing (box or ASCII), the active mark, finished
# threads hidden, orphans and cycles, --json, --dot, colour.
. "$(dirname "$0")/test-lib.sh"

T=shop/.threadmind/threads/shop
ESC=$(printf "\033")

# tree_json EXPR...: run python assertions on tree.json (as `d`), with
# ids(list) giving the ids of a list of nodes and node(id) finding one.
tree_json() {
	python3 -c "
import json
d = json.load(open('tree.json'))
def ids(l): return [n['id'] for n in l]
def node(i, l=None):
    for n in (d['roots'] if l is None else l):
        if n['id'] == i: return n
        f = node(i, n['children'])
        if f: return f
$1
"
}

test_expect_success 'setup: a tree with done and abandoned threads' '
	new_repo shop &&
	(cd shop && git threadmind init -q &&
		git threadmind -q new Auth &&
		git threadmind -q new "Auth UI" --parent auth &&
		git threadmind -q new Billing &&
		git threadmind -q new Legacy &&
		git threadmind -q new Port --parent legacy &&
		git threadmind -q new "Old idea" --parent auth &&
		git threadmind -q new Dropped &&
		git threadmind -q done old-idea &&
		git threadmind -q done legacy &&
		git threadmind -q abandon dropped &&
		git threadmind -q switch auth-ui) >/dev/null &&
	test -f $T/dropped.md
'

test_expect_success 'box drawing in a UTF-8 locale, finished threads hidden' '
	(cd shop && git threadmind tree) >actual &&
	cat >expect <<-\EOF &&
	  main  Main
	  ├── auth  Auth
	* │   └── auth-ui  Auth UI
	  ├── billing  Billing
	  └── legacy  Legacy [done]
	      └── port  Port
	EOF
	test_cmp expect actual
'

test_expect_success 'tree --all shows done and abandoned threads' '
	(cd shop && git threadmind tree --all) >actual &&
	cat >expect <<-\EOF &&
	  main  Main
	  ├── auth  Auth
	* │   ├── auth-ui  Auth UI
	  │   └── old-idea  Old idea [done]
	  ├── billing  Billing
	  ├── legacy  Legacy [done]
	  │   └── port  Port
	  └── dropped  Dropped [abandoned]
	EOF
	test_cmp expect actual
'

test_expect_success 'ASCII with --ascii (before or after the command)' '
	(cd shop && git threadmind tree --ascii) >actual &&
	cat >expect <<-\EOF &&
	  main  Main
	  |-- auth  Auth
	* |   `-- auth-ui  Auth UI
	  |-- billing  Billing
	  `-- legacy  Legacy [done]
	      `-- port  Port
	EOF
	test_cmp expect actual &&
	(cd shop && git threadmind --ascii tree) >actual2 &&
	test_cmp expect actual2
'

test_expect_success 'ASCII when the locale is not UTF-8' '
	(cd shop && LC_ALL=C git threadmind tree -a) >actual &&
	! grep "├" actual &&
	grep "^  |-- legacy  Legacy \[done\]$" actual &&
	grep "^  |   \`-- port  Port$" actual &&
	grep "^  \`-- dropped  Dropped \[abandoned\]$" actual
'

test_expect_success 'the active mark follows switch' '
	(cd shop && git threadmind -q switch port && git threadmind tree) >out &&
	grep "^\*     └── port  Port$" out &&
	test "$(grep -c "^\*" out)" = 1
'

test_expect_success 'a finished parent of a finished child is hidden' '
	(cd shop && git threadmind -q done port && git threadmind tree) >out &&
	! grep legacy out &&
	! grep port out &&
	(cd shop && git threadmind -q reopen port)
'

test_expect_success 'tree --json: roots, children, depth, active, flags' '
	(cd shop && git threadmind tree --json) >tree.json &&
	tree_json "
assert d[\"project\"] == \"shop\"
assert d[\"activeThreadId\"] == \"port\", d[\"activeThreadId\"]
assert ids(d[\"roots\"]) == [\"main\"]
m = d[\"roots\"][0]
assert m[\"depth\"] == 0 and m[\"parentId\"] is None
assert ids(m[\"children\"]) == [\"auth\", \"billing\", \"legacy\"]
assert ids(node(\"auth\")[\"children\"]) == [\"auth-ui\"]
assert node(\"legacy\")[\"status\"] == \"done\"
p = node(\"port\")
assert p[\"active\"] is True and p[\"depth\"] == 2 and p[\"children\"] == []
assert [n for n in (\"old-idea\", \"dropped\") if node(n)] == []
assert not node(\"auth\")[\"active\"] and node(\"auth\")[\"flags\"] == []
"
'

test_expect_success 'tree --all --json includes finished threads' '
	(cd shop && git threadmind tree --all --json) >tree.json &&
	tree_json "
assert ids(node(\"auth\")[\"children\"]) == [\"auth-ui\", \"old-idea\"]
assert node(\"dropped\")[\"status\"] == \"abandoned\"
assert node(\"dropped\")[\"depth\"] == 1
"
'

test_expect_success 'orphans and cycles are flagged' '
	(cd shop && git threadmind -q new Stray && git threadmind -q new Ping &&
		git threadmind -q new Pong --parent ping) >/dev/null &&
	setparent $T/stray.md ghost &&
	setparent $T/ping.md pong &&
	(cd shop && git threadmind tree) >out &&
	grep "^  stray  Stray (orphan: parent .ghost. missing)$" out &&
	grep "^  ping  Ping (cycle: parent .pong.)$" out &&
	grep "^  └── pong  Pong$" out &&
	(cd shop && git threadmind tree --json) >tree.json &&
	tree_json "
assert ids(d[\"roots\"]) == [\"main\", \"stray\", \"ping\"], ids(d[\"roots\"])
assert node(\"stray\")[\"flags\"] == [\"orphan\"]
assert node(\"stray\")[\"parentId\"] == \"ghost\"
assert node(\"ping\")[\"flags\"] == [\"cycle\"]
assert ids(node(\"ping\")[\"children\"]) == [\"pong\"]
assert node(\"pong\")[\"flags\"] == [] and node(\"pong\")[\"depth\"] == 1
"
'

test_expect_success 'a thread that is its own parent is a flagged root' '
	(cd shop && git threadmind -q new Selfie) >/dev/null &&
	setparent $T/selfie.md selfie &&
	(cd shop && git threadmind tree) >out &&
	grep "^  selfie  Selfie (cycle: parent .selfie.)$" out
'

test_expect_success 'tree --dot' '
	(cd shop && git threadmind tree --dot) >out &&
	head -n 1 out >first &&
	echo "digraph threadmind {" >expect &&
	test_cmp expect first &&
	tail -n 1 out >last &&
	echo "}" >expect &&
	test_cmp expect last &&
	grep "^  \"main\" -> \"auth\";$" out &&
	grep "^  \"port\" \[label=\"port\\\\nPort\", penwidth=2\];$" out &&
	grep "^  \"stray\" \[.*color=red\];$" out &&
	grep "^  \"legacy\" \[.*style=dashed\];$" out &&
	! grep dropped out &&
	(cd shop && git threadmind tree --dot --all) >out &&
	grep "^  \"main\" -> \"dropped\";$" out
'

test_expect_success 'no colour when piped' '
	(cd shop && git threadmind tree --all) >out &&
	! grep "$ESC" out
'

test_expect_success 'colour with color.ui=always, color.threadmind first' '
	git -C shop config color.ui always &&
	(cd shop && git threadmind tree --all) >out &&
	grep "$ESC\[32m\* $ESC\[m" out &&
	grep "$ESC\[2m\[done\]" out &&
	git -C shop config color.threadmind never &&
	(cd shop && git threadmind tree --all) >out &&
	! grep "$ESC" out &&
	git -C shop config color.threadmind always &&
	git -C shop config color.ui never &&
	(cd shop && git threadmind tree) >out &&
	grep "$ESC" out &&
	git -C shop config --unset color.ui
'

test_expect_success 'NO_COLOR and --no-color win over always' '
	(cd shop && NO_COLOR=1 git threadmind tree) >out &&
	! grep "$ESC" out &&
	(cd shop && git threadmind tree --no-color) >out &&
	! grep "$ESC" out &&
	(cd shop && git threadmind --no-color tree) >out &&
	! grep "$ESC" out &&
	(cd shop && git threadmind tree --json) >out &&
	! grep "$ESC" out &&
	git -C shop config --unset color.threadmind
'

test_expect_success 'git -c color.ui=always / -c color.threadmind=never' '
	(cd shop && git -c color.ui=always threadmind tree) >out &&
	! git -C shop config color.threadmind &&
	! git -C shop config color.ui &&
	grep "$ESC" out &&
	(cd shop && git -c color.ui=always -c color.threadmind=never threadmind tree) >out &&
	! grep "$ESC" out
'

test_expect_success 'an unreadable thread file is skipped with a warning' '
	printf "no frontmatter here\n" >$T/broken.md &&
	(cd shop && git threadmind tree) >out 2>err &&
	grep "^warning: skipping .*broken.md" err &&
	test "$(grep -c warning err)" = 1 &&
	grep "auth-ui" out &&
	rm $T/broken.md
'

test_expect_success 'usage errors' '
	(cd shop && test_exit_code 129 git threadmind tree --json --dot) 2>err &&
	grep "exclude each other" err &&
	(cd shop && test_exit_code 129 git threadmind tree main) 2>err &&
	grep "^usage: git threadmind tree" err
'

test_done
