#!/usr/bin/python3
"""Heat maps of docs/report/report.csv in the style of the paper's Table 1.

    /usr/bin/python3 tools/plot_report.py docs/report/report.csv docs/report

One PNG per map: the improvement (%) over the analytic Gaussian, epsilon across, delta down (the
paper's layout), every cell annotated with its value.  All maps share one colour scale (diverging
at 0; values below -20 get the end colour), so they can be compared by eye.

  quasi_l1.png, quasi_l2.png   dpagg's certified quasi-Gaussian (cells that do not match the print
                               of Table 5 / 6 to two decimals are outlined)
  multi_l1.png, multi_l2.png   dpagg's certified best-K multi-Gaussian (K in the corner of a cell;
                               cells below the print by more than rounding are outlined: dashed when
                               the print is unreachable, solid when that does not explain it)
  paper_multi_l1.png           the paper's printed Table 1 (K from Table 3; outlined = the printed
                               value is unreachable by a sigma satisfying (eps, delta)-DP, from the
                               consistency file)
  paper_multi_l2.png           the paper's printed Table 4 (outlined = unreachable, from report.csv)
Uses Debian's python3-matplotlib; no other dependency.
"""
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import TwoSlopeNorm  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

EPS = [0.1, 0.25, 0.5, 0.75, 1, 2, 3, 4, 5, 10]
DELTA = [5e-7, 1e-6, 5e-6, 1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 0.01, 0.02, 0.05, 0.1, 0.15, 0.25]
NORM = TwoSlopeNorm(vmin=-20, vcenter=0, vmax=100)
CMAP = plt.get_cmap("RdYlGn")


def num(s):
    if s is None or s == "" or s == "NA":
        return math.nan
    return float(s)


def load(path):
    with open(path, newline="") as f:
        lines = [ln for ln in f if not ln.startswith("#")]
    rows = {}
    for r in csv.DictReader(lines):
        e, d = float(r["epsilon"]), float(r["delta"])
        i = min(range(len(EPS)), key=lambda k: abs(EPS[k] - e))
        j = min(range(len(DELTA)), key=lambda k: abs(math.log(DELTA[k] / d)))
        rows[(i, j)] = r
    return rows


def fmt_delta(d):
    s = "%g" % d
    return s.replace("e-0", "e-")


def heatmap(rows, value_col, title, path, k_col=None, outline=None, outline_note=None):
    """outline(r) -> None | 'solid' | 'dashed'"""
    fig, ax = plt.subplots(figsize=(11, 8.6))
    nE, nD = len(EPS), len(DELTA)
    for j in range(nD):
        for i in range(nE):
            r = rows.get((i, j))
            v = num(r[value_col]) if r else math.nan
            if math.isnan(v):
                ax.add_patch(Rectangle((i, j), 1, 1, facecolor="#d9d9d9", edgecolor="white", lw=0.5))
                ax.text(i + 0.5, j + 0.5, "NA" if r else "", ha="center", va="center", fontsize=8, color="#555555")
                continue
            c = CMAP(NORM(max(min(v, 100), -20)))
            ax.add_patch(Rectangle((i, j), 1, 1, facecolor=c, edgecolor="white", lw=0.5))
            lum = 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]
            tc = "white" if lum < 0.45 else "black"
            ax.text(i + 0.5, j + 0.5, "%.2f" % v, ha="center", va="center", fontsize=8, color=tc)
            if k_col and r.get(k_col) not in (None, "", "NA", "0"):
                ax.text(i + 0.95, j + 0.1, "K" + r[k_col], ha="right", va="top", fontsize=5.5, color=tc, alpha=0.8)
            style = outline(r) if outline else None
            if style:
                dashed = style == "dashed"
                ax.add_patch(Rectangle((i + 0.04, j + 0.04), 0.92, 0.92, fill=False,
                                       edgecolor=tc if dashed else "black", lw=1.0 if dashed else 2.2,
                                       ls="--" if dashed else "-"))
    ax.set_xlim(0, nE)
    ax.set_ylim(nD, 0)
    ax.set_xticks([i + 0.5 for i in range(nE)])
    ax.set_xticklabels(["%g" % e for e in EPS])
    ax.set_yticks([j + 0.5 for j in range(nD)])
    ax.set_yticklabels([fmt_delta(d) for d in DELTA])
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.set_xlabel("ε")
    ax.set_ylabel("δ")
    ax.tick_params(length=0)
    for s in ax.spines.values():
        s.set_visible(False)
    sm = plt.cm.ScalarMappable(norm=NORM, cmap=CMAP)
    cb = fig.colorbar(sm, ax=ax, fraction=0.035, pad=0.02)
    cb.set_label("improvement over the analytic Gaussian (%)")
    fig.suptitle(title, fontsize=12, y=0.985)
    if outline_note:
        fig.text(0.5, 0.012, outline_note, ha="center", fontsize=8.5)
    fig.tight_layout(rect=(0, 0.03, 1, 0.96))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print("  wrote", path)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    rows = load(sys.argv[1])
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)

    def mismatch(col):
        return lambda r: "solid" if r.get(col) == "0" else None

    def short(col):
        return lambda r: {"1": "dashed", "0": "solid"}.get(r.get(col))

    def unreachable(col):
        return lambda r: "solid" if r.get(col) == "1" else None

    heatmap(rows, "impr_quasi_l1", "dpagg quasi-Gaussian, l1 = E|X| (certified), Δ = 1",
            os.path.join(out, "quasi_l1.png"), outline=mismatch("match_t5"),
            outline_note="outlined: does not match the paper's Table 5 to the printed two decimals")
    heatmap(rows, "impr_quasi_l2", "dpagg quasi-Gaussian, l2 = E[X²] (certified), Δ = 1",
            os.path.join(out, "quasi_l2.png"), outline=mismatch("match_t6"),
            outline_note="outlined: does not match the paper's Table 6 to the printed two decimals")
    note = ("outlined: below the paper's print by more than rounding — dashed: the print is unreachable "
            "by an (ε, δ)-DP σ; solid: not explained that way.  K = dpagg's modality")
    heatmap(rows, "impr_multi_l1", "dpagg best-K multi-Gaussian, l1 = E|X| (certified, objective=l1), Δ = 1",
            os.path.join(out, "multi_l1.png"), k_col="multi_l1obj_K", outline=short("short_t1_explained"),
            outline_note=note)
    heatmap(rows, "impr_multi_l2", "dpagg best-K multi-Gaussian, l2 = E[X²] (certified, objective=l2), Δ = 1",
            os.path.join(out, "multi_l2.png"), k_col="multi_l2obj_K", outline=short("short_t4_explained"),
            outline_note=note)
    heatmap(rows, "paper_t1_multi_l1", "Paper, Table 1 as printed: best multi-Gaussian, l1 (K from Table 3)",
            os.path.join(out, "paper_multi_l1.png"), k_col="paper_t3_K", outline=unreachable("t1_unreachable"),
            outline_note="outlined: the σ this value implies (Table 3's K) violates (ε, δ)-DP "
                         "(derived_multi_gaussian_consistency.csv)")
    heatmap(rows, "paper_t4_multi_l2", "Paper, Table 4 as printed: best multi-Gaussian, l2",
            os.path.join(out, "paper_multi_l2.png"), outline=unreachable("t4_unreachable"),
            outline_note="outlined: no K in 1..20 has a σ that gives this value and satisfies (ε, δ)-DP "
                         "(dpagg's approximate profile)")


if __name__ == "__main__":
    main()
