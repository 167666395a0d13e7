#!/usr/bin/env bash
# Counts the public API of each library module, as an app that imports OfflineNews sees it: the public and open
# declarations of the symbol graphs that swift-symbolgraph-extract reads from the built modules (.build/debug/Modules,
# so run `swift build` first). Types are structs, classes, enums, actors, protocols and type aliases; members are
# everything else a module declares (initializers, methods, properties, subscripts, enum cases, operators), members
# that a protocol's default implementation or a class's superclass supplies not counted.
#
# Usage: scripts/public-api.sh [--list | --check]
#   --list   also print every public declaration, one a line (module, kind, path)
#   --check  print each public declaration without a doc comment and fail when there is one
#            (scripts/check-doc-comments.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

list=0
[ "${1:-}" = "--list" ] && list=1
[ "${1:-}" = "--check" ] && list=2
modules=(OfflineNewsModel OfflineNewsStorage OfflineNewsImport OfflineNewsHTTP OfflineNewsNetwork OfflineNewsFeeds
  OfflineNewsSync OfflineNewsHTML OfflineNewsCurl OfflineNews)
built=.build/debug/Modules
[ -d "$built" ] || { echo "public-api: no $built: run swift build first" >&2; exit 1; }
target=$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for module in "${modules[@]}"; do
  swift-symbolgraph-extract -module-name "$module" -I "$built" -I Sources/CSQLite -I Sources/CLibXML2 -I Sources/CCurl -Xcc -I/usr/include/libxml2 \
    -target "$target" -minimum-access-level public -skip-synthesized-members -output-dir "$work" \
    >"$work/$module.log" 2>&1 || { cat "$work/$module.log" >&2; exit 1; }
done

python3 - "$work" "$list" "${modules[@]}" <<'PYTHON'
import glob
import json
import os
import sys

work, mode, modules = sys.argv[1], sys.argv[2], sys.argv[3:]
listing, checking = mode == "1", mode == "2"
missing = []
type_kinds = {"swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.typealias", "swift.actor"}
totals = [0, 0, 0]
print(f"{'module':<20} {'types':>6} {'members':>8} {'undocumented':>13}")
for module in modules:
    seen = set()
    types = members = undocumented = 0
    # The module's own graph, and its extensions of other modules' types (Module@Other.symbols.json).
    for path in [os.path.join(work, f"{module}.symbols.json")] + sorted(glob.glob(os.path.join(work, f"{module}@*.symbols.json"))):
        if not os.path.exists(path):
            continue
        with open(path) as file:
            graph = json.load(file)
        for symbol in graph.get("symbols", []):
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            identifier = symbol["identifier"]["precise"]
            if identifier in seen:
                continue
            seen.add(identifier)
            kind = symbol["kind"]["identifier"]
            if kind == "swift.extension":
                continue
            if kind in type_kinds:
                types += 1
            else:
                members += 1
            documented = bool((symbol.get("docComment") or {}).get("lines"))
            if not documented:
                undocumented += 1
                location = symbol.get("location") or {}
                line = (location.get("position") or {}).get("line")
                where = location.get("uri", "").removeprefix("file://").removeprefix(os.getcwd() + "/")
                missing.append(f"{where}:{line + 1 if line is not None else '?'}: {kind.removeprefix('swift.')} "
                               f"{'.'.join(symbol['pathComponents'])} ({module})")
            if listing:
                mark = "" if documented else "  (undocumented)"
                print(f"  {module} {kind.removeprefix('swift.')} {'.'.join(symbol['pathComponents'])}{mark}")
    totals = [totals[0] + types, totals[1] + members, totals[2] + undocumented]
    print(f"{module:<20} {types:>6} {members:>8} {undocumented:>13}")
print(f"{'total':<20} {totals[0]:>6} {totals[1]:>8} {totals[2]:>13}")
if checking and missing:
    print(f"public-api: {len(missing)} public declaration(s) without a doc comment:", file=sys.stderr)
    for text in missing:
        print("  " + text, file=sys.stderr)
    sys.exit(1)
PYTHON
