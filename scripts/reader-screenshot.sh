#!/usr/bin/env bash
# Makes the README's screenshots of `news read` (docs/images/news-read-*.png): a few real feeds from
# ../shared/fixtures/real/feeds fetched into a fresh store, `news read` run in a tmux pane of 100×30, the pane
# captured with its attributes (`tmux capture-pane -e -p`), turned into HTML (scripts/ansi-to-html.py) and
# photographed by headless Chromium.
#
# Usage: scripts/reader-screenshot.sh [NEWS] [FEEDS]   (defaults: .build/debug/news, ../shared/fixtures/real/feeds)
# Needs: tmux, python3, chromium. Writes docs/images/news-read-sources.png and news-read-list.png.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
news=$(realpath "${1:-$root/.build/debug/news}")
feeds=$(realpath "${2:-$root/../shared/fixtures/real/feeds}")
work=$(mktemp -d)
socket="news-screenshot-$$"
trap 'tmux -L "$socket" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT

cat > "$work/news.json" <<JSON
{"sources": {
  "Daring Fireball": {"file": "$feeds/DaringFireball.atom", "folder": "Apple"},
  "All This": {"file": "$feeds/allthis.atom", "folder": "Apple"},
  "Katie Floyd": {"file": "$feeds/KatieFloyd.rss", "folder": "Apple"},
  "Manton Reece": {"file": "$feeds/manton.rss", "folder": "Blogs"},
  "Scripting News": {"file": "$feeds/scriptingNews.rss", "folder": "Blogs"},
  "inessential": {"file": "$feeds/inessential.json", "folder": "Blogs"},
  "The Omni Show": {"file": "$feeds/theomnishow.rss", "folder": "Podcasts"},
  "Aktuality": {"file": "$feeds/aktuality.rss"},
  "bioRxiv": {"file": "$feeds/bio.rdf"}
}}
JSON
"$news" fetch --all --quiet --config "$work/news.json" --db "$work/news.sqlite" >/dev/null
# A few read, one bookmarked, so the marks show.
"$news" list --folder Apple --limit 6 --json --config "$work/news.json" --db "$work/news.sqlite" \
  | python3 -c 'import json,sys; print("\n".join(a["url"] for a in json.load(sys.stdin)["articles"]))' > "$work/newest"
for n in 2 3 5; do
  "$news" mark-read "$(sed -n "${n}p" "$work/newest")" --config "$work/news.json" --db "$work/news.sqlite" >/dev/null
done
"$news" bookmark "$(sed -n 3p "$work/newest")" --config "$work/news.json" --db "$work/news.sqlite" >/dev/null

tmux -L "$socket" -f /dev/null new-session -d -x 100 -y 30 -s shot \
  "env -i HOME='$work' PATH=/usr/bin:/bin LANG=C.UTF-8 TERM=screen-256color '$news' read --config '$work/news.json' --db '$work/news.sqlite'"
wait_for() {  # text to appear in the pane
  for _ in $(seq 100); do
    if tmux -L "$socket" capture-pane -p -t shot | grep -qF "$1"; then return 0; fi
    sleep 0.1
  done
  echo "timed out waiting for: $1" >&2
  tmux -L "$socket" capture-pane -p -t shot >&2
  exit 1
}
shoot() {  # name
  tmux -L "$socket" capture-pane -e -p -t shot > "$work/$1.txt"
  python3 "$root/scripts/ansi-to-html.py" "$work/$1.txt" "$work/$1.html" 100
  # 100 columns of DejaVu Sans Mono at 15 px (0.602 em each) and 30 rows of 1.25 × 15 px, with the page's padding.
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1 \
    --window-size=930,584 --screenshot="$root/docs/images/news-read-$1.png" "file://$work/$1.html" 2>/dev/null
  echo "docs/images/news-read-$1.png"
}
mkdir -p "$root/docs/images"
wait_for "unread of"
wait_for "just now"
# Podcasts collapsed (its row keeps its counts), the selection on Blogs' first source.
tmux -L "$socket" send-keys -t shot G
for _ in 1 2 3; do tmux -L "$socket" send-keys -t shot k; done
tmux -L "$socket" send-keys -t shot -
tmux -L "$socket" send-keys -t shot g
for _ in 1 2 3 4 5 6; do tmux -L "$socket" send-keys -t shot j; done
sleep 0.3
shoot sources
# The folder Apple's articles, newest first: read ones plain, the bookmark marked "!".
tmux -L "$socket" send-keys -t shot g j Enter
wait_for "Apple ("
sleep 0.3
shoot list
