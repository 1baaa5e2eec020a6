#!/usr/bin/env bash
# Cross-compiles the engine for 64-bit Windows (x86_64-pc-windows-gnu) from Linux.
set -euo pipefail

usage() {
    cat <<'USAGE'
Usage: scripts/build-windows.sh [options]

Cross-compiles pbrain-tengen for x86_64-pc-windows-gnu into two single, statically linked
console executables that import only Windows' own DLLs:

  target/windows/pbrain-tengen.exe           baseline x86-64 (runs on any 64-bit Windows PC)
  target/windows/pbrain-tengen64-avx2.exe    x86-64-v3: AVX2, FMA, BMI1/2, LZCNT, POPCNT, MOVBE

rustup cannot add targets on this machine, so the build uses Debian's second Rust toolchain
(rustc-web / cargo-web, installed as /usr/bin/rustc and /usr/bin/cargo) together with the
standard library's source (rust-web-src) and the MinGW-w64 linker (gcc-mingw-w64-x86-64): std
is compiled for Windows with `-Z build-std` (RUSTC_BOOTSTRAP=1 lets the stable compiler accept
the -Z flag). Missing Debian packages are installed with apt-get (the script says so first).
Everything goes to target/windows/, so the normal `cargo build` in target/ is not touched.

Options:
  --baseline-only   build only pbrain-tengen.exe
  --avx2-only       build only pbrain-tengen64-avx2.exe
  --no-install      do not run apt-get; fail if a package is missing
  -h, --help        this text

Environment:
  AVX2_RUSTFLAGS    codegen flags of the AVX2 build (default: -C target-cpu=x86-64-v3)
USAGE
}

want_base=1 want_avx2=1 install=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --baseline-only) want_avx2=0; shift ;;
        --avx2-only) want_base=0; shift ;;
        --no-install) install=0; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "build-windows.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
    esac
done

cd "$(dirname "$0")/.."
root=$(pwd)
target=x86_64-pc-windows-gnu
out="$root/target/windows"

# --- Debian packages -------------------------------------------------------------------------
need=()
for pkg in rustc-web cargo-web rust-web-src gcc-mingw-w64-x86-64; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || need+=("$pkg")
done
if [[ ${#need[@]} -gt 0 ]]; then
    if [[ $install -eq 0 ]]; then
        echo "build-windows.sh: missing Debian packages: ${need[*]} (apt-get install them)" >&2
        exit 1
    fi
    echo "build-windows.sh: installing Debian packages with apt-get: ${need[*]}"
    sudo=""
    [[ $(id -u) -ne 0 ]] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

# --- toolchain -------------------------------------------------------------------------------
# Debian's compiler, not rustup's proxy in ~/.cargo/bin (which knows only the host target).
export PATH="/usr/bin:$PATH"
export RUSTC=/usr/bin/rustc
export RUSTDOC=/usr/bin/rustdoc
CARGO=/usr/bin/cargo
unset RUSTUP_TOOLCHAIN RUSTC_WRAPPER RUSTC_WORKSPACE_WRAPPER RUSTFLAGS CARGO_BUILD_RUSTFLAGS
export RUSTC_BOOTSTRAP=1
sysroot_src="$($RUSTC --print sysroot)/lib/rustlib/src/rust/library"
[[ -f "$sysroot_src/Cargo.lock" ]] || { echo "build-windows.sh: no std source at $sysroot_src (package rust-web-src)" >&2; exit 1; }
command -v x86_64-w64-mingw32-gcc >/dev/null || { echo "build-windows.sh: x86_64-w64-mingw32-gcc not found" >&2; exit 1; }
echo "build-windows.sh: $($RUSTC --version), $($CARGO --version), $(x86_64-w64-mingw32-gcc --version | head -n1)"

export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
export CC_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc
export AR_x86_64_pc_windows_gnu=x86_64-w64-mingw32-ar
# Release profile of Cargo.toml, plus stripped symbols (size; Gomocup allows 8 MB).
export CARGO_PROFILE_RELEASE_STRIP=symbols
# Static: libgcc (unwinder) and winpthread from MinGW are linked in, so the exe needs no
# libgcc_s_seh-1.dll / libwinpthread-1.dll next to it.
static_flags="-C target-feature=+crt-static -C link-arg=-static -C link-arg=-static-libgcc"

build() { # name extra-rustflags
    local name=$1 flags=$2 dir="$out/$1"
    echo "build-windows.sh: building $name (RUSTFLAGS: $static_flags $flags)"
    CARGO_TARGET_DIR="$dir" RUSTFLAGS="$static_flags $flags" \
        "$CARGO" build --release --locked --bin pbrain-tengen --target "$target" \
        -Z build-std=std,panic_unwind
}

mkdir -p "$out"
built=()
if [[ $want_base -eq 1 ]]; then
    build baseline ""
    cp "$out/baseline/$target/release/pbrain-tengen.exe" "$out/pbrain-tengen.exe"
    built+=("$out/pbrain-tengen.exe")
fi
if [[ $want_avx2 -eq 1 ]]; then
    build avx2 "${AVX2_RUSTFLAGS:--C target-cpu=x86-64-v3}"
    cp "$out/avx2/$target/release/pbrain-tengen.exe" "$out/pbrain-tengen64-avx2.exe"
    built+=("$out/pbrain-tengen64-avx2.exe")
fi

# --- check: a PE32+ console program importing only DLLs that ship with Windows ---------------
status=0
for exe in "${built[@]}"; do
    dlls=$(x86_64-w64-mingw32-objdump -p "$exe" | sed -n 's/^\s*DLL Name: //p' | sort -u | tr '\n' ' ')
    subsystem=$(x86_64-w64-mingw32-objdump -p "$exe" | sed -n 's/^Subsystem\s*//p')
    size=$(stat -c %s "$exe")
    echo "  ${exe#"$root"/}: $size bytes; subsystem $subsystem; imports: $dlls"
    for d in $dlls; do
        case "${d,,}" in
            kernel32.dll|ntdll.dll|advapi32.dll|ws2_32.dll|userenv.dll|bcrypt.dll|bcryptprimitives.dll|\
            msvcrt.dll|ucrtbase.dll|user32.dll|shell32.dll|ole32.dll|api-ms-win-*.dll) ;;
            *) echo "build-windows.sh: $exe imports non-system DLL $d" >&2; status=1 ;;
        esac
    done
    [[ "$subsystem" == 00000003* ]] || { echo "build-windows.sh: $exe is not a console program" >&2; status=1; }
done
exit $status
