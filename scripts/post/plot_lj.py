#!/usr/bin/env python3
"""Lennard-Jones md run: energies, temperature and pressure against time, the radial
distribution function g(r) and the speed distribution.

  energies     PE, KE and E = PE + KE per atom from the diagnostics CSV, with the drift of E
               (NVE: it should stay flat)
  T and P      temperature and pressure from the same CSV
  g(r)         from <run.name>.rdf.csv (deck: md.rdf.every > 0), averaged over the samples at
               steps >= --from-step (default: the second half of the samples); without that file
               it is computed from the last snapshot's positions (deck: output.every > 0), with
               the minimum-image distances of up to --rdf-atoms atoms to all others
  speeds       from <run.name>.speeds.csv (md.velocity_histogram.every > 0), averaged like g(r),
               against the Maxwell-Boltzmann distribution 4 pi v^2 (2 pi T)^(-3/2)
               exp(-v^2 / (2 T)) at the mean temperature of the CSV rows in the same steps
               (reduced units: m = kB = 1); the panel is left out without that file

Eddy ships no reference g(r) for this state; a quantitative comparison needs published data
at the run's density and temperature (e.g. Verlet, Phys. Rev. 165 (1968) 201)."""
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eddy_post as ep  # noqa: E402

EPILOG = """examples:
  plot_lj.py output/lj_liquid -o lj_liquid.png
  plot_lj.py output/lj_liquid --from-step 500 -o lj_liquid.png"""


def one_file(folder, suffix):
    found = sorted(glob.glob(os.path.join(folder, "*" + suffix)))
    if len(found) > 1:
        raise ep.PostError("several %s files in %s: %s" % (suffix, folder, ", ".join(found)))
    return found[0] if found else None


def histogram_mean(series, value, from_step):
    """(bin centres, mean of `value` over the samples at step >= from_step, steps used)."""
    import numpy as np
    steps = series["step"]
    chosen = sorted(set(s for s in steps if s >= from_step)) or [steps.max()]
    lo, hi = series.names[1], series.names[2]
    first = steps == chosen[0]
    centres = 0.5 * (series[lo][first] + series[hi][first])
    mean = np.mean([series[value][steps == s] for s in chosen], axis=0)
    return centres, mean, chosen


def default_from_step(series):
    steps = sorted(set(series["step"]))
    return steps[len(steps) // 2]


def rdf_from_snapshot(path, deck, atoms, bins):
    """(r, g, snapshot) from the positions of a snapshot: minimum-image distances from up to
    `atoms` atoms (every N/atoms-th row) to all others, normalised as Eddy's g(r): ordered pair
    count / (sampled atoms * (N - 1) / V * shell volume)."""
    import numpy as np
    snap = ep.open_snapshot(path)
    deck = snap.deck or deck
    if "position" not in snap.particles:
        raise ep.PostError("%s holds no particles (not an md run)" % snap.path)
    x = snap.particles["position"]
    n = len(x)
    a = (4.0 / float(ep.deck_require(deck, "md.density"))) ** (1.0 / 3.0)
    box = np.array([c * a for c in ep.deck_require(deck, "grid.cells")], dtype=float)
    r_max = min(float(ep.deck_require(deck, "md.cutoff")), 0.5 * box.min())
    edges = np.linspace(0, r_max, bins + 1)
    counts = np.zeros(bins)
    sample = x[:: max(1, n // atoms)]
    for p in sample:
        d = x - p
        d -= box * np.round(d / box)
        r = np.sqrt((d * d).sum(axis=1))
        counts += np.histogram(r[(r > 0) & (r < r_max)], bins=edges)[0]
    shell = 4.0 / 3.0 * np.pi * (edges[1:] ** 3 - edges[:-1] ** 3)
    g = counts / (len(sample) * (n - 1) / box.prod() * shell)
    return 0.5 * (edges[1:] + edges[:-1]), g, snap


def main():
    ap = ep.parser("plot_lj.py", __doc__, EPILOG)
    ap.add_argument("run", help="the run's output directory")
    ap.add_argument("--from-step", type=int, default=None,
                    help="average g(r) and speeds over the samples at steps >= this")
    ap.add_argument("--rdf-atoms", type=int, default=1000,
                    help="atoms whose neighbours make g(r) from a snapshot (default 1000)")
    args = ap.parse_args()

    import numpy as np
    folder = args.run if os.path.isdir(args.run) else os.path.dirname(args.run) or "."
    try:
        deck = ep.find_deck(folder)
    except ep.PostError:
        deck = None  # a run without snapshots or checkpoints: its CSVs are enough
    diag = ep.read_csv(ep.find_diagnostics(folder, deck))
    if "PE" not in diag:
        raise ep.PostError("%s is not an md diagnostics CSV (no PE column)" % diag.path)
    rdf_path, speeds_path = one_file(folder, ".rdf.csv"), one_file(folder, ".speeds.csv")

    plt = ep.pyplot()
    panels = 4 if speeds_path else 3
    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5))
    a_e, a_tp, a_g, a_v = axes.flat
    t = diag["time"]

    for name in ("PE", "KE", "E"):
        a_e.plot(t, diag[name], ".-", ms=3, lw=1, label=name)
    e = diag["E"]
    drift = (e[-1] - e[0]) / abs(e[0]) if e[0] != 0 else float("nan")
    a_e.set_title("E drift (last - first) / |first| = %.2g" % drift, fontsize=9)
    a_e.set_ylabel("energy per atom [%s]" % diag.unit("E"))
    a_e.set_xlabel(diag.label("time"))
    a_e.legend(fontsize=8, ncol=3)

    a_tp.plot(t, diag["T"], ".-", ms=3, lw=1, color="C3")
    a_tp.set_ylabel(diag.label("T"), color="C3")
    a_tp.set_xlabel(diag.label("time"))
    a_p = a_tp.twinx()
    a_p.plot(t, diag["P"], ".-", ms=3, lw=1, color="C0")
    a_p.set_ylabel(diag.label("P"), color="C0")
    a_tp.set_title("temperature and pressure", fontsize=9)

    if rdf_path:
        rdf = ep.read_csv(rdf_path)
        start = args.from_step if args.from_step is not None else default_from_step(rdf)
        r, g, used = histogram_mean(rdf, "g", start)
        what = "%s, mean of %d samples (steps %d-%d)" % (os.path.basename(rdf_path), len(used),
                                                         used[0], used[-1])
    else:
        if deck is None:
            raise ep.PostError("%s has no .rdf.csv and no snapshot to compute g(r) from (set "
                               "md.rdf.every or output.every in the deck)" % folder)
        r, g, snap = rdf_from_snapshot(folder, deck, args.rdf_atoms, 100)
        what = "snapshot step %d, %d atoms sampled" % (snap.step, min(args.rdf_atoms,
                                                                      len(snap.particles["id"])))
    a_g.plot(r, g, "-", lw=1.2)
    a_g.axhline(1, color="k", lw=0.5)
    a_g.set_xlabel("r [sigma]")
    a_g.set_ylabel("g(r)")
    a_g.set_title(what, fontsize=9)
    peak = int(np.argmax(g))
    print("g(r): first peak %.3g at r = %.3g sigma (%s)" % (g[peak], r[peak], what))

    if speeds_path:
        sp = ep.read_csv(speeds_path)
        start = args.from_step if args.from_step is not None else default_from_step(sp)
        v, pdf, used = histogram_mean(sp, "pdf", start)
        rows = (diag["step"] >= used[0]) & (diag["step"] <= used[-1])
        temp = float(np.mean(diag["T"][rows])) if rows.any() else float(diag["T"][-1])
        vv = np.linspace(0, v.max() + 0.5 * (v[1] - v[0]), 200)
        mb = 4 * np.pi * vv ** 2 * (2 * np.pi * temp) ** -1.5 * np.exp(-vv ** 2 / (2 * temp))
        a_v.step(v, pdf, where="mid", label="Eddy")
        a_v.plot(vv, mb, "-", color="k", lw=1, label="Maxwell-Boltzmann, T = %.3g" % temp)
        a_v.set_xlabel("speed |v| [%s]" % sp.unit(sp.names[1]))
        a_v.set_ylabel("pdf [%s]" % sp.unit("pdf"))
        a_v.set_title("%s, mean of %d samples (steps %d-%d)"
                      % (os.path.basename(speeds_path), len(used), used[0], used[-1]),
                      fontsize=9)
        a_v.legend(fontsize=8)
    else:
        a_v.set_visible(False)
    for a in axes.flat[:panels]:
        a.grid(alpha=0.3)
    name = ep.deck_get(deck, "run.name", "") if deck else os.path.basename(folder.rstrip("/"))
    atoms = ""
    if deck:
        cells = ep.deck_get(deck, "grid.cells", [])
        atoms = ", %d atoms, rho* = %s" % (4 * int(np.prod(cells)),
                                           ep.fmt(float(ep.deck_get(deck, "md.density", 0))))
    fig.suptitle("Lennard-Jones md: %s%s" % (name, atoms))
    fig.tight_layout()
    ep.save(fig, args.output, args.dpi)
    print("energy drift of E: %.3g (relative)" % drift)


if __name__ == "__main__":
    ep.main_guard("plot_lj.py", main)
