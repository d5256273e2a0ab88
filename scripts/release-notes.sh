#!/usr/bin/env bash
# Prints the CHANGELOG.md section of a release tag, the text of its GitHub release. The CHANGELOG keeps
# the form of https://keepachangelog.com/en/1.1.0/: one `## [X.Y.Z] - YYYY-MM-DD` heading per release,
# newest first, under `## [Unreleased]`. A tag without its section is refused, so no release goes out
# with notes nobody wrote.
#
# Usage: scripts/release-notes.sh vX.Y.Z [CHANGELOG.md]
set -euo pipefail

tag="${1:-}"
changelog="${2:-CHANGELOG.md}"
if ! [[ "$tag" =~ ^v([0-9]+)\.([0-9]+)\.([0-9]+)(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "release-notes: '$tag' is not a release tag: vMAJOR.MINOR.PATCH (https://semver.org), e.g. v1.4.0." >&2
  exit 2
fi
version="${tag#v}"
if [ ! -f "$changelog" ]; then
  echo "release-notes: $changelog does not exist." >&2
  exit 1
fi

# The lines after `## [version]` up to the next `## ` heading; leading blank lines dropped here, trailing
# ones by the command substitution.
notes="$(awk -v head="## [$version]" '
  index($0, head) == 1 { on = 1; next }
  on && /^## / { exit }
  on { print }
' "$changelog" | sed -e '/./,$!d')"

if [ -z "$notes" ]; then
  echo "release-notes: $changelog has no section '## [$version]' with text: write it before tagging $tag." >&2
  exit 1
fi
printf '%s\n' "$notes"
