"""A 3D fluids run in ParaView: a slice coloured by one field, and iso-surfaces of the
Q-criterion (Q = (|Omega|^2 - |S|^2) / 2 > 0 where rotation beats strain: vortex cores).

Run with pvbatch (under `xvfb-run -a` without a display):

    xvfb-run -a pvbatch scripts/post/pv_q_criterion.py output/taylor_green_3d -o tg3d_q.png

The cell data are interpolated to the points (Cell Data to Point Data); ParaView's Gradient
filter computes Q from `velocity` (the vector the index joins from u, v, w). The iso-surface is
drawn at --q, or by default at --q-fraction of the largest Q at that time, and coloured by the
velocity magnitude. The slice is normal to z through the domain's centre (--slice-z to move
it), with an outline of the domain."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eddy_post as ep  # noqa: E402
import eddy_pv  # noqa: E402
from paraview import simple as pv  # noqa: E402

EPILOG = """examples:
  xvfb-run -a pvbatch pv_q_criterion.py output/taylor_green_3d -o tg3d_q.png
  xvfb-run -a pvbatch pv_q_criterion.py output/taylor_green_3d --q 0.5 --field pressure -o q.png"""


def main():
    ap = eddy_pv.parser("pv_q_criterion.py", __doc__, EPILOG)
    ap.add_argument("--q", type=float, default=None, help="Q of the iso-surface")
    ap.add_argument("--q-fraction", type=float, default=0.25,
                    help="without --q: the iso-surface at this fraction of the largest Q "
                    "(default %(default)s)")
    ap.add_argument("--field", default="pressure",
                    help="array that colours the slice (default: pressure; velocity = its "
                    "magnitude)")
    ap.add_argument("--slice-z", type=float, default=None,
                    help="z of the slice (default: the domain's centre)")
    args = ap.parse_args()
    pixels = eddy_pv.size(args.size)

    reader, t, name = eddy_pv.open_run(args.run, args.time)
    arrays = reader.CellData.keys()
    if "velocity" not in arrays:
        raise ep.PostError("%s has no velocity vector (not a fluids run?)" % name)
    if args.field not in arrays:
        raise ep.PostError("no array '%s' in %s (it has: %s)"
                           % (args.field, name, ", ".join(arrays)))
    x0, x1, y0, y1, z0, z1 = reader.GetDataInformation().GetBounds()
    if z1 - z0 <= 1e-12:
        raise ep.PostError("%s is 2D: use pv_field2d.py" % name)

    points = pv.CellDatatoPointData(Input=reader)
    grad = pv.Gradient(Input=points)
    grad.ScalarArray = ["POINTS", "velocity"]
    grad.ComputeGradient = 0
    grad.ComputeQCriterion = 1
    grad.QCriterionArrayName = "Q"
    grad.UpdatePipeline(t)
    q_lo, q_hi = grad.PointData["Q"].GetRange()
    level = args.q if args.q is not None else args.q_fraction * q_hi
    if not q_lo <= level <= q_hi:
        raise ep.PostError("Q = %g is outside the range of Q at t = %g: [%g, %g]"
                           % (level, t, q_lo, q_hi))
    print("Q at t = %g: [%g, %g]; iso-surface at %g" % (t, q_lo, q_hi, level))

    v = eddy_pv.view(t, pixels)
    outline = pv.Show(pv.Outline(Input=reader), v)
    outline.AmbientColor = outline.DiffuseColor = [0, 0, 0]

    cut = pv.Slice(Input=points)
    cut.SliceType = "Plane"
    cut.SliceType.Origin = [(x0 + x1) / 2, (y0 + y1) / 2,
                            (z0 + z1) / 2 if args.slice_z is None else args.slice_z]
    cut.SliceType.Normal = [0, 0, 1]
    sliced = pv.Show(cut, v)
    vector = reader.CellData[args.field].GetNumberOfComponents() > 1
    eddy_pv.colour(sliced, v, cut, args.field, vector, cmap="Cool to Warm")

    iso = pv.Contour(Input=grad)
    iso.ContourBy = ["POINTS", "Q"]
    iso.Isosurfaces = [level]
    iso.ComputeScalars = 0
    surface = pv.Show(iso, v)
    surface.Opacity = 0.8
    eddy_pv.colour(surface, v, iso, "velocity", True)

    v.CameraPosition = [x1 + 1.6 * (x1 - x0), y0 - 1.9 * (y1 - y0), z1 + 1.5 * (z1 - z0)]
    v.CameraFocalPoint = [(x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2]
    v.CameraViewUp = [0, 0, 1]
    pv.ResetCamera(v)
    eddy_pv.title(v, "%s  t = %.4g  Q = %.3g, slice: %s%s"
                  % (name, t, level, args.field, " magnitude" if vector else ""))
    eddy_pv.save(v, args.output, pixels)


if __name__ == "__main__":
    eddy_pv.guard("pv_q_criterion.py", main)
