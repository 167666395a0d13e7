#!/usr/bin/env python3
"""Turns a terminal capture (`tmux capture-pane -e -p`: text with SGR escape sequences) into an HTML page that
shows it as the terminal did, for a screenshot (scripts/reader-screenshot.sh).

Usage: ansi-to-html.py CAPTURE.txt OUT.html [COLUMNS]

Only SGR (`ESC [ … m`) is read: bold, dim, italic, underline, reverse and the 8/16/256-colour and RGB foreground
and background; any other escape sequence is dropped. Each line is padded to COLUMNS (default 100) so that a
reversed bar spans the width. Wide characters (CJK, emoji) take the two cells the terminal gave them because the
page uses a monospace font with fallbacks; the page is the capture, nothing is re-laid out.
"""
import html
import re
import sys
import unicodedata

PALETTE = ["#1d1f21", "#cc6666", "#b5bd68", "#f0c674", "#81a2be", "#b294bb", "#8abeb7", "#c5c8c6",
           "#666666", "#d54e53", "#b9ca4a", "#e7c547", "#7aa6da", "#c397d8", "#70c0b1", "#eaeaea"]
FOREGROUND, BACKGROUND = "#d8d8d8", "#1d1f21"


def colour256(n):
    if n < 16:
        return PALETTE[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    grey = 8 + 10 * (n - 232)
    return "#%02x%02x%02x" % (grey, grey, grey)


class State:
    def __init__(self):
        self.reset()

    def reset(self):
        self.bold = self.dim = self.italic = self.underline = self.reverse = False
        self.fg = self.bg = None

    def apply(self, codes):
        codes = [int(c) if c else 0 for c in codes.split(";")] if codes else [0]
        i = 0
        while i < len(codes):
            c = codes[i]
            if c == 0: self.reset()
            elif c == 1: self.bold = True
            elif c == 2: self.dim = True
            elif c == 3: self.italic = True
            elif c == 4: self.underline = True
            elif c == 7: self.reverse = True
            elif c == 22: self.bold = self.dim = False
            elif c == 23: self.italic = False
            elif c == 24: self.underline = False
            elif c == 27: self.reverse = False
            elif 30 <= c <= 37: self.fg = PALETTE[c - 30]
            elif 90 <= c <= 97: self.fg = PALETTE[c - 90 + 8]
            elif 40 <= c <= 47: self.bg = PALETTE[c - 40]
            elif 100 <= c <= 107: self.bg = PALETTE[c - 100 + 8]
            elif c == 39: self.fg = None
            elif c == 49: self.bg = None
            elif c in (38, 48) and i + 1 < len(codes):
                if codes[i + 1] == 5 and i + 2 < len(codes):
                    value = colour256(codes[i + 2]); i += 2
                elif codes[i + 1] == 2 and i + 4 < len(codes):
                    value = "#%02x%02x%02x" % tuple(codes[i + 2:i + 5]); i += 4
                else:
                    value = None
                if c == 38: self.fg = value
                else: self.bg = value
            i += 1

    def style(self):
        fg, bg = self.fg or FOREGROUND, self.bg or BACKGROUND
        if self.reverse:
            fg, bg = bg, fg
        parts = ["color:%s" % fg, "background:%s" % bg]
        if self.bold: parts.append("font-weight:bold")
        if self.dim: parts.append("opacity:0.6")
        if self.italic: parts.append("font-style:italic")
        if self.underline: parts.append("text-decoration:underline")
        return ";".join(parts)


def width(text):
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


SGR = re.compile(r"\x1b\[([0-9;]*)m|\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]|\x1b.")


def convert(capture, columns):
    state = State()
    rows = []
    for line in capture.rstrip("\n").split("\n"):
        spans, used, position = [], 0, 0
        for match in SGR.finditer(line):
            text = line[position:match.start()]
            if text:
                spans.append('<span style="%s">%s</span>' % (state.style(), html.escape(text)))
                used += width(text)
            if match.group(1) is not None or match.group(0).endswith("m"):
                state.apply(match.group(1) or "")
            position = match.end()
        text = line[position:]
        if text:
            spans.append('<span style="%s">%s</span>' % (state.style(), html.escape(text)))
            used += width(text)
        if used < columns:
            # tmux ends a captured line where its text ends: the rest of the row is the current background.
            spans.append('<span style="%s">%s</span>' % (state.style(), " " * (columns - used)))
        rows.append("".join(spans))
    return rows


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    columns = int(sys.argv[3]) if len(sys.argv) == 4 else 100
    with open(sys.argv[1], encoding="utf-8") as f:
        rows = convert(f.read(), columns)
    page = """<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body { margin: 0; background: %s; }
pre { margin: 0; padding: 10px 12px; font: 15px/1.25 "DejaVu Sans Mono", "Noto Sans Mono", "Noto Sans Mono CJK JP",
      "Noto Color Emoji", monospace; color: %s; }
</style></head><body><pre>%s</pre></body></html>
""" % (BACKGROUND, FOREGROUND, "\n".join(rows))
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write(page)


if __name__ == "__main__":
    main()
