# Thin wrapper over CMake: `make run` and `make test` do all the set-up.
# SPDX-License-Identifier: MIT
BUILD      ?= build
BUILD_SAN  ?= build-asan
BUILD_FUZZ ?= build-fuzz
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
SCENARIO   ?= configs/scenarios/default.cfg

.PHONY: all deps deps-test build run test test-all test-unit test-asan test-fuzz fuzz bench clean format

all: build

# What building and running need (compiler, CMake, libraries, gnuplot);
# deps-test adds the test tools (Check, clang for fuzzing, clang-format).
deps:
	@sh cmake/deps.sh run

deps-test:
	@sh cmake/deps.sh test

build: deps
	@echo "trainsim: building in $(BUILD)/ (log: $(BUILD)/build.log)"
	@mkdir -p $(BUILD)
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >$(BUILD)/build.log 2>&1 && \
	 cmake --build $(BUILD) -j $(JOBS) >>$(BUILD)/build.log 2>&1 || \
	 { tail -n 40 $(BUILD)/build.log; echo "trainsim: build failed, see $(BUILD)/build.log"; exit 1; }

run: build
	@sh cmake/run-default.sh $(BUILD)/trainsim

test: deps-test test-all test-asan test-fuzz

# Every suite of the Release build: unit, cli and the slow whole-model validation.
test-all:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The fast `unit` suites only, in the Release build.
test-unit:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L unit

test-asan:
	cmake -S . -B $(BUILD_SAN) -DCMAKE_BUILD_TYPE=Debug -DTS_SANITIZE=ON
	cmake --build $(BUILD_SAN) -j $(JOBS)
	cd $(BUILD_SAN) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --output-on-failure -j $(JOBS) -L unit

# Each fuzz target briefly (TS_FUZZ_SECONDS, 15 s by default), as part of `make test`.
test-fuzz:
	CC=clang cmake -S . -B $(BUILD_FUZZ) -DCMAKE_BUILD_TYPE=Debug -DTS_FUZZ=ON
	cmake --build $(BUILD_FUZZ) -j $(JOBS) --target all
	cd $(BUILD_FUZZ) && ctest --output-on-failure -j $(JOBS) -L fuzz

# Each fuzz target for FUZZ_SECONDS (default 600) with its dictionary, in turn;
# the corpus of each grows in $(BUILD_FUZZ)/corpus/TARGET from run to run.
# One target only: make fuzz FUZZ_TARGETS=fuzz_set FUZZ_SECONDS=3600
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?= $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
fuzz:
	CC=clang cmake -S . -B $(BUILD_FUZZ) -DCMAKE_BUILD_TYPE=Debug -DTS_FUZZ=ON
	cmake --build $(BUILD_FUZZ) -j $(JOBS) --target $(FUZZ_TARGETS)
	@for t in $(FUZZ_TARGETS); do \
		bash tests/fuzz/run.sh $(BUILD_FUZZ)/$$t $(CURDIR) $(FUZZ_SECONDS) \
			$(CURDIR)/$(BUILD_FUZZ)/corpus/$$t || exit 1; \
	done

bench:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD) -j $(JOBS) --target bench

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(BUILD_SAN) $(BUILD_FUZZ)
