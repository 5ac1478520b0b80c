# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# ksymtap build.  The chain follows libbpf-bootstrap: bpf/X.bpf.c -> build/X.bpf.o
# (clang -target bpf, CO-RE) -> build/X.skel.h (bpftool gen skeleton) -> user objects
# -> build/ksymtap, linked statically so the same file runs in the test VMs, in
# containers and on hosts.

#
# make ARCH=arm64 (or x86) builds for that architecture into build/ARCH/ with
# Debian's cross toolchain and multiarch static libraries; plain make builds
# the host's architecture into build/.

HOST_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
ARCH ?= $(HOST_ARCH)
ifeq ($(ARCH),aarch64)
override ARCH := arm64
endif
ifeq ($(ARCH),x86_64)
override ARCH := x86
endif
ifeq ($(SAN),1)
# make SAN=1: the host build with AddressSanitizer, UndefinedBehaviorSanitizer
# and LeakSanitizer (clang), dynamically linked as the sanitizers need, into
# build/asan/; make test runs the unit tests and the host tests with it.
OUTPUT ?= build/asan
CC := $(or $(CLANG),clang)
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
	-fsanitize=fuzzer-no-link
else ifeq ($(ARCH),$(HOST_ARCH))
OUTPUT ?= build
CC ?= cc
else
OUTPUT ?= build/$(ARCH)
CROSS_COMPILE ?= $(if $(filter arm64,$(ARCH)),aarch64-linux-gnu-,x86_64-linux-gnu-)
CC := $(CROSS_COMPILE)gcc
AR := $(CROSS_COMPILE)ar
endif
# Debian's libevent-dev is not Multi-Arch: same, so the arm64 one cannot be
# installed beside the host's: make deps unpacks its static libraries here
# (the headers are the host's: event-config.h is the same on both arches).
ARM64_LIBEVENT ?= /usr/local/lib/ksymtap/arm64
ifeq ($(ARCH)$(HOST_ARCH),arm64x86)
ARM64_LIBEVENT_L := -L$(ARM64_LIBEVENT)
endif
CLANG ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= bpftool

# Debian packages every target of this Makefile needs (make deps), and the
# arm64 ones for make ARCH=arm64 and the arm64 VM suite (multiarch).
DEB_PACKAGES := make gcc libc6-dev clang llvm libbpf-dev bpftool libelf-dev \
	zlib1g-dev pkg-config qemu-system-x86 busybox-static cpio linux-perf \
	kmod iproute2 ca-certificates debian-archive-keyring jq util-linux \
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm debootstrap \
	libclang-rt-dev time libevent-dev curl prometheus scdoc man-db file \
	debhelper dpkg-dev lintian buildah valgrind libprotobuf-c-dev protobuf-c-compiler \
	libssl-dev openssl libjson-c-dev libcapstone-dev
DEB_PACKAGES_ARM64 := libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64 \
	libprotobuf-c-dev:arm64 libssl-dev:arm64 libjson-c-dev:arm64 libcapstone-dev:arm64

# clang's own system include dirs, so the BPF side finds <asm/...> without
# pulling host headers in front of vmlinux.h (libbpf-bootstrap does the same).
CLANG_BPF_SYS_INCLUDES := $(shell $(CLANG) -v -E - </dev/null 2>&1 \
	| sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')

BPF_CFLAGS := -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_$(ARCH) \
	-I. -Iinclude $(CLANG_BPF_SYS_INCLUDES)

CFLAGS ?= -g -O2
CFLAGS += $(SAN_FLAGS) -std=gnu11 -Wall -Wextra -Werror -Wmissing-field-initializers \
	-Wshadow -Wno-unused-parameter -D_GNU_SOURCE -Iinclude -Iuser -I$(OUTPUT) -I$(OUTPUT)/proto
LDFLAGS ?=
LDLIBS_STATIC := $(if $(SAN_FLAGS),,-static) -lbpf -lelf -lz -lprotobuf-c -ljson-c -lcapstone \
	$(ARM64_LIBEVENT_L) -levent_openssl -levent_pthreads -levent_extra -levent_core \
	-lssl -lcrypto -pthread

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,$(BPF_SRCS))
# One object, one skeleton: the hooks and the snapshot's walker load together,
# so libbpf parses the kernel's BTF once (BENCHMARKS.md, start-up).
SKELS := $(OUTPUT)/ksymtap.skel.h

# user/ holds one folder per layer (user/LAYERS).  user/cmd/main.c is the
# CLI; everything else is library code that the unit tests link against too.
USER_SRCS := $(wildcard user/*/*.c)
USER_HDRS := $(wildcard user/*/*.h)
# OTLP's messages (user/encode/proto/, from the opentelemetry-proto
# specification) through protoc-c into $(OUTPUT)/proto/.
PROTOC_C ?= protoc-c
PROTO_DIR := user/encode/proto
PROTO_SRCS := $(shell find $(PROTO_DIR) -name '*.proto' | sort)
PROTO_GEN_C := $(patsubst $(PROTO_DIR)/%.proto,$(OUTPUT)/proto/%.pb-c.c,$(PROTO_SRCS))
PROTO_GEN_H := $(PROTO_GEN_C:.c=.h)
PROTO_OBJS := $(PROTO_GEN_C:.c=.o)
USER_OBJS := $(patsubst user/%.c,$(OUTPUT)/user/%.o,$(USER_SRCS)) $(PROTO_OBJS)
LIB_OBJS := $(filter-out $(OUTPUT)/user/cmd/main.o,$(USER_OBJS))
# The library as an archive for the test programs: each takes only the
# objects it calls into (libevent only where serve's HTTP side is).
LIB_A := $(OUTPUT)/libksymtap.a

UNIT_SRCS := $(wildcard tests/unit/*/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/unit/%,$(UNIT_SRCS))
UNIT_COMMON := $(OUTPUT)/tests/unit/unit.o

# Programs the VM suite runs inside the guests (workload generators, checkers).
VMPROG_SRCS := $(wildcard tests/vm/progs/*.c)
VMPROG_BINS := $(patsubst tests/vm/progs/%.c,$(OUTPUT)/tests/vm/%,$(VMPROG_SRCS))
VMPROG_BPF_SRCS := $(wildcard tests/vm/progs/*.bpf.c)
VMPROG_BPF_OBJS := $(patsubst tests/vm/progs/%.bpf.c,$(OUTPUT)/tests/vm/%.bpf.o,$(VMPROG_BPF_SRCS))
VMPROG_BINS := $(filter-out %.bpf,$(VMPROG_BINS))

# Helpers of the host integration tests (tests/host/*.sh), and what they load.
HOSTPROG_SRCS := $(wildcard tests/host/*.c)
HOSTPROG_BINS := $(patsubst tests/host/%.c,$(OUTPUT)/tests/host/%,$(HOSTPROG_SRCS))
HOST_DEPS := $(OUTPUT)/ksymtap $(HOSTPROG_BINS) $(OUTPUT)/tests/vm/ktload \
	$(OUTPUT)/tests/vm/subprogs.bpf.o $(OUTPUT)/tests/vm/manysub.bpf.o
# Benchmark helpers (load generators, latency reader, start-up timer), copied
# into the guest by tests/vm/vmtest.sh --suite bench.
BENCHPROG_SRCS := $(wildcard tests/bench/progs/*.c)
BENCHPROG_BINS := $(patsubst tests/bench/progs/%.c,$(OUTPUT)/tests/bench/%,$(BENCHPROG_SRCS))

ifeq ($(V),1)
	Q =
	msg =
else
	Q = @
	msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
	MAKEFLAGS += --no-print-directory
endif

.PHONY: all
all: $(OUTPUT)/ksymtap

$(OUTPUT) $(OUTPUT)/tests/unit $(OUTPUT)/tests/vm $(OUTPUT)/tests/host $(OUTPUT)/tests/bench:
	$(Q)mkdir -p $@

# A BPF object: CO-RE, stripped of DWARF (BTF stays).  ksymtap's and the
# VM tests' programs alike.
define bpf-compile
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@.tmp
	$(Q)$(LLVM_STRIP) -g $@.tmp -o $@ && rm -f $@.tmp
endef

# A static link of $(1) (objects, archives) with libbpf, libelf, zlib and
# libevent, for the binary and every test program.  glibc warns at a static
# link of every function that would need its NSS modules at run time:
# libevent's evutil.o refers to getaddrinfo(), getservbyname() and
# getprotobynumber(), which ksymtap never calls (serve --metrics-listen
# takes numeric addresses only).  libcrypto's dso_dlfcn.o and bio_sock.o
# refer to dlopen() (engines, providers loaded from files) and
# gethostbyname() (BIO_lookup), which the OTLP exporter's TLS never reaches:
# libevent's evdns resolves, and OpenSSL's built-in providers serve.  Those
# warnings are left out of the output; any other stays.
define static-link
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $(1) $(LDLIBS_STATIC) -o $@ 2>$@.ld; rc=$$?; \
		grep -vE "(evutil|dso_dlfcn|bio_sock).o\): in function|warning: Using '(getaddrinfo|getservbyname|getprotobynumber|dlopen|gethostbyname)' in statically linked" $@.ld >&2; \
		rm -f $@.ld; exit $$rc
endef

# BPF side: the objects, then the skeleton.
$(OUTPUT)/%.bpf.o: bpf/%.bpf.c vmlinux.h $(wildcard include/*.h) $(wildcard bpf/*.h) | $(OUTPUT)
	$(bpf-compile)

# BPF static linking (libbpf's linker), then the skeleton of the whole.
$(OUTPUT)/ksymtap.linked.o: $(BPF_OBJS)
	$(call msg,LINK-BPF,$@)
	$(Q)$(BPFTOOL) gen object $@ $^

$(OUTPUT)/ksymtap.skel.h: $(OUTPUT)/ksymtap.linked.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name ksymtap_bpf > $@

# The version a binary reports (--version, metrics): git describe at build
# time ("unknown" outside a git checkout), in a header rewritten only when it
# changes, so that only what includes it is rebuilt.
VERSION := $(or $(KSYMTAP_VERSION),$(shell git describe --tags --always --dirty 2>/dev/null || echo unknown))
$(OUTPUT)/version.h: FORCE | $(OUTPUT)
	$(Q)echo '#define KT_VERSION "$(VERSION)"' >$@.tmp
	$(Q)cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(OUTPUT)/user/cmd/main.o $(OUTPUT)/user/serve/metrics.o $(OUTPUT)/user/sink/otlp_config.o: \
	$(OUTPUT)/version.h
$(OUTPUT)/user/sink/otlp.o: $(OUTPUT)/version.h
.PHONY: FORCE

# protoc-c writes every message's .pb-c.c and .pb-c.h at once.
$(PROTO_GEN_C) $(PROTO_GEN_H) &: $(PROTO_SRCS)
	$(call msg,PROTOC-C,$(OUTPUT)/proto)
	$(Q)mkdir -p $(OUTPUT)/proto
	$(Q)$(PROTOC_C) -I$(PROTO_DIR) --c_out=$(OUTPUT)/proto $(PROTO_SRCS)

# Generated code: protoc-c's own style (its initializers leave fields out).
$(OUTPUT)/proto/%.pb-c.o: $(OUTPUT)/proto/%.pb-c.c $(PROTO_GEN_H)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Wno-missing-field-initializers -c $< -o $@

# -MMD: each object depends on the headers it includes (build/**/*.d), so a
# header edit rebuilds only what includes it.  The skeleton and the OTLP
# messages are generated, so every object waits for them once.
$(OUTPUT)/user/%.o: user/%.c $(SKELS) $(PROTO_GEN_H) | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c $< -o $@
-include $(USER_OBJS:.o=.d)
# An object built before -MMD (no .d yet) depends on every header, once.
$(foreach o,$(USER_OBJS),$(if $(wildcard $(o:.o=.d)),,$(eval $(o): $(USER_HDRS) $(wildcard include/*.h))))

$(OUTPUT)/ksymtap: $(USER_OBJS)
	$(call msg,BINARY,$@)
	$(call static-link,$^)

$(LIB_A): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# Host unit tests: one binary per tests/unit/LAYER/test_*.c (the layer of
# what it tests, as in user/), linked with the library objects and the small
# assertion helpers in tests/unit/unit.c.
$(OUTPUT)/tests/unit/unit.o: tests/unit/unit.c tests/unit/unit.h | $(OUTPUT)/tests/unit
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/unit -c $< -o $@

$(OUTPUT)/tests/unit/%: tests/unit/%.c $(UNIT_COMMON) $(LIB_A) tests/unit/unit.h | $(OUTPUT)/tests/unit
	$(call msg,TEST-CC,$@)
	$(Q)mkdir -p $(@D)
	$(call static-link,-Itests/unit $< $(UNIT_COMMON) $(LIB_A))

$(OUTPUT)/tests/vm/%.bpf.o: tests/vm/progs/%.bpf.c vmlinux.h | $(OUTPUT)/tests/vm
	$(bpf-compile)

$(OUTPUT)/tests/vm/%: tests/vm/progs/%.c $(LIB_A) | $(OUTPUT)/tests/vm
	$(call msg,VM-CC,$@)
	$(call static-link,$< $(LIB_A))

$(OUTPUT)/tests/host/%: tests/host/%.c | $(OUTPUT)/tests/host
	$(call msg,HOST-CC,$@)
	$(call static-link,$<)

$(OUTPUT)/tests/bench/%: tests/bench/progs/%.c | $(OUTPUT)/tests/bench
	$(call msg,BENCH-CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -static -pthread -o $@

# The reader's replay benchmark links the reader's own objects (host only,
# make bench, under callgrind).
$(OUTPUT)/tests/bench/ktbreader: tests/bench/reader/ktbreader.c $(LIB_A) | $(OUTPUT)/tests/bench
	$(call msg,BENCH-CC,$@)
	$(call static-link,$< $(LIB_A))

# The query benchmark links the daemon's own objects (host only, make bench).
$(OUTPUT)/tests/bench/ktbquery: tests/bench/query/ktbquery.c $(LIB_A) | $(OUTPUT)/tests/bench
	$(call msg,BENCH-CC,$@)
	$(call static-link,$< $(LIB_A))

# libFuzzer harnesses (tests/fuzz/): built in the SAN=1 tree, against its
# instrumented library objects.
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(OUTPUT)/tests/fuzz/%,$(FUZZ_SRCS))
$(OUTPUT)/tests/fuzz:
	$(Q)mkdir -p $@
$(OUTPUT)/tests/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h tests/fuzz/fuzz_history.h $(LIB_A) | $(OUTPUT)/tests/fuzz
	$(call msg,FUZZ-CC,$@)
	$(call static-link,-fsanitize=fuzzer $< $(LIB_A))

.PHONY: unit-build vm-build host-build bench-build fuzz-build
fuzz-build: $(FUZZ_BINS)
unit-build: $(UNIT_BINS) $(UNIT_COMMON)
# The burst test (tests/vm/tests/burst.sh) loads with the bench's ktbload.
vm-build: $(OUTPUT)/ksymtap $(VMPROG_BINS) $(VMPROG_BPF_OBJS) $(OUTPUT)/tests/bench/ktbload
host-build: $(HOST_DEPS)
bench-build: $(BENCHPROG_BINS)

# make test: host unit tests, then the VM suite on every Debian kernel line
# (KERNELS, a subset with make test KERNELS="6.1 newest").  "newest" is
# resolved afresh at every run (tests/vm/kernels.sh).  The runner prints one
# summary line over all of it and fails on any failure.
KERNELS ?= 5.10 6.1 6.12 6.18 newest
# arm64 kernel lines, booted under qemu-system-aarch64 with build/arm64/
# (ARM64_KERNELS= leaves arm64 out).  Listed first: they take longest.
ARM64_KERNELS ?= 6.1 6.12 newest
# The DaemonSet's pod under podman (amd64), on these lines.
POD_KERNELS ?= 6.12 newest
VM_LINES = $(foreach k,$(ARM64_KERNELS),--vm arm64:$(k)) $(foreach k,$(KERNELS),--vm $(k)) \
	$(foreach k,$(POD_KERNELS),--pod $(k))

.PHONY: test test-build unittest vmtest arm64-build san-build
# What make test needs is built with one job per CPU (the plain, sanitizer
# and arm64 builds, the two packages and the image side by side: 128 s
# instead of 179 s on a fresh clone of this 2-core machine, 2026-12-06).
JOBS ?= $(shell nproc)
test:
	$(Q)$(MAKE) -j$(JOBS) --output-sync=target test-build
	$(Q)tests/run.sh --unit --san build/asan $(VM_LINES)
test-build: all unit-build vm-build host-build san-build arm64-build man deb image

# The unit tests and ksymtap with ASan, UBSan and LSan (make SAN=1), which
# make test runs beside the plain build: a report fails the run.
san-build:
	$(Q)$(MAKE) SAN=1 all unit-build fuzz-build

# make fuzz: each harness for FUZZ_SECONDS (default 60) from its corpus;
# inputs that reach new paths are added to tests/fuzz/corpus/NAME/, crashes go
# to build/fuzz-crashes/NAME/ (fix, then add the input to the corpus).  make
# test replays every corpus once.
FUZZ_SECONDS ?= 60
.PHONY: fuzz
fuzz: san-build
	$(Q)tests/fuzz/run.sh --seconds $(FUZZ_SECONDS) build/asan/tests/fuzz

# The arm64 binary and test programs, for the arm64 VM lines.
arm64-build:
	$(Q)$(MAKE) ARCH=arm64 all vm-build

# make test-noisy: the unit and host tests while a neighbour loads and
# unloads BPF programs on every CPU (tests/noisy.sh): a test that judged
# anything but its own work would fail here.
.PHONY: test-noisy
test-noisy: all unit-build vm-build host-build san-build man deb image
	$(Q)tests/noisy.sh --unit --san build/asan

# The host tests check the package and the image too (lint/package).
unittest: all unit-build vm-build host-build san-build man deb image
	$(Q)tests/run.sh --unit --san build/asan

# make vmtest KERNEL=/path/to/vmlinuz: the VM suite on any other kernel image
# (ARCH=arm64 for an arm64 one).  Without KERNEL, the KERNELS lines.
vmtest: all vm-build
ifdef KERNEL
	$(Q)tests/run.sh --vm-kernel $(KERNEL) --vm-arch $(if $(filter arm64,$(ARCH)),arm64,amd64)
else
	$(Q)tests/run.sh $(VM_LINES)
endif

# docs/kernel-facts.md's hooks x kernels table, from the last VM runs'
# build/vm/*.hooks (the hook_table test): regenerate after make test.
.PHONY: hook-table
hook-table:
	$(Q)tests/vm/hook_table.sh --update docs/kernel-facts.md

# Man pages: docs/man/*.8.scd, each command's OPTIONS section made from the
# option table the command parses and prints --help from (user/cmd/options.c,
# by docs/man/gen_options.c, built with the host's compiler also when
# ksymtap is cross-built), then through scdoc into $(OUTPUT)/man/.
HOSTCC ?= cc
MAN_SRCS := $(wildcard docs/man/*.8.scd)
MAN_PAGES := $(patsubst docs/man/%.scd,$(OUTPUT)/man/%,$(MAN_SRCS))
GEN_OPTIONS_SRCS := docs/man/gen_options.c user/cmd/options.c user/run/options.c
.PHONY: man
man: $(MAN_PAGES)
.PRECIOUS: $(OUTPUT)/man/%.scd
$(OUTPUT)/man/gen_options: $(GEN_OPTIONS_SRCS) user/cmd/options.h user/run/options.h
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOSTCC) -std=gnu11 -Wall -Wextra -Werror -Iuser $(GEN_OPTIONS_SRCS) -o $@
$(OUTPUT)/man/%.scd: docs/man/%.scd $(OUTPUT)/man/gen_options
	$(call msg,GEN,$@)
	$(Q)$(OUTPUT)/man/gen_options "$(patsubst ksymtap-%.8,%,$(filter ksymtap-%,$*))" <$< >$@.tmp && mv $@.tmp $@
$(OUTPUT)/man/%: $(OUTPUT)/man/%.scd
	$(call msg,SCDOC,$@)
	$(Q)scdoc <$< >$@

# make install [PREFIX=/usr/local] [DESTDIR=]: the binary, the man pages,
# the systemd unit (its ExecStart pointed at BINDIR), the sysusers.d file of
# the socket's reader group, the README and docs/.  Nothing is enabled or
# started: `systemctl daemon-reload && systemctl enable --now ksymtap`.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/ksymtap
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
.PHONY: install
install: all man
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(DOCDIR)/docs \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR)
	install -m 0755 $(OUTPUT)/ksymtap $(DESTDIR)$(BINDIR)/ksymtap
	install -m 0644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man8/
	sed 's|/usr/local/bin/ksymtap|$(BINDIR)/ksymtap|' contrib/ksymtap.service \
		>$(DESTDIR)$(UNITDIR)/ksymtap.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/ksymtap.service
	install -m 0644 contrib/ksymtap.sysusers $(DESTDIR)$(SYSUSERSDIR)/ksymtap.conf
	install -m 0644 README.md $(DESTDIR)$(DOCDIR)/
	install -m 0644 docs/*.md $(DESTDIR)$(DOCDIR)/docs/

# make deb: build/deb/ksymtap_VERSION_amd64.deb and _arm64.deb with Debian's
# own tooling (debian/: dpkg-buildpackage, dh), each built from a copy of
# the files git tracks or would (changes not yet committed included) under
# build/deb/src/.  VERSION from git describe: X.Y+N.gHASH after a tag vX.Y,
# else 0~gHASH; +dirty when the tree has changes.  The arm64 one is
# cross-built; its build dependencies are not checked (-d), as Debian's
# libevent-dev cannot be installed for two architectures at once (make deps
# unpacks the arm64 one instead).
DEB_ARCHES ?= amd64 arm64
DEB_VERSION = $(shell if d=$$(git describe --tags --match 'v[0-9]*' 2>/dev/null); then \
	echo "$$d" | sed -e 's/^v//' -e 's/-\([0-9]*\)-g/+\1.g/'; \
	else echo 0~g$$(git rev-parse --short HEAD); fi)$(shell git diff --quiet HEAD 2>/dev/null || echo +dirty)
DEB_MAINT := $(shell sed -n 's/^Maintainer: //p' debian/control)
.PHONY: deb
deb:
	$(Q)rm -rf $(OUTPUT)/deb && mkdir -p $(OUTPUT)/deb/src/ksymtap
	$(Q)git ls-files -z --cached --others --exclude-standard | \
		tar --null -T - -cf - | tar -xf - -C $(OUTPUT)/deb/src/ksymtap
	$(Q)v='$(DEB_VERSION)'; { \
		echo "ksymtap ($$v) unstable; urgency=medium"; echo; \
		echo "  * Built from git $$(git describe --tags --always --dirty); the history is git log."; \
		echo; echo " -- $(DEB_MAINT)  $$(git log -1 --format=%aD)"; \
	} >$(OUTPUT)/deb/src/ksymtap/debian/changelog
	$(Q)for a in $(DEB_ARCHES); do \
		echo "  DEB      ksymtap $(DEB_VERSION) $$a"; \
		(cd $(OUTPUT)/deb/src/ksymtap && dpkg-buildpackage -b -us -uc --host-arch=$$a \
			$$([ $$a = $$(dpkg --print-architecture) ] || echo -d)) \
			>$(OUTPUT)/deb/build-$$a.log 2>&1 || { tail -n 30 $(OUTPUT)/deb/build-$$a.log; exit 1; }; \
	done
	$(Q)mv $(OUTPUT)/deb/src/*.deb $(OUTPUT)/deb/ && ls $(OUTPUT)/deb/*.deb

# make image: an OCI image FROM scratch holding build/ksymtap (amd64) and
# build/arm64/ksymtap (arm64) as /ksymtap and nothing else, one multi-arch
# index written to build/image/ksymtap-VERSION.oci.tar (an OCI archive),
# with buildah (no daemon) in a private store under build/image/.
# `podman load -i FILE` or `skopeo copy oci-archive:FILE docker://REGISTRY/ksymtap:VERSION`.
IMAGE_TAG ?= $(subst +,-,$(VERSION))
IMAGE_SOURCE ?= $(shell git remote get-url origin 2>/dev/null)
IMAGE_CREATED = $(shell date -u -d @$$(git log -1 --format=%ct) +%Y-%m-%dT%H:%M:%SZ)
BUILDAH = buildah --root $(CURDIR)/$(OUTPUT)/image/store --runroot $(CURDIR)/$(OUTPUT)/image/run \
	--storage-driver vfs
.PHONY: image
image: all arm64-build
	$(Q)rm -rf $(OUTPUT)/image && mkdir -p $(OUTPUT)/image
	$(Q)$(BUILDAH) manifest create ksymtap:$(IMAGE_TAG) >/dev/null
	$(Q)for a in amd64 arm64; do \
		bin=$(OUTPUT)/ksymtap; [ $$a = amd64 ] || bin=$(OUTPUT)/$$a/ksymtap; \
		echo "  IMAGE    ksymtap:$(IMAGE_TAG) $$a"; \
		c=$$($(BUILDAH) from --arch $$a --os linux scratch) && \
		$(BUILDAH) copy --chmod 0755 $$c $$bin /ksymtap >/dev/null && \
		$(BUILDAH) config --arch $$a --os linux --entrypoint '["/ksymtap"]' --cmd '["--help"]' \
			--label org.opencontainers.image.title=ksymtap \
			--label org.opencontainers.image.description="Live, attributed stream of the Linux kernel's dynamic code symbols" \
			--label org.opencontainers.image.version=$(VERSION) \
			--label org.opencontainers.image.revision=$$(git rev-parse HEAD) \
			--label org.opencontainers.image.created=$(IMAGE_CREATED) \
			--label org.opencontainers.image.licenses="LGPL-2.1 OR BSD-2-Clause" \
			$(if $(IMAGE_SOURCE),--label org.opencontainers.image.source=$(IMAGE_SOURCE)) \
			$$c && \
		$(BUILDAH) commit --quiet --format oci --timestamp $$(git log -1 --format=%ct) \
			--manifest ksymtap:$(IMAGE_TAG) $$c ksymtap:$(IMAGE_TAG)-$$a >/dev/null && \
		$(BUILDAH) rm $$c >/dev/null || exit 1; \
	done
	$(Q)$(BUILDAH) manifest push --quiet --all --format oci ksymtap:$(IMAGE_TAG) \
		oci-archive:$(OUTPUT)/image/ksymtap-$(IMAGE_TAG).oci.tar:ksymtap:$(IMAGE_TAG)
	$(Q)echo "  IMAGE    $(OUTPUT)/image/ksymtap-$(IMAGE_TAG).oci.tar"

# What a release ships: the static x86-64 and arm64 binaries and their
# sha256 sums, in build/release/.
.PHONY: release
release: all arm64-build
	$(Q)mkdir -p $(OUTPUT)/release
	$(Q)cp $(OUTPUT)/ksymtap $(OUTPUT)/release/ksymtap-$(shell uname -m)
	$(Q)cp $(OUTPUT)/arm64/ksymtap $(OUTPUT)/release/ksymtap-aarch64
	$(Q)cd $(OUTPUT)/release && sha256sum ksymtap-* >SHA256SUMS && cat SHA256SUMS

# make soak: the daemon under churn for SOAK_MINUTES (default 30) on the
# newest kernel line (tests/soak/soak.sh; figures in docs/reliability.md).
SOAK_MINUTES ?= 30
SOAK_LINE ?= newest
.PHONY: soak
soak: all vm-build
	$(Q)KT_VM_MEM=2G tests/vm/vmtest.sh --line $(SOAK_LINE) --suite soak --verbose \
		--env SOAK_MINUTES=$(SOAK_MINUTES) \
		--test-timeout $$(( $(SOAK_MINUTES) * 60 + 900 )) \
		--timeout $$(( $(SOAK_MINUTES) * 60 + 1500 ))

.PHONY: bench
bench: all vm-build bench-build $(OUTPUT)/tests/bench/ktbquery $(OUTPUT)/tests/bench/ktbreader
	$(Q)$(MAKE) ARCH=arm64 all vm-build bench-build
	$(Q)tests/bench/run.sh

# Install every package the build, tests and benchmarks need (root, apt-get).
.PHONY: deps
deps:
	@if [ "$$(id -u)" != 0 ]; then echo "make deps: run as root (it calls apt-get install)" >&2; exit 1; fi
	dpkg --add-architecture arm64
	DEBIAN_FRONTEND=noninteractive apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
		$(DEB_PACKAGES) $(DEB_PACKAGES_ARM64)
	rm -rf $(ARM64_LIBEVENT).new && mkdir -p $(ARM64_LIBEVENT).new
	cd $(ARM64_LIBEVENT).new && apt-get download libevent-dev:arm64 && \
		dpkg-deb -x libevent-dev_*_arm64.deb root
	mv $(ARM64_LIBEVENT).new/root/usr/lib/aarch64-linux-gnu/*.a $(ARM64_LIBEVENT).new/
	rm -rf $(ARM64_LIBEVENT).new/root $(ARM64_LIBEVENT).new/*.deb $(ARM64_LIBEVENT)
	mv $(ARM64_LIBEVENT).new $(ARM64_LIBEVENT)
	# The OTLP test receiver's packages (tests/otlp: the official
	# OpenTelemetry JavaScript ones), as its lock file pins them.
	command -v npm >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y \
		--no-install-recommends nodejs npm
	cd tests/otlp && npm ci --no-audit --no-fund

# vmlinux.h is generated once from the development machine's BTF and committed;
# CO-RE relocates the object on every kernel it loads on.
.PHONY: vmlinux
vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > vmlinux.h

.PHONY: format
format:
	clang-format -i bpf/*.c include/*.h $(USER_SRCS) $(USER_HDRS) tests/unit/*.c tests/unit/*.h tests/unit/*/*.c \
		tests/vm/progs/*.c tests/host/*.c tests/bench/progs/*.c

.PHONY: clean
clean:
	rm -rf $(OUTPUT)

.DELETE_ON_ERROR:
.SECONDARY:
