#!/bin/sh
# --json with several projects and none active (DESIGN.md section 11, read
# commands cover every project, grouped by project id): every read
# command's document is {"projects": {"<id>": <its one-project document>}}
# (docs/json.md), tree's streamed like list's; one project's output is
# unchanged, byte for byte.
. "$(dirname "$0")/test-lib.sh"

S=r/.threadmind

# thread PROJECT ID PARENT CREATED [STATUS]: a thread file written by hand,
# every timestamp fixed, so that output can be compared byte for byte.
thread() {
	{
		frontmatter id=$2 "title=\"T $2 é \\\"q\\\"\"" parentId=$3 \
			author=a-1234 createdAt=$4 updatedAt=$4 ${5:+status=$5} &&
		printf '\n## Decisions\n- one\n'
	} >"$S/threads/$1/$2.md"
}

# grouped CMD...: CMD's --json output (in ./out) is one document whose
# member for each project is, to the byte, what CMD --project <id> prints,
# indented two levels: JSON.stringify(doc, null, 2) of the whole.
grouped() {
	(cd r && git threadmind "$@" --json) >out &&
	for p in back-office shop; do
		(cd r && git threadmind --project $p "$@" --json) >"out.$p" ||
			return 1
	done &&
	python3 -c '
import json
text = open("out").read()
d = json.loads(text)
assert list(d) == ["projects"], d
assert list(d["projects"]) == ["back-office", "shop"], d
for p in d["projects"]:
    one = open("out." + p).read()
    assert d["projects"][p] == json.loads(one), p
    assert ("\n    \"%s\": " % p + one[:-1].replace("\n", "\n    ")) in text, p
assert text == json.dumps(d, indent=2, ensure_ascii=False) + "\n"
'
}

test_expect_success 'setup: two projects, no config.json' '
	new_repo r &&
	(cd r && git threadmind init -q --title Shop &&
		git threadmind project new "Back Office" -q >/dev/null) &&
	rm -f $S/threads/*/*.md $S/config.json &&
	thread shop main null 2026-01-01T00:00:00.000Z &&
	thread shop auth main 2026-01-02T00:00:00.000Z &&
	thread shop auth-ui auth 2026-01-03T00:00:00.000Z &&
	thread shop old main 2026-01-04T00:00:00.000Z done &&
	thread back-office main null 2026-02-01T00:00:00.000Z &&
	thread back-office invoices main 2026-02-02T00:00:00.000Z &&
	(cd r && test_exit_code 128 git threadmind new x) 2>err &&
	grep "several projects (back-office, shop) and none active" err
'

test_expect_success 'tree --json: one member per project, in id order' '
	grouped tree &&
	json_is "d[\"projects\"][\"shop\"][\"roots\"][0][\"children\"][0][\"children\"][0][\"id\"] == \"auth-ui\"" &&
	json_is "d[\"projects\"][\"back-office\"][\"roots\"][0][\"children\"][0][\"id\"] == \"invoices\"" &&
	json_is "d[\"projects\"][\"back-office\"][\"project\"] == \"back-office\"" &&
	grouped tree --all &&
	json_is "[c[\"id\"] for c in d[\"projects\"][\"shop\"][\"roots\"][0][\"children\"]] == [\"auth\", \"old\"]"
'

# Each member names its project, as the one-project documents do.
test_expect_success 'list, status and stale --json: the same shape' '
	grouped list &&
	json_is "[t[\"id\"] for t in d[\"projects\"][\"shop\"][\"threads\"]] == [\"auth\", \"auth-ui\", \"main\"]" &&
	grouped list --branch nosuch &&
	json_is "d[\"projects\"][\"shop\"][\"threads\"] == []" &&
	json_is "[m[\"project\"] for m in d[\"projects\"].values()] == [\"back-office\", \"shop\"]" &&
	grouped status &&
	json_is "d[\"projects\"][\"back-office\"][\"title\"] == \"Back Office\"" &&
	json_is "[m[\"project\"] for m in d[\"projects\"].values()] == [\"back-office\", \"shop\"]" &&
	grouped stale &&
	json_is "d[\"projects\"][\"shop\"][\"stale\"] == []" &&
	json_is "[m[\"project\"] for m in d[\"projects\"].values()] == [\"back-office\", \"shop\"]"
'

test_expect_success 'show --json names one thread: one document, never grouped' '
	(cd r && git threadmind show --json auth-ui) >out &&
	json_is "d[\"id\"] == \"auth-ui\" and \"projects\" not in d" &&
	(cd r && test_exit_code 128 git threadmind show --json main) >out 2>err &&
	test ! -s out &&
	grep "^fatal: thread .main. in projects back-office, shop" err
'

# What tree --json and list --json print for one project, as they did
# before they were grouped (the documents above are these, indented).
cat >tree.expect <<\EOF
{
  "project": "shop",
  "activeThreadId": "main",
  "roots": [
    {
      "id": "main",
      "title": "T main é \"q\"",
      "parentId": null,
      "author": "a-1234",
      "createdAt": "2026-01-01T00:00:00.000Z",
      "updatedAt": "2026-01-01T00:00:00.000Z",
      "status": null,
      "branch": null,
      "commit": null,
      "paths": [],
      "mergedInto": null,
      "active": true,
      "flags": [],
      "depth": 0,
      "children": [
        {
          "id": "auth",
          "title": "T auth é \"q\"",
          "parentId": "main",
          "author": "a-1234",
          "createdAt": "2026-01-02T00:00:00.000Z",
          "updatedAt": "2026-01-02T00:00:00.000Z",
          "status": null,
          "branch": null,
          "commit": null,
          "paths": [],
          "mergedInto": null,
          "active": false,
          "flags": [],
          "depth": 1,
          "children": [
            {
              "id": "auth-ui",
              "title": "T auth-ui é \"q\"",
              "parentId": "auth",
              "author": "a-1234",
              "createdAt": "2026-01-03T00:00:00.000Z",
              "updatedAt": "2026-01-03T00:00:00.000Z",
              "status": null,
              "branch": null,
              "commit": null,
              "paths": [],
              "mergedInto": null,
              "active": false,
              "flags": [],
              "depth": 2,
              "children": []
            }
          ]
        }
      ]
    }
  ]
}
EOF
cat >list.expect <<\EOF
{
  "project": "back-office",
  "threads": [
    {
      "id": "invoices",
      "title": "T invoices é \"q\"",
      "parentId": "main",
      "author": "a-1234",
      "createdAt": "2026-02-02T00:00:00.000Z",
      "updatedAt": "2026-02-02T00:00:00.000Z",
      "status": null,
      "branch": null,
      "commit": null,
      "paths": [],
      "mergedInto": null,
      "active": false,
      "flags": []
    },
    {
      "id": "main",
      "title": "T main é \"q\"",
      "parentId": null,
      "author": "a-1234",
      "createdAt": "2026-02-01T00:00:00.000Z",
      "updatedAt": "2026-02-01T00:00:00.000Z",
      "status": null,
      "branch": null,
      "commit": null,
      "paths": [],
      "mergedInto": null,
      "active": true,
      "flags": []
    }
  ]
}
EOF

test_expect_success 'one project: tree and list --json unchanged, byte for byte' '
	(cd r && git threadmind --project shop tree --json) >out &&
	test_cmp tree.expect out &&
	(cd r && git threadmind --project back-office list --json) >out &&
	test_cmp list.expect out &&
	(cd r && git threadmind project use shop -q) &&
	test_when_finished "rm $S/config.json" &&
	(cd r && git threadmind tree --json) >out &&
	test_cmp tree.expect out &&
	(cd r && git threadmind --project back-office list --json) >out &&
	test_cmp list.expect out &&
	(cd r && git threadmind --project back-office list --json --status done) \
		>out &&
	printf "{\n  \"project\": \"back-office\",\n  \"threads\": []\n}\n" \
		>empty.expect &&
	test_cmp empty.expect out
'

test_expect_success 'list --status <custom> that only one project has' '
	thread shop held main 2026-01-05T00:00:00.000Z blocked &&
	test_when_finished "rm $S/threads/shop/held.md" &&
	(cd r && git threadmind list --status blocked) >out &&
	grep "^project: back-office" out && grep "^project: shop" out &&
	grep -c "blocked" out >count && echo 1 >count.expect &&
	test_cmp count.expect count &&
	sed -n "/^project: shop/,\$p" out | grep "held .*blocked" &&
	(cd r && git threadmind list --status blocked --json) >out &&
	python3 -c "
import json
d = json.load(open(\"out\"))[\"projects\"]
assert d[\"back-office\"][\"threads\"] == [], d
assert [t[\"id\"] for t in d[\"shop\"][\"threads\"]] == [\"held\"], d
" &&
	(cd r && test_exit_code 129 git threadmind list --status blocekd) \
		2>err &&
	grep "not .blocekd." err
'

N=10000
MAX_S=10 MAX_KB=65536
! sanitizer_build || MAX_S=60 MAX_KB=1048576

test_expect_success "grouped tree --json of a $N-deep chain: streamed, linear" '
	chain_files $S/threads/back-office $N invoices &&
	(cd r && test_bounded_ok deep git threadmind tree --json) &&
	out="$TEST_ROOT/deep.out" &&
	test_size_at_most "$out" $((N * 1700)) &&
	# group, projects, doc, roots, 2 per thread (main, invoices, the chain)
	test "$(json_depth "$out")" = $((4 + 2 * (N + 2))) &&
	python3 - "$out" $N <<-\EOF
	import sys
	text, n = open(sys.argv[1]).read(), int(sys.argv[2])
	assert text.index("\"back-office\": {") < text.index("\"shop\": {")
	assert ("\"id\": \"c%d\"" % (n - 1)) in text
	assert text.endswith("\n  }\n}\n")
	EOF
'

test_done
