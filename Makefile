# threadmind-git: builds lib/ once into libthreadmind.a, then links the CLI,
# the merge driver and the unit-test runner against it.  Out-of-tree objects
# in $(BUILD)/, header dependencies through -MMD, safe under make -j.

BUILD ?= build
ifeq ($(SANITIZE),1)
BUILD := build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
OPT ?= -O1
endif
OPT ?= -O2
CC ?= cc
PREFIX ?= /usr/local

PKGS := libgit2 yaml-0.1 libcjson libutf8proc
# Evaluated once, on first use (after scripts/deps has run).
PKG_CFLAGS = $(eval PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS)))$(PKG_CFLAGS)
PKG_LIBS = $(eval PKG_LIBS := $(shell pkg-config --libs $(PKGS)))$(PKG_LIBS)
# make STATIC_GIT=1: libgit2 (Debian's libgit2.a) and its libraries linked
# in, into build-static/: 10 shared libraries loaded instead of 21, ~12% fewer
# instructions for `prompt` (docs/PERFORMANCE.md).  libgit2.pc omits GSSAPI,
# which Debian's build uses, and libcjson has no .a: both stay shared.
ifeq ($(STATIC_GIT),1)
BUILD := build-static
PKG_LIBS = $(eval PKG_LIBS := -Wl,-Bstatic $(shell pkg-config --static --libs \
	libgit2 yaml-0.1 libutf8proc) -lcrypto -Wl,-Bdynamic -l:libgssapi_krb5.so.2 \
	$(shell pkg-config --libs libcjson))$(PKG_LIBS)
endif
CHECK_CFLAGS = $(eval CHECK_CFLAGS := $(shell pkg-config --cflags check))$(CHECK_CFLAGS)
CHECK_LIBS = $(eval CHECK_LIBS := $(shell pkg-config --libs check))$(CHECK_LIBS)

TM_VERSION := 0.1.0
WARN := -Wall -Wextra -Wstrict-prototypes -Werror
ALL_CFLAGS = -std=c11 $(WARN) -D_GNU_SOURCE -DTM_VERSION=\"$(TM_VERSION)\" -g $(OPT) $(SANFLAGS) -I. \
	$(PKG_CFLAGS) -MMD -MP $(CFLAGS)
ALL_LDFLAGS = $(SANFLAGS) $(LDFLAGS)

LIB_SRC := $(sort $(wildcard lib/*.c))
CLI_SRC := $(sort $(wildcard git-threadmind/*.c))
DRV_SRC := $(sort $(wildcard merge-driver/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
UNIT_SUITES := $(patsubst tests/unit/check_%.c,%,$(filter-out tests/unit/check_main.c,$(filter tests/unit/check_%.c,$(UNIT_SRC))))

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
DRV_OBJ := $(DRV_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_OBJ := $(UNIT_SRC:%.c=$(BUILD)/obj/%.o)

LIBA := $(BUILD)/libthreadmind.a
CLI := $(if $(CLI_SRC),$(BUILD)/git-threadmind)
DRV := $(if $(DRV_SRC),$(BUILD)/git-threadmind-merge)
UNIT := $(BUILD)/check_unit
DEPS_OK := $(BUILD)/.deps-ok

ifndef V
Q := @
QUIET_CC = @echo '   ' CC $@;
QUIET_AR = @echo '   ' AR $@;
QUIET_LINK = @echo '   ' LINK $@;
endif

.PHONY: all check unit e2e demo bench clean install valgrind deps
all: $(LIBA) $(CLI) $(DRV)

deps: $(DEPS_OK)
$(DEPS_OK): scripts/deps
	$(Q)scripts/deps
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

$(BUILD)/git-threadmind: $(CLI_OBJ) $(LIBA)
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJ) $(LIBA) $(PKG_LIBS)

$(BUILD)/git-threadmind-merge: $(DRV_OBJ) $(LIBA)
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $(DRV_OBJ) $(LIBA) $(PKG_LIBS)

# The runner's suite list comes from the file names: check_<module>.c
# defines Suite *<module>_suite(void).
$(BUILD)/check_suites.inc: FORCE
	$(Q)mkdir -p $(@D)
	$(Q)printf 'TM_SUITE(%s)\n' $(UNIT_SUITES) > $@.tmp
	$(Q)cmp -s $@.tmp $@ 2>/dev/null && rm -f $@.tmp || mv $@.tmp $@
$(BUILD)/obj/tests/unit/check_main.o: $(BUILD)/check_suites.inc

$(UNIT): $(UNIT_OBJ) $(LIBA)
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $(UNIT_OBJ) $(LIBA) $(PKG_LIBS) $(CHECK_LIBS)

check: unit e2e

unit: $(UNIT)
	$(Q)cd tests/unit && TM_TEST_RESOURCES=$(CURDIR)/tests/resources \
		$(CURDIR)/$(UNIT)

e2e: all
	$(Q)if ls tests/e2e/t[0-9]*.sh >/dev/null 2>&1; then \
		TM_BUILD=$(CURDIR)/$(BUILD) sh tests/e2e/run.sh; \
	else echo 'e2e: no tests yet'; fi

valgrind: $(UNIT)
	$(Q)cd tests/unit && TM_TEST_RESOURCES=$(CURDIR)/tests/resources \
		CK_FORK=no valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite $(CURDIR)/$(UNIT)

demo: all
	$(Q)TM_BUILD=$(CURDIR)/$(BUILD) sh scripts/demo

$(BUILD)/bench-measure: bench/measure.c | $(DEPS_OK)
	$(QUIET_LINK)$(CC) -std=c11 -D_GNU_SOURCE -O2 -Wall -Werror -o $@ $<

$(BUILD)/bench-gen: $(BUILD)/obj/bench/gen.o $(LIBA)
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $< $(LIBA) $(PKG_LIBS)

bench: all $(BUILD)/bench-measure $(BUILD)/bench-gen
	$(Q)TM_BUILD=$(CURDIR)/$(BUILD) sh bench/run

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/threadmind/hooks
	install -m 755 $(CLI) $(DRV) $(DESTDIR)$(PREFIX)/bin
	install -m 755 hooks/post-* $(DESTDIR)$(PREFIX)/share/threadmind/hooks

clean:
	rm -rf build build-san build-static

FORCE:

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(DRV_OBJ:.o=.d) $(UNIT_OBJ:.o=.d)
