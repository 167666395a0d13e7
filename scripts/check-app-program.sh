#!/usr/bin/env bash
# Builds and runs scripts/app-check/main.swift — an app embedding OfflineNews from outside the package (a generated
# package depending on this one by path, public API only) — against feeds, pages and images served on loopback by
# Python's http.server: an RSS feed, an Atom feed and a JSON Feed in two folders. The program subscribes, refreshes
# with whole texts, marks a folder read, deletes an article, refreshes again while observing a list and loads a
# shipped mapping by name ("online"); then the server is stopped and it reads everything from the cache ("offline").
#
# Usage: scripts/check-app-program.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
# Built as a target of the generated package of scripts/check-readme-snippets.sh (one package, one build plan).
echo "check-app-program: building the app (scripts/check-readme-snippets.sh builds it with the snippets)"
snippets=$(bash scripts/check-readme-snippets.sh 2>&1) || { echo "$snippets"; exit 1; }
app="$root/.build/readme-snippets/build/debug/AppCheck"

run=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$run"' EXIT
site="$run/site"
mkdir -p "$site/atp" "$site/swift" "$site/ruby" "$site/img" "$run/store"
# One 1×1 PNG, the image of every page.
printf '\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82' >"$site/img/dot.png"
page() { # page FILE TITLE
  cat >"$1" <<HTML
<!doctype html><html><head><title>$2</title></head><body><nav><a href="/">Home</a></nav><article><h1>$2</h1>
<p>The keeper of the old lighthouse wrote every evening about the ships that passed, the weather over the bay and
the lamps he trimmed, a long and patient record that anyone may now read offline.</p>
<p><img src="/img/dot.png" alt="a dot"> He noted the wind, the tide and the names of the boats, one page a day.</p>
</article></body></html>
HTML
}
for n in 1 2 3 4; do page "$site/atp/$n.html" "ATP $n"; done
for n in 1 2; do page "$site/swift/$n.html" "Swift $n"; page "$site/ruby/$n.html" "Ruby $n"; done

port_file="$run/port"
python3 - "$site" "$port_file" <<'PY' &
import functools, http.server, sys
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass
handler = functools.partial(Quiet, directory=sys.argv[1])
http.server.ThreadingHTTPServer.allow_reuse_address = True
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
open(sys.argv[2], "w").write(str(server.server_address[1]))
server.serve_forever()
PY
server=$!
for _ in $(seq 50); do [ -s "$port_file" ] && break; sleep 0.1; done
base="http://127.0.0.1:$(cat "$port_file")/"

item() { # item SITE N
  echo "<item><title>ATP $2</title><link>${base}$1/$2.html</link><guid>$1-$2</guid><pubDate>Mon, 0$2 Jan 2024 10:00:00 GMT</pubDate></item>"
}
{
  echo '<?xml version="1.0"?><rss version="2.0"><channel><title>ATP</title><link>'"$base"'atp/</link>'
  for n in 3 2 1; do item atp $n; done
  echo '</channel></rss>'
} >"$site/atp/feed.xml"
cat >"$site/swift/atom.xml" <<XML
<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Swift</title>
<id>urn:swift</id><updated>2024-01-02T10:00:00Z</updated>
<entry><title>Swift 2</title><id>urn:swift:2</id><link href="${base}swift/2.html"/><updated>2024-01-02T10:00:00Z</updated></entry>
<entry><title>Swift 1</title><id>urn:swift:1</id><link href="${base}swift/1.html"/><updated>2024-01-01T10:00:00Z</updated></entry>
</feed>
XML
cat >"$site/ruby/feed.json" <<JSON
{"version": "https://jsonfeed.org/version/1.1", "title": "Ruby", "home_page_url": "${base}ruby/",
 "items": [{"id": "ruby-2", "url": "${base}ruby/2.html", "title": "Ruby 2", "date_published": "2024-01-02T10:00:00Z"},
           {"id": "ruby-1", "url": "${base}ruby/1.html", "title": "Ruby 1", "date_published": "2024-01-01T10:00:00Z"}]}
JSON

# The files are served in the second they were written, and the program changes the ATP feed within a second or two:
# a Last-Modified in the second of its answer's Date is not sent back (`HTTPResponse.validators`), else python's
# http.server (whole seconds) would answer the changed feed 304.
timeout 120 "$app" online "$base" "$site" "$run/store"
kill "$server"
wait "$server" 2>/dev/null || true
timeout 120 "$app" offline "$base" "$site" "$run/store"
echo "check-app-program: passed"
