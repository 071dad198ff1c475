#!/usr/bin/env bash
# Checks (and, as root, installs) what building and testing ferrocl needs on
# Debian bookworm.
#
#   scripts/deps.sh               system packages + Rust toolchain
#   scripts/deps.sh --with-pocl   also PoCL, a second CPU OpenCL platform that
#                                 only the benchmarks compare against
#   scripts/deps.sh --python      also the Python venv at build/venv with
#                                 pyopencl and numpy (for the pyopencl test)
#   scripts/deps.sh --memcheck    also valgrind (for `make test-memcheck`)
#   scripts/deps.sh --with-intel  also Intel's CPU OpenCL runtime (PyPI
#                                 intel-opencl-rt) in build/intel-venv, its
#                                 libraries linked into build/intel-libs; a
#                                 machine where it cannot be installed goes
#                                 on without it (the benchmarks skip it)
#   scripts/deps.sh --with-sycl   also the SYCL stack of PyPI in
#                                 build/sycl-venv: dpctl and dpnp (with the
#                                 DPC++ runtime and oneMKL), pytest, Cython and
#                                 Intel's CPU runtime of the same release
#                                 (for `make test-sycl` and `make bench-apps`)
#   scripts/deps.sh --with-opencv also Debian's OpenCV for Python, whose
#                                 T-API `make bench-apps` measures
#   scripts/deps.sh --with-apps   --with-sycl, plus pyclesperanto, pyvkfft,
#                                 pyopencl and SciPy in build/sycl-venv
#                                 (`make bench-apps`)
#
# Exit status 0 when everything is in place.  As a normal user nothing is
# installed: the missing packages are printed as one `sudo apt-get install`
# line and the script exits 1.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${FERROCL_VENV:-$ROOT/build/venv}"
# Debian's interpreter, not whatever python3 is first on PATH: python3-venv
# below is what makes `python3 -m venv` work for exactly this one.
PYTHON="${FERROCL_PYTHON:-/usr/bin/python3}"

# Build-time and test-time packages.
#  - llvm-22-dev: libLLVM-22.so and llvm-config-22 (llvm-sys links it
#    dynamically); libclang-22-dev: the Clang C++ headers the frontend shim
#    includes; libclang-cpp22-dev: the libclang-cpp.so link symlink (the
#    runtime package libclang-cpp22 only ships the versioned .so.22.1);
#    clang-22: its resource directory holds opencl-c-base.h.
#  - g++: the cc crate compiles the C++ shim; gcc: the C examples.
#  - libzstd-dev, zlib1g-dev: what `llvm-config-22 --system-libs` names.
#  - ocl-icd-opencl-dev + opencl-headers: libOpenCL.so (the ICD loader) and
#    CL/cl.h for the C examples; clinfo: the clinfo check.
#  - spirv-tools: spirv-as for the SPIR-V tests' modules.
#  - clang-15, llvm-spirv-15: modules from the Khronos LLVM/SPIR-V
#    Translator, the producer DPC++ and most OpenCL users' SPIR-V come from.
PACKAGES=(
    llvm-22-dev libclang-22-dev libclang-cpp22-dev clang-22
    ocl-icd-opencl-dev opencl-headers clinfo
    gcc g++ make pkg-config python3-venv libzstd-dev zlib1g-dev libmpfr-dev libgmp-dev
    spirv-tools clang-15 llvm-spirv-15
)

want_python=0
want_intel=0
want_sycl=0
want_apps=0
for arg in "$@"; do
    case "$arg" in
        --with-pocl) PACKAGES+=(pocl-opencl-icd) ;;
        --python) want_python=1 ;;
        --memcheck) PACKAGES+=(valgrind) ;;
        --with-intel) want_intel=1 ;;
        --with-sycl) want_sycl=1 ;;
        --with-opencv) PACKAGES+=(python3-opencv) ;;
        --with-apps) want_sycl=1; want_apps=1 ;;
        -h|--help) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "deps.sh: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
    esac
done

is_installed() {
    # Status is "install ok installed" only for fully configured packages;
    # removed-but-not-purged packages report "deinstall ok config-files".
    [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

check_packages() {
    local missing=() p
    for p in "${PACKAGES[@]}"; do
        is_installed "$p" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0

    if [ "$(id -u)" -eq 0 ]; then
        echo "deps.sh: installing missing packages: ${missing[*]}"
        apt-get update
        DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
    else
        echo "sudo apt-get install -y ${missing[*]}"
        echo "deps.sh: the Debian packages above are missing; run that line (or run this as root) and retry." >&2
        exit 1
    fi
}

check_rust() {
    if ! command -v cargo >/dev/null 2>&1; then
        # rustup puts cargo in ~/.cargo/bin, which non-login shells may lack.
        if [ -x "$HOME/.cargo/bin/cargo" ]; then
            echo "deps.sh: cargo is in $HOME/.cargo/bin but not on PATH; run: . \"\$HOME/.cargo/env\"" >&2
        else
            echo "deps.sh: no Rust toolchain (cargo) found. Install one with rustup:" >&2
            echo "    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y" >&2
            echo "    . \"\$HOME/.cargo/env\"" >&2
        fi
        exit 1
    fi
}

setup_python() {
    # A venv (rather than pip --user) keeps pyopencl/numpy away from the
    # system Python, which Debian marks as externally managed.
    if [ ! -x "$VENV/bin/python" ]; then
        echo "deps.sh: creating $VENV"
        "$PYTHON" -m venv "$VENV"
    fi
    if ! "$VENV/bin/python" -c 'import pyopencl, numpy' >/dev/null 2>&1; then
        echo "deps.sh: installing pyopencl and numpy into $VENV"
        "$VENV/bin/pip" install --quiet pyopencl numpy
    fi
}

setup_intel() {
    local venv="$ROOT/build/intel-venv" libs="$ROOT/build/intel-libs" f
    if [ ! -e "$venv/lib/libintelocl.so" ]; then
        echo "deps.sh: installing Intel's CPU OpenCL runtime into $venv"
        if ! { [ -x "$venv/bin/pip" ] || "$PYTHON" -m venv "$venv"; } ||
            ! "$venv/bin/pip" install --quiet intel-opencl-rt intel-cmplr-lib-rt ||
            [ ! -e "$venv/lib/libintelocl.so" ]; then
            echo "deps.sh: Intel's CPU OpenCL runtime could not be installed; going on without it" >&2
            return 0
        fi
    fi
    # Its libraries without its own libOpenCL, which would shadow the
    # system's ICD loader for every platform once on LD_LIBRARY_PATH.
    rm -rf "$libs"
    mkdir -p "$libs"
    for f in "$venv"/lib/*; do
        case "$(basename "$f")" in
            libOpenCL*|python*) ;;
            *) [ -f "$f" ] && ln -s "$f" "$libs/" ;;
        esac
    done
}

# The versions whose suites and speed the project's figures quote.
# Cython and setuptools: dpctl's suite builds an extension of its C API.
SYCL_PACKAGES=(dpctl==0.22.1 dpnp==0.20.0 intel-opencl-rt==2026.2.0 pytest cython setuptools)
APPS_PACKAGES=(pyclesperanto==0.25.1 pyvkfft pyopencl scipy)

setup_sycl() {
    local venv="$ROOT/build/sycl-venv"
    if [ ! -x "$venv/bin/python" ]; then
        echo "deps.sh: creating $venv"
        "$PYTHON" -m venv "$venv"
    fi
    if ! "$venv/bin/python" -c 'import dpctl, dpnp, pytest, Cython' >/dev/null 2>&1 ||
        [ ! -e "$venv/lib/libintelocl.so" ]; then
        echo "deps.sh: installing ${SYCL_PACKAGES[*]} into $venv (about 3 GB)"
        "$venv/bin/pip" install --quiet "${SYCL_PACKAGES[@]}"
    fi
    # The other Python applications `make bench-apps` measures, with SciPy
    # for their references.
    if [ "$want_apps" -eq 1 ] &&
        ! "$venv/bin/python" -c 'import pyclesperanto, pyvkfft.opencl, pyopencl, scipy' >/dev/null 2>&1; then
        echo "deps.sh: installing ${APPS_PACKAGES[*]} into $venv"
        "$venv/bin/pip" install --quiet "${APPS_PACKAGES[@]}"
    fi
}

check_packages
check_rust
[ "$want_python" -eq 1 ] && setup_python
[ "$want_intel" -eq 1 ] && setup_intel
[ "$want_sycl" -eq 1 ] && setup_sycl
exit 0
