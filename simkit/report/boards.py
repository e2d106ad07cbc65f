"""Board heatmaps in each game's own geometry, coloured by aggregate.csv counts.

The game declares its board drawing (``GameSpec.board``); the cell labels (the
game's ``aggregate_index``) carry the geometry:

- "hex": axial ``"q,r"`` hexagons, the centre tile ``(0, 0)`` outlined in gold;
- "canal": ``"a1"``..``"d8"`` on a 4x8 board, the canal between ranks 4 and 5;
- "square": ``"x,y"`` squares, trees (scenario rule ``trees``) marked;
- "graph": space names; the graph (scenario rule ``board``) is laid out in rows by
  graph distance from the shared middle, side 0 below, side 1 above.

``draw(game, data, ax)`` draws the spec's board and falls back to a bar chart of
the busiest cells for a game that declares none (or labels it cannot read), so a
new game never breaks a report.
"""
from __future__ import annotations

import math
import re
from collections import deque
from dataclasses import dataclass, field

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
from matplotlib.collections import PatchCollection  # noqa: E402
from matplotlib.patches import Rectangle, RegularPolygon  # noqa: E402

from simkit.report import plots  # noqa: E402

CMAP = "YlOrRd"


@dataclass
class BoardData:
    labels: list[str]
    counts: np.ndarray
    rules: dict = field(default_factory=dict)
    what: str = "deaths"


def _norm(counts):
    """Square-root colour scale: a hot spot (e.g. a central goal tile) does not wash out the rest."""
    c = np.asarray(counts, dtype=float)
    top = c.max() if len(c) and c.max() > 0 else 1.0
    return matplotlib.colors.PowerNorm(0.5, 0, top)


def _colorbar(ax, norm, what):
    sm = matplotlib.cm.ScalarMappable(norm=norm, cmap=CMAP)
    ax.figure.colorbar(sm, ax=ax, shrink=0.8, label=f"{what} (square-root scale)")


def cell_number(v) -> str:
    """A cell's count per game in at most four characters, so it fits its hexagon, square or node:
    12, 3.4, 0.35 (0 for none)."""
    v = float(v)
    if v == 0:
        return "0"
    if v >= 9.95:
        return f"{v:.0f}"
    if v >= 0.995:
        return f"{v:.1f}"
    return f"{v:.2f}" if v >= 0.005 else "<.01"


def _text_color(v, norm):
    return "white" if norm(v) > 0.6 else "black"


def _pairs(labels):
    out = []
    for lab in labels:
        m = re.fullmatch(r"\s*(-?\d+)\s*,\s*(-?\d+)\s*", str(lab))
        if not m:
            raise ValueError(f"not an 'a,b' label: {lab!r}")
        out.append((int(m.group(1)), int(m.group(2))))
    return out


def _hex_xy(q, r):
    """Flat-top hexagons: side 0's corner (0, -R) at the bottom, side 1's (0, R) at the top."""
    return 1.5 * q, math.sqrt(3) * (r + q / 2)


FLAT = math.pi / 6   # RegularPolygon orientation of a flat-top hexagon


def hex_board(data: BoardData, ax):
    """Board "hex": hexagons at axial (q, r), labelled "q,r"; the centre tile (0, 0) outlined in gold."""
    qr = _pairs(data.labels)
    norm = _norm(data.counts)
    cmap = matplotlib.colormaps[CMAP]
    patches, colors = [], []
    for (q, r), v in zip(qr, data.counts):
        x, y = _hex_xy(q, r)
        patches.append(RegularPolygon((x, y), 6, radius=0.98, orientation=FLAT))
        colors.append(cmap(norm(v)))
        ax.text(x, y + 0.3, f"{q},{r}", ha="center", va="center", fontsize=7.5, color=_text_color(v, norm))
        ax.text(x, y - 0.22, cell_number(v), ha="center", va="center", fontsize=8.5, fontweight="bold",
                color=_text_color(v, norm))
    ax.add_collection(PatchCollection(patches, facecolors=colors, edgecolors="#666666", linewidths=0.5))
    if (0, 0) in qr and data.rules.get("gold_tile", True):
        ax.add_patch(RegularPolygon((0, 0), 6, radius=0.98, orientation=FLAT, fill=False, edgecolor="gold", lw=3,
                                    label="Gold Tile (0,0)"))
        ax.legend(loc="upper left", fontsize=8, frameon=False)
    xs = [_hex_xy(q, r)[0] for q, r in qr]
    ys = [_hex_xy(q, r)[1] for q, r in qr]
    ax.set_xlim(min(xs) - 1.2, max(xs) + 1.2)
    ax.set_ylim(min(ys) - 1.3, max(ys) + 1.3)
    ax.text(0, min(ys) - 1.15, "side 0", ha="center", fontsize=8, color=plots.SIDE[0])
    ax.text(0, max(ys) + 1.0, "side 1", ha="center", fontsize=8, color=plots.SIDE[1])
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(data.what)
    _colorbar(ax, norm, data.what)
    return ax


def canal_board(data: BoardData, ax):
    """Board "canal": the 4x8 board, rank 1 at the bottom, the canal between ranks 4 and 5."""
    norm = _norm(data.counts)
    cmap = matplotlib.colormaps[CMAP]
    cells = []
    for lab in data.labels:
        m = re.fullmatch(r"([a-z])(\d+)", str(lab).strip())
        if not m:
            raise ValueError(f"not a 4x8 board cell: {lab!r}")
        cells.append((ord(m.group(1)) - ord("a"), int(m.group(2)) - 1))
    ncols = max(c for c, _ in cells) + 1
    nrows = max(r for _, r in cells) + 1
    canal = nrows // 2
    gap = 0.35

    def ypos(row):
        return row + (gap if row >= canal else 0)

    for (c, r), v in zip(cells, data.counts):
        ax.add_patch(Rectangle((c, ypos(r)), 1, 1, facecolor=cmap(norm(v)), edgecolor="#666666", lw=0.6))
        ax.text(c + 0.5, ypos(r) + 0.68, f"{chr(97 + c)}{r + 1}", ha="center", fontsize=8,
                color=_text_color(v, norm))
        ax.text(c + 0.5, ypos(r) + 0.3, cell_number(v), ha="center", fontsize=9, fontweight="bold",
                color=_text_color(v, norm))
    ax.add_patch(Rectangle((0, canal), ncols, gap, facecolor="#aed6f1", edgecolor="none"))
    ax.text(ncols / 2, canal + gap / 2, "canal", ha="center", va="center", fontsize=8, color="#1b4f72")
    ax.text(-0.15, canal / 2, "side 0", rotation=90, ha="right", va="center", fontsize=8, color=plots.SIDE[0])
    ax.text(-0.15, canal + gap + (nrows - canal) / 2, "side 1", rotation=90, ha="right", va="center", fontsize=8,
            color=plots.SIDE[1])
    ax.set_xlim(-0.5, ncols + 0.1)
    ax.set_ylim(-0.1, nrows + gap + 0.1)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(data.what)
    _colorbar(ax, norm, data.what)
    return ax


def grid_board(data: BoardData, ax):
    """Board "square": the square grid, y = 0 (side 0's back row) at the bottom, trees marked."""
    xy = _pairs(data.labels)
    w = max(x for x, _ in xy) + 1
    h = max(y for _, y in xy) + 1
    img = np.full((h, w), np.nan)
    for (x, y), v in zip(xy, data.counts):
        img[y, x] = v
    norm = _norm(data.counts)
    ax.imshow(img, origin="lower", cmap=CMAP, norm=norm, extent=(-0.5, w - 0.5, -0.5, h - 0.5))
    small = max(w, h) > 16
    # the numbers only where a cell is wide enough for four characters at a readable size
    if not small:
        for (x, y), v in zip(xy, data.counts):
            if v:
                ax.text(x, y, cell_number(v), ha="center", va="center", fontsize=7.5,
                        color=_text_color(v, norm))
    trees = [t for t in (data.rules.get("trees") or []) if isinstance(t, (list, tuple)) and len(t) == 2]
    if trees:
        for i, (tx, ty) in enumerate(trees):
            ax.add_patch(Rectangle((tx - 0.45, ty - 0.45), 0.9, 0.9, fill=False, edgecolor="#1e8449", lw=2,
                                   zorder=3, label="tree" if i == 0 else None))
            ax.scatter([tx + 0.28], [ty + 0.28], marker="^", s=14 if not small else 6, color="#1e8449", zorder=3)
        ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), fontsize=8, frameon=False)
    ax.set_xticks(range(w), [str(i) for i in range(w)], fontsize=8)
    ax.set_yticks(range(h), [str(i) for i in range(h)], fontsize=8)
    ax.set_xticks(np.arange(-0.5, w), minor=True)
    ax.set_yticks(np.arange(-0.5, h), minor=True)
    ax.grid(which="minor", color="white", lw=0.4)
    ax.tick_params(which="minor", length=0)
    ax.set_xlabel("x   (side 0 deploys at the bottom, side 1 at the top)", fontsize=8)
    ax.set_ylabel("y")
    ax.set_title(data.what)
    _colorbar(ax, norm, data.what)
    return ax


KIND_MARKERS = {"keep": "s", "tower": "p", "battlement": "h", "open": "o", "high": "^", "low": "v"}
# a node is NODE_AREA points^2 (about 34 pt across); its number (cell_number: at most four characters
# at NODE_FONT) stays inside it: 4 x 0.6 x 8.5 pt = 20 pt
NODE_AREA = 1150
NODE_FONT = 8.5
# a triangle is narrow at its middle: drawn larger, its number moved toward its base
TRIANGLE_AREA = 1500
TRIANGLE_SHIFT = 0.35      # of the half-height, toward the base


def node_style(kind: str) -> tuple[str, float, float]:
    """(marker, area in points^2, vertical offset of the number in points) of a space's node."""
    marker = KIND_MARKERS.get(kind, "o")
    if marker in ("^", "v"):
        shift = TRIANGLE_SHIFT * math.sqrt(TRIANGLE_AREA) / 2
        return marker, TRIANGLE_AREA, -shift if marker == "^" else shift
    return marker, NODE_AREA, 0.0


def _natural(name):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(name))]


def graph_layout(spaces: dict, edges: list[tuple[str, str]]) -> dict[str, tuple[float, float]]:
    """Positions for a castle graph: rows by distance from the shared spaces (side -1, y = 0);
    side 0 below, side 1 above; each row ordered by the mean x of its neighbours nearer the middle."""
    adj = {s: set() for s in spaces}
    for a, b in edges:
        if a in adj and b in adj:
            adj[a].add(b)
            adj[b].add(a)

    def side(s):
        return int((spaces[s] or {}).get("side", -1)) if isinstance(spaces[s], dict) else -1

    shared = [s for s in spaces if side(s) not in (0, 1)]
    dist = {s: 0 for s in shared}
    queue = deque(shared)
    while queue:
        s = queue.popleft()
        for t in adj[s]:
            if t not in dist:
                dist[t] = dist[s] + 1
                queue.append(t)
    far = max(dist.values(), default=0) + 1
    for s in spaces:  # unreachable (or no shared middle): one row further out
        dist.setdefault(s, far)
    pos: dict[str, tuple[float, float]] = {}
    rows: dict[tuple[int, int], list[str]] = {}
    for s in spaces:
        sd = side(s)
        rows.setdefault((0 if sd not in (0, 1) else dist[s], sd if sd in (0, 1) else -1), []).append(s)
    width = max(len(v) for v in rows.values())
    for (d, sd), names in sorted(rows.items()):
        def key(s):
            xs = [pos[t][0] for t in adj[s] if t in pos]
            return (sum(xs) / len(xs) if xs else 0.0, _natural(s))
        names = sorted(names, key=_natural) if d == 0 else sorted(names, key=key)
        y = 0.0 if sd == -1 else (-d if sd == 0 else d)
        step = width / len(names)
        for i, s in enumerate(names):
            pos[s] = ((i + 0.5) * step - width / 2, float(y))
    return pos


def _edges(rules):
    out = []
    for e in (rules.get("board") or {}).get("edges") or []:
        if isinstance(e, str) and "-" in e:
            a, b = e.split("-", 1)
            out.append((a.strip(), b.strip()))
        elif isinstance(e, (list, tuple)) and len(e) == 2:
            out.append((str(e[0]), str(e[1])))
    return out


def graph_board(data: BoardData, ax):
    """Board "graph": spaces as nodes (marker = kind), edges drawn, coloured by counts."""
    spaces = dict((data.rules.get("board") or {}).get("spaces") or {})
    for lab in data.labels:
        spaces.setdefault(str(lab), {"side": -1})
    edges = _edges(data.rules)
    pos = graph_layout(spaces, edges)
    counts = dict(zip(map(str, data.labels), data.counts))
    norm = _norm(data.counts)
    cmap = matplotlib.colormaps[CMAP]
    for a, b in edges:
        if a in pos and b in pos:
            ax.plot([pos[a][0], pos[b][0]], [pos[a][1], pos[b][1]], color="#888888", lw=1.2, zorder=1)
    for s, (x, y) in pos.items():
        kind = (spaces[s] or {}).get("kind", "") if isinstance(spaces[s], dict) else ""
        v = counts.get(s, 0)
        sd = (spaces[s] or {}).get("side", -1) if isinstance(spaces[s], dict) else -1
        edge = plots.SIDE[sd] if sd in (0, 1) else "#444444"
        marker, area, dy = node_style(kind)
        ax.scatter([x], [y], s=area, marker=marker, color=cmap(norm(v)), edgecolors=edge, linewidths=2, zorder=2)
        ax.annotate(s, (x, y), xytext=(0, math.sqrt(area) / 2 + 2), textcoords="offset points", ha="center",
                    va="bottom", fontsize=8, zorder=3,
                    bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.85})
        ax.annotate(cell_number(v), (x, y), xytext=(0, dy), textcoords="offset points", ha="center",
                    va="center", fontsize=NODE_FONT, zorder=3, color=_text_color(v, norm), gid="node-number")
    xs = [p[0] for p in pos.values()] or [0]
    ys = [p[1] for p in pos.values()] or [0]
    ax.set_xlim(min(xs) - 0.8, max(xs) + 0.8)
    ax.set_ylim(min(ys) - 0.7, max(ys) + 0.7)
    handles = [matplotlib.lines.Line2D([], [], marker=m, ls="", color="#bbbbbb", markeredgecolor="#444444",
                                       label=k) for k, m in KIND_MARKERS.items()
               if any(isinstance(v, dict) and v.get("kind") == k for v in spaces.values())]
    if handles:
        ax.legend(handles=handles, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, 0.0), frameon=False,
                  ncol=len(handles))
    ax.axis("off")
    ax.set_title(f"{data.what} (side 0 below, side 1 above)")
    _colorbar(ax, norm, data.what)
    return ax


def generic_board(data: BoardData, ax):
    return plots.cell_bars((data.labels, data.counts, data.what), ax)


BOARDS = {"hex": hex_board, "canal": canal_board, "square": grid_board, "graph": graph_board}


def _board_kind(game: str):
    from simkit.games import find_game
    return getattr(find_game(game), "board", None)   # None: a game this install does not have


def draw(game: str, data: BoardData, ax):
    """The game's own board; any game or label it cannot draw gets the generic bar chart."""
    fn = BOARDS.get(_board_kind(game), generic_board)
    try:
        return fn(data, ax)
    except (ValueError, KeyError, TypeError, IndexError):
        if fn is generic_board:
            raise
        ax.clear()
        return generic_board(data, ax)
