"""Opens an Eddy run's XDMF time series in ParaView (pvbatch) and checks what a user would see.

    pvbatch check_run.py RUN.xmf --arrays pressure,u,v --steps 4 --png out.png
        [--particles N] [--range NAME:LO:HI ...] [--bounds XLO:XHI:YLO:YHI:ZLO:ZHI]
        [--vectors velocity,...]

Checks: the file opens with ParaView's XDMF 3 reader; it has --steps time steps; every array in
--arrays exists as cell data (grids) or point data (particles) at every time step, with finite
values; --range NAME:LO:HI bounds an array's values at every step; --particles N is the number
of points of a particle run; --bounds checks where the data sits (a 2D run must lie in the x-y
plane); --vectors names arrays that must be 3-component vectors. Renders the last step (colored
by the first array) to --png.
Exits non-zero with a message on the first failed check.
"""
import argparse
import math
import sys

from paraview import simple as pv


def fail(msg):
    print("check_run: FAIL: " + msg)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("xmf")
    ap.add_argument("--arrays", required=True)
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--png", required=True)
    ap.add_argument("--particles", type=int, default=-1)
    ap.add_argument("--range", action="append", default=[])
    ap.add_argument("--vectors", default="", help="arrays that must have 3 components")
    ap.add_argument("--bounds", default="",
                    help="XLO:XHI:YLO:YHI:ZLO:ZHI expected data bounds (within 1e-9)")
    args = ap.parse_args()

    names = [a for a in args.arrays.split(",") if a]
    bounds = {}
    for r in args.range:
        name, lo, hi = r.split(":")
        bounds[name] = (float(lo), float(hi))

    reader = pv.XDMFReader(registrationName="run", FileNames=[args.xmf])
    times = list(reader.TimestepValues) if reader.TimestepValues is not None else []
    if isinstance(reader.TimestepValues, float):
        times = [reader.TimestepValues]
    if len(times) != args.steps:
        fail("%s has %d time steps, expected %d" % (args.xmf, len(times), args.steps))

    for t in times:
        reader.UpdatePipeline(t)
        info = reader.GetDataInformation()
        cells = reader.CellData if args.particles < 0 else reader.PointData
        for name in names:
            if name not in cells.keys():
                fail("array '%s' missing at t=%g; have %s" % (name, t, list(cells.keys())))
            for c in range(cells[name].GetNumberOfComponents()):
                lo, hi = cells[name].GetRange(c)
                if not (math.isfinite(lo) and math.isfinite(hi)):
                    fail("array '%s' has non-finite values at t=%g" % (name, t))
                if name in bounds:
                    blo, bhi = bounds[name]
                    if lo < blo or hi > bhi:
                        fail("array '%s' range [%g, %g] at t=%g is outside [%g, %g]"
                             % (name, lo, hi, t, blo, bhi))
        for name in [v for v in args.vectors.split(",") if v]:
            if name not in cells.keys() or cells[name].GetNumberOfComponents() != 3:
                fail("'%s' is not a 3-component vector at t=%g; have %s" % (
                    name, t, [(k, cells[k].GetNumberOfComponents()) for k in cells.keys()]))
        if args.bounds:
            want = [float(x) for x in args.bounds.split(":")]
            got = info.GetBounds()
            if any(abs(a - b) > 1e-9 for a, b in zip(want, got)):
                fail("bounds %s at t=%g, expected %s" % (got, t, want))
        if args.particles >= 0 and info.GetNumberOfPoints() != args.particles:
            fail("%d points at t=%g, expected %d" % (info.GetNumberOfPoints(), t,
                                                      args.particles))
        print("check_run: t=%g ok (%d cells, %d points)" % (t, info.GetNumberOfCells(),
                                                          info.GetNumberOfPoints()))

    view = pv.GetActiveViewOrCreate("RenderView")
    view.ViewSize = [640, 480]
    view.ViewTime = times[-1]
    display = pv.Show(reader, view)
    if args.particles < 0:
        display.SetRepresentationType("Surface")
        pv.ColorBy(display, ("CELLS", names[0]))
    else:
        display.SetRepresentationType("Points")
        display.PointSize = 2
        pv.ColorBy(display, ("POINTS", names[0]))
    display.RescaleTransferFunctionToDataRange(True, False)
    display.SetScalarBarVisibility(view, True)
    view.CameraPosition = [1, -2, 1.5]
    view.CameraViewUp = [0, 0, 1]
    pv.ResetCamera(view)
    pv.SaveScreenshot(args.png, view, ImageResolution=[640, 480])
    print("check_run: %d steps, arrays %s: ok; picture %s" % (len(times), ",".join(names),
                                                             args.png))


if __name__ == "__main__":
    main()
