#!/usr/bin/env python3
"""Plots every column of an Eddy diagnostics CSV against the step or the time, one panel per
column, labelled with the units of the header. Columns whose values are never negative and whose
positive values span more than three decades (residuals, divergence) get a logarithmic axis, on
which zeros are not drawn."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eddy_post as ep  # noqa: E402

EPILOG = """examples:
  plot_diagnostics.py output/lid_driven_cavity -o cavity_diagnostics.png
  plot_diagnostics.py output/lj_liquid/diagnostics.csv --x time -o lj.png
  plot_diagnostics.py output/run --columns KE,enstrophy -o energy.png"""


def main():
    ap = ep.parser("plot_diagnostics.py", __doc__, EPILOG)
    ap.add_argument("run", help="the run's output directory or its diagnostics CSV")
    ap.add_argument("--x", choices=["step", "time"], default="step",
                    help="horizontal axis: the step (default) or the simulation time")
    ap.add_argument("--columns", default="",
                    help="comma-separated columns to plot (default: every column)")
    args = ap.parse_args()

    deck = None
    if os.path.isdir(args.run):
        try:
            deck = ep.find_deck(args.run)
        except ep.PostError:
            pass  # diagnostics.csv is the default name; a deck is only needed for another
    series = ep.read_csv(ep.find_diagnostics(args.run, deck))
    xname = "step" if args.x == "step" else series.time_column()
    if xname is None or xname not in series:
        raise ep.PostError("%s has no %s column" % (series.path, args.x))
    names = [n for n in args.columns.split(",") if n] or \
        [n for n in series.names if n not in ("step", "t", "time")]
    for n in names:
        series[n]  # raises for a name the file does not have

    plt = ep.pyplot()
    cols = 2 if len(names) > 3 else 1
    rows = math.ceil(len(names) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(6.5 * cols, 2.1 * rows + 0.8), sharex=True,
                             squeeze=False)
    x = series[xname]
    for ax, name in zip(axes.flat, names):
        y = series[name]
        ax.plot(x, y, ".-", ms=3, lw=1)
        ax.set_ylabel(series.label(name))
        positive = y[y > 0]
        if (y >= 0).all() and len(positive) > 1 and positive.max() > 1e3 * positive.min():
            ax.set_yscale("log")
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(names):]:
        ax.set_visible(False)
    for c in range(cols):  # the last visible panel of a column carries its x label
        col = [ax for ax in axes[:, c] if ax.get_visible()]
        if col:
            col[-1].set_xlabel(series.label(xname))
            col[-1].xaxis.set_tick_params(labelbottom=True)
    title = series.path
    if deck is not None:
        title = "%s: %s" % (ep.deck_get(deck, "run.name", ""), title)
    fig.suptitle(title)
    fig.tight_layout()
    ep.save(fig, args.output, args.dpi)


if __name__ == "__main__":
    ep.main_guard("plot_diagnostics.py", main)
