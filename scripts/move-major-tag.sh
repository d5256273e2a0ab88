#!/usr/bin/env bash
# Points the major tag (v1) at a release tag's commit and pushes it, as GitHub's own actions do
# (actions/toolkit docs/action-versioning.md): users of `uses: owner/llm-bench-gate@v1` get every
# compatible release without editing their workflows. The major tag only moves forward: a patch
# release of an older minor line (v1.2.4 after v1.3.0) leaves it on the newest release, and a
# pre-release (v1.4.0-rc.1) never moves it.
#
# Usage: scripts/move-major-tag.sh vX.Y.Z [remote]   (the tags of the remote fetched beforehand)
set -euo pipefail

tag="${1:-}"
remote="${2:-origin}"
if ! [[ "$tag" =~ ^v([0-9]+)\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "move-major-tag: '$tag' is not a release tag: vMAJOR.MINOR.PATCH, e.g. v1.4.0." >&2
  exit 2
fi
major="v${BASH_REMATCH[1]}"
if [ -n "${BASH_REMATCH[2]}" ]; then
  echo "move-major-tag: $tag is a pre-release; $major stays where it is."
  exit 0
fi
if ! commit="$(git rev-parse --verify --quiet "refs/tags/$tag^{commit}")"; then
  echo "move-major-tag: no tag $tag in this checkout (fetch the tags first)." >&2
  exit 1
fi

newest="$(git tag --list "$major.*" | grep -E "^$major\.[0-9]+\.[0-9]+$" | sort -V | tail -n 1)"
if [ "$newest" != "$tag" ]; then
  echo "move-major-tag: $newest is newer than $tag; $major stays on $newest."
  exit 0
fi

git tag --force "$major" "$commit" >/dev/null
git push --force "$remote" "refs/tags/$major"
echo "move-major-tag: $major -> $tag ($commit)."
