# ferrocl: build, demo and tests.
#
#   make build        check/install dependencies, build target/release/libferrocl.so
#                     and the offline compiler target/release/clc, write
#                     build/icd/ferrocl.icd
#   make demo         build, then compile and run examples/vecadd.c on ferrocl
#   make test         build, then run every test suite and print a summary
#   make build-runtime-only  the library without a compiler (binaries only)
#   make test-runtime-only   a clc binary run by that library
#   make icd-install  register ferrocl system-wide (/etc/OpenCL/vendors)
#   make bench        run benches/ on ferrocl, PoCL and Intel's CPU runtime side by side
#   make bench-apps   real applications (dpnp, OpenCV) on the same three platforms
#   make test-sycl    dpctl's test suite and part of dpnp's on ferrocl (SYCL
#                     through DPC++'s OpenCL backend; installs about 3 GB)
#   make test-memcheck  the tests under valgrind (no leak, no invalid access)
#   make clean
#
# The test-* targets (test-cargo, test-c, test-clinfo, test-python) run one
# suite each and expect `make build` to have run.

# ---- settings -------------------------------------------------------------

CARGO       ?= cargo
# Two jobs: the build is LLVM-heavy and must not starve a small machine.
CARGO_FLAGS ?= --release -j2
TARGET_DIR  ?= $(or $(CARGO_TARGET_DIR),$(CURDIR)/target)
LIB         := $(TARGET_DIR)/release/libferrocl.so

BUILD       := $(CURDIR)/build
ICD_DIR     := $(BUILD)/icd
ICD_FILE    := $(ICD_DIR)/ferrocl.icd
SYSTEM_ICD  ?= /etc/OpenCL/vendors/ferrocl.icd

# The ICD loader (ocl-icd, and the Khronos loader too) reads the .icd files
# of the directory in OCL_ICD_VENDORS *instead of* /etc/OpenCL/vendors, so
# with a directory holding only ferrocl.icd, ferrocl is the only platform
# any program sees.  OCL_ICD_FILENAMES is deliberately not used: ocl-icd
# 2.3.1 ignores it, and the Khronos loader adds it to the vendors directory
# rather than replacing it.
ICD_ENV     := OCL_ICD_VENDORS=$(ICD_DIR)
# The platform name the clinfo and pyopencl checks require.
PLATFORM    ?= ferrocl

# `CC ?=` would not override make's built-in default `cc`.
ifeq ($(origin CC),default)
CC          := gcc
endif
CFLAGS      ?= -O2 -g -std=gnu11 -Wall -Wextra -Werror
LDLIBS      := -lOpenCL

VENV        := $(BUILD)/venv
VENV_PYTHON := $(VENV)/bin/python

# PyPI's SYCL stack (scripts/deps.sh --with-sycl).
SYCL_VENV   := $(BUILD)/sycl-venv
SYCL_PYTHON := $(SYCL_VENV)/bin/python
# The dpnp test files `make test-sycl` runs (of dpnp/tests): elementwise
# math, reductions, sorting, scans, linear algebra and FFT through oneMKL.
SYCL_DPNP_TESTS ?= test_absolute.py test_sum.py test_sort.py test_fft.py test_linalg.py \
                   tensor/test_tensor_accumulation.py tensor/elementwise/test_trigonometric.py

EXAMPLES    := $(BUILD)/examples
C_TESTS     := $(patsubst examples/%.c,$(EXAMPLES)/%,$(wildcard examples/test_*.c))
EXAMPLE_HDR := $(wildcard examples/*.h)

RESULTS     := $(BUILD)/test-results

# A program compiled ahead of time by clc, which test_clc_binary runs.
CLC         := $(TARGET_DIR)/release/clc
CLC_BINARY  := $(EXAMPLES)/clc_vecadd.bin

.PHONY: all build deps demo test test-cargo test-c test-clinfo test-python test-memcheck \
        build-runtime-only test-runtime-only \
        python-venv icd-install clean bench bench-apps test-sycl

all: build

# ---- build ----------------------------------------------------------------

deps:
	scripts/deps.sh

# The .icd file holds the library's absolute path: the loader dlopen()s it
# from whatever directory the program runs in.
build: deps
	$(CARGO) build $(CARGO_FLAGS)
	@test -f "$(LIB)" || { echo "error: cargo did not produce $(LIB)"; exit 1; }
	@mkdir -p "$(ICD_DIR)"
	@echo "$(LIB)" > "$(ICD_FILE)"
	@echo "wrote $(ICD_FILE) -> $(LIB)"

$(EXAMPLES)/%: examples/%.c $(EXAMPLE_HDR)
	@mkdir -p $(EXAMPLES)
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)

# ---- demo -----------------------------------------------------------------

demo: build $(EXAMPLES)/vecadd
	$(ICD_ENV) $(EXAMPLES)/vecadd

# ---- tests ----------------------------------------------------------------

# Runs every suite even when one fails, then prints a summary; the exit
# status is non-zero if any suite failed.
test: build
	@mkdir -p $(BUILD)
	@rm -f $(RESULTS)
	@for suite in test-cargo test-c test-runtime-only test-clinfo test-python; do \
	    echo; echo "==== $$suite"; \
	    if $(MAKE) --no-print-directory $$suite; then \
	        echo "PASS  $$suite" >> $(RESULTS); \
	    else \
	        echo "FAIL  $$suite" >> $(RESULTS); \
	    fi; \
	done; \
	echo; echo "==== summary"; cat $(RESULTS); \
	if grep -q '^FAIL' $(RESULTS); then echo "tests FAILED"; exit 1; fi; \
	echo "all test suites passed"

test-cargo:
	$(ICD_ENV) $(CARGO) test $(CARGO_FLAGS) --workspace

# The library without a compiler (no Clang, no builtins, no kernel
# compiler, no LLVM): it runs programs from binaries only. Built in a target
# directory of its own, so the default build stays as it is.
RT_TARGET   := $(TARGET_DIR)/runtime-only
RT_LIB      := $(RT_TARGET)/release/libferrocl.so
RT_ICD_DIR  := $(BUILD)/icd-runtime-only

build-runtime-only:
	$(CARGO) build $(CARGO_FLAGS) -p cl --no-default-features --target-dir $(RT_TARGET)
	@mkdir -p "$(RT_ICD_DIR)"
	@echo "$(RT_LIB)" > "$(RT_ICD_DIR)/ferrocl.icd"
	@echo "wrote $(RT_ICD_DIR)/ferrocl.icd -> $(RT_LIB)"

# The clc-made binary run by the library without a compiler, which links
# no LLVM or Clang: neither among the libraries it needs nor among the
# symbols it imports.
test-runtime-only: build-runtime-only $(EXAMPLES)/test_clc_binary $(CLC_BINARY)
	@if ldd $(RT_LIB) | grep -iE 'libLLVM|libclang'; then \
	    echo "FAIL  the runtime-only library links LLVM or Clang"; exit 1; fi
	@if nm -D --undefined-only $(RT_LIB) | grep -E ' (LLVM|clang_)'; then \
	    echo "FAIL  the runtime-only library imports LLVM's or Clang's symbols"; exit 1; fi
	@echo "ok    the runtime-only library links no LLVM or Clang"
	OCL_ICD_VENDORS=$(RT_ICD_DIR) CLC_BINARY=$(CLC_BINARY) $(EXAMPLES)/test_clc_binary

$(CLC_BINARY): examples/clc_vecadd.cl $(CLC)
	@mkdir -p $(EXAMPLES)
	$(CLC) -DSCALE=3.0f -cl-std=CL3.0 --local-size 16 -o $@ $<

# Each C test prints "N passed, M failed" and exits non-zero on failure.
test-c: $(C_TESTS) $(CLC_BINARY)
	@fails=0; \
	for t in $(C_TESTS); do \
	    echo "---- $$(basename $$t)"; \
	    $(ICD_ENV) CLC_BINARY=$(CLC_BINARY) $$t || { echo "$$(basename $$t): FAILED (exit $$?)"; fails=$$((fails + 1)); }; \
	done; \
	test $$fails -eq 0

test-clinfo:
	$(ICD_ENV) scripts/check-clinfo.sh "$(PLATFORM)"

test-python: python-venv
	$(ICD_ENV) FERROCL_TEST_PLATFORM="$(PLATFORM)" $(VENV_PYTHON) tests/python/test_pyopencl.py

python-venv:
	FERROCL_VENV=$(VENV) scripts/deps.sh --python

# Where a Python package of the SYCL venv lives, for its own tests.
sycl_package = $$($(SYCL_PYTHON) -c 'import $(1), os; print(os.path.dirname($(1).__file__))')

test-sycl: build
	scripts/deps.sh --with-sycl
	cd $(call sycl_package,dpctl)/tests && \
	    $(ICD_ENV) $(SYCL_PYTHON) -m pytest -q -p no:cacheprovider .
	cd $(call sycl_package,dpnp)/tests && \
	    $(ICD_ENV) $(SYCL_PYTHON) -m pytest -q -p no:cacheprovider $(SYCL_DPNP_TESTS)

# The C programs and the Rust API suites under valgrind's memcheck: no
# invalid access, no uninitialised use, no leak (scripts/memcheck.sh).
# Not part of `make test`: valgrind runs them many times slower.
test-memcheck: build $(C_TESTS) $(EXAMPLES)/vecadd
	scripts/deps.sh --memcheck
	$(ICD_ENV) CARGO="$(CARGO)" scripts/memcheck.sh $(EXAMPLES)/vecadd $(C_TESTS)

# ---- install / clean ------------------------------------------------------

# Registers the library built in this tree (the .icd file names it by its
# path under target/); the loader then lists ferrocl next to any other
# installed platform.  Needs root, but not a build as root: run `make build`
# first, then `sudo make icd-install`.
icd-install:
	@test -f "$(ICD_FILE)" || { echo "error: $(ICD_FILE) missing; run 'make build' first"; exit 1; }
	install -d $(dir $(SYSTEM_ICD))
	install -m 644 $(ICD_FILE) $(SYSTEM_ICD)
	@echo "installed $(SYSTEM_ICD) -> $$(cat $(SYSTEM_ICD))"

# Keeps build/venv: it is slow to recreate and holds nothing built here.
clean:
	-$(CARGO) clean
	rm -rf $(EXAMPLES) $(ICD_DIR) $(RESULTS) $(BUILD)/clinfo.log

# ---- benchmarks -----------------------------------------------------------

# ferrocl beside PoCL (Debian's pocl-opencl-icd) and Intel's CPU runtime
# (PyPI's intel-opencl-rt, where it installs) in one run: every kernel of
# benches/ on each, alternating, each result checked on the host.  The table
# goes to stdout, every figure to $(BENCH_OUT)/results.json and the ratio
# chart to $(BENCH_OUT)/ratios.svg.  Flags for the harness (e.g.
# BENCH_ARGS="--filter sgemm --reps 3") go in BENCH_ARGS; `--help` lists them.
BENCH_ICD  := $(BUILD)/bench-icd
BENCH_OUT  := $(BUILD)/bench
BENCH_BIN  := $(TARGET_DIR)/release/ferrocl-bench
BENCH_ARGS ?=

INTEL_LIBS := $(BUILD)/intel-libs

bench: build
	scripts/deps.sh --with-pocl --with-intel
	rm -rf $(BENCH_ICD)
	mkdir -p $(BENCH_ICD) $(BENCH_OUT)
	cp $(ICD_FILE) /etc/OpenCL/vendors/pocl.icd $(BENCH_ICD)/
	# Intel's CPU runtime where deps.sh could install it: its libraries
	# come from $(INTEL_LIBS), so the ICD loader stays the system's.
	if [ -e $(INTEL_LIBS)/libintelocl.so ]; then \
	    echo $(abspath $(INTEL_LIBS))/libintelocl.so > $(BENCH_ICD)/intel.icd; \
	else echo "bench: no Intel CPU runtime on this machine; comparing with PoCL only"; fi
	$(CARGO) build $(CARGO_FLAGS) -p ferrocl-bench
	# Kernel caches off: every platform builds from source.
	LD_LIBRARY_PATH=$(abspath $(INTEL_LIBS))$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH} \
	OCL_ICD_VENDORS=$(BENCH_ICD) POCL_KERNEL_CACHE=0 $(BENCH_BIN) \
	    --json $(BENCH_OUT)/results.json --svg $(BENCH_OUT)/ratios.svg $(BENCH_ARGS)

# Each platform alone in a vendors directory of its own; Intel's runtime is
# the SYCL venv's, whose libraries it finds on LD_LIBRARY_PATH.
APPS_ICD := $(BUILD)/bench-apps-icd

bench-apps: build
	scripts/deps.sh --with-pocl --with-apps --with-opencv
	rm -rf $(APPS_ICD)
	mkdir -p $(APPS_ICD)/ferrocl $(APPS_ICD)/intel $(APPS_ICD)/pocl
	cp $(ICD_FILE) $(APPS_ICD)/ferrocl/
	echo $(SYCL_VENV)/lib/libintelocl.so > $(APPS_ICD)/intel/intel.icd
	cp /etc/OpenCL/vendors/pocl.icd $(APPS_ICD)/pocl/
	$(SYCL_PYTHON) benches/apps/run.py --out $(BUILD)/bench-apps \
	    --app dpnp=$(SYCL_PYTHON) --app opencv=/usr/bin/python3 \
	    --app clesperanto=$(SYCL_PYTHON) \
	    --platform ferrocl=$(APPS_ICD)/ferrocl \
	    --platform intel=$(APPS_ICD)/intel:$(SYCL_VENV)/lib \
	    --platform pocl=$(APPS_ICD)/pocl $(BENCH_APPS_ARGS)
