#!/usr/bin/env bash
# Fails when a public or open declaration of a library module (the API an app sees after `import OfflineNews`) has
# no doc comment, listing each one as FILE:LINE: kind Type.member (Module). It reads the symbol graphs of the built
# modules (scripts/public-api.sh --check), so run `swift build` first; it takes a few seconds and needs no network.
#
# A doc comment gives the shape of what it documents, units (seconds, UTC), the errors thrown and the source of any
# format rule (RFC …); this script can only check that there is one.
#
# Usage: scripts/check-doc-comments.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/public-api.sh --check >/dev/null
echo "check-doc-comments: every public declaration of the library modules has a doc comment"
