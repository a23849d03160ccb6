"""An md run in ParaView: the atoms of a snapshot as spheres coloured by their speed |v|.

Run with pvbatch (under `xvfb-run -a` without a display):

    xvfb-run -a pvbatch scripts/post/pv_particles.py output/lj_liquid -o lj_atoms.png

The speed is computed from the `velocity` point array (a Calculator); the atoms are drawn with
the Point Gaussian representation as spheres of radius --radius (in sigma; the default 0.35
keeps neighbours at the LJ contact distance apart), inside an outline of their bounding box.
--clip-x keeps only the atoms with x below that value, to look inside a large box."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eddy_post as ep  # noqa: E402
import eddy_pv  # noqa: E402
from paraview import simple as pv  # noqa: E402

EPILOG = """examples:
  xvfb-run -a pvbatch pv_particles.py output/lj_liquid -o lj_atoms.png
  xvfb-run -a pvbatch pv_particles.py output/lj_liquid --time 0 --radius 0.3 -o lattice.png"""


def main():
    ap = eddy_pv.parser("pv_particles.py", __doc__, EPILOG)
    ap.add_argument("--radius", type=float, default=0.35,
                    help="sphere radius in sigma (default 0.35)")
    ap.add_argument("--clip-x", type=float, default=None,
                    help="show only the atoms with x below this")
    args = ap.parse_args()
    pixels = eddy_pv.size(args.size)

    reader, t, name = eddy_pv.open_run(args.run, args.time)
    if "velocity" not in reader.PointData.keys():
        raise ep.PostError("%s has no particle velocity (not an md run?)" % name)
    atoms = reader.GetDataInformation().GetNumberOfPoints()
    x0, x1, y0, y1, z0, z1 = reader.GetDataInformation().GetBounds()

    speed = pv.Calculator(Input=reader)
    speed.AttributeType = "Point Data"
    speed.ResultArrayName = "speed"
    speed.Function = "mag(velocity)"
    shown_source = speed
    if args.clip_x is not None:
        clip = pv.Clip(Input=speed)
        clip.ClipType = "Plane"
        clip.ClipType.Origin = [args.clip_x, 0, 0]
        clip.ClipType.Normal = [1, 0, 0]
        clip.Invert = 1
        shown_source = clip

    v = eddy_pv.view(t, pixels)
    outline = pv.Show(pv.Outline(Input=reader), v)
    outline.AmbientColor = outline.DiffuseColor = [0, 0, 0]
    display = pv.Show(shown_source, v)
    display.SetRepresentationType("Point Gaussian")
    display.ShaderPreset = "Sphere"
    display.GaussianRadius = args.radius
    eddy_pv.colour(display, v, shown_source, "speed", cmap="Inferno (matplotlib)")

    v.CameraPosition = [x1 + 1.6 * (x1 - x0), y0 - 1.9 * (y1 - y0), z1 + 1.5 * (z1 - z0)]
    v.CameraFocalPoint = [(x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2]
    v.CameraViewUp = [0, 0, 1]
    pv.ResetCamera(v)
    eddy_pv.title(v, "%s  t = %.4g  %d atoms, coloured by speed" % (name, t, atoms))
    eddy_pv.save(v, args.output, pixels)


if __name__ == "__main__":
    eddy_pv.guard("pv_particles.py", main)
