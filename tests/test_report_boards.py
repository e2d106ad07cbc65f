"""Board heatmaps: every geometry draws from the real games' aggregate labels; dice charts."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.patches import Rectangle, RegularPolygon  # noqa: E402
from report_helpers import check_png  # noqa: E402

from simkit.report import boards, plots  # noqa: E402


def _default(game):
    from simkit.games import get_game
    from simkit.scenario import load_scenario
    spec = get_game(game)
    sc = load_scenario(game)
    return spec, sc.rules, spec.aggregate_index(sc.params())


def _draw(fn, data):
    fig, ax = plt.subplots()
    try:
        assert fn(data, ax) is ax
        return ax
    finally:
        plt.close(fig)


def test_martian_chess_board_with_canal():
    spec, rules, labels = _default("martian_chess")
    assert labels[0] == "a1" and labels[-1] == "d8"
    ax = _draw(boards.canal_board, boards.BoardData(labels, np.arange(32), rules, "captures"))
    cells = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert len(cells) == 33                                 # 32 cells + the canal
    texts = {t.get_text() for t in ax.texts}
    assert {"a1", "d8", "canal", "31"} <= texts


def test_skorm_hexes_and_gold_tile():
    spec, rules, labels = _default("skorm")
    assert "0,0" in labels and all("," in lab for lab in labels)
    ax = _draw(boards.hex_board, boards.BoardData(labels, np.ones(len(labels)), rules, "deaths"))
    hexes = [p for p in ax.patches if isinstance(p, RegularPolygon)]
    assert len(hexes) == 1 and hexes[0].get_edgecolor()[:3] == matplotlib.colors.to_rgb("gold")
    assert len(ax.collections[0].get_paths()) == len(labels) == 61


def test_warfare_grid_with_trees():
    spec, rules, labels = _default("warfare")
    w, h = rules["width"], rules["height"]
    assert len(labels) == w * h and labels[1] == "1,0"
    counts = np.zeros(len(labels))
    counts[labels.index("3,2")] = 7
    ax = _draw(boards.grid_board, boards.BoardData(labels, counts, rules, "deaths"))
    img = ax.images[0].get_array()
    assert img.shape == (h, w) and img[2, 3] == 7           # row y, column x
    trees = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert len(trees) == len(rules["trees"]) > 0


def test_storm_castle_graph_layout():
    spec, rules, labels = _default("storm_the_castle")
    spaces = rules["board"]["spaces"]
    assert set(labels) == set(spaces)
    pos = boards.graph_layout(spaces, boards._edges(rules))
    assert set(pos) == set(spaces)
    assert len(set(pos.values())) == len(pos)              # no two spaces on one spot
    for name, sp in spaces.items():                        # side 0 below the shared middle, side 1 above
        y = pos[name][1]
        assert (y < 0) if sp["side"] == 0 else (y > 0) if sp["side"] == 1 else (y == 0)
    keeps = [n for n, sp in spaces.items() if sp["kind"] == "keep"]
    assert all(abs(pos[k][1]) == max(abs(p[1]) for p in pos.values()) for k in keeps)   # keeps outermost
    ax = _draw(boards.graph_board, boards.BoardData(labels, np.arange(len(labels)), rules, "deaths"))
    assert len(ax.lines) == len(rules["board"]["edges"])   # every edge drawn
    assert {t.get_text() for t in ax.texts} >= set(labels)


def test_unknown_game_and_unreadable_labels_fall_back_to_bars():
    data = boards.BoardData(["x", "y", "z"], np.array([3, 1, 2]), {}, "hits")
    ax = _draw(lambda d, a: boards.draw("some_new_game", d, a), data)
    assert len(ax.patches) == 3 and [t.get_text() for t in ax.get_xticklabels()] == ["x", "z", "y"]
    ax = _draw(lambda d, a: boards.draw("skorm", d, a), data)   # labels are not "q,r": still a chart
    assert len(ax.patches) == 3


@pytest.mark.parametrize("game", ["martian_chess", "skorm", "warfare", "storm_the_castle"])
def test_dispatch_draws_each_game_in_its_geometry(game, tmp_path):
    spec, rules, labels = _default(game)
    fig, ax = plt.subplots(figsize=(6, 5))
    boards.draw(game, boards.BoardData(labels, np.arange(len(labels)) % 7, rules, "deaths"), ax)
    assert ax.get_title() != "deaths by cell (busiest 30)" and "busiest" not in ax.get_title()
    fig.savefig(tmp_path / "b.png", dpi=60)
    plt.close(fig)
    check_png(tmp_path / "b.png")


def test_exact_dice_charts():
    from simkit.engine.dice import storm_success_table, warfare_win_table
    st = storm_success_table()
    ax = _draw(plots.target_2d6_dice, st)
    heights = [p.get_height() for p in ax.patches]
    assert heights == pytest.approx([float(v) * 100 for v in st.values()])
    assert "10/36" not in {t.get_text() for t in ax.texts} and "5/18" in {t.get_text() for t in ax.texts}
    wt = warfare_win_table()
    ax = _draw(plots.opposed_d6_dice, wt)
    assert list(ax.lines[0].get_ydata()) == pytest.approx([float(v) * 100 for v in wt.values()])
