"""ParaView (pvbatch) side of the post-processing scripts: open a run's XDMF index, pick the time,
set up an off-screen view, and save it. Run the pv_*.py scripts with pvbatch (under
`xvfb-run -a` where there is no display); see docs/post-processing.md."""
import argparse
import os
import sys

import eddy_post as ep
from paraview import simple as pv


def parser(prog, description, epilog=None):
    ap = argparse.ArgumentParser(prog=prog, description=description, epilog=epilog,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", help="the run's output directory or its .xmf index")
    ap.add_argument("-o", "--output", required=True, metavar="PNG",
                    help="the picture to write (PNG)")
    ap.add_argument("--time", type=float, default=None,
                    help="render the snapshot nearest this time (default: the last one)")
    ap.add_argument("--size", default="1000x750",
                    help="picture size WIDTHxHEIGHT in pixels (default %(default)s)")
    return ap


def open_run(path, time):
    """(reader, time) of the run's index at the stored time nearest `time` (default: last)."""
    xmf = ep.find_index(path)
    reader = pv.XDMFReader(registrationName=os.path.basename(xmf), FileNames=[xmf])
    times = reader.TimestepValues
    times = [times] if isinstance(times, float) else list(times or [0.0])
    t = times[-1] if time is None else min(times, key=lambda s: abs(s - time))
    # Views follow the animation time: set it, or filters and colour ranges use the first step.
    scene = pv.GetAnimationScene()
    scene.UpdateAnimationUsingDataTimeSteps()
    scene.AnimationTime = t
    pv.GetTimeKeeper().Time = t
    reader.UpdatePipeline(t)
    return reader, t, os.path.splitext(os.path.basename(xmf))[0]


def size(text):
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ep.PostError("--size %s: expected WIDTHxHEIGHT, e.g. 1000x750" % text)
    return [w, h]


def view(t, pixels):
    v = pv.CreateView("RenderView")
    v.ViewSize = pixels
    v.ViewTime = t
    v.Background = [1, 1, 1]
    v.OrientationAxesVisibility = 0
    try:  # ParaView >= 5.10 takes the background from the colour palette unless told
        v.UseColorPaletteForBackground = 0
    except AttributeError:
        pass
    return v


def title(v, text):
    label = pv.Text(Text=text)
    d = pv.Show(label, v)
    d.WindowLocation = "Upper Center"
    d.FontSize = 18
    d.Color = [0, 0, 0]


def colour(display, v, source, array, vector=False, cmap="Viridis (matplotlib)"):
    """Colours `display` (of `source`) by a point array, its magnitude when `vector`, over the
    array's range at the view's time, with a scalar bar. The range is set and locked here:
    ParaView's automatic range follows other updates of the pipeline."""
    pv.ColorBy(display, ("POINTS", array, "Magnitude") if vector else ("POINTS", array))
    source.UpdatePipeline(v.ViewTime)
    lo, hi = source.PointData[array].GetRange(-1 if vector else 0)
    lut = pv.GetColorTransferFunction(array)
    lut.ApplyPreset(cmap, True)
    lut.AutomaticRescaleRangeMode = "Never"
    lut.RescaleTransferFunction(lo, hi if hi > lo else lo + 1e-12)
    display.SetScalarBarVisibility(v, True)
    bar = pv.GetScalarBar(lut, v)
    bar.Title = array + (" magnitude" if vector else "")
    bar.ComponentTitle = ""
    bar.TitleColor = [0, 0, 0]
    bar.LabelColor = [0, 0, 0]
    return lut


def save(v, path, pixels):
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    pv.Render(v)
    pv.SaveScreenshot(path, v, ImageResolution=pixels, CompressionLevel="9")
    print("wrote %s" % path)


def guard(prog, main):
    try:
        main()
    except ep.PostError as e:
        print("%s: error: %s" % (prog, e), file=sys.stderr)
        sys.exit(2)
