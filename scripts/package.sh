#!/usr/bin/env bash
# Builds the release packages into dist/.
set -euo pipefail

usage() {
    cat <<'USAGE'
Usage: scripts/package.sh [options]

Makes the release packages in dist/ (version from Cargo.toml):

  dist/tengen-VERSION-windows.zip     pbrain-tengen.exe and pbrain-tengen64-avx2.exe at the root
                                      (Gomocup layout), README.md, LICENSE.txt
  dist/tengen-VERSION-linux.tar.gz    tengen-VERSION-linux/ with pbrain-tengen, tengen-match,
                                      README.md, LICENSE

and prints their sizes; fails if a package reaches Gomocup's 8 MB limit.

It first runs `cargo build --release` (the Linux binaries, with the machine's usual Rust) and
scripts/build-windows.sh (the .exe files; see its --help). Both only rebuild what changed.

Options:
  --no-build      package the binaries already in target/release and target/windows
  -h, --help      this text
USAGE
}

build=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --no-build) build=0; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "package.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
    esac
done

cd "$(dirname "$0")/.."
root=$(pwd)
version=$(sed -n '/^\[package\]/,/^\[/s/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n1)
[[ -n "$version" ]] || { echo "package.sh: no version in Cargo.toml" >&2; exit 1; }
command -v zip >/dev/null || { echo "package.sh: needs zip (apt-get install zip)" >&2; exit 1; }

if [[ $build -eq 1 ]]; then
    cargo build --release --locked --bin pbrain-tengen --bin tengen-match
    scripts/build-windows.sh
fi

linux_bins=(target/release/pbrain-tengen target/release/tengen-match)
win_exes=(target/windows/pbrain-tengen.exe target/windows/pbrain-tengen64-avx2.exe)
for f in "${linux_bins[@]}" "${win_exes[@]}"; do
    [[ -f "$f" ]] || { echo "package.sh: $f is missing (run without --no-build)" >&2; exit 1; }
done

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# Licence: the repository's LICENSE file if there is one, else the MIT notice of Cargo.toml.
license_file=""
for f in LICENSE LICENSE.txt LICENSE.md LICENSE-MIT COPYING; do
    [[ -f "$f" ]] && { license_file=$f; break; }
done
if [[ -n "$license_file" ]]; then
    cp "$license_file" "$stage/LICENSE"
else
    cat > "$stage/LICENSE" <<EOF
MIT License

Copyright (c) $(date +%Y) Tengen developers

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
EOF
fi

mkdir -p dist
zip_out="dist/tengen-$version-windows.zip"
tar_out="dist/tengen-$version-linux.tar.gz"
rm -f "$zip_out" "$tar_out"

# Windows: everything at the root of the ZIP (Gomocup), text files with CR LF line ends.
win="$stage/windows"
mkdir -p "$win"
cp "${win_exes[@]}" "$win/"
sed 's/\r*$/\r/' README.md > "$win/README.md"
sed 's/\r*$/\r/' "$stage/LICENSE" > "$win/LICENSE.txt"
(cd "$win" && zip -q -X -9 "$root/$zip_out" pbrain-tengen.exe pbrain-tengen64-avx2.exe README.md LICENSE.txt)

# Linux: one folder tengen-VERSION-linux/.
lin="$stage/tengen-$version-linux"
mkdir -p "$lin"
cp "${linux_bins[@]}" "$lin/"
strip "$lin/pbrain-tengen" "$lin/tengen-match" 2>/dev/null || true
cp README.md "$stage/LICENSE" "$lin/"
tar -C "$stage" --owner=0 --group=0 --numeric-owner -czf "$tar_out" "tengen-$version-linux"

limit=$((8 * 1024 * 1024))
status=0
echo "package.sh: version $version"
for p in "$zip_out" "$tar_out"; do
    size=$(stat -c %s "$p")
    printf '  %-40s %9d bytes (%.2f MB)\n' "$p" "$size" "$(awk -v s="$size" 'BEGIN { print s / 1048576 }')"
    [[ $size -lt $limit ]] || { echo "package.sh: $p is not under 8 MB" >&2; status=1; }
done
echo "  contents of $zip_out:"
unzip -l "$zip_out" | sed 's/^/    /'
echo "  contents of $tar_out:"
tar -tvzf "$tar_out" | sed 's/^/    /'
exit $status
