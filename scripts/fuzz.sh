#!/usr/bin/env bash
# Fuzzes the parsers with libFuzzer and AddressSanitizer (see Fuzz/README.md and docs/RELIABILITY.md).
#
# usage: scripts/fuzz.sh [SECONDS] [TARGET...]
#   SECONDS  time budget per target (default 120); 0 builds the harnesses and replays the kept corpus and every
#            kept crasher once (a quick regression run, no fuzzing).
#   TARGET   timestamp, decoder, parallel, arguments, configuration, importer, search, readability, render,
#            frontdoor (default: all ten).
# environment:
#   FUZZ_BUILD  scratch folder (default .build/fuzz of this checkout, so that two checkouts never share objects);
#               nothing else is written to the repository but the corpus
#               (Fuzz/corpus/<target>/, minimized with -merge=1) and new crashers (Fuzz/crashers/<target>/).
#   FUZZ_JOBS   targets fuzzed at the same time (default: half the CPUs, at least 1).
#   FUZZ_KEEP   0 to leave Fuzz/corpus untouched (default 1).
#   FUZZ_STRICT 1 to make the harnesses crash on the known bugs they otherwise count and step over (to check a fix).
#
# Seeds are read at run time, never copied into the repository: the kept corpus, our fixtures (Tests/Fixtures,
# Config/) and, when present, ../shared/fixtures/real/. An input that contains any string of 16 or more characters
# taken from ../shared is not kept, so the kept corpus holds only inputs we wrote or the fuzzer made.
#
# The summary ends with one line per target: executions, crashes, corpus files and bytes. Exit status 1 if any
# target crashed (the input is in Fuzz/crashers/<target>/ and the log in $FUZZ_BUILD/run/<target>.log).
set -euo pipefail
# One brace group: bash reads all of it before running any of it, so editing this file during a run is safe.
{
cd "$(dirname "$0")/.."
root=$PWD

budget=${1:-120}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(timestamp decoder parallel arguments configuration importer search readability render frontdoor)
out=${FUZZ_BUILD:-$root/.build/fuzz}
jobs=${FUZZ_JOBS:-$(($(nproc) / 2))}
[ "$jobs" -ge 1 ] || jobs=1
keep=${FUZZ_KEEP:-1}
shared=$root/../shared/fixtures/real
mkdir -p "$out/mods" "$out/obj" "$out/bin" "$out/run"
# Leak checking is off: the Swift runtime's metadata caches and Foundation's singletons live as long as the process,
# and FoundationEssentials leaks a 4 KiB read buffer per `FileManager.contents(atPath:)` of an empty file
# (docs/RELIABILITY.md). Memory errors (overflows, use after free) are still fatal.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
# Swift's own backtracer is off: libFuzzer and AddressSanitizer print the stack, and after a `fatalError` under ASan
# the backtracer reported a stack-buffer-underflow of its own and was left running, holding the log pipe open.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}

# Swift 6 mode and the package's upcoming features; -enable-testing so harnesses can `@testable import NewsCLI`.
# -package-name: as SwiftPM passes it, so that `package` declarations (the test fault seams) compile.
# The system libraries' module maps are reached with -I (CSQLite, CLibXML2, CNcurses, CSodium and libxml2's headers from
# pkg-config).
xml_cflags=()
for flag in $(pkg-config --cflags libxml-2.0 2>/dev/null || echo -I/usr/include/libxml2); do xml_cflags+=(-Xcc "$flag"); done
flags=(-swift-version 6 -enable-upcoming-feature ExistentialAny -parse-as-library -sanitize=fuzzer,address
  -O -g -enable-testing -package-name OfflineNews -I "$out/mods" -I Sources/CSQLite -I Sources/CLibXML2 -I Sources/CNcurses -I Sources/CSodium
  "${xml_cflags[@]}"
  -module-cache-path "$out/module-cache")

# build_module NAME [DEPENDENCY.o…]: compiles Sources/NAME (all .swift files below it) to $out/obj/NAME.o and its
# .swiftmodule, unless that object is newer than every source and every dependency's object.
build_module() {
  local name=$1 object=$out/obj/$1.o
  shift
  [ -d "Sources/$name" ] || return 0
  if [ -f "$object" ] && [ -z "$(find "Sources/$name" -name '*.swift' -newer "$object")" ]; then
    local stale=0 dependency
    for dependency in "$@"; do [ "$dependency" -nt "$object" ] && stale=1; done
    [ "$stale" = 0 ] && return 0
  fi
  echo "fuzz: compiling $name"
  local sources
  mapfile -t sources < <(find "Sources/$name" -name '*.swift' | sort)
  # NewsCLI's commit (NewsCommandLine.commit) is written before each build by the BuildCommit plugin under SwiftPM.
  if [ "$name" = NewsCLI ]; then
    sh scripts/build-commit.sh . "$out/generated/BuildCommit.swift" && sources+=("$out/generated/BuildCommit.swift")
  fi
  swiftc "${flags[@]}" -module-name "$name" -wmo -c "${sources[@]}" -emit-module \
    -emit-module-path "$out/mods/$name.swiftmodule" -o "$object"
}

# The modules each harness needs, in dependency order, read from Package.swift's target dependencies (so that a new
# module is picked up); the system library CSQLite is reached with -I. Without python3, a fixed list.
root_module_of() {
  case $1 in
  timestamp) echo OfflineNewsModel ;;
  decoder | parallel) echo OfflineNewsNetwork ;;
  arguments | configuration) echo NewsCLI ;;
  importer) echo OfflineNewsImport ;;
  search) echo OfflineNewsStorage ;;
  readability | render) echo OfflineNewsHTML ;;
  frontdoor) echo OfflineNewsServer ;;
  *)
    echo "fuzz: unknown target $1 (timestamp, decoder, parallel, arguments, configuration, importer, search," \
      "readability, render, frontdoor)" >&2
    return 1
    ;;
  esac
}
modules_of() {
  local module
  module=$(root_module_of "$1") || return 1
  if command -v python3 >/dev/null 2>&1 && [ -s "$out/package.json" ]; then
    python3 - "$out/package.json" "$module" <<'PY'
import json, sys
targets = {t["name"]: t for t in json.load(open(sys.argv[1]))["targets"]}
order = []
def visit(name):
    target = targets.get(name)
    if name in order or target is None or target["type"] != "regular":
        return
    for dependency in target.get("dependencies", []):
        for value in dependency.values():
            visit(value[0])
    order.append(name)
visit(sys.argv[2])
print(" ".join(order))
PY
  else
    case $module in
    OfflineNewsModel) echo OfflineNewsModel ;;
    OfflineNewsNetwork) echo OfflineNewsModel OfflineNewsNetwork ;;
    NewsCLI) echo OfflineNewsModel OfflineNewsStorage OfflineNewsImport OfflineNewsNetwork OfflineNews NewsCLI ;;
    OfflineNewsImport) echo OfflineNewsModel OfflineNewsStorage OfflineNewsImport ;;
    OfflineNewsStorage) echo OfflineNewsModel OfflineNewsStorage ;;
    OfflineNewsHTML) echo OfflineNewsHTML ;;
    esac
  fi
}
harness_of() {
  case $1 in
  timestamp) echo Fuzz/TimestampFuzz.swift ;;
  decoder) echo Fuzz/DecoderFuzz.swift ;;
  parallel) echo Fuzz/ParallelDecodeFuzz.swift ;;
  arguments) echo Fuzz/ArgumentsFuzz.swift ;;
  configuration) echo Fuzz/ConfigurationFuzz.swift ;;
  # Harnesses of async code share Blocking.swift (waits for a task on the fuzzer's thread).
  importer) echo Fuzz/ImporterFuzz.swift Fuzz/Blocking.swift ;;
  search) echo Fuzz/SearchFuzz.swift Fuzz/Blocking.swift ;;
  readability) echo Fuzz/ReadabilityFuzz.swift ;;
  render) echo Fuzz/RenderFuzz.swift ;;
  frontdoor) echo Fuzz/FrontDoorFuzz.swift Fuzz/Blocking.swift ;;
  esac
}
max_len_of() {
  case $1 in
  timestamp) echo 64 ;;
  decoder | parallel) echo 16384 ;;
  arguments) echo 1024 ;;
  configuration) echo 8192 ;;
  importer) echo 16384 ;;
  search) echo 1024 ;;
  readability | render) echo 32768 ;;
  frontdoor) echo 4096 ;;
  esac
}

build_target() {
  local target=$1 modules objects=() harness
  modules=$(modules_of "$target")
  read -r -a harness <<<"$(harness_of "$target")"
  for module in $modules; do
    build_module "$module" "${objects[@]}"
    if [ -f "$out/obj/$module.o" ]; then objects+=("$out/obj/$module.o"); fi
  done
  echo "fuzz: linking $target"
  swiftc "${flags[@]}" -use-ld=lld -module-name "Fuzz_$target" "${harness[@]}" Fuzz/KnownBugs.swift \
    "${objects[@]}" \
    -lsqlite3 -lxml2 -lsodium -o "$out/bin/fuzz-$target"
}

# Seeds made at run time in $out/seeds/<target>, from our fixtures and ../shared (never kept in the repository).
make_seeds() {
  local target=$1 dir=$out/seeds/$1
  rm -rf "$dir"
  mkdir -p "$dir"
  cp "Fuzz/seeds/$target"/* "$dir/" 2>/dev/null || true
  [ "$target" = parallel ] && cp Fuzz/seeds/decoder/* "$dir/"
  local json=(Tests/Fixtures/* Config/sample/*.json)
  [ -d "$shared" ] && json+=("$shared"/*.json)
  case $target in
  decoder | parallel)
    # Small seeds run hundreds of times faster than whole captures: one body per record (each NewsAPI article,
    # each element of any other top-level array) when python3 is here, else the files whole.
    if command -v python3 >/dev/null 2>&1; then
      python3 - "$dir" "${json[@]}" <<'PY'
import json, os, sys
out, n = sys.argv[1], 0
for path in sys.argv[2:]:
    try:
        raw = open(path, "rb").read()
        doc = json.loads(raw)
    except Exception:
        open(os.path.join(out, "seed-%d" % n), "wb").write(raw[:16384]); n += 1; continue
    records = doc.get("articles") if isinstance(doc, dict) else doc
    if isinstance(doc, dict) and not isinstance(records, list):
        records = next((v for v in doc.values() if isinstance(v, list)), [doc])
    for record in (records if isinstance(records, list) else [records])[:200]:
        body = {"status": "ok", "totalResults": 1, "articles": [record]}
        open(os.path.join(out, "seed-%d" % n), "w").write(json.dumps(body, ensure_ascii=False)); n += 1
    if isinstance(doc, dict) and doc.get("status") == "error":
        open(os.path.join(out, "seed-%d" % n), "wb").write(raw); n += 1
PY
    else
      local i=0
      for file in "${json[@]}"; do cp "$file" "$dir/seed-$((i++))"; done
    fi
    ;;
  timestamp)
    # Every date-like string of the fixtures, one per file.
    local i=0
    grep -ohE '"[0-9]{4}-[0-9]{2}-[0-9]{2}[^"]{0,40}"' "${json[@]}" | tr -d '"' | sort -u | head -2000 |
      while IFS= read -r line; do printf '%s' "$line" >"$dir/seed-$((i++))"; done
    ;;
  configuration) cp Config/news.json "$dir/seed-news.json" ;;
  arguments) : ;;
  importer)
    # Every JSON fixture, its arrays cut to 3 elements (small inputs run much faster), once per mapping and root: the
    # first byte chooses which (ImporterFuzz.swift).
    if command -v python3 >/dev/null 2>&1; then
      python3 - "$dir" "${json[@]}" <<'PY'
import json, os, sys
out, n = sys.argv[1], 0
def cut(value):
    if isinstance(value, list):
        return [cut(v) for v in value[:3]]
    if isinstance(value, dict):
        return {k: cut(v) for k, v in value.items()}
    return value
for path in sys.argv[2:]:
    try:
        body = json.dumps(cut(json.load(open(path, "rb"))), ensure_ascii=False).encode()
    except Exception:
        continue
    if len(body) > 16000:
        continue
    for variant in range(8):
        open(os.path.join(out, "seed-%d" % n), "wb").write(bytes([variant]) + body); n += 1
PY
    fi
    ;;
  readability)
    # Our own HTML pages (Tests/Fixtures/html). Not ../shared's pages: mutated article text would end up in the
    # kept corpus, and HTML text is not in the quoted strings the filter below looks for.
    cp Tests/Fixtures/html/*.html Tests/Fixtures/*.html "$dir/" 2>/dev/null || true
    ;;
  render)
    # The same pages, each behind a width byte (the harness's first byte).
    local i=0
    for file in Tests/Fixtures/html/*.html Tests/Fixtures/*.html; do
      [ -f "$file" ] || continue
      # shellcheck disable=SC2059 # the format is the width byte, an escape made on purpose
      { printf "\\x$(printf %02x $((i * 37 % 120)))"; cat "$file"; } >"$dir/seed-$((i++))"
    done
    ;;
  search)
    # Titles of the fixtures, one per file, as search texts.
    local i=0
    grep -ohE '"title": *"[^"\\]{1,120}"' "${json[@]}" | sed -E 's/^"title": *"//; s/"$//' | sort -u | head -500 |
      while IFS= read -r line; do printf '%s' "$line" >"$dir/seed-$((i++))"; done
    ;;
  esac
}

# Strings of 16+ characters from every file under ../shared (its feeds/ and pages/ folders too, as the python3 path
# walks them), to keep its content out of the kept corpus.
shared_patterns=$out/shared-patterns.txt
: >"$shared_patterns"
if [ -d "$shared" ]; then
  grep -rohE '"[^"\\]{16,}"' "$shared" | sed -e 's/^"//' -e 's/"$//' | sort -u >"$shared_patterns" || true
fi
# from_shared FILE: whether FILE holds 16 characters in a row from a string of ../shared (a mutated title keeps long
# pieces of it: matching whole strings is not enough). With python3, every 16-byte window of the input is looked up
# among the windows of ../shared's JSON strings, less those our own fixtures also hold (a URL prefix, a file name);
# without python3, whole strings are matched.
shared_windows=$out/shared-windows.py
cat >"$shared_windows" <<'PY'
import os, re, sys
shared, ours, inputs = sys.argv[1], sys.argv[2].split(":"), sys.argv[3:]
strings = re.compile(rb'"((?:[^"\\\n]|\\.){16,})"')
def windows_of(paths):
    found = set()
    for path in paths:
        for match in strings.finditer(open(path, "rb").read()):
            text = match.group(1)
            found.update(text[i:i + 16] for i in range(len(text) - 15))
    return found
def files(folder):
    return [os.path.join(root, name) for root, _, names in os.walk(folder) for name in names]
windows = windows_of(files(shared)) - windows_of([f for folder in ours for f in files(folder)])
for path in inputs:
    data = open(path, "rb").read()
    if any(data[i:i + 16] in windows for i in range(len(data) - 15)):
        print(path)
PY
own_text="$root/Tests/Fixtures:$root/Config:$root/Fuzz/seeds"
from_shared() {
  [ -d "$shared" ] || return 1
  if command -v python3 >/dev/null 2>&1; then
    [ -n "$(python3 "$shared_windows" "$shared" "$own_text" "$1")" ]
  else
    [ -s "$shared_patterns" ] && grep -qF -f "$shared_patterns" "$1"
  fi
}
# drop_shared DIR: removes the files of DIR that hold text from ../shared (one python3 run for the whole folder).
drop_shared() {
  [ -d "$shared" ] || return 0
  if command -v python3 >/dev/null 2>&1; then
    find "$1" -type f -print0 | xargs -0 -r python3 "$shared_windows" "$shared" "$own_text" | while IFS= read -r file; do
      rm -f "$file"
    done
  else
    for file in "$1"/*; do [ -e "$file" ] && from_shared "$file" && rm -f "$file"; done
  fi
  return 0
}

run_target() {
  local target=$1 bin=$out/bin/fuzz-$1 work=$out/run/$1 log=$out/run/$1.log
  local corpus=Fuzz/corpus/$target crashers=Fuzz/crashers/$target
  mkdir -p "$corpus" "$crashers"
  rm -rf "$work"
  mkdir -p "$work/new" "$work/artifacts"
  local dict=()
  [ -f "Fuzz/dict/$target.dict" ] && dict=(-dict="Fuzz/dict/$target.dict")
  local status=0
  local common=(-detect_leaks=0 -timeout=20 -rss_limit_mb=6144 -print_final_stats=1
    -artifact_prefix="$work/artifacts/" "${dict[@]}")
  if [ "$budget" = 0 ]; then
    # The readability replay reads our test page where it is kept (Tests/Fixtures/html/), not a copy of it.
    local own=()
    [ "$target" = readability ] && own=(Tests/Fixtures/html)
    "$bin" "${common[@]}" -runs=0 "Fuzz/seeds/$target" "${own[@]}" "$corpus" "$crashers" >"$log" 2>&1 || status=$?
  else
    make_seeds "$target"
    "$bin" "${common[@]}" -max_total_time="$budget" -max_len="$(max_len_of "$target")" \
      "$work/new" "$corpus" "$out/seeds/$target" >"$log" 2>&1 || status=$?
  fi
  local crashes=0
  for artifact in "$work/artifacts"/*; do
    [ -e "$artifact" ] || continue
    crashes=$((crashes + 1))
    if [ "${FUZZ_STRICT:-0}" = 1 ]; then
      echo "fuzz: $target: crasher $artifact (strict run: not copied)"
    elif from_shared "$artifact"; then
      echo "fuzz: $target: crasher $artifact holds text from ../shared; not copied (minimize it by hand)"
    else
      cp "$artifact" "$crashers/"
    fi
  done
  if [ "$budget" != 0 ] && [ "$keep" != 0 ]; then
    mkdir -p "$work/candidates" "$work/merged"
    cp "$work/new"/* "$work/candidates/" 2>/dev/null || true
    drop_shared "$work/candidates"
    "$bin" -detect_leaks=0 -merge=1 -max_len="$(max_len_of "$target")" "$work/merged" "$corpus" "$work/candidates" \
      >"$work/merge.log" 2>&1 && drop_shared "$work/merged" &&
      { rm -rf "$corpus"; mkdir -p "$corpus"; cp "$work/merged"/* "$corpus/" 2>/dev/null || true; }
  fi
  local execs
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  printf '%-14s %6ss %12s execs %3d crashes (exit %d) %5d corpus files %8d bytes\n' "$target" "$budget" \
    "${execs:-?}" "$crashes" "$status" "$(find "$corpus" -type f | wc -l)" "$(cat "$corpus"/* 2>/dev/null | wc -c)" \
    >"$work/summary"
  [ "$status" = 0 ]
}

swift package dump-package >"$out/package.json" 2>/dev/null || : >"$out/package.json"
for target in "${targets[@]}"; do root_module_of "$target" >/dev/null; done
for target in "${targets[@]}"; do build_target "$target"; done

failed=0
running=0
for target in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  echo "fuzz: $target for ${budget}s (log: $out/run/$target.log)"
  run_target "$target" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done

echo "fuzz: summary (libFuzzer + AddressSanitizer, $(date -u +%Y-%m-%dT%H:%MZ))"
for target in "${targets[@]}"; do cat "$out/run/$target/summary"; done
exit "$failed"
}
