#!/usr/bin/env bash
# Installs xcc under PREFIX (default /usr/local):
#   bin/xcc; share/man/man1/xcc*.1; bash, zsh and fish completions;
#   lib/cmake/xcc/ (find_package(xcc) and xcc_add_model); lib/libxcc_runtime.a, include/xcc_run*.h
#   and lib/pkgconfig/xcc-runtime.pc (the runtime alone, for objects xcc writes).
# XCC_BIN=path installs that binary instead of building a release one.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="${1:-/usr/local}"
if [ -z "${XCC_BIN:-}" ]; then
  (cd "$root" && cargo build --release -p xcc)
  XCC_BIN="$root/target/release/xcc"
fi
install -d "$prefix/bin" "$prefix/lib/cmake/xcc" "$prefix/lib/pkgconfig" "$prefix/include" \
  "$prefix/share/man/man1" "$prefix/share/bash-completion/completions" \
  "$prefix/share/zsh/site-functions" "$prefix/share/fish/vendor_completions.d"
install -m 0755 "$XCC_BIN" "$prefix/bin/xcc"
xcc="$prefix/bin/xcc"
"$xcc" man "$prefix/share/man/man1"
"$xcc" completions bash > "$prefix/share/bash-completion/completions/xcc"
"$xcc" completions zsh > "$prefix/share/zsh/site-functions/_xcc"
"$xcc" completions fish > "$prefix/share/fish/vendor_completions.d/xcc.fish"
"$xcc" runtime -o "$prefix/lib/libxcc_runtime.a"
mv "$prefix/lib/xcc_runtime.h" "$prefix/lib/xcc_run.h" "$prefix/include/"
version="$("$xcc" --version | awk '{print $2}')"
install -m 0644 "$root/cmake/xccConfig.cmake" "$prefix/lib/cmake/xcc/xccConfig.cmake"
sed "s/@VERSION@/$version/" "$root/cmake/xccConfigVersion.cmake.in" > "$prefix/lib/cmake/xcc/xccConfigVersion.cmake"
sed -e "s|@PREFIX@|$prefix|" -e "s/@VERSION@/$version/" "$root/cmake/xcc-runtime.pc.in" \
  > "$prefix/lib/pkgconfig/xcc-runtime.pc"
echo "install: xcc $version in $prefix"
