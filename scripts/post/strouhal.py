#!/usr/bin/env python3
"""The Strouhal number St = f L / U of each body's lift in an Eddy run, from its diagnostics CSV
(the columns <body>_cl): f is the lift's frequency over the second half of the record, the
number of periods between the first and the last upward crossing of its mean over the time
between them (the run's final line computes it the same way). L and U are the body's
reference_length (or its diameter, or its size along y) and reference_speed, read from the
deck the run stored in its snapshots and checkpoints. Also prints the maxima of the drag and
lift coefficients over that half. Needs numpy, as the other scripts."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eddy_post as ep  # noqa: E402

EPILOG = """examples:
  strouhal.py output/cylinder_2d
  strouhal.py output/cylinder_2d/diagnostics.csv --length 0.1 --speed 1"""


def frequency(times, values):
    """(frequency, periods) of the samples' second half; (0, 0) with fewer than 2 crossings."""
    first = len(values) // 2
    if len(values) - first < 3:
        return 0.0, 0
    mean = sum(values[first:]) / (len(values) - first)
    crossings = []
    for s in range(first + 1, len(values)):
        a, b = values[s - 1] - mean, values[s] - mean
        if a < 0 <= b:
            crossings.append(times[s - 1] + (times[s] - times[s - 1]) * (-a / (b - a)))
    if len(crossings) < 2 or not crossings[-1] > crossings[0]:
        return 0.0, 0
    return (len(crossings) - 1) / (crossings[-1] - crossings[0]), len(crossings) - 1


def body_scales(deck, name):
    """(L, U) of body `name` as the run took them."""
    key = "fluids.bodies." + name
    speed = float(ep.deck_get(deck, key + ".reference_speed", 1.0))
    length = float(ep.deck_get(deck, key + ".reference_length", 0.0))
    if length <= 0:
        shape = ep.deck_get(deck, key + ".shape", "circle")
        if shape in ("circle", "sphere", "cylinder"):
            length = 2 * float(ep.deck_require(deck, key + ".radius"))
        else:
            length = float(ep.deck_require(deck, key + ".size")[1])
    return length, speed


def main():
    ap = argparse.ArgumentParser(prog="strouhal.py", description=__doc__, epilog=EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output", metavar="PNG", default="",
                    help="also plot each body's drag and lift coefficients against time (PNG)")
    ap.add_argument("run", help="the run's output directory or its diagnostics CSV")
    ap.add_argument("--length", type=float, default=0.0,
                    help="L of St (default: the body's, from the run's deck)")
    ap.add_argument("--speed", type=float, default=0.0,
                    help="U of St (default: the body's reference_speed, from the run's deck)")
    args = ap.parse_args()
    deck = None
    try:
        deck = ep.find_deck(args.run)
    except ep.PostError:
        if not (args.length > 0 and args.speed > 0):
            raise
    series = ep.read_csv(ep.find_diagnostics(args.run, deck))
    time = series.time_column()
    if time is None:
        raise ep.PostError("%s has no time column" % series.path)
    bodies = [n[:-3] for n in series.names if n.endswith("_cl")]
    if not bodies:
        raise ep.PostError("%s has no <body>_cl column: the run has no bodies" % series.path)
    t = series[time]
    if args.output:
        plt = ep.pyplot()
        fig, axes = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
        for name in bodies:
            axes[0].plot(t, series[name + "_cd"], label=name)
            axes[1].plot(t, series[name + "_cl"], label=name)
        axes[0].set_ylabel("c_D")
        axes[1].set_ylabel("c_L")
        axes[1].set_xlabel("t [T]")
        axes[0].legend()
        ep.save(fig, args.output, 100)
    for name in bodies:
        length, speed = (args.length, args.speed) if args.length > 0 and args.speed > 0 \
            else body_scales(deck, name)
        lift, drag = series[name + "_cl"], series[name + "_cd"]
        f, periods = frequency(t, lift)
        half = len(lift) // 2
        if periods < 3:
            print("%s: St - (no periodic lift: %d period(s) in t %s to %s)"
                  % (name, periods, ep.fmt(t[half]), ep.fmt(t[-1])))
            continue
        print("%s: St %s (f %s over %d periods in t %s to %s; L %s, U %s), c_D max %s, "
              "c_L max %s" % (name, ep.fmt(f * length / speed), ep.fmt(f), periods,
                              ep.fmt(t[half]), ep.fmt(t[-1]), ep.fmt(length), ep.fmt(speed),
                              ep.fmt(max(drag[half:])), ep.fmt(max(lift[half:]))))


if __name__ == "__main__":
    ep.main_guard("strouhal.py", main)
