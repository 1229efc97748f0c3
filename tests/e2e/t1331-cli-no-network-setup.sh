#!/bin/sh
# libgit2 opened without its network set-up (lib/git/notls.c): threadmind
# never uses the network, so the statically linked executables skip
# libgit2's TLS set-up (mbedTLS seeded from getrandom, the CA bundle
# stat'ed) and its SSH set-up, 2.4 M instructions in every process that
# opens a repository.  A dynamically linked build keeps libgit2's own
# set-up (only the CA bundle is not parsed): nothing to check there.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: a thread on a.c, a.c changed since' '
	new_repo r && (cd r && echo a >a.c && git add a.c &&
		git commit -q -m a && git threadmind init -q --title P &&
		git threadmind new -q T --paths a.c &&
		echo Notes. >>.threadmind/threads/p/t.md &&
		git add .threadmind && git commit -q -m store &&
		change more a.c)
'

# Only where strace can trace, and on the static build (the sanitizer
# build is one too: LeakSanitizer cannot run under ptrace, so it is off).
# Only the calls on files and getrandom are traced: a read's bytes (the
# sanitizer runtime reads the environment) are no set-up of ours.
if command -v strace >/dev/null 2>&1 && strace -o /dev/null true 2>/dev/null &&
	! ldd "$TM_BUILD/git-threadmind" 2>/dev/null | grep -q libgit2
then
	test_expect_success 'stale opens the repository, not the network' '
		(cd r && ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			strace -f -e trace=%file,getrandom -o ../trace \
			git-threadmind stale >../out) &&
		grep "^t " out &&
		grep "\.git/objects/" trace &&
		! grep "getrandom(.*, 128, " trace &&
		! grep -i "ssl\|certs" trace
	'
fi

test_done
