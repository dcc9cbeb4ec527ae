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
# Variables: CC (default gcc), BUILD (output folder), SAN=1 (sanitizers).

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
LDLIBS = -lyaml -lcsv -lm

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

all: $(BUILD)/loomc

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SRCWARN) -c $< -o $@

$(BUILD)/gen/emit_rt.c: $(RTHDR) tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh $(RTHDR) > $@

$(BUILD)/obj/gen/emit_rt.o: $(BUILD)/gen/emit_rt.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SRCWARN) -c $< -o $@

$(BUILD)/libloomc.a: $(LIBOBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/loomc: $(CLIOBJ) $(BUILD)/libloomc.a
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libloomc.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -Itests/unit $< $(BUILD)/libloomc.a $(LDFLAGS) $(LDLIBS) -lcmocka -o $@

tests-bin: $(BUILD)/loomc $(TESTBIN)

# Debian packages the build, the tests and the demo need; installed when missing.
DEBS = gcc g++ clang make python3 libyaml-dev libcsv-dev libcmocka-dev pkg-config valgrind libclang-rt-14-dev minizinc gnuplot-nox
deps:
	@sh tools/deps.sh $(DEBS)

JOBS ?= 2
test: deps
	@$(MAKE) --no-print-directory -j$(JOBS) tests-bin BUILD=build CC=gcc
	@$(MAKE) --no-print-directory -j$(JOBS) tests-bin BUILD=build/clang CC=clang
	@$(MAKE) --no-print-directory -j$(JOBS) tests-bin BUILD=build/asan CC=clang SAN=1
	@sh tests/all.sh build build/clang build/asan

# Quick check with one compiler only (not what CI runs).
check: $(BUILD)/loomc $(TESTBIN)
	@sh tests/run.sh $(BUILD) && sh tests/layout.sh $(BUILD) && sh tests/outputs.sh $(BUILD)

demo: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@sh tools/demo.sh

bench: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@sh bench/run.sh

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

.PHONY: all deps test check demo bench clean tests-bin fuzz fuzz-bin
-include $(LIBOBJ:.o=.d) $(CLIOBJ:.o=.d)
