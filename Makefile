# loomc build.
#   make            build build/loomc (gcc)
#   make test       install missing Debian packages, build with gcc, with clang and with
#                   clang + AddressSanitizer/UndefinedBehaviorSanitizer, run the suite on each,
#                   then the determinism checks and Valgrind's memcheck on the gcc build
#   make demo       build, then run the main job on the kernels in kernels/
#   make bench      benchmarks (never part of the tests)
#   make fuzz       build the libFuzzer harnesses of tests/fuzz/ and run each in turn for
#                   FUZZ_SECONDS (default 600; never part of the tests); FUZZ_ONLY="fuzz_df ..."
#                   runs only those
#   make install   install the command, the library (static and shared), its header, a
#                   pkg-config file, the hardware descriptions and the Python package under
#                   PREFIX (default /usr/local), below DESTDIR when set (docs/library.md,
#                   docs/python.md)
# Variables: CC (default gcc), BUILD (output folder), SAN=1 (sanitizers), PREFIX, DESTDIR,
# PYTHONDIR (the Python package's folder, default PREFIX/lib/python3/dist-packages).

ifeq ($(origin CC),default)
CC = gcc
endif
BUILD ?= build
SAN ?= 0

CFLAGS ?= -O2 -g
WARN = -Wall -Wextra -Werror -Wno-unused-parameter
# the compiler's own sources also keep -Wshadow (docs/hacking.md)
SRCWARN = $(WARN) -Wshadow
CPPFLAGS += -std=c17 -D_POSIX_C_SOURCE=200809L -Isrc -Iinclude -MMD -MP
ifeq ($(SAN),1)
CFLAGS = -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
endif
LDLIBS = -lyaml -lcsv -ljansson -lm
# every object is position-independent: the same objects make libloomc.a and libloomc.so
PICFLAGS = -fPIC

LIBSRC := $(sort $(wildcard src/*/*.c))
LIBSRC := $(filter-out src/cli/%,$(LIBSRC))
CLISRC := $(sort $(wildcard src/cli/*.c))
TESTSRC := $(sort $(wildcard tests/unit/test_*.c))

LIBOBJ := $(LIBSRC:%.c=$(BUILD)/obj/%.o)
# the TT-Metalium emitter's helper headers, embedded in the library as text
RTHDR := $(sort $(wildcard src/emit/rt/*.h))
LIBOBJ += $(BUILD)/obj/gen/emit_rt.o
CLIOBJ := $(CLISRC:%.c=$(BUILD)/obj/%.o)
TESTBIN := $(TESTSRC:tests/unit/%.c=$(BUILD)/tests/%)

# the shared library: its version and soname follow include/loomc.h's LOOMC_VERSION
VERSION := $(shell sed -n 's/^\#define LOOMC_VERSION "\(.*\)"$$/\1/p' include/loomc.h)
SOMAJOR := $(firstword $(subst ., ,$(VERSION)))
SONAME = libloomc.so.$(SOMAJOR)
SOLIB = $(BUILD)/libloomc.so.$(VERSION)

all: $(BUILD)/loomc $(BUILD)/libloomc.so

# objects follow the Makefile too: a change of flags (-fPIC) rebuilds them
$(BUILD)/obj/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(PICFLAGS) $(SRCWARN) -c $< -o $@

$(BUILD)/gen/emit_rt.c: $(RTHDR) tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh $(RTHDR) > $@

$(BUILD)/obj/gen/emit_rt.o: $(BUILD)/gen/emit_rt.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(PICFLAGS) $(SRCWARN) -c $< -o $@

$(BUILD)/libloomc.a: $(LIBOBJ)
	@rm -f $@
	ar rcs $@ $^

# only the loomc_* names of include/loomc.h are exported (src/api/loomc.map)
$(SOLIB): $(LIBOBJ) src/api/loomc.map
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=src/api/loomc.map $(LDFLAGS) $(LIBOBJ) $(LDLIBS) -o $@

$(BUILD)/libloomc.so: $(SOLIB)
	ln -sf $(notdir $(SOLIB)) $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $@

$(BUILD)/loomc: $(CLIOBJ) $(BUILD)/libloomc.a
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libloomc.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -pthread -Itests/unit $< $(BUILD)/libloomc.a $(LDFLAGS) $(LDLIBS) -lcmocka -o $@

tests-bin: $(BUILD)/loomc $(BUILD)/libloomc.so $(TESTBIN)

# Debian packages the build, the tests and the demo need; installed when missing.
DEBS = gcc g++ clang make python3 libyaml-dev libcsv-dev libjansson-dev libcmocka-dev pkg-config valgrind libclang-rt-14-dev minizinc gnuplot-nox python3-numpy python3-pytest chromium time
deps:
	@sh tools/deps.sh $(DEBS)

JOBS ?= 2
test: deps
	@$(MAKE) --no-print-directory -j$(JOBS) tests-bin BUILD=build CC=gcc
	@$(MAKE) --no-print-directory -j$(JOBS) tests-bin BUILD=build/clang CC=clang
	@$(MAKE) --no-print-directory -j$(JOBS) tests-bin BUILD=build/asan CC=clang SAN=1
	@sh tests/all.sh build build/clang build/asan

# Quick check with one compiler only (not what CI runs).
check: $(BUILD)/loomc $(BUILD)/libloomc.so $(TESTBIN)
	@sh tests/run.sh $(BUILD) && sh tests/layout.sh $(BUILD) && sh tests/outputs.sh $(BUILD) && \
		sh tests/json_docs.sh $(BUILD) && sh tests/html.sh $(BUILD) && sh tests/api.sh $(BUILD) && \
		sh tests/progress.sh $(BUILD) && sh tests/profile.sh $(BUILD) && sh tests/python.sh $(BUILD)

demo: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@sh tools/demo.sh

bench: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@sh bench/run.sh

# Install into $(DESTDIR)$(PREFIX): bin/loomc, include/loomc.h, lib/libloomc.{a,so*},
# lib/pkgconfig/loomc.pc and share/loomc/arch/*.yaml, which the installed
# command and library find by themselves (src/arch/arch_load.c); and the
# Python package into $(DESTDIR)$(PYTHONDIR)/loomc, with _installed.py naming
# PREFIX/lib for it to find the library.
PREFIX ?= /usr/local
DESTDIR ?=
INSTDIR = $(DESTDIR)$(PREFIX)
# the Python package (docs/python.md): Debian's folder for PREFIX=/usr; elsewhere put it on PYTHONPATH
PYTHONDIR ?= $(PREFIX)/lib/python3/dist-packages
install: $(BUILD)/loomc $(BUILD)/libloomc.a $(BUILD)/libloomc.so tools/loomc.pc.in
	install -d $(INSTDIR)/bin $(INSTDIR)/include $(INSTDIR)/lib/pkgconfig $(INSTDIR)/share/loomc/arch
	install -m 755 $(BUILD)/loomc $(INSTDIR)/bin/loomc
	install -m 644 include/loomc.h $(INSTDIR)/include/loomc.h
	install -m 644 $(BUILD)/libloomc.a $(INSTDIR)/lib/libloomc.a
	install -m 755 $(SOLIB) $(INSTDIR)/lib/$(notdir $(SOLIB))
	ln -sf $(notdir $(SOLIB)) $(INSTDIR)/lib/$(SONAME)
	ln -sf $(SONAME) $(INSTDIR)/lib/libloomc.so
	install -m 644 arch/*.yaml $(INSTDIR)/share/loomc/arch/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' -e 's|@LIBS@|$(LDLIBS)|g' \
		tools/loomc.pc.in > $(INSTDIR)/lib/pkgconfig/loomc.pc
	install -d $(DESTDIR)$(PYTHONDIR)/loomc
	install -m 644 $(filter-out python/loomc/_installed.py,$(wildcard python/loomc/*.py)) $(DESTDIR)$(PYTHONDIR)/loomc/
	printf '"""_installed.py - written by make install: the folder it put libloomc in."""\nLIBDIR = "%s"\n' \
		'$(PREFIX)/lib' > $(DESTDIR)$(PYTHONDIR)/loomc/_installed.py

clean:
	rm -rf build

# Fuzzing (tests/fuzz/): libFuzzer harnesses built with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer into build/fuzz/, the library instrumented for coverage;
# each runs FUZZ_SECONDS on a corpus seeded from the project's own files.
FUZZ_SECONDS ?= 600
FUZZ_ONLY ?=
FUZZ_BUILD = build/fuzz
FUZZ_CFLAGS = -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZSRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZBIN := $(FUZZSRC:tests/fuzz/%.c=$(BUILD)/%)

$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard tests/fuzz/*.h) $(BUILD)/libloomc.a
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -fsanitize=fuzzer -Itests/fuzz $< $(BUILD)/libloomc.a $(LDFLAGS) $(LDLIBS) -o $@

fuzz-bin: $(FUZZBIN)

fuzz: deps
	@$(MAKE) --no-print-directory -j$(JOBS) fuzz-bin BUILD=$(FUZZ_BUILD) CC=clang CFLAGS="$(FUZZ_CFLAGS)" \
		LDFLAGS="-fsanitize=address,undefined"
	@sh tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_ONLY)

.PHONY: all deps test check demo bench clean tests-bin fuzz fuzz-bin install
-include $(LIBOBJ:.o=.d) $(CLIOBJ:.o=.d)
