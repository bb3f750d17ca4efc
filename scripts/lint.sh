#!/usr/bin/env bash
# Formatting (rustfmt.toml) and lints (clippy, warnings are errors) over the whole workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
if cargo fmt --version >/dev/null 2>&1; then
  cargo fmt --all --check
else
  echo "lint: skipped the format check (rustfmt is not installed)"
fi
if cargo clippy --version >/dev/null 2>&1; then
  cargo clippy --workspace --all-targets -- -D warnings
else
  echo "lint: skipped clippy (it is not installed)"
fi
echo "lint: done"
