# Builds, installs and packages ucube the way Swift command-line tools such as SwiftLint do.
#   make                  release build: Swift runtime linked statically, stripped, stamped with its git commit
#   sudo make install     the binary, man page, bash, zsh and fish completions, the systemd user unit of
#                         `ucube serve`, and the docs with the example suite (DOCDIR: the help texts cite
#                         them), under PREFIX (default /usr/local)
#   sudo make uninstall   removes exactly the files `make install` put there (shared directories are left)
#   make deb              a Debian package: .build/deb/ucube_VERSION_ARCH.deb
# DESTDIR is honoured (for packagers). Scripts/setup.sh installs the Debian packages the build needs.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
BASH_COMPLETION_DIR ?= $(DATADIR)/bash-completion/completions
ZSH_COMPLETION_DIR ?= $(DATADIR)/zsh/site-functions
FISH_COMPLETION_DIR ?= $(DATADIR)/fish/vendor_completions.d
DOCDIR ?= $(DATADIR)/doc/ucube
SYSTEMD_USER_UNIT_DIR ?= $(PREFIX)/lib/systemd/user

SWIFT ?= swift
# What makes the installed binary self-contained and quick to start (Benchmarks/startup.sh measures it):
#   --disable-local-rpath  no RUNPATH $ORIGIN: an installed binary must not look for libraries beside itself
#   --static-swift-stdlib  the Swift runtime, Foundation and dispatch linked in: runs without a Swift toolchain, and
#                          no 30 shared objects to load and relocate at each start
#   ucube.exports          exports only main instead of every Swift symbol (-export-dynamic)
#   -use-ld=lld            the toolchain's lld: its layout starts about 1 ms faster than gold's
#   --no-pie               a fixed-address executable: the loader no longer applies 130,000 relative relocations
#                          to the 79 MB binary, nor copies the pages they touch (--version 6.0 -> 3.8 ms)
#   -disable-concrete-…    generic types such as `rpc`'s NoArguments<CancelAll> get their metadata from a direct
#                          call instead of a mangled-name lookup, which scans the binary's 11,000 protocol
#                          conformances once per requirement when the command tree is built
SWIFT_BUILD_FLAGS ?= --configuration release --static-swift-stdlib --disable-local-rpath --product ucube \
	-Xlinker --version-script=$(CURDIR)/Scripts/ucube.exports -Xlinker --no-pie -Xswiftc -use-ld=lld \
	-Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors

# The commit `ucube --version` prints. `-c safe.directory=*` lets `sudo make install` read a tree owned by the user.
ifndef GIT_COMMIT
GIT_COMMIT := $(shell git -c safe.directory='*' rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
ifneq ($(GIT_COMMIT),unknown)
GIT_COMMIT := $(GIT_COMMIT)$(shell git -c safe.directory='*' diff --quiet HEAD 2>/dev/null || echo -dirty)
endif
endif

STAGE := .build/install
STAGED := $(STAGE)/ucube
SOURCES := Package.swift $(shell find Sources -type f)
DEBDIR := .build/deb

# The documents, as the repository lays them out (README.md, docs/, Suites/), so that their links hold.
DOCS := README.md $(sort $(wildcard docs/*.md docs/*.json docs/*.yaml docs/examples/* docs/schemas/*)) $(sort $(wildcard Suites/*.json))
INSTALLED := $(BINDIR)/ucube $(MANDIR)/man1/ucube.1 $(BASH_COMPLETION_DIR)/ucube $(ZSH_COMPLETION_DIR)/_ucube \
	$(FISH_COMPLETION_DIR)/ucube.fish $(SYSTEMD_USER_UNIT_DIR)/ucube.service $(addprefix $(DOCDIR)/,$(DOCS))

.PHONY: all build install uninstall deb clean FORCE

all: build

build: $(STAGED)

# Rewritten only when the commit changes, so a new commit re-stamps the binary and nothing else does.
$(STAGE)/commit: FORCE
	@mkdir -p $(STAGE)
	@echo '$(GIT_COMMIT)' | cmp -s - $@ || echo '$(GIT_COMMIT)' >$@

# Rebuilt only when a source or the commit changed: `sudo make install` after `make` runs no compiler as root.
$(STAGED): $(SOURCES) $(STAGE)/commit
	$(SWIFT) build $(SWIFT_BUILD_FLAGS)
	cp "$$($(SWIFT) build $(SWIFT_BUILD_FLAGS) --show-bin-path)/ucube" $@.tmp
	@# The commit goes into the binary's 64-byte `ucube_commit` slot (Sources/CBuildInfo), NUL-padded.
	printf '%s' '$(GIT_COMMIT)' | head -c 63 >$(STAGE)/commit.bin && truncate -s 64 $(STAGE)/commit.bin
	objcopy --update-section ucube_commit=$(STAGE)/commit.bin $@.tmp
	strip $@.tmp
	mv $@.tmp $@
	@echo "built $@: $$($@ --version), $$(du -h $@ | cut -f1)"

install: $(STAGED)
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(BASH_COMPLETION_DIR)" \
		"$(DESTDIR)$(ZSH_COMPLETION_DIR)" "$(DESTDIR)$(FISH_COMPLETION_DIR)" "$(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)"
	install -m 0755 $(STAGED) "$(DESTDIR)$(BINDIR)/ucube"
	install -m 0644 man/ucube.1 "$(DESTDIR)$(MANDIR)/man1/ucube.1"
	install -m 0644 completions/ucube.bash "$(DESTDIR)$(BASH_COMPLETION_DIR)/ucube"
	install -m 0644 completions/_ucube "$(DESTDIR)$(ZSH_COMPLETION_DIR)/_ucube"
	install -m 0644 completions/ucube.fish "$(DESTDIR)$(FISH_COMPLETION_DIR)/ucube.fish"
	@# `ucube serve` as a systemd user service (docs/serve.md), pointing at the binary just installed.
	sed 's|@BINDIR@|$(BINDIR)|' Scripts/ucube.service >"$(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)/ucube.service"
	chmod 0644 "$(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)/ucube.service"
	$(foreach doc,$(DOCS),install -D -m 0644 $(doc) "$(DESTDIR)$(DOCDIR)/$(doc)" &&) true

# Directories are left in place: they are shared with other programs (bin, man1, the completion directories). The
# documents' own directories go once empty (a file someone else put there keeps them).
uninstall:
	rm -f $(foreach file,$(INSTALLED),"$(DESTDIR)$(file)")
	-rmdir "$(DESTDIR)$(DOCDIR)/docs/examples" "$(DESTDIR)$(DOCDIR)/docs/schemas" "$(DESTDIR)$(DOCDIR)/docs" "$(DESTDIR)$(DOCDIR)/Suites" \
		"$(DESTDIR)$(DOCDIR)" 2>/dev/null

# The package's tree is `make install` into a staging root with PREFIX=/usr (zsh: Debian's directory for packaged
# completions, vendor-completions); Scripts/build-deb.sh adds the Debian parts (compressed man page, copyright,
# control with Depends from the libraries the binary links).
deb: $(STAGED)
	rm -rf $(DEBDIR)/root
	$(MAKE) --no-print-directory install DESTDIR="$(abspath $(DEBDIR)/root)" PREFIX=/usr \
		ZSH_COMPLETION_DIR=/usr/share/zsh/vendor-completions
	Scripts/build-deb.sh $(DEBDIR)/root $(DEBDIR)

clean:
	rm -rf $(STAGE) $(DEBDIR)
