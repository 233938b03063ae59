#!/usr/bin/env bash
# Fails, listing the files, if any tracked C++/CUDA source differs from clang-format's output.
# Fix with: clang-format -i <files>
set -euo pipefail
cd "$(dirname "$0")/.."
bad=()
while IFS= read -r f; do
  clang-format --dry-run -Werror "$f" > /dev/null 2>&1 || bad+=("$f")
done < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cu' '*.cuh')
if [ ${#bad[@]} -gt 0 ]; then
  echo "not clang-formatted (run clang-format -i on them):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "clang-format: all sources formatted"
