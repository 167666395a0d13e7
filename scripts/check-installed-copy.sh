#!/usr/bin/env bash
# An installed `news` (scripts/install.sh into an empty prefix): `news` and `news-online` alone in a folder on PATH, run from another empty
# folder with HOME and XDG_* at empty folders, must read every JSON Feed and feed and know the shipped mappings
# (compiled in: ImportMapping.shipped), with no file of the checkout in reach. Uses the debug build of `swift build`.
# With ../shared beside the checkout, every JSON Feed and XML feed of ../shared/fixtures/real/feeds/ is imported too.
set -euo pipefail
cd "$(dirname "$0")/.."
build=.build/debug
[ -x "$build/news" ] && [ -x "$build/news-online" ] || { echo "check-installed-copy: build first (swift build)"; exit 1; }
shared=${OFFLINENEWS_SHARED:-../shared}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/cwd" "$work/home" "$work/config" "$work/data" "$work/cache" "$work/inputs"
# Installed by the documented command (scripts/install.sh), from the debug build.
NEWS_BUILD_DIR="$build" bash scripts/install.sh --prefix "$work/prefix" >"$work/install.log"
ln -s "$work/prefix/bin" "$work/bin"
[ "$(ls "$work/prefix/bin")" = "$(printf 'news\nnews-online')" ] || { ls "$work/prefix/bin"; echo "check-installed-copy: bin holds more than the two programs"; exit 1; }
# The version and the commit baked in at build time (scripts/build-commit.sh): a checkout's, as this one is when git is
# there; "unknown commit" only without git or outside a checkout.
version=$("$work/bin/news" --version)
echo "$version" | grep -qE '^news [0-9]+\.[0-9]+\.[0-9]+ \(([0-9A-Za-z._+-]+|unknown commit)\)$' || { echo "$version"; echo "check-installed-copy: no version and commit"; exit 1; }
if command -v git >/dev/null 2>&1 && [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ] && [ -z "${NEWS_COMMIT:-}" ]; then
  commit=${version##*(}; commit=${commit%)}
  git rev-parse --verify --quiet "$commit^{commit}" >/dev/null || { echo "$version"; echo "check-installed-copy: $commit is not a commit of this checkout"; exit 1; }
fi
if command -v groff >/dev/null 2>&1; then
  warnings=$(groff -man -Tutf8 -ww -z "$work/prefix/share/man/man1/news.1" 2>&1)
  [ -z "$warnings" ] || { echo "$warnings"; echo "check-installed-copy: the man page has roff warnings"; exit 1; }
fi
completions=$(bash -c "source '$work/prefix/share/bash-completion/completions/news'; COMP_WORDS=(news fet); COMP_CWORD=1; _news; echo \"\${COMPREPLY[*]}\"")
[ "$completions" = fetch ] || { echo "check-installed-copy: bash completes 'news fet' as '$completions'"; exit 1; }
cp Tests/Fixtures/jsonfeed-1.0-zoneless-relative.json "$work/inputs/feed.json"
cat >"$work/inputs/hn.json" <<'JSON'
[{"by":"pg","id":1,"score":57,"time":1160418111,"title":"Y Combinator","type":"story","url":"http://ycombinator.com"},
 {"by":"dhouston","id":8863,"score":111,"time":1175714200,"title":"My YC app: Dropbox","type":"story",
  "url":"http://www.getdropbox.com/u/2/screencast.html"}]
JSON
run() {
  (cd "$work/cwd" && env -i PATH="$work/bin:/usr/bin:/bin" HOME="$work/home" XDG_CONFIG_HOME="$work/config" \
    XDG_DATA_HOME="$work/data" XDG_CACHE_HOME="$work/cache" news "$@")
}
fail() { echo "check-installed-copy: $*"; exit 1; }
run import "$work/inputs/feed.json" >"$work/out" 2>&1 || { cat "$work/out"; fail "a JSON Feed import failed"; }
run import "$work/inputs/hn.json" --mapping hackernews >"$work/out" 2>&1 || { cat "$work/out"; fail "--mapping hackernews failed"; }
run list --json | grep -q '"title":"My YC app: Dropbox"' || fail "the Hacker News item is not listed"
run import "$work/inputs/hn.json" --mapping no-such-mapping >"$work/out" 2>&1 && fail "an unknown mapping was accepted"
grep -q "shipped: hackernews, jsonfeed, newsapi, parse-server" "$work/out" || { cat "$work/out"; fail "the hint lacks the shipped names"; }
count=2
if [ -d "$shared/fixtures/real/feeds" ]; then
  for file in "$shared"/fixtures/real/feeds/*; do
    case "$file" in *.html | *.opml | *.OPML) continue ;; esac
    cp "$file" "$work/inputs/"
    run import "$work/inputs/$(basename "$file")" >"$work/out" 2>&1 || { cat "$work/out"; fail "import of $(basename "$file") failed"; }
    count=$((count + 1))
  done
else
  echo "check-installed-copy: no $shared/fixtures/real/feeds: the real feeds were not imported"
fi
bash scripts/install.sh --prefix "$work/prefix" --uninstall >/dev/null
left=$(find "$work/prefix" -type f)
[ -z "$left" ] || { echo "$left"; echo "check-installed-copy: --uninstall left files"; exit 1; }
echo "check-installed-copy: scripts/install.sh installed news, its man page and completions; the copy imported $count files from an empty folder (JSON Feed, shipped mappings); --uninstall removed every file"
