#!/usr/bin/env python3
"""Lid-driven cavity: the centre-line velocity profiles of a snapshot against Ghia, Ghia & Shin,
J. Comput. Phys. 48 (1982) 387-411, Tables I and II (tests/data/ghia1982_cavity.csv).

Left: u(x = L/2, y) along the vertical centre line; right: v(x, y = L/2) along the horizontal
one, both divided by the lid speed U, with the coordinates divided by the cavity size L. The
values are the snapshot's cell-centred velocities, linearly interpolated to the centre line,
with the wall values (0, and U at the lid) at the ends. Re = U L / nu comes from the deck stored
in the snapshot (fluids.viscosity, fluids.wall_velocity.y_high, grid.length); Ghia's data exist
for Re = 100 and 400 (this file), and the reference is drawn when the run's Re is within 1% of
one of them. The RMS difference at Ghia's points is printed and shown. Compare a steady state:
the shipped decks reach it by t ~ 12 (Re 100) and t ~ 30 (Re 400)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eddy_post as ep  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GHIA = os.path.join(ROOT, "tests", "data", "ghia1982_cavity.csv")

EPILOG = """examples:
  plot_cavity.py output/lid_driven_cavity -o cavity_ghia.png
  plot_cavity.py output/lid_driven_cavity/lid_driven_cavity_008000.h5 -o cavity_ghia.png"""


def ghia(path, re):
    """{line: (coord, value)} of the reference at the Re within 1% of `re`, or None."""
    import numpy as np
    rows = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or line.startswith("Re,"):
                continue
            r, name, coord, value = line.strip().split(",")
            rows.setdefault(float(r), {}).setdefault(name, []).append((float(coord),
                                                                      float(value)))
    best = min(rows, key=lambda r: abs(r - re))
    if abs(best - re) > 0.01 * best:
        return None, sorted(rows)
    return {k: np.array(sorted(v)).T for k, v in rows[best].items()}, sorted(rows)


def centre_line(snap, lid, size):
    """(y/L, u/U) along x = L/2 and (x/L, v/U) along y = L/2, walls included."""
    import numpy as np
    x, y = snap.centres(0), snap.centres(1)
    u, v = snap.field("u")[0], snap.field("v")[0]  # (ny, nx)
    x0, y0 = snap.origin[0], snap.origin[1]
    xm, ym = x0 + 0.5 * size[0], y0 + 0.5 * size[1]
    u_mid = np.array([np.interp(xm, x, row) for row in u])
    v_mid = np.array([np.interp(ym, y, col) for col in v.T])
    ys = np.concatenate([[0.0], (y - y0) / size[1], [1.0]])
    us = np.concatenate([[0.0], u_mid / lid, [1.0]])
    xs = np.concatenate([[0.0], (x - x0) / size[0], [1.0]])
    vs = np.concatenate([[0.0], v_mid / lid, [0.0]])
    return ys, us, xs, vs


def main():
    ap = ep.parser("plot_cavity.py", __doc__, EPILOG)
    ap.add_argument("run", help="the run's output directory, its .xmf, or one snapshot (.h5)")
    ap.add_argument("--time", type=float, default=None,
                    help="use the snapshot nearest this time (default: the last one)")
    ap.add_argument("--reference", default=GHIA,
                    help="reference CSV (Re,line,coord,value; default: %(default)s)")
    args = ap.parse_args()

    import numpy as np
    snap = ep.open_snapshot(args.run, args.time)
    deck = snap.deck or ep.find_deck(args.run)
    if len(ep.deck_require(deck, "grid.cells")) != 2 or "u" not in snap.fields:
        raise ep.PostError("%s is not a 2D fluids run (expected the fields u, v on a 2D grid)"
                           % snap.path)
    nu = float(ep.deck_require(deck, "fluids.viscosity"))
    lid = float(ep.deck_get(deck, "fluids.wall_velocity.y_high", [1.0, 0.0])[0])
    if ep.deck_get(deck, "fluids.boundary.y_high") != "moving_wall" or lid == 0:
        raise ep.PostError("%s has no moving lid (fluids.boundary.y_high: moving_wall with a "
                           "nonzero fluids.wall_velocity.y_high)" % snap.path)
    size = [float(s) for s in ep.deck_require(deck, "grid.length")]
    re = abs(lid) * size[0] / nu
    ref, available = ghia(args.reference, re)

    ys, us, xs, vs = centre_line(snap, lid, size)
    plt = ep.pyplot()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4.6))
    a1.plot(us, ys, "-", lw=1.5, label="Eddy")
    a2.plot(xs, vs, "-", lw=1.5, label="Eddy")
    note = ""
    if ref is not None:
        ry, ru = ref["u_vertical"]
        rx, rv = ref["v_horizontal"]
        a1.plot(ru, ry, "o", mfc="none", color="k", label="Ghia et al. 1982")
        a2.plot(rx, rv, "o", mfc="none", color="k", label="Ghia et al. 1982")
        rms_u = float(np.sqrt(np.mean((np.interp(ry, ys, us) - ru) ** 2)))
        rms_v = float(np.sqrt(np.mean((np.interp(rx, xs, vs) - rv) ** 2)))
        a1.set_title("RMS difference %.3g" % rms_u, fontsize=9)
        a2.set_title("RMS difference %.3g" % rms_v, fontsize=9)
        print("Re %s: RMS difference to Ghia et al.: u %.4g, v %.4g (in units of U)"
              % (ep.fmt(re), rms_u, rms_v))
    else:
        note = " (no reference: Ghia data for Re %s)" % ", ".join(ep.fmt(r) for r in available)
        print("Re %s: no reference data%s" % (ep.fmt(re), note))
    a1.set_xlabel("u / U at x = L/2")
    a1.set_ylabel("y / L")
    a2.set_xlabel("x / L")
    a2.set_ylabel("v / U at y = L/2")
    for a in (a1, a2):
        a.grid(alpha=0.3)
        a.legend(loc="best", fontsize=9)
    nx, ny = snap.fields["u"].shape[2], snap.fields["u"].shape[1]
    unit = "" if snap.time_units in ("", "1") else " [%s]" % snap.time_units
    fig.suptitle("Lid-driven cavity, Re = %s, %d x %d cells, t = %s%s%s"
                 % (ep.fmt(re), nx, ny, ep.fmt(snap.time), unit, note))
    fig.tight_layout()
    ep.save(fig, args.output, args.dpi)


if __name__ == "__main__":
    ep.main_guard("plot_cavity.py", main)
