#!/usr/bin/env bash
# The module graph, checked against Package.swift (CI):
#   1. docs/ARCHITECTURE.md's table of targets and their dependencies (between the module-graph markers) is the one
#      `swift package dump-package` gives; `--write` rewrites it;
#   2. every `import` of one of our modules in a target's sources names a direct dependency of that target (no
#      module reached only through another), and no file re-exports a module (`@_exported import`).
# Usage: scripts/check-module-graph.sh [--write]
set -euo pipefail
cd "$(dirname "$0")/.."
dump=$(mktemp)
trap 'rm -f "$dump"' EXIT
swift package dump-package >"$dump"
python3 - "$dump" "${1:-}" <<'PY'
import json, os, re, sys
package = json.load(open(sys.argv[1]))
write = sys.argv[2] == "--write"
targets = {t["name"]: t for t in package["targets"]}
def deps(t):
    names = []
    for d in t["dependencies"]:
        kind = next(iter(d))
        names.append(d[kind][0])
    return names
rows = ["| target | kind | depends on (Package.swift) |", "|---|---|---|"]
for t in package["targets"]:
    if t["type"] in ("test",) or t["name"] in ("TestSupport",):
        continue
    rows.append(f"| `{t['name']}` | {t['type']} | {', '.join('`' + n + '`' for n in deps(t)) or '—'} |")
table = "\n".join(rows)
doc_path = "docs/ARCHITECTURE.md"
doc = open(doc_path).read()
start, end = "<!-- module-graph:start (scripts/check-module-graph.sh --write) -->", "<!-- module-graph:end -->"
failures = []
if start not in doc or end not in doc:
    failures.append(f"{doc_path}: no module-graph markers")
else:
    before, rest = doc.split(start, 1)
    current, after = rest.split(end, 1)
    if current.strip() != table:
        if write:
            open(doc_path, "w").write(before + start + "\n" + table + "\n" + end + after)
            print(f"check-module-graph: wrote the table of {doc_path}")
        else:
            failures.append(f"{doc_path}: the module table differs from Package.swift (run scripts/check-module-graph.sh --write)")
ours = set(targets)
for t in package["targets"]:
    if t["type"] in ("system", "plugin"):
        continue
    path = t.get("path") or (("Tests/" if t["type"] == "test" else "Sources/") + t["name"])
    if t["name"] == "news-bench":
        path = t.get("path") or "Sources/NewsBench"
    allowed = set(deps(t)) | {t["name"]}
    for root, _, files in os.walk(path):
        for f in files:
            if not f.endswith(".swift"):
                continue
            file = os.path.join(root, f)
            for number, line in enumerate(open(file), 1):
                m = re.match(r"\s*(@_exported\s+|@testable\s+|public\s+|package\s+|internal\s+)?import\s+(\w+)", line)
                if not m:
                    continue
                if m.group(1) and "_exported" in m.group(1):
                    failures.append(f"{file}:{number}: @_exported import {m.group(2)}: import what a file uses, where it uses it")
                if m.group(2) in ours and m.group(2) not in allowed:
                    failures.append(f"{file}:{number}: imports {m.group(2)}, which is not a dependency of {t['name']} in Package.swift")
for failure in failures:
    print("check-module-graph: " + failure)
sys.exit(1 if failures else 0)
PY
