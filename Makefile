# btrfs-kit top-level Makefile.
#
#   make                 build ./btrfs and its argv[0] links (runs configure first if needed)
#   make D=asan          the same binary built with AddressSanitizer + UBSan (objects apart)
#   make test            the whole test suite (unit, cli, golden, interop; robustness under ASan)
#   make test-unit|test-cli|test-golden|test-interop|test-robust
#   make test-powercut    the exhaustive power-cut replay (make test runs a sample)
#   make test-balance-crash  offline balance killed at random moments, long (make test: short)
#   make test-crash      the commands that rewrite a filesystem killed and power-cut in full:
#                        every write boundary, reruns killed again (long; make test: sampled)
#   make test-catalogue  the whole corruption-class catalogue of check (long)
#   make test-asan       sanitizer build, then the robustness and unit tests with it
#   make test-s390x      big-endian: s390x cross build, unit/golden/cross tests under qemu-user
#   make hash-speedtest  checksum benchmark
#   make demo            mkfs/dump-super/check on sparse image files in a scratch folder
#   make man             render Documentation/*.rst to man pages (needs rst2man)
#   make install         btrfs, its aliases, man pages and bash completion; prefix=/usr/local,
#                        DESTDIR=, bindir=, sbindir= (mkfs.btrfs, fsck.btrfs), mandir=,
#                        bashcompdir= as usual; make uninstall removes exactly those files
#   make deb             build the Debian package (dpkg-buildpackage -us -uc -b) into ..

-include config.mk
.DEFAULT_GOAL := all

# The Debian package (debian/): dpkg-buildpackage configures, builds and installs itself, from
# a fresh clone too; the .deb lands in the parent folder.
deb:
	@command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null || \
		{ echo "make deb needs dpkg-dev and debhelper: apt-get install dpkg-dev debhelper" >&2; exit 1; }
	dpkg-buildpackage -us -uc -b

ifeq ($(wildcard config.mk),)
# Fresh clone: generate and run configure with defaults, then start over.
all $(filter-out clean distclean deb,$(MAKECMDGOALS)): bootstrap
bootstrap:
	@test -z "$(BTRFS_KIT_BOOTSTRAP)" || { echo "configure did not produce config.mk" >&2; exit 1; }
	@command -v autoreconf >/dev/null && pkg-config --exists uuid blkid zlib libkeyutils 2>/dev/null || \
		tests/install-deps.sh
	@test -x configure || ./autogen.sh
	./configure
	@$(MAKE) --no-print-directory BTRFS_KIT_BOOTSTRAP=1 $(MAKECMDGOALS)
.PHONY: bootstrap
else

WARNINGS = -Wall -Wextra -Wshadow -Wvla -Wformat=2 -Wno-unused-parameter \
	-Wno-missing-field-initializers -Wmissing-prototypes -Wstrict-prototypes
ifeq ($(WERROR),1)
WARNINGS += -Werror
endif
BASE_CFLAGS = -std=gnu11 -O2 -g -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -I. -include $(CONFIG_H) $(WARNINGS)
CONFIG_H = config.h

# D=asan (or ./configure --enable-asan) selects the sanitizer variant.
ifneq ($(filter asan,$(subst $(comma), ,$(D))),)
VARIANT = asan
endif
ifeq ($(ENABLE_ASAN),yes)
VARIANT = asan
endif
# D=s390x: the big-endian cross build tests/s390x.sh configures in .obj/s390x (its own
# config.mk and config.h: cross compiler, static libraries of a private sysroot).
ifeq ($(D),s390x)
VARIANT = s390x
endif
comma := ,
ifeq ($(VARIANT),asan)
SAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
OBJDIR = .obj/asan
BTRFS_BIN = btrfs-asan
else ifeq ($(VARIANT),s390x)
SAN_FLAGS =
OBJDIR = .obj/s390x
BTRFS_BIN = $(OBJDIR)/btrfs
include $(OBJDIR)/config.mk
CONFIG_H = $(OBJDIR)/config.h
else
VARIANT = default
SAN_FLAGS =
OBJDIR = .obj/default
BTRFS_BIN = btrfs
endif

# V=1 shows whole command lines.
ifeq ($(V),1)
Q =
msg = @true
else
Q = @
msg = @printf '  %-6s %s\n'
endif

ALL_CFLAGS = $(BASE_CFLAGS) $(SAN_FLAGS) $(CONFIG_CFLAGS) $(EXTRA_CFLAGS)
ALL_LDFLAGS = $(SAN_FLAGS) $(CONFIG_LDFLAGS) $(LDFLAGS)
LIBS = $(CONFIG_LIBS) -lm -lpthread

# Every .c file of the library layers is built; adding a file needs no Makefile edit.
LIB_SRCS = $(sort $(wildcard crypto/*.c kernel-shared/*/*.c common/*.c print/*.c mkfs/*.c balance/*.c check/*.c image/*.c cmds/*.c))
LIB_OBJS = $(patsubst %.c,$(OBJDIR)/%.o,$(LIB_SRCS))
MAIN_OBJ = $(OBJDIR)/btrfs.o
UNIT_SRCS = $(sort $(wildcard tests/unit/*-test.c))
UNIT_BINS = $(patsubst tests/unit/%.c,$(OBJDIR)/tests/%,$(UNIT_SRCS))
UNIT_HELPER_OBJS = $(patsubst %.c,$(OBJDIR)/%.o,$(filter-out $(UNIT_SRCS),$(wildcard tests/unit/*.c)))
TOOL_SRCS = $(sort $(wildcard tests/tools/*.c))
TOOL_BINS = $(patsubst tests/tools/%.c,$(OBJDIR)/tests/tools/%,$(TOOL_SRCS))
ALIASES = mkfs.btrfs btrfs-image fsck.btrfs

all: $(BTRFS_BIN) $(if $(filter default,$(VARIANT)),$(ALIASES))

$(OBJDIR)/%.o: %.c $(CONFIG_H)
	@mkdir -p $(dir $@)
	$(msg) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(OBJDIR)/libbtrfs.a: $(LIB_OBJS)
	@rm -f $@
	$(msg) AR $@
	$(Q)ar rcs $@ $^

$(BTRFS_BIN): $(MAIN_OBJ) $(OBJDIR)/libbtrfs.a
	$(msg) LINK $@
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(MAIN_OBJ) $(OBJDIR)/libbtrfs.a $(LIBS)

$(ALIASES): $(BTRFS_BIN)
	ln -sf btrfs $@

$(OBJDIR)/tests/%: $(OBJDIR)/tests/unit/%.o $(UNIT_HELPER_OBJS) $(OBJDIR)/libbtrfs.a
	@mkdir -p $(dir $@)
	$(msg) LINK $@
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(OBJDIR)/tests/tools/%: $(OBJDIR)/tests/tools/%.o $(OBJDIR)/libbtrfs.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

unit-bins: $(UNIT_BINS) $(TOOL_BINS)

# Keep the objects of unit tests and tools (make would delete them as intermediates).
.SECONDARY:

hash-speedtest: $(OBJDIR)/bench/hash-speedtest.o $(OBJDIR)/libbtrfs.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(BENCH_LIBS) $(LIBS)

$(OBJDIR)/bench/hash-speedtest.o: bench/hash-speedtest.c $(CONFIG_H)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(BENCH_CFLAGS) -MMD -MP -c -o $@ $<

# Test entry points. tests/run.sh prints one line per test and ends with
# "N passed, N failed, N skipped".
# Tests run two at a time (those using loop devices one at a time among themselves);
# JOBS=1 make test runs them one by one.
JOBS ?= 2
TEST_ENV = JOBS=$(JOBS) BTRFS=$(CURDIR)/$(BTRFS_BIN) UNIT_DIR=$(CURDIR)/$(OBJDIR)/tests TOOL_DIR=$(CURDIR)/$(OBJDIR)/tests/tools
# make test runs the robustness tests (hostile images) with the ASan/UBSan build only:
# a crash or a sanitizer report fails them, and running them twice would only cost time.
SAN_ENV = SAN_BTRFS=$(CURDIR)/btrfs-asan SAN_UNIT_DIR=$(CURDIR)/.obj/asan/tests SAN_TOOL_DIR=$(CURDIR)/.obj/asan/tests/tools
test: all unit-bins
	$(MAKE) --no-print-directory D=asan all unit-bins
	$(TEST_ENV) $(SAN_ENV) tests/run.sh unit cli golden interop robust
test-unit: all unit-bins
	$(TEST_ENV) tests/run.sh unit
test-cli: all unit-bins
	$(TEST_ENV) tests/run.sh cli
test-golden: all unit-bins
	$(TEST_ENV) tests/run.sh golden
test-interop: all unit-bins
	$(TEST_ENV) tests/run.sh interop
test-robust: all unit-bins
	$(TEST_ENV) tests/run.sh robust
# power-cut replay (issue 18), exhaustive: every subset of up to 10 pending writes, every tear
test-powercut: all unit-bins
	$(TEST_ENV) POWERCUT=full TEST='cli/0[89][0-9]-powercut-*' tests/run.sh cli
# offline balance killed at random moments (issue 21), long: 5 converts of 1.15GiB, each
# killed twice (loop devices: run under flock /tmp/btrfs-kit-loop.lock)
test-balance-crash: all unit-bins
	$(TEST_ENV) CRASH_RUNS=long TEST='interop/055-*' tests/run.sh interop
# Crash safety in full (issue 37): offline convert killed at every write boundary and resumed
# (interop/056), power-cut replay with reruns and btrfs-progs' check of every device
# (interop/057), image restore killed and rerun to the identical image (interop/058), the
# power-cut replays of cli/08x-09x, the long SIGKILL runs (interop/055)
test-crash: all unit-bins
	$(TEST_ENV) KILL_REPLAY=full POWERCUT=full TEST='interop/05[678]-*' tests/run.sh interop
	$(TEST_ENV) POWERCUT=full TEST='cli/0[89][0-9]-powercut-*' tests/run.sh cli
	$(TEST_ENV) CRASH_RUNS=long TEST='interop/055-*' tests/run.sh interop
# The whole corruption catalogue (tests/tools/catalogue.py; long): every class on
# two corpus filesystems, repaired images mounted by the kernel (each mount under
# /tmp/btrfs-kit-loop.lock); the matrix goes to catalogue-matrix.txt.
CATALOGUE_ARGS ?= --per-class 2 --seed 1
test-catalogue: all unit-bins
	python3 tests/tools/catalogue.py $(CATALOGUE_ARGS) --mount --btrfs $(CURDIR)/$(BTRFS_BIN) \
		--tool $(CURDIR)/$(OBJDIR)/tests/tools/corrupt-block --matrix catalogue-matrix.txt
# Big-endian: cross-build for s390x (.obj/s390x), run unit, golden and cross tests under
# qemu-user (tests/s390x.sh; installs what it needs, SKIP without the cross tools).
test-s390x: all
	tests/s390x.sh
test-asan:
	$(MAKE) --no-print-directory D=asan all unit-bins
	JOBS=$(JOBS) BTRFS=$(CURDIR)/btrfs-asan UNIT_DIR=$(CURDIR)/.obj/asan/tests TOOL_DIR=$(CURDIR)/.obj/asan/tests/tools \
		ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
		tests/run.sh unit robust

demo: all
	@tests/install-deps.sh
	tests/demo.sh

# Man pages: every Documentation/*.rst that declares a ":Manual section: 8", rendered at
# build time (generated files are not kept in git, where they would drift from the text).
MAN_RST = $(sort $(shell grep -l '^:Manual section: 8' Documentation/*.rst))
MAN_PAGES = $(patsubst Documentation/%.rst,Documentation/man/%.8,$(MAN_RST))
RST2MAN ?= $(firstword $(shell command -v rst2man rst2man.py 2>/dev/null))

man: $(MAN_PAGES)

Documentation/man/%.8: Documentation/%.rst
	@test -n "$(RST2MAN)" || { echo "rst2man not found: man pages need it, apt-get install python3-docutils" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(msg) MAN $@
	$(Q)$(RST2MAN) $< > $@.tmp && mv $@.tmp $@

# Bash completion, generated by the binary from its own option tables.
btrfs-completion.bash: $(BTRFS_BIN)
	$(msg) GEN $@
	$(Q)./$(BTRFS_BIN) --generate-completion bash > $@.tmp && mv $@.tmp $@

# Install.  The aliases are symbolic links to the one binary (relative, so a DESTDIR
# tree and a package work wherever they land); fsck.btrfs' man page is btrfs-check's.
prefix ?= /usr/local
exec_prefix ?= $(prefix)
bindir ?= $(exec_prefix)/bin
sbindir ?= $(exec_prefix)/sbin
datadir ?= $(prefix)/share
mandir ?= $(datadir)/man
bashcompdir ?= $(datadir)/bash-completion/completions
INSTALL ?= install
BIN_ALIASES = btrfs-image
SBIN_ALIASES = mkfs.btrfs fsck.btrfs
COMPLETION_NAMES = btrfs btrfs-image mkfs.btrfs fsck.btrfs
# Every file install puts (uninstall removes these and nothing else).
INSTALLED_FILES = $(bindir)/btrfs $(BIN_ALIASES:%=$(bindir)/%) $(SBIN_ALIASES:%=$(sbindir)/%) \
	$(MAN_PAGES:Documentation/man/%=$(mandir)/man8/%) $(mandir)/man8/fsck.btrfs.8 \
	$(COMPLETION_NAMES:%=$(bashcompdir)/%)

install: all man btrfs-completion.bash
	$(INSTALL) -d $(DESTDIR)$(bindir) $(DESTDIR)$(sbindir) $(DESTDIR)$(mandir)/man8 $(DESTDIR)$(bashcompdir)
	$(INSTALL) -m 755 btrfs $(DESTDIR)$(bindir)/btrfs
	for a in $(BIN_ALIASES); do ln -sfn btrfs $(DESTDIR)$(bindir)/$$a; done
	for a in $(SBIN_ALIASES); do \
		ln -sfn $$(realpath -m --relative-to=$(sbindir) $(bindir)/btrfs) $(DESTDIR)$(sbindir)/$$a; done
	$(INSTALL) -m 644 $(MAN_PAGES) $(DESTDIR)$(mandir)/man8/
	ln -sfn btrfs-check.8 $(DESTDIR)$(mandir)/man8/fsck.btrfs.8
	$(INSTALL) -m 644 btrfs-completion.bash $(DESTDIR)$(bashcompdir)/btrfs
	for a in $(filter-out btrfs,$(COMPLETION_NAMES)); do ln -sfn btrfs $(DESTDIR)$(bashcompdir)/$$a; done

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED_FILES))

clean:
	rm -rf .obj btrfs btrfs-asan $(ALIASES) hash-speedtest Documentation/man btrfs-completion.bash

distclean: clean
	rm -rf config.mk config.h config.log config.status configure aclocal.m4 autom4te.cache config.h.in

.PHONY: all clean distclean test test-unit test-cli test-golden test-interop test-robust test-asan test-powercut test-balance-crash test-crash test-catalogue test-s390x \
	demo man unit-bins install uninstall deb

-include $(shell find .obj -name '*.d' 2>/dev/null)
endif
