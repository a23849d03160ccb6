"""A 2D fluids run in ParaView: one field in colour with streamlines of the velocity on top.

Run with pvbatch (under `xvfb-run -a` without a display):

    xvfb-run -a pvbatch scripts/post/pv_field2d.py output/lid_driven_cavity -o cavity.png

The snapshot's cell data are interpolated to the points (Cell Data to Point Data) so that the
colours are smooth and the Stream Tracer can integrate `velocity` (the vector the index joins
from u and v). The streamlines start from an N x N grid of seed points over the domain (--seeds)
and are traced both ways."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eddy_post as ep  # noqa: E402
import eddy_pv  # noqa: E402
from paraview import simple as pv  # noqa: E402

EPILOG = """examples:
  xvfb-run -a pvbatch pv_field2d.py output/lid_driven_cavity -o cavity_streamlines.png
  xvfb-run -a pvbatch pv_field2d.py output/taylor_green_2d --field pressure --seeds 16 -o tg.png"""


def main():
    ap = eddy_pv.parser("pv_field2d.py", __doc__, EPILOG)
    ap.add_argument("--field", default="velocity",
                    help="array to colour by (default: velocity, drawn as its magnitude)")
    ap.add_argument("--seeds", type=int, default=8,
                    help="streamline seeds per axis (default 8; 0 = no streamlines)")
    args = ap.parse_args()
    pixels = eddy_pv.size(args.size)

    reader, t, name = eddy_pv.open_run(args.run, args.time)
    if args.field not in reader.CellData.keys():
        raise ep.PostError("no array '%s' in %s (it has: %s)"
                           % (args.field, name, ", ".join(reader.CellData.keys())))
    if "velocity" not in reader.CellData.keys() and args.seeds > 0:
        raise ep.PostError("%s has no velocity vector (not a fluids run?): use --seeds 0"
                           % name)
    x0, x1, y0, y1, z0, z1 = reader.GetDataInformation().GetBounds()
    if z1 - z0 > 1e-12:
        raise ep.PostError("%s is 3D: use pv_q_criterion.py" % name)

    points = pv.CellDatatoPointData(Input=reader)
    v = eddy_pv.view(t, pixels)
    field = pv.Show(points, v)
    field.SetRepresentationType("Surface")
    vector = reader.CellData[args.field].GetNumberOfComponents() > 1
    eddy_pv.colour(field, v, points, args.field, vector)

    if args.seeds > 0:
        # Seeds inset by half a seed spacing so that none lies on a wall.
        dx, dy = (x1 - x0) / args.seeds, (y1 - y0) / args.seeds
        seeds = pv.Plane(Origin=[x0 + dx / 2, y0 + dy / 2, z0],
                         Point1=[x1 - dx / 2, y0 + dy / 2, z0],
                         Point2=[x0 + dx / 2, y1 - dy / 2, z0],
                         XResolution=args.seeds - 1 if args.seeds > 1 else 1,
                         YResolution=args.seeds - 1 if args.seeds > 1 else 1)
        lines = pv.StreamTracerWithCustomSource(Input=points, SeedSource=seeds)
        lines.Vectors = ["POINTS", "velocity"]
        lines.IntegrationDirection = "BOTH"
        # Long enough for one turn along the walls, short enough that a closed streamline is
        # not drawn over itself many times.
        lines.MaximumStreamlineLength = 2 * (x1 - x0 + y1 - y0)
        shown = pv.Show(lines, v)
        pv.ColorBy(shown, None)
        shown.AmbientColor = shown.DiffuseColor = [1, 1, 1]
        shown.LineWidth = 1.0

    v.CameraPosition = [(x0 + x1) / 2, (y0 + y1) / 2, 10 * max(x1 - x0, y1 - y0)]
    v.CameraFocalPoint = [(x0 + x1) / 2, (y0 + y1) / 2, 0]
    v.CameraViewUp = [0, 1, 0]
    v.CameraParallelProjection = 1
    # Half the visible height: the domain with a margin for the title and the colour bar.
    v.CameraParallelScale = 0.55 * max(y1 - y0, (x1 - x0) * pixels[1] / pixels[0] * 1.2)
    eddy_pv.title(v, "%s  t = %.4g  %s%s" % (name, t, args.field,
                                             " magnitude" if vector else ""))
    eddy_pv.save(v, args.output, pixels)


if __name__ == "__main__":
    eddy_pv.guard("pv_field2d.py", main)
