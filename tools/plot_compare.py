#!/usr/bin/env python3
"""One figure comparing every mechanism's l1 and l2 on the paper grid (from mechanisms.csv):
for each delta column of the grid, cells ordered by epsilon; y = loss / analytic Gaussian loss."""
import csv
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = list(csv.DictReader(open(sys.argv[1])))
cells = sorted({(float(r["epsilon"]), float(r["delta"])) for r in rows})
def base(spec):
    return spec.split("(")[0]
loss = {}
for r in rows:
    if r["ok"] != "1":
        continue
    key = (float(r["epsilon"]), float(r["delta"]))
    spec = r["spec"]
    name = base(spec)
    if "objective=l1" in spec:
        loss.setdefault((name, "l1"), {})[key] = float(r["l1"])
    elif "objective=l2" in spec:
        loss.setdefault((name, "l2"), {})[key] = float(r["l2"])
    else:
        loss.setdefault((name, "l1"), {})[key] = float(r["l1"])
        loss.setdefault((name, "l2"), {})[key] = float(r["l2"])
names = sorted({n for n, _ in loss})
fig, axes = plt.subplots(1, 2, figsize=(16, 7), sharey=True)
order = sorted(cells, key=lambda c: (c[1], c[0]))
x = list(range(len(order)))
for ax, which in zip(axes, ["l1", "l2"]):
    ag = loss.get(("analytic_gaussian", which), {})
    for n in names:
        d = loss.get((n, which), {})
        ys = [d[c] / ag[c] if c in d and c in ag and ag[c] > 0 else float("nan") for c in order]
        style = "-" if n in ("multi_gaussian", "auto", "quasi_gaussian", "laplace") else ":"
        ax.plot(x, ys, style, label=n, linewidth=1.6 if style == "-" else 1.0)
    ax.set_yscale("log")
    ax.set_title(f"{which}: loss / analytic Gaussian loss")
    ax.set_xlabel("cells: delta blocks (5e-7 ... 0.25), epsilon 0.1 ... 10 within each")
    ax.axhline(1.0, color="grey", linewidth=0.5)
    ax.grid(True, which="both", linewidth=0.2)
axes[0].legend(fontsize=8, loc="lower left")
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
print("wrote", sys.argv[2])
