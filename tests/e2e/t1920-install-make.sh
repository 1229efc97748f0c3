#!/bin/sh
# `make install PREFIX=... DESTDIR=...` and `make uninstall`: the files,
# `git help threadmind` through the installed man page, the installed bash
# completion as git's completion calls it; plain `make` never installs
# packages.
. "$(dirname "$0")/test-lib.sh"
skip_in_sanitizer_build 'make install copies built files; what it runs is tested elsewhere'

# The build folder is the one under test: install copies from it, nothing
# is rebuilt.  Settings of an outer make (make check) do not leak in.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
DEST="$TEST_ROOT/dest"
PREFIX=/opt/tm
ROOT="$DEST$PREFIX"
export DEST PREFIX ROOT

# test_skip TITLE WHY: a TAP skip
test_skip() {
	test_count=$((test_count + 1))
	echo "ok $test_count # skip $1 ($2)"
}

tm_make() {
	make -s -C "$TEST_SRC" BUILD="$TM_BUILD" PREFIX="$PREFIX" \
		DESTDIR="$DEST" "$@"
}

cat >expect-files <<EOF2
bin/git-threadmind
bin/git-threadmind-merge
share/bash-completion/completions/git-threadmind
share/man/man1/git-threadmind-merge.1
share/man/man1/git-threadmind.1
share/threadmind/hooks/post-checkout
share/threadmind/hooks/post-commit
share/threadmind/hooks/post-merge
share/threadmind/hooks/post-rewrite
share/threadmind/hooks/pre-commit
EOF2

test_expect_success 'make install puts every file under DESTDIR/PREFIX' '
	mkdir -p "$ROOT/bin" && echo mine >"$ROOT/bin/other-tool" &&
	tm_make install >out 2>&1 || { cat out; false; } &&
	(cd "$ROOT" && find . -type f | sed "s|^\./||" | grep -v other-tool |
		LC_ALL=C sort) >actual &&
	test_cmp expect-files actual &&
	test -x "$ROOT/bin/git-threadmind" &&
	test -x "$ROOT/share/threadmind/hooks/post-commit" &&
	cmp "$TEST_SRC/hooks/post-merge" "$ROOT/share/threadmind/hooks/post-merge" &&
	cmp "$TEST_SRC/hooks/pre-commit" "$ROOT/share/threadmind/hooks/pre-commit" &&
	cmp "$TEST_SRC/docs/git-threadmind.1" "$ROOT/share/man/man1/git-threadmind.1" &&
	test_must_fail test -x "$ROOT/share/man/man1/git-threadmind.1"
'

test_expect_success 'the installed binaries run' '
	PATH="$ROOT/bin:$PATH" git threadmind --version >out &&
	grep "^git-threadmind version " out &&
	PATH="$ROOT/bin:$PATH" test_exit_code 129 git-threadmind-merge -h >out &&
	grep "^usage: git-threadmind-merge" out
'

if command -v man >/dev/null 2>&1; then
	test_expect_success 'git help -m threadmind renders the installed page' '
		MANPATH="$ROOT/share/man" MANPAGER=cat PAGER=cat MANWIDTH=80 \
			git help -m threadmind >out 2>err &&
		grep "^NAME" out &&
		grep "git-threadmind - keep the context" out &&
		grep "git threadmind help \[<command>\]" out &&
		test_must_fail grep -i "no manual entry" err
	'
	test_expect_success 'git threadmind --help and the driver page, too' '
		PATH="$ROOT/bin:$PATH" MANPATH="$ROOT/share/man" MANPAGER=cat \
			PAGER=cat git threadmind --help >out 2>err &&
		grep "^SYNOPSIS" out && grep "^EXIT STATUS" out &&
		MANPATH="$ROOT/share/man" MANPAGER=cat PAGER=cat \
			man git-threadmind-merge >out &&
		grep "git-threadmind-merge - git merge driver" out &&
		(MANPATH="$TEST_ROOT/nothing" MANPAGER=cat PAGER=cat \
			test_must_fail git help -m threadmind) >/dev/null 2>&1
	'
else
	test_skip 'git help -m threadmind renders the installed page' \
		'man is not installed; make deps installs man-db'
	test_skip 'git threadmind --help and the driver page, too' \
		'man is not installed'
fi

# complete WORD...: run the installed completion for the command line
# "WORD..." (the last word being completed) the way git's completion calls
# it, one COMPREPLY entry a line, trailing spaces dropped.
cat >complete.bash <<'EOF2'
git_completion=${TM_GIT_COMPLETION-/usr/share/bash-completion/completions/git}
if [ -f "$git_completion" ]; then
	. "$git_completion"
	. "$ROOT/share/bash-completion/completions/git-threadmind"
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	__git_wrap__git_main
else
	. "$ROOT/share/bash-completion/completions/git-threadmind"
	words=("$@")
	cword=$((${#words[@]} - 1))
	cur=${words[cword]}
	COMPREPLY=()
	_git_threadmind
fi
[ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sed 's/ $//'
EOF2
complete() {
	PATH="$ROOT/bin:$PATH" bash "$TEST_ROOT/complete.bash" "$@"
}

if command -v bash >/dev/null 2>&1; then
	test_expect_success 'completion: the commands after git threadmind' '
		complete git threadmind "" >actual &&
		git threadmind -h | sed -n "s/^    \([a-z]*\) .*/\1/p" >expect &&
		test $(wc -l <expect) -ge 20 &&
		test_cmp expect actual &&
		complete git threadmind st >actual &&
		printf "status\nstale\n" >expect &&
		test_cmp expect actual
	'

	test_expect_success 'completion: options and their values' '
		complete git threadmind tree --a >actual &&
		printf "%s\n" --all --ascii >expect &&
		test_cmp expect actual &&
		complete git threadmind list --st >actual &&
		echo --status= >expect &&
		test_cmp expect actual &&
		complete git threadmind list --status a >actual &&
		printf "%s\n" active abandoned all >expect &&
		test_cmp expect actual &&
		complete git threadmind hook post-c >actual &&
		printf "%s\n" post-checkout post-commit >expect &&
		test_cmp expect actual
	'

	# long_options: the long options of `-h` on stdin, one a line, as
	# completion offers them: --name, --name= (takes a value), both for
	# an optional value (--name[=<when>]).
	cat >long-options.awk <<'EOF2'
/^    -/ {
	spec = substr($0, 5)
	sub(/  .*/, "", spec)
	n = split(spec, forms, ", ")
	for (i = 1; i <= n; i++) {
		if (substr(forms[i], 1, 2) != "--")
			continue
		name = forms[i]
		if (index(name, "[=")) {
			sub(/\[=.*/, "", name)
			print name; print name "="
		} else if (index(name, " <")) {
			sub(/ <.*/, "", name)
			print name "="
		} else
			print name
	}
}
EOF2
	long_options() {
		awk -f "$TEST_ROOT/long-options.awk" | LC_ALL=C sort -u
	}

	test_expect_success 'completion: every option of every command, as -h lists it' '
		git threadmind -h | sed -n "s/^    \([a-z]*\) .*/\1/p" >commands &&
		test $(wc -l <commands) -ge 20 &&
		n=0 &&
		while read -r cmd; do
			git threadmind $cmd -h >help 2>&1
			long_options <help >expect &&
			test -s expect &&
			complete git threadmind $cmd -- | LC_ALL=C sort -u >actual &&
			comm -23 expect actual >missing &&
			if test -s missing; then
				echo "# $cmd: not offered: $(tr "\n" " " <missing)"
				return 1
			fi
			n=$((n + 1))
		done <commands &&
		test $n = $(wc -l <commands) &&
		grep "^doctor$" commands && grep "^touch$" commands
	'

	test_expect_success 'completion: the global options of git threadmind -h' '
		git threadmind -h | sed -n "1,2p" |
			sed "s/\(--[a-z-]*\)\[=</\1 \1=</g; s/\(--[a-z-]*\) </\1=</g" |
			tr " []|" "\n\n\n\n" |
			sed -n "s/^\(--[a-z-]*\)=<.*/\1=/p; s/^\(--[a-z-]*\)$/\1/p" |
			LC_ALL=C sort -u >expect &&
		grep "^--color=$" expect && grep "^--no-color$" expect &&
		grep "^--version$" expect &&
		complete git threadmind -- | LC_ALL=C sort -u >actual &&
		comm -23 expect actual >missing &&
		test_must_fail test -s missing &&
		grep "^--project=$" actual && grep "^--quiet$" actual
	'

	test_expect_success 'completion: the subcommands of every usage line' '
		while read -r cmd; do
			git threadmind $cmd -h 2>&1 |
				sed -n "s/^.*git threadmind $cmd \[*\([a-z][a-z]*\)[] ].*/\1/p
					s/^.*git threadmind $cmd \[*\([a-z][a-z]*\)\]*$/\1/p" >expect
			test -s expect || continue
			echo "$cmd" >>with-subs &&
			complete git threadmind $cmd "" >actual &&
			test_cmp expect actual || return 1
		done <commands &&
		echo project >expect &&
		test_cmp expect with-subs &&
		complete git threadmind project re >actual &&
		echo rename >expect &&
		test_cmp expect actual
	'

	test_expect_success 'completion: thread and project ids' '
		new_repo shop &&
		(cd shop && git threadmind init -q &&
			git threadmind new "Auth UI" >/dev/null &&
			git threadmind new "Auth API" >/dev/null &&
			git threadmind project new Other >/dev/null &&
			complete git threadmind show au >../actual) &&
		printf "%s\n" auth-api auth-ui >expect &&
		test_cmp expect actual &&
		(cd shop && complete git threadmind move auth-ui "" >../actual) &&
		printf "%s\n" auth-api auth-ui main >expect &&
		test_cmp expect actual &&
		(cd shop && complete git threadmind project use "" >../actual) &&
		printf "%s\n" other shop >expect &&
		test_cmp expect actual &&
		for sub in rm rename "rm --force"; do
			(cd shop && complete git threadmind project $sub "" >../actual) &&
			test_cmp expect actual || return 1
		done &&
		(cd shop && complete git threadmind project rename other "" >../actual) &&
		test_must_fail test -s actual &&
		(cd shop && complete git threadmind project set "" >../actual) &&
		printf "%s\n" title= systemContext= mode= >expect &&
		test_cmp expect actual &&
		(cd shop && complete git threadmind project set title=x mode= >../actual) &&
		printf "%s\n" solo team >expect &&
		test_cmp expect actual &&
		(cd shop && complete git threadmind touch auth-ui a >../actual) &&
		printf "%s\n" auth-api auth-ui >expect &&
		test_cmp expect actual &&
		(cd shop && complete git threadmind --project other show "" \
			>../actual) &&
		echo main >expect &&
		test_cmp expect actual
	'

	test_expect_success 'completion: revisions and threads of diff, log, show' '
		(cd shop && git add -A && git commit -q -m t &&
			git branch feature &&
			complete git threadmind diff "" >../actual) &&
		printf "%s\n" auth-api auth-ui main HEAD feature main >expect &&
		test_cmp expect actual &&
		(cd shop && complete git threadmind diff mai >../actual) &&
		printf "%s\n" main main >expect &&
		test_cmp expect actual &&
		(cd shop && complete git threadmind diff main..f >../actual) &&
		echo main..feature >expect &&
		test_cmp expect actual &&
		(cd shop && complete git threadmind diff main...f >../actual) &&
		echo main...feature >expect &&
		test_cmp expect actual &&
		(cd shop && complete git threadmind diff main -- au >../actual) &&
		printf "%s\n" auth-api auth-ui >expect &&
		test_cmp expect actual &&
		(cd shop && complete git threadmind log auth-ui fe >../actual) &&
		echo feature >expect &&
		test_cmp expect actual &&
		(cd shop && complete git threadmind log au >../actual) &&
		printf "%s\n" auth-api auth-ui >expect &&
		test_cmp expect actual &&
		(cd shop && complete git threadmind show auth-ui fe >../actual) &&
		echo feature >expect &&
		test_cmp expect actual &&
		(cd shop && complete git threadmind show HEAD:auth-a >../actual) &&
		echo auth-api >expect &&
		test_cmp expect actual
	'

	test_expect_success 'completion: called directly, without git'\''s completion' '
		new_repo direct &&
		(cd direct && git threadmind init -q &&
			TM_GIT_COMPLETION=/nonexistent \
			complete git threadmind sw >../actual &&
			TM_GIT_COMPLETION=/nonexistent \
			complete git threadmind show m >>../actual) &&
		printf "%s\n" switch main >expect &&
		test_cmp expect actual
	'

	test_expect_success 'completion: quiet outside a repository' '
		mkdir nowhere &&
		(cd nowhere && GIT_CEILING_DIRECTORIES="$TEST_ROOT" \
			complete git threadmind show "" >../actual 2>../err) &&
		test_must_fail test -s actual &&
		test_must_fail test -s err
	'

	test_expect_success 'completion: git thr offers the driver unless completion.commands hides it' '
		complete git thr >actual &&
		grep "^threadmind$" actual &&
		git config --global completion.commands -threadmind-merge &&
		complete git thr >actual &&
		echo threadmind >expect &&
		test_cmp expect actual &&
		git config --global --unset completion.commands
	'
else
	test_skip 'completion' 'bash is not installed'
fi

test_expect_success 'make uninstall removes exactly what install added' '
	tm_make uninstall >out 2>&1 || { cat out; false; } &&
	(cd "$ROOT" && find . -type f) >left &&
	echo ./bin/other-tool >expect &&
	test_cmp expect left &&
	test_must_fail test -d "$ROOT/share/threadmind" &&
	tm_make uninstall >out 2>&1
'

test_expect_success 'plain make with a package missing fails naming make deps' '
	test_must_fail env PKG_CONFIG_LIBDIR="$TEST_ROOT/none" \
		PKG_CONFIG_PATH="$TEST_ROOT/none" \
		make -s -C "$TEST_SRC" BUILD="$TEST_ROOT/b" >out 2>err &&
	grep "missing build dependencies" err &&
	grep "libgit2 (libgit2-dev)" err &&
	grep "Run .make deps." err &&
	test_must_fail grep apt-get out &&
	test_must_fail test -e "$TEST_ROOT/b/obj"
'

test_done
