#!/usr/bin/env bash
# Builds the DocC documentation of the OfflineNews library with the toolchain's own `docc`.
#
# The package has no swift-docc-plugin (so no `swift package generate-documentation`): this script does what the
# plugin would. It builds the OfflineNews target emitting symbol graphs, keeps the graphs of the OfflineNews module
# (which include the types it re-exports from OfflineNewsModel, OfflineNewsNetwork and OfflineNewsStorage), and runs
# `docc convert` on Sources/OfflineNews/OfflineNews.docc.
#
# It fails on any docc warning in the catalog's own files (an unresolved ``Symbol`` or <doc:Article> link, a bad
# directive, …) and on docc errors. Unresolved links in the documentation comments of Sources/ are printed as
# warnings; with --strict they fail the build too.
#
# Usage: scripts/build-docs.sh [--strict] [OUTPUT_DIR]
#   --strict     also fail on unresolved links in documentation comments
#   OUTPUT_DIR   where the .doccarchive goes (default: .build/docs/OfflineNews.doccarchive)
# Environment:
#   DOCC          the docc to use (default: `docc` on PATH, else next to `swift`)
#   SCRATCH_PATH  the build folder for the symbol-graph build (default: .build/docs-build)
# Preview the result with: python3 -m http.server -d OUTPUT_DIR, then open /documentation/offlinenews
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

strict=0
if [ "${1:-}" = "--strict" ]; then
  strict=1
  shift
fi
catalog=Sources/OfflineNews/OfflineNews.docc
output=${1:-.build/docs/OfflineNews.doccarchive}
scratch=${SCRATCH_PATH:-.build/docs-build}

docc=${DOCC:-}
if [ -z "$docc" ]; then
  if command -v docc >/dev/null 2>&1; then
    docc=$(command -v docc)
  elif command -v xcrun >/dev/null 2>&1 && xcrun --find docc >/dev/null 2>&1; then
    docc=$(xcrun --find docc)
  else
    docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
  fi
fi
[ -x "$docc" ] || { echo "build-docs: no docc found (set DOCC); it ships with the Swift toolchain" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "build-docs: symbol graphs (swift build --target OfflineNews, scratch $scratch)"
swift build --scratch-path "$scratch" --target OfflineNews \
  -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$work/all" >"$work/build.log" 2>&1 || {
  cat "$work/build.log" >&2
  echo "build-docs: the build failed" >&2
  exit 1
}
mkdir "$work/graphs"
cp "$work/all/OfflineNews.symbols.json" "$work/graphs/"
for extension in "$work/all"/OfflineNews@*.symbols.json; do
  [ -e "$extension" ] && cp "$extension" "$work/graphs/"
done

echo "build-docs: docc convert $catalog -> $output"
rm -rf "$output"
mkdir -p "$(dirname "$output")"
status=0
"$docc" convert "$catalog" \
  --additional-symbol-graph-dir "$work/graphs" \
  --fallback-display-name OfflineNews \
  --fallback-bundle-identifier org.offlinenews.OfflineNews \
  --fallback-default-module-kind Framework \
  --diagnostics-file "$work/diagnostics.json" \
  --output-path "$output" >"$work/docc.log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  cat "$work/docc.log" >&2
  echo "build-docs: docc failed (status $status)" >&2
  exit 1
fi

# Judge docc's diagnostics: errors and warnings in the catalog fail; unresolved links in doc comments fail with
# --strict and are printed otherwise.
python3 - "$work/diagnostics.json" "$root" "$catalog" "$strict" <<'PYTHON'
import json
import sys
from urllib.parse import unquote, urlparse

path, root, catalog, strict = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
with open(path) as file:
    diagnostics = json.load(file).get("diagnostics", [])

def where(diagnostic):
    source = diagnostic.get("source") or ""
    if source.startswith("file:"):
        source = unquote(urlparse(source).path)
    if source.startswith(root + "/"):
        source = source[len(root) + 1:]
    line = (diagnostic.get("range") or {}).get("start", {}).get("line")
    return source, source + (f":{line}" if line else "")

failures, warnings = [], []
for diagnostic in diagnostics:
    severity = diagnostic.get("severity", "")
    if severity not in ("warning", "error"):
        continue
    source, place = where(diagnostic)
    text = f"{place or '(no file)'}: {severity}: {diagnostic.get('summary', '').strip()}"
    for solution in diagnostic.get("solutions") or []:
        text += f" (fix: {solution.get('summary', '').strip()})"
    summary = diagnostic.get("summary", "")
    unresolved = "doesn't exist" in summary or "is ambiguous" in summary
    in_catalog = source.startswith(catalog + "/") or not source
    if severity == "error" or in_catalog or (strict and unresolved):
        failures.append(text)
    else:
        warnings.append(text)

for text in warnings:
    print("build-docs: " + text)
for text in failures:
    print("build-docs: " + text, file=sys.stderr)
if failures:
    print(f"build-docs: FAILED, {len(failures)} problem(s) in the documentation", file=sys.stderr)
    sys.exit(1)
PYTHON

echo "build-docs: OK, $output ($(find "$output" -path '*/data/documentation/*' -name '*.json' | wc -l) pages)"
