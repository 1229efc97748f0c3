# threadmind-git: builds lib/ once into libthreadmind.a, then links the CLI,
# the merge driver and the unit-test runner against it.  Out-of-tree objects
# in $(BUILD)/, header dependencies through -MMD, safe under make -j.

BUILD ?= build
ifeq ($(SANITIZE),1)
BUILD := build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
OPT ?= -O1
# Check's per-test timeouts are hang guards; ASan+UBSan run several times
# slower, more so on a loaded CI machine.
CK_TIMEOUT_MULTIPLIER ?= 8
endif
# A test of a second at rest took over Check's default 4 s on a machine at
# load 6-10 (test_treediff_deep_tree, test_git_operation): the guards are
# for hangs, not for speed (make bench measures that).
CK_TIMEOUT_MULTIPLIER ?= 3
OPT ?= -O2
CC ?= cc
PREFIX ?= /usr/local

PKGS := libgit2 yaml-0.1 libcjson libutf8proc
# Evaluated once, on first use (after scripts/deps has run).
PKG_CFLAGS = $(eval PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS)))$(PKG_CFLAGS)
PKG_LIBS = $(eval PKG_LIBS := $(shell pkg-config --libs $(PKGS)))$(PKG_LIBS)
# The two executables link libgit2 statically (Debian's libgit2.a and its
# libraries, with `pkg-config --static`) when libgit2.a is installed:
# 3 shared libraries loaded instead of 21, and `prompt` starts in 0.9 M
# instructions instead of 7.9 M (docs/PERFORMANCE.md).  libcjson has no
# .a: it stays shared.  STATIC_GIT=0 links them dynamically; the unit-test
# runner and the fuzz targets always are.  The sanitizer build links the
# executables as shipped (the e2e tests then run the inflate and TLS
# wrappers under ASan+UBSan), and an ASan run of `status` takes 60 ms
# there against 74 ms linked dynamically (its runtime's start and leak
# check over 24 shared libraries instead of 6).
# lib/git/inflate_wrap.c sends a static libgit2's inflates of whole
# objects to libdeflate (--wrap; the unit-test runner checks it against
# zlib with the same flags).
INFLATE_WRAP := -Wl,--wrap=inflateInit_ -Wl,--wrap=inflate \
	-Wl,--wrap=inflateReset -Wl,--wrap=inflateEnd
INFLATE_LIBS = $(eval INFLATE_LIBS := $(shell pkg-config --libs libdeflate \
	zlib))$(INFLATE_LIBS)
# lib/git/notls.c keeps libgit2 from parsing the CA bundle; when static,
# it keeps libgit2 from its whole TLS and SSH set-up (--wrap) and stands
# in for GSSAPI, which Debian's libgit2 uses for Kerberos over HTTP only
# (libgit2.pc omits it).
ifndef STATIC_GIT
STATIC_GIT := $(if $(wildcard $(shell pkg-config --variable=libdir libgit2 \
	2>/dev/null)/libgit2.a),1,0)
endif
ifeq ($(STATIC_GIT),1)
BIN_LIBS = $(eval BIN_LIBS := -Wl,-Bstatic $(shell pkg-config --static --libs \
	libgit2 yaml-0.1 libutf8proc libdeflate) -lcrypto -Wl,-Bdynamic \
	$(shell pkg-config --libs libcjson))$(BIN_LIBS)
BIN_LDFLAGS := -Wl,--wrap=git_mbedtls_stream_global_init \
	-Wl,--wrap=git_transport_ssh_global_init \
	-Wl,--wrap=git_mbedtls_stream_new -Wl,--wrap=git_mbedtls_stream_wrap \
	-Wl,--wrap=git_mbedtls__set_cert_location
NOTLS_BIN = $(BUILD)/obj/lib/notls-wrap.o
BIN_LDFLAGS += $(INFLATE_WRAP)
BIN_INFLATE = $(INFLATE_OBJ)
else
BIN_LIBS = $(PKG_LIBS)
NOTLS_BIN = $(NOTLS_OBJ)
endif
CHECK_CFLAGS = $(eval CHECK_CFLAGS := $(shell pkg-config --cflags check))$(CHECK_CFLAGS)
CHECK_LIBS = $(eval CHECK_LIBS := $(shell pkg-config --libs check))$(CHECK_LIBS)

TM_VERSION := 0.1.0
WARN := -Wall -Wextra -Wstrict-prototypes -Werror
ALL_CFLAGS = -std=c11 $(WARN) -D_GNU_SOURCE -DTM_VERSION=\"$(TM_VERSION)\" -g $(OPT) $(SANFLAGS) $(INC) \
	$(PKG_CFLAGS) -MMD -MP $(CFLAGS)
ALL_LDFLAGS = $(SANFLAGS) $(LDFLAGS)

# lib/ in layers (lib/README.md): the library, its unit tests, fuzz targets
# and bench tools see every layer's folder; the CLI and the merge driver
# see only the public headers, as "threadmind/<name>.h".
LIB_LAYERS := util format io git store stale merge ops app
INC = -iquote lib/include/threadmind -iquote lib/include $(LIB_LAYERS:%=-iquote lib/%)
$(BUILD)/obj/git-threadmind/%.o $(BUILD)/obj/merge-driver/%.o: INC = -iquote lib/include

# lib/git/notls.c and lib/git/inflate_wrap.c are linked into the
# executables, not into the library.
NOTLS_SRC := lib/git/notls.c
INFLATE_SRC := lib/git/inflate_wrap.c
LIB_SRC := $(filter-out $(NOTLS_SRC) $(INFLATE_SRC),$(sort $(wildcard lib/*/*.c)))
CLI_SRC := $(sort $(wildcard git-threadmind/*.c))
DRV_SRC := $(sort $(wildcard merge-driver/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
UNIT_SUITES := $(patsubst tests/unit/check_%.c,%,$(filter-out tests/unit/check_main.c,$(filter tests/unit/check_%.c,$(UNIT_SRC))))

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
NOTLS_OBJ := $(NOTLS_SRC:%.c=$(BUILD)/obj/%.o)
INFLATE_OBJ := $(INFLATE_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
DRV_OBJ := $(DRV_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_OBJ := $(UNIT_SRC:%.c=$(BUILD)/obj/%.o)

LIBA := $(BUILD)/libthreadmind.a
CLI := $(if $(CLI_SRC),$(BUILD)/git-threadmind)
DRV := $(if $(DRV_SRC),$(BUILD)/git-threadmind-merge)
UNIT := $(BUILD)/check_unit

ifndef V
Q := @
QUIET_CC = @echo '   ' CC $@;
QUIET_AR = @echo '   ' AR $@;
QUIET_LINK = @echo '   ' LINK $@;
endif

.PHONY: all check unit e2e demo bench bench-huge bench-real clean install uninstall valgrind deps \
	format format-check fuzz fuzz-build stress stress-short bad bad-short check-layers
all: $(LIBA) $(CLI) $(DRV)

# Packages: only `make deps`, and the README's `make check` / `make demo`
# through it, install what is missing (scripts/deps, apt-get).  Every other
# goal, plain `make` first, only checks and fails naming `make deps`.
# $(DEPS_OK), the order-only prerequisite of every object, is the stamp of
# the mode in use: .deps-all (everything installed) or .deps-build (build
# dependencies checked), so `make check` after `make` still installs.
DEPS_INSTALL_GOALS := deps check demo
DEPS_MODE := $(if $(filter $(DEPS_INSTALL_GOALS),$(MAKECMDGOALS)),,--check)
DEPS_OK := $(BUILD)/.deps-$(if $(DEPS_MODE),build,all)

deps:
	$(Q)scripts/deps
	$(Q)mkdir -p $(BUILD) && touch $(BUILD)/.deps-all $(BUILD)/.deps-build
$(DEPS_OK): scripts/deps
	$(Q)scripts/deps $(DEPS_MODE)
	$(Q)mkdir -p $(@D) && touch $@

$(BUILD)/obj/%.o: %.c | $(DEPS_OK)
	$(Q)mkdir -p $(@D)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/obj/tests/unit/%.o: tests/unit/%.c | $(DEPS_OK)
	$(Q)mkdir -p $(@D)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) -I$(BUILD) -c -o $@ $<

$(LIBA): $(LIB_OBJ)
	$(Q)rm -f $@
	$(QUIET_AR)ar rcs $@ $^

# The same source with -DTM_WRAP_TLS: the __wrap_ names.
$(BUILD)/obj/lib/notls-wrap.o: lib/git/notls.c | $(DEPS_OK)
	$(Q)mkdir -p $(@D)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -DTM_WRAP_TLS -c -o $@ $<

# Relink the executables when STATIC_GIT changes.
$(BUILD)/link-mode: FORCE
	$(Q)mkdir -p $(@D)
	$(Q)echo 'STATIC_GIT=$(STATIC_GIT)' > $@.tmp
	$(Q)cmp -s $@.tmp $@ 2>/dev/null && rm -f $@.tmp || mv $@.tmp $@

$(BUILD)/git-threadmind: $(CLI_OBJ) $(NOTLS_BIN) $(BIN_INFLATE) $(LIBA) $(BUILD)/link-mode
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) $(BIN_LDFLAGS) -o $@ $(CLI_OBJ) $(NOTLS_BIN) $(BIN_INFLATE) $(LIBA) $(BIN_LIBS)

$(BUILD)/git-threadmind-merge: $(DRV_OBJ) $(NOTLS_BIN) $(BIN_INFLATE) $(LIBA) $(BUILD)/link-mode
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) $(BIN_LDFLAGS) -o $@ $(DRV_OBJ) $(NOTLS_BIN) $(BIN_INFLATE) $(LIBA) $(BIN_LIBS)

# The runner's suite list comes from the file names: check_<module>.c
# defines Suite *<module>_suite(void).
$(BUILD)/check_suites.inc: FORCE
	$(Q)mkdir -p $(@D)
	$(Q)printf 'TM_SUITE(%s)\n' $(UNIT_SUITES) > $@.tmp
	$(Q)cmp -s $@.tmp $@ 2>/dev/null && rm -f $@.tmp || mv $@.tmp $@
$(BUILD)/obj/tests/unit/check_main.o: $(BUILD)/check_suites.inc

$(UNIT): $(UNIT_OBJ) $(NOTLS_OBJ) $(INFLATE_OBJ) $(LIBA)
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) $(INFLATE_WRAP) -o $@ $(UNIT_OBJ) $(NOTLS_OBJ) $(INFLATE_OBJ) $(LIBA) $(PKG_LIBS) $(INFLATE_LIBS) $(CHECK_LIBS)

check: check-layers unit e2e stress-short bad-short

# The include rule of lib/'s layers (lib/README.md).
check-layers:
	$(Q)scripts/check-layers

# ASan+UBSan run ~3x slower: wall-time bounds are scaled to match.
# The merge property test reads the corpus of bench/gen -m (bench-gen).
unit: $(UNIT) $(BUILD)/bench-gen
	$(Q)cd tests/unit && TM_TEST_RESOURCES=$(CURDIR)/tests/resources \
		CK_TIMEOUT_MULTIPLIER=$(CK_TIMEOUT_MULTIPLIER) \
		$(if $(SANFLAGS),TM_TEST_TIME_SCALE=3) $(CURDIR)/$(UNIT)

e2e: all
	$(Q)if ls tests/e2e/t[0-9]*.sh >/dev/null 2>&1; then \
		TM_BUILD=$(CURDIR)/$(BUILD) sh tests/e2e/run.sh; \
	else echo 'e2e: no tests yet'; fi

# The unit tests under memcheck, one suite per process (CK_FORK=no: a
# forked test costs a leak scan each), wall-time bounds scaled up; a
# definite leak, an invalid access or a failed test fails.  Logs in
# $(BUILD)/valgrind/<suite>.log.
valgrind: $(UNIT) $(BUILD)/bench-gen
	$(Q)mkdir -p $(BUILD)/valgrind && failed= && \
	for n in $(UNIT_SUITES); do \
		(cd tests/unit && TM_TEST_RESOURCES=$(CURDIR)/tests/resources \
		 CK_FORK=no CK_RUN_SUITE=$$n TM_TEST_TIME_SCALE=50 \
		 valgrind -q --error-exitcode=99 --leak-check=full \
		 --errors-for-leak-kinds=definite $(CURDIR)/$(UNIT)) \
			>$(BUILD)/valgrind/$$n.log 2>&1 || failed="$$failed $$n"; \
		echo "valgrind $$n: $$(grep -E '^[0-9]+%: Checks' \
			$(BUILD)/valgrind/$$n.log || echo 'no result')"; \
	done; \
	if [ -n "$$failed" ]; then \
		echo "valgrind: FAILED:$$failed (logs: $(BUILD)/valgrind/)"; \
		exit 1; \
	fi; \
	echo "valgrind: $(words $(UNIT_SUITES)) suites clean"

demo: all
	$(Q)TM_BUILD=$(CURDIR)/$(BUILD) sh scripts/demo

$(BUILD)/bench-measure: bench/measure.c | $(DEPS_OK)
	$(QUIET_LINK)$(CC) -std=c11 -D_GNU_SOURCE -O2 -Wall -Werror -o $@ $<

$(BUILD)/bench-gen: $(BUILD)/obj/bench/gen.o $(LIBA)
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $< $(LIBA) $(PKG_LIBS)

bench: all $(BUILD)/bench-measure $(BUILD)/bench-gen
	$(Q)TM_BUILD=$(CURDIR)/$(BUILD) sh bench/run

# 1,000,000 commits: the first stale/status (cache build) and peak RSS
bench-huge: all $(BUILD)/bench-measure $(BUILD)/bench-gen
	$(Q)TM_BUILD=$(CURDIR)/$(BUILD) sh bench/huge

# the first run on a real history (issue 20): a --shared clone of
# BENCH_REAL (default: the fetch tool's copy of github:git/git) with a store
BENCH_REAL ?= /work/.mirror/git+git/repo
bench-real: all $(BUILD)/bench-measure
	$(Q)TM_BUILD=$(CURDIR)/$(BUILD) sh bench/real-history $(BENCH_REAL)

# make install PREFIX=... DESTDIR=...: both binaries, the hook stubs, the
# manual pages, the bash completion (bash-completion loads it for
# `git threadmind`).  make uninstall removes exactly these files.
BINDIR = $(PREFIX)/bin
SHAREDIR = $(PREFIX)/share/threadmind
HOOKDIR = $(SHAREDIR)/hooks
MAN1DIR = $(PREFIX)/share/man/man1
COMPDIR = $(PREFIX)/share/bash-completion/completions
INST_BINS := git-threadmind git-threadmind-merge
INST_HOOKS := $(notdir $(sort $(wildcard hooks/post-* hooks/pre-*)))
INST_MAN1 := git-threadmind.1 git-threadmind-merge.1
INST_COMP := contrib/completion/git-threadmind.bash

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(HOOKDIR) \
		$(DESTDIR)$(MAN1DIR) $(DESTDIR)$(COMPDIR)
	install -m 755 $(addprefix $(BUILD)/,$(INST_BINS)) $(DESTDIR)$(BINDIR)
	install -m 755 $(addprefix hooks/,$(INST_HOOKS)) $(DESTDIR)$(HOOKDIR)
	install -m 644 $(addprefix docs/,$(INST_MAN1)) $(DESTDIR)$(MAN1DIR)
	install -m 644 $(INST_COMP) $(DESTDIR)$(COMPDIR)/git-threadmind

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(INST_BINS)) \
		$(addprefix $(DESTDIR)$(HOOKDIR)/,$(INST_HOOKS)) \
		$(addprefix $(DESTDIR)$(MAN1DIR)/,$(INST_MAN1)) \
		$(DESTDIR)$(COMPDIR)/git-threadmind
	rmdir $(DESTDIR)$(HOOKDIR) $(DESTDIR)$(SHAREDIR) 2>/dev/null || true

# Every tracked C file as .clang-format lays it out (CI fails otherwise).
FORMAT_SRC = $(shell git ls-files '*.c' '*.h' 2>/dev/null)
format:
	$(Q)clang-format -i $(FORMAT_SRC)
format-check:
	$(Q)clang-format --dry-run -Werror $(FORMAT_SRC)

# libFuzzer targets (tests/fuzz/fuzz_<name>.c, seeds in
# tests/fuzz/corpus/<name>/): built with clang in build-fuzz/, each run for
# FUZZ_SECONDS; a crash, a leak, a sanitizer report or an input slower
# than 10 s fails.  New inputs go to build-fuzz/corpus/<name>/, crashes to
# build-fuzz/crash-<name>-*.
FUZZ_SECONDS ?= 60
FUZZ_BUILD := build-fuzz
FUZZ_CC ?= $(firstword $(shell command -v clang-14 clang 2>/dev/null) clang)
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
FUZZ_CFLAGS = -std=c11 $(WARN) -D_GNU_SOURCE -DTM_VERSION=\"$(TM_VERSION)\" -g -O1 \
	$(FUZZ_SAN) $(INC) $(PKG_CFLAGS) -MMD -MP
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_BINS := $(FUZZ_NAMES:%=$(FUZZ_BUILD)/fuzz_%)
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_BUILD)/obj/%.o)

$(FUZZ_BUILD)/obj/%.o: %.c | $(DEPS_OK)
	$(Q)mkdir -p $(@D)
	$(QUIET_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/obj/tests/fuzz/fuzz_%.o $(FUZZ_LIB_OBJ)
	$(QUIET_LINK)$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(PKG_LIBS)

.SECONDARY: $(FUZZ_LIB_OBJ) $(FUZZ_NAMES:%=$(FUZZ_BUILD)/obj/tests/fuzz/fuzz_%.o)

fuzz-build: $(FUZZ_BINS)

# One rule per target, so that `make -j2 fuzz` runs two at a time.
fuzz: $(FUZZ_NAMES:%=fuzz-run-%)
.PHONY: $(FUZZ_NAMES:%=fuzz-run-%)

$(FUZZ_NAMES:%=fuzz-run-%): fuzz-run-%: $(FUZZ_BUILD)/fuzz_%
	$(Q)mkdir -p $(FUZZ_BUILD)/corpus/$*
	$(Q)ASAN_OPTIONS=detect_leaks=1 \
	$(FUZZ_BUILD)/fuzz_$* -max_total_time=$(FUZZ_SECONDS) \
		-max_len=8192 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix=$(FUZZ_BUILD)/crash-$*- \
		$(FUZZ_BUILD)/corpus/$* tests/fuzz/corpus/$* \
		>$(FUZZ_BUILD)/fuzz-$*.log 2>&1 || \
		{ tail -n 40 $(FUZZ_BUILD)/fuzz-$*.log; \
		  echo "fuzz $*: FAILED (log: $(FUZZ_BUILD)/fuzz-$*.log)"; \
		  exit 1; }
	$(Q)echo "fuzz $*: $(FUZZ_SECONDS) s"; \
	grep -E '^Done|stat::number_of_executed_units' \
		$(FUZZ_BUILD)/fuzz-$*.log | sed "s/^/fuzz $*: /"

# Concurrency and crash tests of the built binaries (tests/stress/run):
# the full run (`stress`) and the few seconds that `check` runs.
stress: all
	$(Q)TM_BUILD=$(CURDIR)/$(BUILD) sh tests/stress/run full

stress-short: all
	$(Q)TM_BUILD=$(CURDIR)/$(BUILD) sh tests/stress/run short

# The hostile-input corpus (tests/bad/run): every input with its time,
# memory and byte-identity checks.  `bad` runs all 62 (the big stores
# too, minutes); `bad-short`, part of `check`, one or two of each kind.
$(BUILD)/bad-measure: tests/bad/measure.c
	$(QUIET_CC)$(CC) -std=c11 $(WARN) -D_GNU_SOURCE -O2 -o $@ $<

bad: all $(BUILD)/bad-measure
	$(Q)TM_BUILD=$(CURDIR)/$(BUILD) sh tests/bad/run full
	$(Q)TM_E2E_FULL=1 TM_BUILD=$(CURDIR)/$(BUILD) \
		sh tests/e2e/t6051-hostile-history.sh

bad-short: all $(BUILD)/bad-measure
	$(Q)TM_BUILD=$(CURDIR)/$(BUILD) sh tests/bad/run short

clean:
	rm -rf build build-san build-fuzz build-static

FORCE:

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(DRV_OBJ:.o=.d) $(UNIT_OBJ:.o=.d)
-include $(wildcard $(FUZZ_BUILD)/obj/*/*.d $(FUZZ_BUILD)/obj/*/*/*.d)
