# iodig: one static binary with its BPF programs embedded as skeletons.
# Build:  make            Run: sudo make run ARGS="lat 1 5"      Test: sudo make test

CLANG      ?= clang-19
BPFTOOL    ?= bpftool
CC         ?= gcc
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
# The release, and past it the commit (git describe) as a Debian version
# allows it: 0.1.0+g80018fc, .dirty when the tree has changes.
BASE_VERSION := 0.1.0
GIT_REV    := $(shell git describe --always --dirty 2>/dev/null | tr - .)
VERSION    ?= $(BASE_VERSION)$(if $(GIT_REV),+g$(GIT_REV))
# The date of the commit, for the man pages (not the build's: the same
# source makes the same pages).
DATE       := $(shell git log -1 --format=%cs 2>/dev/null || date +%F)
ARCH       := x86
# Every CPU, unless -j was given: a clean build of what `make test` needs
# took 121 s with one job and 59 with two (2 CPUs; docs/DESIGN.md).
ifeq ($(MAKELEVEL)$(filter -j%,$(MAKEFLAGS)),0)
MAKEFLAGS += -j$(shell nproc)
endif

BUILD  := build
# CFLAGS is the user's (make CFLAGS=-O0 keeps everything else); what the
# build needs is apart from it.
CFLAGS ?= -O2 -g
WARNINGS := -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
INCLUDES := -I$(BUILD) -Isrc -Isrc/lib -Isrc/engine -Isrc/cmd
IODIG_CFLAGS = $(WARNINGS) $(INCLUDES) -MMD -MP $(CFLAGS)
LDFLAGS += -static
LDLIBS  := -Wl,--wrap=btf__load_vmlinux_btf,--wrap=btf__parse -lbpf -ldw -lelf -lz -llzma -lbz2 -lzstd -lm

BPF_CFLAGS := -target bpf -g -O2 -Wall -Wno-unused-function -D__TARGET_ARCH_$(ARCH) \
              -I$(BUILD) -Isrc -Isrc/bpf -MMD -MP

# One trio per command: src/<cmd>.c, src/bpf/<cmd>.bpf.c, src/<cmd>.h
BPF_SRCS  := $(wildcard src/bpf/*.bpf.c)
# Objects linked from parts (below) have a skeleton; their parts do not.
LIFE_PARTS := life_block life_sysfs life_stack
SKELS     := $(patsubst src/bpf/%.bpf.c,$(BUILD)/%.skel.h,\
		$(filter-out $(patsubst %,src/bpf/%.bpf.c,$(LIFE_PARTS)),$(BPF_SRCS))) $(BUILD)/life.skel.h
LIB_SRCS  := $(wildcard src/lib/*.c)
CMD_SRCS  := $(wildcard src/*.c src/engine/*.c src/cmd/*.c)
OBJS      := $(patsubst src/%.c,$(BUILD)/%.o,$(CMD_SRCS) $(LIB_SRCS)) $(BUILD)/btf_roots.o
LIB_OBJS  := $(patsubst src/%.c,$(BUILD)/%.o,$(LIB_SRCS))
UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
HELPERS   := $(BUILD)/helpers/functest $(BUILD)/helpers/syscost $(BUILD)/helpers/callee $(BUILD)/helpers/switchcost \
	     $(BUILD)/helpers/stackload-fp $(BUILD)/helpers/stackload-nofp $(BUILD)/helpers/jitload \
	     $(BUILD)/helpers/osdwrite $(BUILD)/helpers/tagring

.PHONY: all deps test-deps run test unit live vm bench clean check-static asan man completion \
	install uninstall deb FORCE
.DELETE_ON_ERROR:
.SECONDARY:

all: iodig

deps:
	@scripts/install-deps build

test-deps: deps
	@scripts/install-deps test

iodig: $(OBJS) | deps
	$(CC) $(IODIG_CFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS)
	@$(MAKE) --no-print-directory check-static

check-static: iodig
	@if ldd ./iodig 2>&1 | grep -q 'not a dynamic executable'; then :; \
	 else echo "iodig is not statically linked:"; ldd ./iodig; exit 1; fi

$(BUILD)/vmlinux.h: | deps
	@mkdir -p $(BUILD)
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@

$(BUILD)/%.tmp.bpf.o: src/bpf/%.bpf.c $(BUILD)/vmlinux.h | deps
	@mkdir -p $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -MF $(BUILD)/$*.bpf.d -MT $@ -c $< -o $@

# Atomic fetch-and-add with its result (BPF v3, kernel 5.12: iodig's oldest):
# the lowers of a stacked bio take their slots concurrently.
$(BUILD)/life_stack.tmp.bpf.o: BPF_CFLAGS += -mcpu=v3

# An object, through the static linker (as the skeleton will see it).
$(BUILD)/%.bpf.o: $(BUILD)/%.tmp.bpf.o
	$(BPFTOOL) gen object $@ $<

# The life engine is objects linked into one, as retsnoop links its
# mass-attach object: the block path, the queue-attribute watcher and the
# stacked disks.
$(BUILD)/life.bpf.o: $(patsubst %,$(BUILD)/%.tmp.bpf.o,$(LIFE_PARTS))
	$(BPFTOOL) gen object $@ $^

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@

# The names the objects give types: the vmlinux types a slim BTF keeps
# (src/lib/btfslim.c); those set-up looks up by name itself
# (bpfenv__grow_as_used(): bpf_mem_alloc); and the enumerators and enums it
# looks up by name, found in the C sources.
BTF_ROOTS_EXTRA := bpf_mem_alloc
$(BUILD)/btf_roots.c: $(SKELS:.skel.h=.bpf.o) $(CMD_SRCS) $(LIB_SRCS) scripts/btf-roots Makefile
	BTF_ROOTS_EXTRA="$(BTF_ROOTS_EXTRA)" BTF_ROOTS_SRC="$(CMD_SRCS) $(LIB_SRCS)" BPFTOOL=$(BPFTOOL) \
		scripts/btf-roots $(SKELS:.skel.h=.bpf.o) > $@
$(BUILD)/btf_roots.o: $(BUILD)/btf_roots.c
	$(CC) $(IODIG_CFLAGS) -c $< -o $@

# Rewritten only when the version changes, so a commit rebuilds one file.
$(BUILD)/version.h: FORCE
	@mkdir -p $(BUILD)
	@printf '#define IODIG_VERSION "%s"\n#define IODIG_DATE "%s"\n' '$(VERSION)' '$(DATE)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
FORCE:
# (the objects that print it; a new commit rebuilds them alone)
$(BUILD)/cmd/help.o $(BUILD)/cmd/help_man.o: $(BUILD)/version.h

# src/lib knows no skeleton: it and the unit tests build without clang,
# bpftool or kernel BTF.
$(BUILD)/lib/%.o: src/lib/%.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(IODIG_CFLAGS) -c $< -o $@

# A command's object may include any skeleton; generating them first keeps that simple.
$(BUILD)/%.o: src/%.c $(SKELS) | deps
	@mkdir -p $(dir $@)
	$(CC) $(IODIG_CFLAGS) -c $< -o $@

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(IODIG_CFLAGS) -o $@ $< $(UNIT_MORE) $(LIB_OBJS) $(LDLIBS)

# The doctor's rules are an engine without BPF: their test links them too.
$(BUILD)/tests/test_diagnose: UNIT_MORE = $(BUILD)/engine/diagnose.o $(BUILD)/engine/diagnose_rules.o
$(BUILD)/tests/test_diagnose: $(BUILD)/engine/diagnose.o $(BUILD)/engine/diagnose_rules.o

# Test helpers: -O1 keeps the noinline functions as they are written.
$(BUILD)/helpers/%: tests/helpers/%.c tests/helpers/go.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -Wall -o $@ $<

# One source, with and without frame pointers (the user stacks of tests/live/stacks.sh).
$(BUILD)/helpers/stackload-fp: tests/helpers/stackload.c tests/helpers/go.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fno-omit-frame-pointer -Wall -o $@ $<
# functest with frame pointers: func -U names each call's callers
$(BUILD)/helpers/functest: tests/helpers/functest.c tests/helpers/go.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fno-omit-frame-pointer -Wall -o $@ $<
# static: it runs in the VM's busybox initramfs (tests/vm/stack)
$(BUILD)/helpers/osdwrite: tests/helpers/osdwrite.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -Wall -static -o $@ $<
# the ring's hash is the BPF side's own (src/life.h)
$(BUILD)/helpers/tagring: tests/helpers/tagring.c src/life.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -Wall -o $@ $<
$(BUILD)/helpers/jitload: tests/helpers/jitload.c tests/helpers/go.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fno-omit-frame-pointer -Wall -o $@ $<
$(BUILD)/helpers/stackload-nofp: tests/helpers/stackload.c tests/helpers/go.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fomit-frame-pointer -Wall -o $@ $<

run: iodig
	./iodig $(ARGS)

# Everything: unit tests, live tests on loop devices, VM tests on a stock kernel;
# the unit tests and the recording readers again under ASan and UBSan.
test: iodig $(UNIT_BINS) $(HELPERS) test-deps asan deb
	tests/run all

# A dynamic build beside the static one (the sanitizers' runtimes are not
# linked statically): build-asan/iodig-asan and its unit tests, which
# tests/run runs as unit/sanitizers.
ASAN_BUILD := build-asan
asan: | deps
	@$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) LDFLAGS= \
		CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all" \
		$(ASAN_BUILD)/iodig-asan $(patsubst $(BUILD)/%,$(ASAN_BUILD)/%,$(UNIT_BINS))

$(BUILD)/iodig-asan: $(OBJS)
	$(CC) $(IODIG_CFLAGS) -o $@ $(OBJS) $(LDLIBS)

unit: $(UNIT_BINS)
	tests/run unit

live: iodig $(HELPERS) test-deps
	tests/run live

vm: iodig $(BUILD)/helpers/osdwrite test-deps
	tests/run vm

bench: iodig $(HELPERS) $(BUILD)/bench/symbench test-deps
	bench/lat.sh

# A cache line's crossing between two CPUs (bench.py's line column): alone.
$(BUILD)/bench/linepong: bench/linepong.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -Wall -Wextra -O2 -pthread -o $@ $<

# The least a request tracer costs here (bench/floor.sh): empty programs, and
# the smallest Q-to-C timer, without iodig.
$(BUILD)/bench/floor.bpf.o: bench/floor.bpf.c $(BUILD)/vmlinux.h | deps
	@mkdir -p $(dir $@)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@
$(BUILD)/bench/floor.skel.h: $(BUILD)/bench/floor.bpf.o
	$(BPFTOOL) gen skeleton $< name floor_bpf > $@
$(BUILD)/bench/floor: bench/floor.c $(BUILD)/bench/floor.skel.h
	$(CC) $(WARNINGS) -I$(BUILD)/bench -O2 -o $@ $< -lbpf -lelf -lz

# Benchmarks of a library module alone, linked like the unit tests.
$(BUILD)/bench/%: bench/%.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(IODIG_CFLAGS) -o $@ $< $(LIB_OBJS) $(LDLIBS)

# Man pages and completion: made by the binary from its option tables (the
# pages' EXAMPLES from the README's sections).
man: $(BUILD)/man/iodig.8
$(BUILD)/man/iodig.8: iodig README.md
	@rm -rf $(BUILD)/man && mkdir -p $(BUILD)/man
	./iodig help --man iodig README.md > $(BUILD)/man/iodig.8.tmp
	for c in $$(./iodig help --commands); do \
		./iodig help --man $$c README.md > $(BUILD)/man/iodig-$$c.8 || exit 1; done
	mv $(BUILD)/man/iodig.8.tmp $@
completion: $(BUILD)/completion/iodig $(BUILD)/completion/_iodig
$(BUILD)/completion/iodig: iodig
	@mkdir -p $(dir $@)
	./iodig help --completion bash > $@
$(BUILD)/completion/_iodig: iodig
	@mkdir -p $(dir $@)
	./iodig help --completion zsh > $@
UNITS := iodig-export.service iodig-record.service

# make install [PREFIX=/usr/local] [DESTDIR=...]: the GNU names, each may be
# set on its own.  Nothing is built as root that was not built before.
PREFIX         ?= /usr/local
prefix         ?= $(PREFIX)
exec_prefix    ?= $(prefix)
sbindir        ?= $(exec_prefix)/sbin
datarootdir    ?= $(prefix)/share
datadir        ?= $(datarootdir)
mandir         ?= $(datarootdir)/man
man8dir        ?= $(mandir)/man8
docdir         ?= $(datarootdir)/doc/iodig
bashcompdir    ?= $(datadir)/bash-completion/completions
zshcompdir     ?= $(datadir)/zsh/vendor-completions
systemdunitdir ?= $(prefix)/lib/systemd/system
INSTALL        ?= install

# What install puts where (uninstall removes exactly these).
INSTALLED = $(sbindir)/iodig $(man8dir)/iodig.8 $(man8dir)/iodig-*.8 $(bashcompdir)/iodig \
	    $(zshcompdir)/_iodig $(systemdunitdir)/iodig-export.service \
	    $(systemdunitdir)/iodig-record.service $(datadir)/iodig/grafana/iodig.json

install: iodig man completion
	$(INSTALL) -d $(DESTDIR)$(sbindir) $(DESTDIR)$(man8dir) $(DESTDIR)$(bashcompdir) \
		$(DESTDIR)$(zshcompdir) $(DESTDIR)$(systemdunitdir) $(DESTDIR)$(datadir)/iodig/grafana
	$(INSTALL) -m 755 iodig $(DESTDIR)$(sbindir)/iodig
	$(INSTALL) -m 644 $(BUILD)/man/*.8 $(DESTDIR)$(man8dir)/
	$(INSTALL) -m 644 $(BUILD)/completion/iodig $(DESTDIR)$(bashcompdir)/iodig
	$(INSTALL) -m 644 $(BUILD)/completion/_iodig $(DESTDIR)$(zshcompdir)/_iodig
	for u in $(UNITS); do sed 's|@sbindir@|$(sbindir)|g' contrib/systemd/$$u.in > $(DESTDIR)$(systemdunitdir)/$$u \
		&& chmod 644 $(DESTDIR)$(systemdunitdir)/$$u || exit 1; done
	$(INSTALL) -m 644 contrib/grafana/iodig.json $(DESTDIR)$(datadir)/iodig/grafana/iodig.json

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(datadir)/iodig/grafana $(DESTDIR)$(datadir)/iodig 2>/dev/null

# make deb: build/iodig_VERSION_amd64.deb, from make install into a staging
# root (prefix /usr), the binary stripped, the pages compressed; lintian
# must find no error in it (tests/pkg/deb.sh).
DEB  := $(BUILD)/iodig_$(VERSION)_amd64.deb
DEBR := $(BUILD)/deb
deb: $(DEB)
$(DEB): iodig man completion $(wildcard contrib/debian/* contrib/systemd/* contrib/grafana/*)
	rm -rf $(DEBR) $(BUILD)/iodig_*_amd64.deb && mkdir -p $(DEBR)/DEBIAN
	$(MAKE) --no-print-directory install DESTDIR=$(abspath $(DEBR)) prefix=/usr >/dev/null
	strip --remove-section=.comment --remove-section=.note $(DEBR)/usr/sbin/iodig
	gzip -9n $(DEBR)/usr/share/man/man8/*.8
	install -d $(DEBR)/usr/share/doc/iodig $(DEBR)/usr/share/lintian/overrides
	install -m 644 contrib/debian/copyright $(DEBR)/usr/share/doc/iodig/copyright
	install -m 644 contrib/debian/lintian-overrides $(DEBR)/usr/share/lintian/overrides/iodig
	printf 'iodig ($(VERSION)) unstable; urgency=medium\n\n  * Built from commit %s.\n\n -- iodig developers <iodig@users.noreply.github.com>  %s\n' \
		"$$(git log -1 --format=%H 2>/dev/null || echo unknown)" \
		"$$(date -R -d @$$(git log -1 --format=%ct 2>/dev/null || date +%s))" \
		| gzip -9n > $(DEBR)/usr/share/doc/iodig/changelog.gz
	chmod 644 $(DEBR)/usr/share/doc/iodig/changelog.gz
	install -m 755 contrib/debian/postinst contrib/debian/postrm $(DEBR)/DEBIAN/
	sed 's|@VERSION@|$(VERSION)|; s|@SIZE@|'"$$(du -sk --exclude=DEBIAN $(DEBR) | cut -f1)"'|' \
		contrib/debian/control.in > $(DEBR)/DEBIAN/control
	cd $(DEBR) && find usr -type f | sort | xargs md5sum > DEBIAN/md5sums
	dpkg-deb --root-owner-group -Zxz --build $(DEBR) $@

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) iodig

-include $(wildcard $(BUILD)/*.d $(BUILD)/lib/*.d $(BUILD)/engine/*.d $(BUILD)/cmd/*.d $(BUILD)/tests/*.d)
