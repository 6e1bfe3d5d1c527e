# The two commands of README.md:
#   make demo   install what is missing, build, trace the bundled example, predict it
#   make check  install what is missing, build (-Werror), run every test, then the
#               unit tests again under AddressSanitizer + UBSan, then every libFuzzer
#               target for FUZZ_CHECK_SECONDS (docs/robustness.md)
# Also:
#   make fuzz     every libFuzzer target for FUZZ_SECONDS (clang; build-fuzz/)
#   make analyze  cppcheck over src/ and Valgrind memcheck (unit tests, tests/bad)
JOBS ?= 2
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 300
FUZZ_CHECK_SECONDS ?= 15
CMAKE_FLAGS ?=

# Open MPI refuses to run as root without these; harmless otherwise.
export OMPI_ALLOW_RUN_AS_ROOT=1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

.PHONY: all deps build asan check test demo clean fuzz fuzz-build fuzz-check analyze

all: build

deps:
	@scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DMPICAST_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

asan: deps
	cmake -S . -B $(ASAN_BUILD) -DMPICAST_WERROR=ON -DMPICAST_SANITIZE=ON \
	  -DMPICAST_MPI_TESTS=OFF -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS) >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

check: test asan
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS)
	@$(MAKE) --no-print-directory fuzz-check

# libFuzzer needs clang; -Werror stays with the gcc builds above.
fuzz-build: deps
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DMPICAST_FUZZ=ON -DMPICAST_WERROR=OFF \
	  -DMPICAST_MPI_TESTS=OFF $(CMAKE_FLAGS) >/dev/null
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzzers

fuzz: fuzz-build
	fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

fuzz-check: fuzz-build
	fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_CHECK_SECONDS)

analyze: build
	scripts/analyze.sh $(BUILD)

demo: build
	@scripts/demo.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
