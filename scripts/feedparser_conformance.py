#!/usr/bin/env python3
"""Runs OfflineNews's feed parser over feedparser's own test files and reports how many pass.

feedparser (https://github.com/kurtmckee/feedparser) ships, in its source distribution, one XML file per case under
tests/wellformed and tests/illformed, with the expectation in a comment:

    <!--
    Description: item author
    Expect:      not bozo and entries[0]['author'] == 'Example editor'
    -->

Each file is read by `feed-dump` (Tests/FeedDump: FeedParser, the same code `news` runs), whose JSON is put in the
shape of feedparser's result (feed, entries, bozo), and the expectation is evaluated against it, as feedparser's
runtests.py does. A case is counted when every key its expectation reads is one the article model has (see
ENTRY_KEYS and FEED_KEYS); the others are listed as "not in the model". Cases the model could express but which test
a representation it deliberately does not have are excluded with their reason in
scripts/feedparser-conformance-excluded.txt. Every failure is listed with what we read.

Usage: feedparser_conformance.py FEEDPARSER_SOURCE_DIR FEED_DUMP_BINARY [--suite wellformed,illformed,...]
       [--verbose] [--min PERCENT]
"""

import argparse
import ast
import glob
import json
import os
import re
import subprocess
import sys
import time

SKIP_RE = re.compile(rb"SkipUnless:\s*(.*?)\n")
DESC_RE = re.compile(rb"Description:\s*(.*?)\s*Expect:\s*(.*)\s*-->")
HEADER_RE = re.compile(rb"^Header:\s+([^:]+):(.+)$", re.MULTILINE)

# What an article holds, by feedparser's names (docs/ARCHITECTURE.md, "Feeds"; FeedItem). The values below them are
# the keys of the elements of a list (content, enclosures, tags).
ENTRY_KEYS = {
    "title": None, "link": None, "id": None, "summary": None, "author": None,
    "published_parsed": None, "updated_parsed": None,
    "content": {"value"}, "enclosures": {"href", "type", "length"}, "tags": {"term"},
}
FEED_KEYS = {"title": None, "link": None, "language": None, "author": None}
NAMES = {"bozo", "entries", "feed", "len", "True", "False", "None"}


class Unexpressible(Exception):
    pass


def check_expressible(expression):
    """Raises Unexpressible naming the first key the model does not have."""
    tree = ast.parse(expression, mode="eval")

    def chain(node):
        """[root name, key, key, ...] of a subscript/attribute chain, or None."""
        keys = []
        while True:
            if isinstance(node, ast.Subscript):
                index = node.slice
                if isinstance(index, ast.Constant):
                    keys.append(index.value)
                else:
                    return None
                node = node.value
            elif isinstance(node, ast.Attribute):
                keys.append(node.attr)
                node = node.value
            elif isinstance(node, ast.Name):
                return [node.id] + list(reversed(keys))
            else:
                return None

    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in NAMES:
            raise Unexpressible("name %s" % node.id)
        if isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id == "len"):
                raise Unexpressible("call %s" % ast.unparse(node.func))
        if isinstance(node, (ast.Subscript, ast.Attribute)):
            keys = chain(node)
            if keys is None:
                raise Unexpressible("expression %s" % ast.unparse(node))
            root, rest = keys[0], keys[1:]
            if root == "feed":
                if rest and (rest[0] not in FEED_KEYS or len(rest) > 1):
                    raise Unexpressible("feed['%s']" % "']['".join(map(str, rest)))
            elif root == "entries":
                if not rest:
                    continue
                if not isinstance(rest[0], int):
                    raise Unexpressible("entries.%s" % rest[0])
                if len(rest) >= 2:
                    key = rest[1]
                    if key not in ENTRY_KEYS:
                        raise Unexpressible("entries[]['%s']" % key)
                    inner = ENTRY_KEYS[key]
                    if len(rest) >= 4 and (inner is None or rest[3] not in inner):
                        raise Unexpressible("entries[]['%s'][]['%s']" % (key, rest[3]))
            elif root == "bozo":
                if rest:
                    raise Unexpressible("bozo.%s" % rest)
            else:
                raise Unexpressible(root)


class Result(dict):
    """feedparser's FeedParserDict, as far as the expectations use it: keys and attributes."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name)


def as_result(value):
    if isinstance(value, dict):
        return Result((k, as_result(v)) for k, v in value.items() if v is not None)
    if isinstance(value, list):
        return [as_result(v) for v in value]
    return value


def environment(dumped):
    def entry(item):
        result = {k: item.get(k) for k in ("title", "link", "id", "author")}
        if item.get("summary"):
            result["summary"] = item["summary"]["value"]
        if item.get("content"):
            result["content"] = [{"value": item["content"]["value"], "type": item["content"]["type"]}]
        for name in ("published", "updated"):
            if item.get(name) is not None:
                result[name + "_parsed"] = time.gmtime(item[name])
        result["enclosures"] = item.get("enclosures") or []
        result["tags"] = [{"term": t} for t in item.get("tags") or []]
        return as_result(result)

    return {
        "bozo": dumped.get("bozo", True) if "error" not in dumped else True,
        "feed": as_result(dumped.get("feed") or {}),
        "entries": [entry(i) for i in dumped.get("entries") or []],
    }


def read_exclusions(path):
    excluded = {}
    if os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, _, reason = line.partition(":")
            excluded[name.strip()] = reason.strip()
    return excluded


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", help="feedparser's unpacked source distribution")
    parser.add_argument("dump", help="the feed-dump binary")
    parser.add_argument("--suite", default="wellformed,illformed",
                        help="comma-separated: wellformed, illformed, encoding, entities (default: the first two)")
    parser.add_argument("--exclusions", default=os.path.join(os.path.dirname(__file__),
                                                             "feedparser-conformance-excluded.txt"))
    parser.add_argument("--verbose", action="store_true", help="list every case not counted and every failure in full")
    parser.add_argument("--min", type=float, default=0, help="exit 1 when the pass rate is below this percentage")
    arguments = parser.parse_args()

    tests = os.path.join(arguments.source, "tests")
    files = []
    for suite in arguments.suite.split(","):
        pattern = os.path.join(tests, "wellformed", "**", "*.xml") if suite == "wellformed" else \
            os.path.join(tests, suite, "*.xml")
        files += sorted(glob.glob(pattern))
    exclusions = read_exclusions(arguments.exclusions)

    cases, unexpressible, skipped = [], [], []
    for path in files:
        name = os.path.relpath(path, tests)
        data = open(path, "rb").read()
        skip = SKIP_RE.search(data)
        if skip:
            # feedparser's condition for the case (a Python codec being there, e.g. for gb2312): evaluated as its
            # runtests.py does. The codec is libxml2's/iconv's for us; the condition only keeps the set the same.
            condition = skip.group(1).strip().decode()
            try:
                runs = bool(eval(condition))
            except Exception:
                runs = False
            if not runs:
                skipped.append((name, "SkipUnless: " + condition))
                continue
        found = DESC_RE.search(data)
        if not found:
            skipped.append((name, "no Description/Expect comment"))
            continue
        description, expectation = [s.strip().decode("utf-8") for s in found.groups()]
        try:
            check_expressible(expectation)
        except Unexpressible as reason:
            unexpressible.append((name, str(reason)))
            continue
        url, content_type = "", ""
        if "http" in name:
            url = "http://127.0.0.1:8097/tests/" + name.replace(os.sep, "/")
            for key, value in HEADER_RE.findall(data):
                if key.strip().lower() == b"content-type":
                    content_type = value.strip().decode("latin-1")
        cases.append((name, path, url, content_type, description, expectation))

    manifest = "".join("%s\t%s\t%s\n" % (c[1], c[2], c[3]) for c in cases)
    output = subprocess.run([arguments.dump], input=manifest.encode(), capture_output=True, check=True).stdout
    dumps = [json.loads(line) for line in output.decode("utf-8").splitlines()]
    if len(dumps) != len(cases):
        sys.exit("feed-dump answered %d of %d files" % (len(dumps), len(cases)))

    passed, failed, excluded = [], [], []
    for case, dumped in zip(cases, dumps):
        name, _, _, _, description, expectation = case
        reason = exclusions.get(name) or next(
            (why for prefix, why in exclusions.items() if prefix.endswith("/") and name.startswith(prefix)), None)
        if reason:
            excluded.append((name, reason))
            continue
        try:
            ok = bool(eval(expectation, {"__builtins__": {}, "len": len}, environment(dumped)))
            error = None
        except Exception as problem:  # a key we did not read: KeyError, IndexError, AttributeError
            ok, error = False, "%s: %s" % (type(problem).__name__, problem)
        (passed if ok else failed).append((name, description, expectation, error, dumped))

    counted = len(passed) + len(failed)
    percent = 100.0 * len(passed) / counted if counted else 0
    print("feedparser conformance (%s, %s): %d of %d cases pass (%.1f %%)"
          % (os.path.basename(os.path.normpath(arguments.source)), arguments.suite, len(passed), counted, percent))
    print("  %d files; %d expect keys the article model does not have; %d excluded with a reason; %d skipped"
          % (len(files), len(unexpressible), len(excluded), len(skipped)))
    if excluded:
        print("\nexcluded (scripts/feedparser-conformance-excluded.txt):")
        for name, reason in excluded:
            if arguments.verbose or not any(p.endswith("/") and name.startswith(p) for p in exclusions):
                print("  %s: %s" % (name, reason))
        for prefix, reason in exclusions.items():
            if prefix.endswith("/") and not arguments.verbose:
                count = sum(1 for name, _ in excluded if name.startswith(prefix))
                print("  %s (%d cases): %s" % (prefix, count, reason))
    if failed:
        print("\nfailing:")
        for name, description, expectation, error, dumped in failed:
            print("  %s: %s\n    expect: %s" % (name, description, expectation))
            if error:
                print("    " + error)
            if True:
                shown = {k: dumped.get(k) for k in ("error", "bozo", "feed") if k in dumped}
                shown["entries"] = (dumped.get("entries") or [])[:2]
                print("    read:   " + json.dumps(shown, ensure_ascii=False)[:600])
    if arguments.verbose:
        print("\nnot in the model:")
        for name, reason in unexpressible:
            print("  %s: %s" % (name, reason))
    sys.exit(1 if percent < arguments.min else 0)


if __name__ == "__main__":
    main()
