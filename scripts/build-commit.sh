#!/bin/sh
# scripts/build-commit.sh PACKAGE_DIR OUTPUT_FILE — writes the Swift file that names the commit `news --version`
# prints (NewsCommandLine.commit). Run before every build by the BuildCommit plugin (Plugins/BuildCommit).
#
# The commit is, the first that is known:
#   1. $NEWS_COMMIT (a packager building a tarball: NEWS_COMMIT=a7d60e1 swift build -c release);
#   2. scripts/commit.txt, when `git archive` filled it in (export-subst, .gitattributes);
#   3. `git rev-parse --short HEAD`, when git is installed and PACKAGE_DIR is the top of a git checkout (a tarball
#      unpacked inside another repository does not take that repository's commit);
#   4. none: the file says nil, and `news --version` prints "unknown commit".
# Only [0-9A-Za-z._+-] is kept (it goes into a Swift string literal). It never fails the build for want of git; the
# file is rewritten only when its text changes, so an unchanged commit compiles nothing again.
set -u
[ $# -eq 2 ] || { echo "usage: build-commit.sh PACKAGE_DIR OUTPUT_FILE" >&2; exit 64; }
package=$1
output=$2
valid() {
  case "$1" in
    "" | *[!0-9A-Za-z._+-]*) return 1 ;;
    *) [ "${#1}" -le 64 ] ;;
  esac
}
commit=${NEWS_COMMIT:-}
if ! valid "$commit" && [ -f "$package/scripts/commit.txt" ]; then
  commit=$(tr -d ' \n\r\t' <"$package/scripts/commit.txt")
fi
if ! valid "$commit" && command -v git >/dev/null 2>&1; then
  commit=""
  top=$(git -C "$package" rev-parse --show-toplevel 2>/dev/null) || top=""
  if [ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$(cd "$package" && pwd -P)" ]; then
    commit=$(git -C "$package" rev-parse --short HEAD 2>/dev/null) || commit=""
  fi
fi
if valid "$commit"; then value="\"$commit\""; else value="nil"; fi
mkdir -p "$(dirname "$output")" || exit 1
cat >"$output.partial" <<SWIFT || exit 1
// Written by scripts/build-commit.sh before each build (the BuildCommit plugin); not in the repository.

extension NewsCommandLine {
  /// The commit this \`news\` was built from, or \`nil\` when the build did not know it (docs/CLI.md, --version).
  static let commit: String? = $value
}
SWIFT
if cmp -s "$output.partial" "$output"; then rm -f "$output.partial"; else mv -f "$output.partial" "$output"; fi
