"""Reading an Eddy run for the post-processing scripts (docs/post-processing.md).

A run is its output directory (docs/output.md): the diagnostics CSV (header `name [unit]` per
column), the snapshots `<run.name>_NNNNNN.h5` listed in time order by the index `<run.name>.xmf`,
the md analyses `<run.name>.rdf.csv` / `.speeds.csv`, and checkpoints. Every snapshot and
checkpoint stores the resolved deck (root attribute `deck`), so the scripts take the run's
parameters from the files the run wrote, not from a deck that may have changed since.

Needs Python 3 with numpy, h5py, PyYAML and matplotlib (Debian: python3-numpy python3-h5py
python3-yaml python3-matplotlib, which scripts/setup installs); the functions without numpy are
also used by the pvbatch scripts. Errors are raised as PostError with a message for the user;
`main_guard` prints them and exits with status 2.
"""
import argparse
import csv
import glob
import math
import os
import sys
import xml.etree.ElementTree as ET


class PostError(Exception):
    """A problem with the user's input (a missing file, a run of another model)."""


def main_guard(prog, main):
    """Runs main(); a PostError or a missing package becomes one line on stderr and status 2."""
    try:
        main()
    except PostError as e:
        print("%s: error: %s" % (prog, e), file=sys.stderr)
        sys.exit(2)
    except ImportError as e:
        print("%s: error: %s\n%s: needs numpy, h5py, PyYAML and matplotlib (Debian: apt-get "
              "install python3-matplotlib python3-h5py python3-yaml, or scripts/setup)"
              % (prog, e, prog), file=sys.stderr)
        sys.exit(2)


# ---- paths (standard library only: also used under pvbatch) ----

def find_index(path):
    """The XDMF index of a run: `path` itself if it is an .xmf, else the one .xmf in the
    directory `path` (or in the directory of the file `path`)."""
    if path.endswith(".xmf"):
        if not os.path.isfile(path):
            raise PostError("no such file: %s" % path)
        return path
    folder = path if os.path.isdir(path) else os.path.dirname(path) or "."
    found = sorted(glob.glob(os.path.join(folder, "*.xmf")))
    if not found:
        raise PostError("no XDMF index (*.xmf) in %s: did the deck have an `output` section?"
                        % folder)
    if len(found) > 1:
        raise PostError("several runs in %s (%s): name the .xmf" % (folder, ", ".join(found)))
    return found[0]


def read_index(xmf):
    """[(time, snapshot path)] of the index, in its (time) order."""
    try:
        root = ET.parse(xmf).getroot()
    except (ET.ParseError, OSError) as e:
        raise PostError("cannot read the index %s: %s" % (xmf, e))
    out = []
    folder = os.path.dirname(xmf)
    for grid in root.iter("Grid"):
        time = grid.find("Time")
        if time is None:
            continue
        item = next((d for d in grid.iter("DataItem") if d.get("Format") == "HDF"), None)
        if item is None:
            continue
        out.append((float(time.get("Value")),
                    os.path.join(folder, item.text.strip().split(":")[0])))
    if not out:
        raise PostError("the index %s lists no snapshots" % xmf)
    return out


def pick_snapshot(snapshots, time=None):
    """The snapshot at the time nearest `time`, or the last one."""
    if time is None:
        return snapshots[-1]
    return min(snapshots, key=lambda s: abs(s[0] - time))


# ---- decks ----

def parse_deck(text, origin):
    import yaml
    try:
        deck = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise PostError("cannot parse the deck of %s: %s" % (origin, e))
    if not isinstance(deck, dict):
        raise PostError("the deck of %s is not a YAML map" % origin)
    return deck


def deck_get(deck, key, default=None):
    """deck['a']['b'] for key 'a.b'; `default` when a level is missing."""
    node = deck
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return default
        node = node[part]
    return node


def deck_require(deck, key):
    value = deck_get(deck, key)
    if value is None:
        raise PostError("the deck has no %s" % key)
    return value


def _attr_text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def deck_of_h5(path):
    """The resolved deck stored in a snapshot or checkpoint (root attribute `deck`)."""
    import h5py
    try:
        with h5py.File(path, "r") as f:
            if "deck" not in f.attrs:
                raise PostError("%s stores no deck (not an Eddy snapshot or checkpoint)" % path)
            return parse_deck(_attr_text(f.attrs["deck"]), path)
    except OSError as e:
        raise PostError("cannot read %s: %s" % (path, e))


def find_deck(path, deck_file=None):
    """The run's resolved deck: `deck_file` when given (a YAML deck), else the deck stored in
    `path` (an .h5), in the run's newest snapshot or in one of its checkpoints."""
    if deck_file:
        try:
            with open(deck_file) as f:
                return parse_deck(f.read(), deck_file)
        except OSError as e:
            raise PostError("cannot read the deck %s: %s" % (deck_file, e))
    if path.endswith(".h5"):
        return deck_of_h5(path)
    folder = path if os.path.isdir(path) else os.path.dirname(path) or "."
    files = sorted(glob.glob(os.path.join(folder, "*.h5")))
    files += sorted(glob.glob(os.path.join(folder, "checkpoints", "*.chk.h5")))
    if not files:
        raise PostError("no snapshot or checkpoint in %s holds the run's deck: name the deck "
                        "with --deck" % folder)
    return deck_of_h5(files[-1])


# ---- time series ----

class Series:
    """A CSV time series of Eddy: `names`, `units` and one float array per column."""

    def __init__(self, path, names, units, rows):
        import numpy as np
        self.path, self.names, self.units = path, names, units
        data = np.array(rows, dtype=float).reshape(len(rows), len(names))
        self.columns = {n: data[:, c] for c, n in enumerate(names)}

    def __getitem__(self, name):
        if name not in self.columns:
            raise PostError("%s has no column '%s' (it has: %s)"
                            % (self.path, name, ", ".join(self.names)))
        return self.columns[name]

    def __contains__(self, name):
        return name in self.columns

    def unit(self, name):
        return self.units[self.names.index(name)]

    def label(self, name):
        unit = self.unit(name)
        return name if unit in ("", "1") else "%s [%s]" % (name, unit)

    def time_column(self):
        """The column of simulation time: `t` (fluids, diffusion) or `time` (md)."""
        for n in ("t", "time"):
            if n in self.columns:
                return n
        return None


def read_csv(path):
    """A diagnostics or analysis CSV; a header cell `name [unit]` gives name and unit (a cell
    without brackets has unit ""). Lines starting with # are skipped (reference files), and so
    is a partial last line (a run that is still writing)."""
    try:
        with open(path, newline="") as f:
            lines = list(csv.reader(line for line in f if not line.startswith("#")))
    except OSError as e:
        raise PostError("cannot read %s: %s" % (path, e))
    if not lines:
        raise PostError("%s is empty" % path)
    names, units = [], []
    for cell in lines[0]:
        cell = cell.strip()
        if cell.endswith("]") and " [" in cell:
            name, unit = cell[:-1].split(" [", 1)
        else:
            name, unit = cell, ""
        names.append(name)
        units.append(unit)
    rows = []
    for line in lines[1:]:
        if len(line) != len(names):
            continue
        try:
            rows.append([float(x) for x in line])
        except ValueError:
            continue
    if not rows:
        raise PostError("%s has no data rows yet" % path)
    return Series(path, names, units, rows)


def find_diagnostics(path, deck=None):
    """The diagnostics CSV: `path` itself if it is a .csv, else `diagnostics.file` of the deck
    (default diagnostics.csv) in the directory `path`, else its only main CSV."""
    if path.endswith(".csv"):
        if not os.path.isfile(path):
            raise PostError("no such file: %s" % path)
        return path
    folder = path if os.path.isdir(path) else os.path.dirname(path) or "."
    name = deck_get(deck, "diagnostics.file", "diagnostics.csv") if deck else "diagnostics.csv"
    candidate = os.path.join(folder, name)
    if os.path.isfile(candidate):
        return candidate
    others = [p for p in sorted(glob.glob(os.path.join(folder, "*.csv")))
              if not p.endswith((".rdf.csv", ".speeds.csv"))]
    if len(others) == 1:
        return others[0]
    raise PostError("no diagnostics CSV in %s: did the deck have a `diagnostics` section?"
                    % folder)


# ---- snapshots ----

class Snapshot:
    """One HDF5 snapshot: root attributes, the grid (x, y, z order) and the arrays."""

    def __init__(self, path):
        import h5py
        import numpy as np
        self.path = path
        try:
            f = h5py.File(path, "r")
        except OSError as e:
            raise PostError("cannot read %s: %s" % (path, e))
        with f:
            self.time = float(f.attrs["time"])
            self.step = int(f.attrs["step"])
            self.time_units = _attr_text(f.attrs.get("time_units", ""))
            self.deck = parse_deck(_attr_text(f.attrs["deck"]), path) if "deck" in f.attrs \
                else None
            self.fields, self.particles = {}, {}
            self.origin = self.spacing = None
            if "fields" in f:
                g = f["fields"]
                # Stored in (z,) y, x order; kept here in x, y (, z) order.
                self.origin = np.array(g.attrs["origin"], dtype=float)[::-1]
                self.spacing = np.array(g.attrs["spacing"], dtype=float)[::-1]
                for name in g:
                    self.fields[name] = np.array(g[name])  # (nz, ny, nx), nz = 1 in 2D
            if "particles" in f:
                for name in f["particles"]:
                    self.particles[name] = np.array(f["particles"][name])

    def field(self, name):
        if name not in self.fields:
            raise PostError("%s has no field '%s' (it has: %s)"
                            % (self.path, name, ", ".join(sorted(self.fields)) or "none"))
        return self.fields[name]

    def centres(self, axis):
        """Cell-centre coordinates along axis 0 (x), 1 (y) or 2 (z)."""
        import numpy as np
        n = next(iter(self.fields.values())).shape[2 - axis]
        return self.origin[axis] + (np.arange(n) + 0.5) * self.spacing[axis]


def open_snapshot(path, time=None):
    """The snapshot `path` (an .h5), or that of the run `path` (a directory or .xmf) nearest
    `time` (default: the last one)."""
    if path.endswith(".h5"):
        return Snapshot(path)
    return Snapshot(pick_snapshot(read_index(find_index(path)), time)[1])


# ---- figures ----

def parser(prog, description, epilog=None):
    """An argument parser with the options every plot script has (-o, --dpi)."""
    ap = argparse.ArgumentParser(prog=prog, description=description, epilog=epilog,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output", required=True, metavar="PNG",
                    help="the picture to write (PNG)")
    ap.add_argument("--dpi", type=int, default=100, help="resolution of the PNG (default 100)")
    return ap


def pyplot():
    """matplotlib.pyplot on the Agg backend: no display is needed."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save(fig, path, dpi):
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    print("wrote %s" % path)


def fmt(x):
    """A number for a title: 4 significant digits."""
    return "%.4g" % x if math.isfinite(x) else str(x)
