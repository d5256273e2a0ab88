#!/usr/bin/env bash
# Fails when the generated files differ from what is committed: run it right after rebuilding them
# (`npm run bundle && npm run schema`, or `npm test`, which bundles first). The action runs the committed
# dist/ as it is, so a tag whose dist/ was built from other sources would ship code nobody reviewed.
# The same check as actions/typescript-action's check-dist workflow, over git's view of the files: a
# changed, deleted or new file under the checked folders is stale (git status --porcelain, which also
# lists files git does not track yet, one by one with --untracked-files=all).
#
# Usage: scripts/check-dist.sh [folder …]   (default: dist schema), from anywhere inside the checkout.
set -euo pipefail

if ! root="$(git rev-parse --show-toplevel 2>/dev/null)"; then
  echo "check-dist: $(pwd) is not inside a git checkout; the committed bundle cannot be compared." >&2
  exit 2
fi
cd "$root"

folders=("$@")
if [ ${#folders[@]} -eq 0 ]; then folders=(dist schema); fi

for folder in "${folders[@]}"; do
  if [ ! -d "$folder" ]; then
    echo "check-dist: $folder/ does not exist: the build did not write it." >&2
    exit 1
  fi
done

stale="$(git status --porcelain --untracked-files=all -- "${folders[@]}")"
if [ -n "$stale" ]; then
  echo "check-dist: ${folders[*]} differ from what the sources build (stale or hand-edited):" >&2
  echo "$stale" >&2
  git --no-pager diff --stat -- "${folders[@]}" >&2
  echo "Rebuild them (npm run bundle && npm run schema, or npm test) and commit the result." >&2
  exit 1
fi
echo "check-dist: ${folders[*]} match the sources."
