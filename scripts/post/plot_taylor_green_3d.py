#!/usr/bin/env python3
"""3D Taylor-Green vortex: kinetic energy and its dissipation rate from the diagnostics CSV.

Top: KE(t), the domain mean of |u|^2 / 2. Bottom: the dissipation rate two ways,
-dKE/dt (central differences of the CSV's rows) and 2 nu * enstrophy (enstrophy = the mean of
|omega|^2 / 2, so this is the viscous dissipation the grid resolves, exact for a periodic
incompressible flow); their difference is what the discretisation dissipates. nu comes from
the deck stored in the run's files (or --deck).

Eddy ships no reference data for this flow. The classic one is the dissipation rate of the
spectral DNS at Re = 1600 (Brachet et al., J. Fluid Mech. 130 (1983) 411-452; van Rees et al.,
J. Comput. Phys. 230 (2011) 2794-2805), peaking near t = 9 on the [0, 2 pi]^3 box of
inputs/taylor_green_3d.yaml. Give it with --reference FILE (a CSV with columns t and
epsilon, lines starting with # ignored) and it is drawn in the bottom panel."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eddy_post as ep  # noqa: E402

EPILOG = """examples:
  plot_taylor_green_3d.py output/taylor_green_3d -o tg3d_dissipation.png
  plot_taylor_green_3d.py output/taylor_green_3d --reference brachet_re1600.csv -o tg3d.png"""


def read_reference(path):
    """(t, epsilon) of a CSV with those column names (units in brackets allowed)."""
    series = ep.read_csv(path)
    return series["t"], series["epsilon"]


def main():
    ap = ep.parser("plot_taylor_green_3d.py", __doc__, EPILOG)
    ap.add_argument("run", help="the run's output directory or its diagnostics CSV")
    ap.add_argument("--deck", help="the run's deck (default: the deck stored in its snapshots "
                    "or checkpoints)")
    ap.add_argument("--reference", help="reference dissipation rate: CSV with columns t, "
                    "epsilon")
    args = ap.parse_args()

    import numpy as np
    deck = ep.find_deck(args.run, args.deck)
    if len(ep.deck_require(deck, "grid.cells")) != 3:
        raise ep.PostError("the run is not 3D (grid.cells has %d entries): for 2D use "
                           "plot_taylor_green_2d.py" % len(deck["grid"]["cells"]))
    series = ep.read_csv(ep.find_diagnostics(args.run, deck))
    t, ke, ens = series["t"], series["KE"], series["enstrophy"]
    if len(t) < 3:
        raise ep.PostError("%s has %d rows; -dKE/dt needs at least 3" % (series.path, len(t)))
    nu = float(ep.deck_require(deck, "fluids.viscosity"))
    eps_energy = -np.gradient(ke, t)
    eps_resolved = 2 * nu * ens

    plt = ep.pyplot()
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(7, 6.4), sharex=True)
    a1.plot(t, ke, ".-")
    a1.set_ylabel(series.label("KE"))
    a2.plot(t, eps_energy, ".-", label="-dKE/dt")
    a2.plot(t, eps_resolved, "--", label=r"2 $\nu$ enstrophy")
    if args.reference:
        rt, reps = read_reference(args.reference)
        a2.plot(rt, reps, "-", color="k", lw=1, label=os.path.basename(args.reference))
        source = "reference: %s" % os.path.basename(args.reference)
    else:
        source = "no reference data given (--reference): the run's own rates"
    unit = series.unit("KE") + "/" + series.unit("t")
    unit = {"L^2/T^2/T": "L^2/T^3", "m^2/s^2/s": "m^2/s^3"}.get(unit, unit)
    a2.set_ylabel("dissipation rate [%s]" % unit)
    a2.set_xlabel(series.label("t"))
    a2.legend()
    for a in (a1, a2):
        a.grid(alpha=0.3)
    cells = ep.deck_require(deck, "grid.cells")
    re = float(ep.deck_get(deck, "fluids.velocity_scale", 1.0)) \
        * float(ep.deck_require(deck, "grid.length")[0]) / (2 * np.pi) / nu
    fig.suptitle("3D Taylor-Green vortex, %s cells, Re = U/(k nu) = %s\n%s"
                 % (" x ".join(str(c) for c in cells), ep.fmt(re), source), fontsize=11)
    fig.tight_layout()
    ep.save(fig, args.output, args.dpi)
    peak = int(np.argmax(eps_energy))
    print("dissipation -dKE/dt peaks at t = %s: %s (2 nu enstrophy there: %s)"
          % (ep.fmt(t[peak]), ep.fmt(eps_energy[peak]), ep.fmt(eps_resolved[peak])))


if __name__ == "__main__":
    ep.main_guard("plot_taylor_green_3d.py", main)
