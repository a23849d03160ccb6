#!/usr/bin/env python3
"""2D Taylor-Green vortex: the kinetic energy of the diagnostics CSV (KE, the domain mean of
|u|^2 / 2) against the exact decay of the Navier-Stokes solution.

Eddy's initial state (fluids.initial: taylor_green) is u = U sin(kx x) cos(ky y),
v = -U (kx/ky) cos(kx x) sin(ky y) with kx = 2 pi / Lx, ky = 2 pi / Ly. It decays without
changing shape, so

    KE(t) = U^2 (1 + (kx/ky)^2) / 8 * exp(-2 nu (kx^2 + ky^2) t),

i.e. exp(-4 nu k^2 t) on a square. nu (fluids.viscosity), U (fluids.velocity_scale) and the box
(grid.length) are read from the deck stored in the run's snapshots or checkpoints (or --deck).
Top: both curves; bottom: the relative error KE / KE_exact - 1, which is second order in the
cell size. With --tolerance the script fails (status 1) when the largest |relative error|
exceeds it."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eddy_post as ep  # noqa: E402

EPILOG = """examples:
  plot_taylor_green_2d.py output/taylor_green_2d -o tg2d_energy.png
  plot_taylor_green_2d.py output/taylor_green_2d/diagnostics.csv \\
      --deck inputs/taylor_green_2d.yaml -o tg2d_energy.png"""


def exact_energy(deck):
    """(KE(t) as a function, a description) from the deck's parameters."""
    import numpy as np
    if ep.deck_get(deck, "fluids.initial") != "taylor_green":
        raise ep.PostError("the run does not start from the Taylor-Green vortex "
                           "(fluids.initial is %s)" % ep.deck_get(deck, "fluids.initial"))
    if len(ep.deck_require(deck, "grid.cells")) != 2:
        raise ep.PostError("the run is not 2D (grid.cells has %d entries): for 3D use "
                           "plot_taylor_green_3d.py" % len(deck["grid"]["cells"]))
    if ep.deck_get(deck, "grid.periodic") != [True, True]:
        raise ep.PostError("the exact solution needs a periodic box (grid.periodic is %s)"
                           % ep.deck_get(deck, "grid.periodic"))
    if any(float(f) != 0 for f in ep.deck_get(deck, "fluids.body_force", [])):
        raise ep.PostError("the run has a body force: the Taylor-Green decay does not apply")
    nu = float(ep.deck_require(deck, "fluids.viscosity"))
    u0 = float(ep.deck_get(deck, "fluids.velocity_scale", 1.0))
    lx, ly = (float(x) for x in ep.deck_require(deck, "grid.length"))
    kx, ky = 2 * np.pi / lx, 2 * np.pi / ly
    e0 = u0 ** 2 * (1 + (kx / ky) ** 2) / 8
    rate = 2 * nu * (kx ** 2 + ky ** 2)
    text = "nu = %s, U = %s, box %s x %s" % (ep.fmt(nu), ep.fmt(u0), ep.fmt(lx), ep.fmt(ly))
    return (lambda t: e0 * np.exp(-rate * t)), text


def main():
    ap = ep.parser("plot_taylor_green_2d.py", __doc__, EPILOG)
    ap.add_argument("run", help="the run's output directory or its diagnostics CSV")
    ap.add_argument("--deck", help="the run's deck (default: the deck stored in its snapshots "
                    "or checkpoints)")
    ap.add_argument("--tolerance", type=float, default=None,
                    help="fail when max |KE / KE_exact - 1| exceeds this")
    args = ap.parse_args()

    import numpy as np
    deck = ep.find_deck(args.run, args.deck)
    series = ep.read_csv(ep.find_diagnostics(args.run, deck))
    t, ke = series["t"], series["KE"]
    exact, params = exact_energy(deck)
    err = ke / exact(t) - 1
    worst = float(np.max(np.abs(err)))

    plt = ep.pyplot()
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(7, 6), sharex=True,
                                 gridspec_kw={"height_ratios": [2, 1]})
    tt = np.linspace(0, t.max(), 200)
    a1.plot(tt, exact(tt), "-", color="k", lw=1, label=r"exact: $KE_0\, e^{-2 \nu |k|^2 t}$")
    a1.plot(t, ke, "o", ms=4, mfc="none", label="Eddy")
    a1.set_ylabel(series.label("KE"))
    a1.legend()
    a2.plot(t, err, ".-")
    a2.axhline(0, color="k", lw=0.5)
    a2.set_ylabel("KE / KE_exact - 1")
    a2.set_xlabel(series.label("t"))
    for a in (a1, a2):
        a.grid(alpha=0.3)
    cells = ep.deck_require(deck, "grid.cells")
    fig.suptitle("2D Taylor-Green vortex, %d x %d cells, %s\nlargest relative error %.3g"
                 % (cells[0], cells[1], params, worst))
    fig.tight_layout()
    ep.save(fig, args.output, args.dpi)
    print("largest relative error of KE: %.4g (%s)" % (worst, params))
    if args.tolerance is not None and not worst <= args.tolerance:
        print("plot_taylor_green_2d.py: FAIL: largest relative error %.4g exceeds %g"
              % (worst, args.tolerance), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    ep.main_guard("plot_taylor_green_2d.py", main)
