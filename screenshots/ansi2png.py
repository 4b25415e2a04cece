#!/usr/bin/env python3
"""Render a `tmux capture-pane -e -p` dump (text + SGR colour escapes) to a PNG.

Usage: ansi2png.py INPUT.ansi OUTPUT.png [--cols 160] [--rows 45]

Every cell is drawn with its own foreground/background colour on a dark background, using
DejaVu Sans Mono (which has the box-drawing characters). Supported SGR attributes: reset,
bold, dim, italic, underline, reverse, 16/256/truecolor foreground and background.
"""

import argparse
import re
import sys
import unicodedata

from PIL import Image, ImageDraw, ImageFont

FONT_DIR = "/usr/share/fonts/truetype/dejavu/"
FONT = FONT_DIR + "DejaVuSansMono.ttf"
FONT_BOLD = FONT_DIR + "DejaVuSansMono-Bold.ttf"
FONT_SIZE = 14

BG = (30, 30, 36)
FG = (208, 208, 208)

# xterm-like palette for the 16 base colours.
BASE16 = [
    (0, 0, 0), (205, 49, 49), (13, 188, 121), (229, 229, 16),
    (36, 114, 200), (188, 63, 188), (17, 168, 205), (229, 229, 229),
    (102, 102, 102), (241, 76, 76), (35, 209, 139), (245, 245, 67),
    (59, 142, 234), (214, 112, 214), (41, 184, 219), (255, 255, 255),
]


def xterm256(n):
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return (v, v, v)


class Style:
    __slots__ = ("fg", "bg", "bold", "dim", "italic", "underline", "reverse")

    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = None
        self.bg = None
        self.bold = False
        self.dim = False
        self.italic = False
        self.underline = False
        self.reverse = False

    def copy(self):
        s = Style()
        for k in self.__slots__:
            setattr(s, k, getattr(self, k))
        return s


def apply_sgr(style, params):
    codes = [int(p) if p.isdigit() else 0 for p in params.replace(":", ";").split(";")] if params else [0]
    i = 0
    while i < len(codes):
        c = codes[i]
        if c == 0:
            style.reset()
        elif c == 1:
            style.bold = True
        elif c == 2:
            style.dim = True
        elif c == 3:
            style.italic = True
        elif c == 4:
            style.underline = True
        elif c == 7:
            style.reverse = True
        elif c == 22:
            style.bold = False
            style.dim = False
        elif c == 23:
            style.italic = False
        elif c == 24:
            style.underline = False
        elif c == 27:
            style.reverse = False
        elif 30 <= c <= 37:
            style.fg = BASE16[c - 30]
        elif 90 <= c <= 97:
            style.fg = BASE16[c - 90 + 8]
        elif c == 39:
            style.fg = None
        elif 40 <= c <= 47:
            style.bg = BASE16[c - 40]
        elif 100 <= c <= 107:
            style.bg = BASE16[c - 100 + 8]
        elif c == 49:
            style.bg = None
        elif c in (38, 48) and i + 1 < len(codes):
            mode = codes[i + 1]
            colour = None
            if mode == 5 and i + 2 < len(codes):
                colour = xterm256(codes[i + 2] & 255)
                i += 2
            elif mode == 2 and i + 4 < len(codes):
                colour = tuple(v & 255 for v in codes[i + 2:i + 5])
                i += 4
            else:
                i += 1
            if c == 38:
                style.fg = colour
            else:
                style.bg = colour
        i += 1


ESC_RE = re.compile(r"\x1b\[([0-9;:?]*)([A-Za-z])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b.")


def parse(text, cols, rows):
    """Return a rows x cols grid of (char, Style) cells."""
    grid = [[(" ", Style()) for _ in range(cols)] for _ in range(rows)]
    style = Style()
    for y, line in enumerate(text.split("\n")[:rows]):
        x = 0
        pos = 0
        while pos < len(line):
            m = ESC_RE.match(line, pos)
            if m:
                if m.group(2) == "m":
                    apply_sgr(style, m.group(1))
                pos = m.end()
                continue
            ch = line[pos]
            pos += 1
            if ch in "\r\x07" or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
                continue
            if ch == "\t":
                nxt = min(cols, (x // 8 + 1) * 8)
                while x < nxt:
                    grid[y][x] = (" ", style.copy())
                    x += 1
                continue
            wide = unicodedata.east_asian_width(ch) in ("W", "F")
            if x < cols:
                grid[y][x] = (ch, style.copy())
                x += 1
                if wide and x < cols:
                    grid[y][x] = ("", style.copy())
                    x += 1
        # tmux's capture ends a line's attributes at the newline only if reset; keep style across
        # lines as a terminal would.
    return grid


def render(grid, out_path):
    font = ImageFont.truetype(FONT, FONT_SIZE)
    bold = ImageFont.truetype(FONT_BOLD, FONT_SIZE)
    ascent, descent = font.getmetrics()
    cw = round(font.getlength("M"))
    ch = ascent + descent + 2
    rows, cols = len(grid), len(grid[0])
    pad = 8
    img = Image.new("RGB", (cols * cw + 2 * pad, rows * ch + 2 * pad), BG)
    draw = ImageDraw.Draw(img)
    for y, row in enumerate(grid):
        for x, (c, st) in enumerate(row):
            fg = st.fg or FG
            bg = st.bg or BG
            if st.reverse:
                fg, bg = (st.bg or BG), (st.fg or FG)
            if st.dim:
                fg = tuple(v * 2 // 3 for v in fg)
            px, py = pad + x * cw, pad + y * ch
            if bg != BG:
                draw.rectangle([px, py, px + cw - 1, py + ch - 1], fill=bg)
            if c and c != " ":
                draw_cell(draw, c, px, py, cw, ch, fg, bold if st.bold else font)
            if st.underline:
                draw.line([px, py + ch - 2, px + cw - 1, py + ch - 2], fill=fg)
    img.save(out_path, optimize=True)


def draw_cell(draw, c, px, py, cw, ch, fg, font):
    # Box-drawing lines are drawn by hand so that they join seamlessly across cells.
    o = ord(c)
    mx, my = px + cw // 2, py + ch // 2
    right, bottom = px + cw - 1, py + ch - 1
    seg = BOX.get(c)
    if seg is not None:
        w = 2 if o in HEAVY else 1
        l, r, u, d = seg
        if l:
            draw.line([px, my, mx, my], fill=fg, width=w)
        if r:
            draw.line([mx, my, right, my], fill=fg, width=w)
        if u:
            draw.line([mx, py, mx, my], fill=fg, width=w)
        if d:
            draw.line([mx, my, mx, bottom], fill=fg, width=w)
        return
    if c == "█":
        draw.rectangle([px, py, right, bottom], fill=fg)
        return
    draw.text((px, py + 1), c, font=font, fill=fg)


# (left, right, up, down) for common light/heavy/rounded box-drawing characters.
BOX = {
    "─": (1, 1, 0, 0), "━": (1, 1, 0, 0), "│": (0, 0, 1, 1), "┃": (0, 0, 1, 1),
    "┌": (0, 1, 0, 1), "┏": (0, 1, 0, 1), "╭": (0, 1, 0, 1),
    "┐": (1, 0, 0, 1), "┓": (1, 0, 0, 1), "╮": (1, 0, 0, 1),
    "└": (0, 1, 1, 0), "┗": (0, 1, 1, 0), "╰": (0, 1, 1, 0),
    "┘": (1, 0, 1, 0), "┛": (1, 0, 1, 0), "╯": (1, 0, 1, 0),
    "├": (0, 1, 1, 1), "┣": (0, 1, 1, 1), "┤": (1, 0, 1, 1), "┫": (1, 0, 1, 1),
    "┬": (1, 1, 0, 1), "┳": (1, 1, 0, 1), "┴": (1, 1, 1, 0), "┻": (1, 1, 1, 0),
    "┼": (1, 1, 1, 1), "╋": (1, 1, 1, 1),
}
HEAVY = {ord(c) for c in "━┃┏┓┗┛┣┫┳┻╋"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--cols", type=int, default=160)
    ap.add_argument("--rows", type=int, default=45)
    a = ap.parse_args()
    with open(a.input, encoding="utf-8", errors="replace") as f:
        text = f.read()
    render(parse(text, a.cols, a.rows), a.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
