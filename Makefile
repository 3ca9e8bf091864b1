# secure-signals: build, install and package the daemon and its CLI the way Debian installs
# daemons. `make install DESTDIR=/tmp/root` is what a Yocto or Buildroot recipe calls;
# `make deb` packages that same tree. docs/packaging.md lists every installed file.
#
#   make                 static, stripped release binaries in build/bin (debug files in build/debug)
#   make install         into $(DESTDIR)$(PREFIX), the configuration into $(DESTDIR)$(SYSCONFDIR)
#   make uninstall       removes what install wrote (never the state, never a changed configuration)
#   make deb             build/secure-signals_VERSION_ARCH.deb
#   make check-install   installs into a temporary root and compares it with docs/packaging.md
#   make size            what the daemon's bytes are, by module (from build/size/secure-signalsd.map)
#   make bench           the benchmarks (.build/release/secure-signals-bench), built as the daemon is

PREFIX ?= /usr
SYSCONFDIR ?= /etc
DESTDIR ?=
SWIFT ?= swift
# The Swift runtime linked in, and no $ORIGIN search path: the binaries need only the system
# libraries docs/packaging.md lists.
SWIFT_BUILD_FLAGS ?= -c release --static-swift-stdlib --disable-local-rpath
# What makes the daemon fit a TV (docs/packaging.md, "What the bytes are" and "The order of the
# code"), added to any SWIFT_BUILD_FLAGS:
# - optimized for size (-Osize: 2.3 MiB, the signal path's CPU per request not higher, measured);
# - every function in a section of its own, Swift's and C's (Swift puts only public ones so), so
#   that the linker drops those nothing calls and can place the rest;
# - linked by the toolchain's lld, which places the functions packaging/secure-signalsd.order
#   lists (those the daemon runs: scripts/order-file.py writes it) together at the front: the
#   pages a running daemon touches are then few, which is its PSS; the functions with no
#   symbol to order by (packaging/private-functions.lds) go beside them;
# - no -export-dynamic, which the static runtime's link arguments add (no program loads these
#   binaries' symbols; exporting them all costs 4.1 MiB);
# - no unwind tables (UNWIND_TABLES=no, the default: 6 MiB): nothing in the daemon needs them to
#   run (no C++ exception it throws is caught), only a crash reporter that unwinds by them, which
#   UNWIND_TABLES=yes keeps them for; debuggers fall back to the frame pointers Swift keeps;
# - packed relative relocations (DT_RELR: 2.3 MiB less), which need glibc 2.36 or later on the
#   device: RELR=no for an older one.
RELR ?= yes
UNWIND_TABLES ?= no
$(foreach switch,RELR UNWIND_TABLES,$(if $(filter yes no,$($(switch))),,$(error $(switch) must be yes or no, not '$($(switch))')))
ORDER_FILE := $(CURDIR)/packaging/secure-signalsd.order
LINK_INPUTS := $(ORDER_FILE) $(wildcard $(CURDIR)/packaging/*.lds)
SIZE_FLAGS := -Xswiftc -Osize -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections \
	-Xcc -fdata-sections -Xswiftc -use-ld=lld -Xlinker --no-export-dynamic \
	-Xlinker --symbol-ordering-file=$(ORDER_FILE) -Xlinker --no-warn-symbol-ordering \
	-Xlinker -T -Xlinker $(CURDIR)/packaging/private-functions.lds \
	$(if $(filter no,$(UNWIND_TABLES)),-Xlinker -T -Xlinker $(CURDIR)/packaging/no-unwind-tables.lds) \
	$(if $(filter yes,$(RELR)),-Xlinker -z -Xlinker pack-relative-relocs)
# A Swift SDK's name, to build for another architecture (docs/packaging.md, "Other architectures").
SWIFT_SDK ?=
BUILD_FLAGS := $(SWIFT_BUILD_FLAGS) $(SIZE_FLAGS) $(if $(SWIFT_SDK),--swift-sdk $(SWIFT_SDK))
INSTALL ?= install
# The target's objcopy when cross-building (aarch64-linux-gnu-objcopy, arm-linux-gnueabihf-objcopy).
OBJCOPY ?= objcopy
# STRIP=no installs the binaries as built, for a build system that strips and splits them
# itself (Yocto's -dbg packages).
STRIP ?= yes
# Where binaries this machine can run are, to write the completions when cross-building (a
# host build's .build/release); the build's own otherwise.
HOST_BIN ?=

BINDIR := $(PREFIX)/bin
# The daemon is an administrator's program (`secure-signalsd --check-config` is run by hand),
# so sbin, as Debian puts daemons that are run directly, rather than libexec.
SBINDIR := $(PREFIX)/sbin
UNITDIR := $(PREFIX)/lib/systemd/system
SYSUSERSDIR := $(PREFIX)/lib/sysusers.d
TMPFILESDIR := $(PREFIX)/lib/tmpfiles.d
MANDIR := $(PREFIX)/share/man
DOCDIR := $(PREFIX)/share/doc/secure-signals
BASHCOMPDIR := $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR := $(PREFIX)/share/zsh/vendor-completions
FISHCOMPDIR := $(PREFIX)/share/fish/vendor_completions.d
CONFDIR := $(SYSCONFDIR)/secure-signals

PROGRAMS := secure-signalsd secure-signals

.PHONY: all build install uninstall deb check-install size bench clean

all: build

# Built once; stripped copies beside the debug information, linked by a .gnu_debuglink.
build:
	@# SwiftPM does not know the order file and the linker scripts are inputs of the link: a
	@# newer one links both binaries again.
	@bin=$$($(SWIFT) build $(BUILD_FLAGS) --show-bin-path); \
	for product in secure-signalsd secure-signals; do \
		for input in $(LINK_INPUTS); do \
			if [ -e "$$bin/$$product" ] && [ "$$input" -nt "$$bin/$$product" ]; then rm "$$bin/$$product"; fi; \
		done; \
	done
	$(SWIFT) build $(BUILD_FLAGS) --product secure-signalsd
	$(SWIFT) build $(BUILD_FLAGS) --product secure-signals
	@mkdir -p build/bin build/debug
	@set -e; bin=$$($(SWIFT) build $(BUILD_FLAGS) --show-bin-path); \
	for program in $(PROGRAMS); do \
		if [ "$(STRIP)" = no ]; then cp "$$bin/$$program" "build/bin/$$program"; continue; fi; \
		$(OBJCOPY) --only-keep-debug "$$bin/$$program" "build/debug/$$program.debug"; \
		$(OBJCOPY) --strip-all --add-gnu-debuglink="build/debug/$$program.debug" "$$bin/$$program" "build/bin/$$program"; \
	done
	bash scripts/man-and-completions.sh $(or $(HOST_BIN),build/bin)
	@# The checkouts beside the build's products (SWIFT_BUILD_FLAGS may name a --scratch-path).
	bash packaging/notices.sh "$$(dirname "$$(dirname "$$($(SWIFT) build $(BUILD_FLAGS) --show-bin-path)")")/checkouts"
	@ls -l build/bin

install:
	@test -x build/bin/secure-signalsd -a -f build/NOTICES || { echo "make install: run 'make' first (build/ lacks the binaries or NOTICES)" >&2; exit 1; }
	$(INSTALL) -D -m 0755 build/bin/secure-signalsd $(DESTDIR)$(SBINDIR)/secure-signalsd
	$(INSTALL) -D -m 0755 build/bin/secure-signals $(DESTDIR)$(BINDIR)/secure-signals
	$(INSTALL) -d -m 0755 $(DESTDIR)$(UNITDIR)
	sed 's|/usr/sbin/secure-signalsd|$(SBINDIR)/secure-signalsd|; s|/etc/secure-signals/|$(CONFDIR)/|' \
		systemd/secure-signals.service > $(DESTDIR)$(UNITDIR)/secure-signals.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/secure-signals.service
	$(INSTALL) -m 0644 systemd/secure-signals.socket $(DESTDIR)$(UNITDIR)/secure-signals.socket
	$(INSTALL) -D -m 0644 systemd/sysusers.d/secure-signals.conf $(DESTDIR)$(SYSUSERSDIR)/secure-signals.conf
	$(INSTALL) -D -m 0644 systemd/tmpfiles.d/secure-signals.conf $(DESTDIR)$(TMPFILESDIR)/secure-signals.conf
	@# A configuration already there and changed stays; the new example goes beside it.
	@if [ -e $(DESTDIR)$(CONFDIR)/daemon.json ] && ! cmp -s systemd/daemon.json $(DESTDIR)$(CONFDIR)/daemon.json; then \
		$(INSTALL) -m 0640 systemd/daemon.json $(DESTDIR)$(CONFDIR)/daemon.json.dist; \
		echo "kept $(DESTDIR)$(CONFDIR)/daemon.json (changed); the new example is daemon.json.dist"; \
	else \
		$(INSTALL) -D -m 0640 systemd/daemon.json $(DESTDIR)$(CONFDIR)/daemon.json; \
	fi
	$(INSTALL) -D -m 0644 build/man/secure-signals.1 $(DESTDIR)$(MANDIR)/man1/secure-signals.1
	$(INSTALL) -D -m 0644 build/man/secure-signalsd.8 $(DESTDIR)$(MANDIR)/man8/secure-signalsd.8
	$(INSTALL) -D -m 0644 build/completions/bash/secure-signals $(DESTDIR)$(BASHCOMPDIR)/secure-signals
	$(INSTALL) -D -m 0644 build/completions/bash/secure-signalsd $(DESTDIR)$(BASHCOMPDIR)/secure-signalsd
	$(INSTALL) -D -m 0644 build/completions/zsh/_secure-signals $(DESTDIR)$(ZSHCOMPDIR)/_secure-signals
	$(INSTALL) -D -m 0644 build/completions/zsh/_secure-signalsd $(DESTDIR)$(ZSHCOMPDIR)/_secure-signalsd
	$(INSTALL) -D -m 0644 build/completions/fish/secure-signals.fish $(DESTDIR)$(FISHCOMPDIR)/secure-signals.fish
	$(INSTALL) -D -m 0644 build/completions/fish/secure-signalsd.fish $(DESTDIR)$(FISHCOMPDIR)/secure-signalsd.fish
	$(INSTALL) -D -m 0644 README.md $(DESTDIR)$(DOCDIR)/README.md
	$(INSTALL) -D -m 0644 CHANGELOG.md $(DESTDIR)$(DOCDIR)/CHANGELOG.md
	$(INSTALL) -D -m 0644 build/NOTICES $(DESTDIR)$(DOCDIR)/NOTICES
	$(INSTALL) -D -m 0644 docs/api.md $(DESTDIR)$(DOCDIR)/api.md
	$(INSTALL) -D -m 0644 docs/openapi.yaml $(DESTDIR)$(DOCDIR)/openapi.yaml
	$(INSTALL) -D -m 0644 docs/exec-adapters.md $(DESTDIR)$(DOCDIR)/exec-adapters.md
	$(INSTALL) -D -m 0644 docs/ad-sources.md $(DESTDIR)$(DOCDIR)/ad-sources.md
	$(INSTALL) -D -m 0644 keys/README.md $(DESTDIR)$(DOCDIR)/keys.md
	$(INSTALL) -D -m 0644 config/daemon.json $(DESTDIR)$(DOCDIR)/examples/daemon.json
	$(INSTALL) -D -m 0644 keys/demo/demo.keyconfig $(DESTDIR)$(DOCDIR)/examples/demo.keyconfig

# What install wrote, and the directories it made if they are empty now. The configuration
# stays if it differs from the one installed; the state directory is never touched.
uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/secure-signalsd $(DESTDIR)$(BINDIR)/secure-signals
	rm -f $(DESTDIR)$(UNITDIR)/secure-signals.service $(DESTDIR)$(UNITDIR)/secure-signals.socket
	rm -f $(DESTDIR)$(SYSUSERSDIR)/secure-signals.conf $(DESTDIR)$(TMPFILESDIR)/secure-signals.conf
	rm -f $(DESTDIR)$(MANDIR)/man1/secure-signals.1 $(DESTDIR)$(MANDIR)/man8/secure-signalsd.8
	rm -f $(DESTDIR)$(BASHCOMPDIR)/secure-signals $(DESTDIR)$(BASHCOMPDIR)/secure-signalsd
	rm -f $(DESTDIR)$(ZSHCOMPDIR)/_secure-signals $(DESTDIR)$(ZSHCOMPDIR)/_secure-signalsd
	rm -f $(DESTDIR)$(FISHCOMPDIR)/secure-signals.fish $(DESTDIR)$(FISHCOMPDIR)/secure-signalsd.fish
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,README.md CHANGELOG.md NOTICES api.md openapi.yaml exec-adapters.md \
		ad-sources.md keys.md examples/daemon.json examples/demo.keyconfig)
	-rmdir $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR) 2>/dev/null || true
	@if cmp -s systemd/daemon.json $(DESTDIR)$(CONFDIR)/daemon.json; then rm -f $(DESTDIR)$(CONFDIR)/daemon.json; \
	elif [ -e $(DESTDIR)$(CONFDIR)/daemon.json ]; then echo "kept $(DESTDIR)$(CONFDIR)/daemon.json: it was changed"; fi
	-rmdir $(DESTDIR)$(CONFDIR) 2>/dev/null || true

# DEB_ARCH (default: this machine's) and MAINTAINER go to the control file.
deb:
	DEB_ARCH="$(DEB_ARCH)" MAINTAINER="$(MAINTAINER)" bash packaging/make-deb.sh

check-install:
	bash packaging/check-install.sh

# The daemon linked again, beside the build, with a linker map, summed by module and library.
size:
	$(SWIFT) build $(BUILD_FLAGS) --product secure-signalsd
	@mkdir -p build/size
	@set -e; bin=$$($(SWIFT) build $(BUILD_FLAGS) --show-bin-path); \
	python3 scripts/size-table.py build/size/secure-signalsd.map --relink "$$bin/../../$$(basename "$$bin").yaml" secure-signalsd

bench:
	$(SWIFT) build $(BUILD_FLAGS) --product secure-signals-bench

# What make wrote (build/); SwiftPM's own .build stays.
clean:
	rm -rf build
