#!/usr/bin/env bash
# Runs our feed parser over feedparser's own test suite (tests/wellformed and tests/illformed of its PyPI source
# distribution) and reports the pass rate of the cases the article model can express; the rest are listed with a
# reason (docs/ARCHITECTURE.md, "Feeds": "Conformance").
#
#   scripts/feedparser-conformance.sh [--source DIR] [--min PERCENT] [--suite LIST] [--verbose]
#
# --source DIR   an unpacked feedparser source distribution; without it, feedparser $FEEDPARSER_VERSION is fetched
#                once with `pip download --no-binary :all:` into ${XDG_CACHE_HOME:-~/.cache}/offlinenews.
# --min PERCENT  exit 1 when fewer cases pass (CI: --min 97).
# Other options go to scripts/feedparser_conformance.py (--suite wellformed,illformed,encoding,entities; --verbose).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
package="$(dirname "$here")"
version="${FEEDPARSER_VERSION:-6.0.14}"
source=""
pass=()
while [ $# -gt 0 ]; do
  case "$1" in
    --source) source="$2"; shift 2 ;;
    *) pass+=("$1"); shift ;;
  esac
done

if [ -z "$source" ]; then
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/offlinenews"
  source="$cache/feedparser-$version"
  if [ ! -d "$source/tests" ]; then
    mkdir -p "$cache"
    python3 -m pip download --quiet --no-binary :all: --no-deps --dest "$cache" "feedparser==$version"
    tar -xzf "$cache/feedparser-$version.tar.gz" -C "$cache"
  fi
fi

swift build --package-path "$package" --product feed-dump >&2
bin="$(swift build --package-path "$package" --show-bin-path)"
exec python3 "$here/feedparser_conformance.py" "$source" "$bin/feed-dump" "${pass[@]}"
