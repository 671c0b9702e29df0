#!/usr/bin/env bash
# The house habits that a reviewer should not have to check by eye (STYLE.md):
#   1. every tracked C++ file is formatted as .clang-format says (clang-format --dry-run -Werror);
#   2. no source file of the product or of its tests (core/, views/, app/, tests/) is longer than
#      800 lines: a file that grows past it holds two things and is split.
# Usage: scripts/check_style.sh   (from anywhere in a clone; exits non-zero on a finding)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

max_lines=800
status=0

mapfile -t sources < <(git ls-files '*.cpp' '*.h')
if ! clang-format --dry-run -Werror "${sources[@]}"; then
  echo "check_style: the files above are not formatted; run clang-format -i on them" >&2
  status=1
fi

while read -r lines file; do
  [ "$file" = total ] && continue
  if [ "$lines" -gt "$max_lines" ]; then
    echo "check_style: $file has $lines lines (at most $max_lines in core/, views/, app/, tests/)" >&2
    status=1
  fi
done < <(git ls-files 'core/*.cpp' 'core/*.h' 'views/*.cpp' 'views/*.h' 'app/*.cpp' 'app/*.h' \
                       'tests/*.cpp' 'tests/*.h' | xargs wc -l)

[ "$status" -eq 0 ] && echo "check_style: ${#sources[@]} files formatted, none over $max_lines lines"
exit "$status"
