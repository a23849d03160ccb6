// The XDMF 3 index of a run's snapshots: a temporal collection that ParaView opens as one time
// series (File > Open the .xmf, "XDMF Reader").
#include "eddy/io/Snapshot.hpp"

#include "eddy/core/Error.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace eddy::io {

namespace {

std::string real(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// The array shape of the cells plus `add` per axis, slowest axis first: "nz ny nx" in 3D,
// "ny nx" in 2D (a 2D run is a 2D grid, which ParaView shows as a surface).
std::string shape(SnapshotWriter::Entry const& e, int add) {
  std::string const xy = str(e.globalCells[1] + add, " ", e.globalCells[0] + add);
  return e.dims == 3 ? str(e.globalCells[2] + add, " ", xy) : xy;
}

// Per-axis values slowest axis first (z y x, or y x in 2D), as ORIGIN_DXDYDZ / ORIGIN_DXDY want.
std::string reversed(SnapshotWriter::Entry const& e, std::array<double, 3> const& v) {
  std::string const yx = str(real(v[1]), " ", real(v[0]));
  return e.dims == 3 ? str(real(v[2]), " ", yx) : yx;
}

// A 2D run is a 2D rectilinear grid in the x-y plane (ParaView's XDMF reader puts a 2D
// co-rectangular mesh in the y-z plane), so ParaView shows it as a surface; its node
// coordinates are written once per distinct grid at the top of the index, as DataItems named
// "x<g>" and "y<g>", which every step's geometry references.
struct Grid2d {
  std::array<int, 3> cells;
  std::array<double, 3> origin, spacing;
  bool operator==(Grid2d const& o) const {
    return cells == o.cells && origin == o.origin && spacing == o.spacing;
  }
};

Grid2d grid2d(SnapshotWriter::Entry const& e) {
  return {{e.globalCells[0], e.globalCells[1], 1}, e.origin, e.spacing};
}

void coordinatesXml(std::ostream& os, Grid2d const& g, int index, std::string const& indent) {
  char const* const axis[2] = {"x", "y"};
  for (int a = 0; a < 2; ++a) {
    os << indent << "<DataItem Name=\"" << axis[a] << index << "\" Dimensions=\""
       << g.cells[a] + 1 << "\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">";
    for (int i = 0; i <= g.cells[a]; ++i)
      os << (i ? " " : "") << real(g.origin[a] + i * g.spacing[a]);
    os << "</DataItem>\n";
  }
}

void gridXml(std::ostream& os, SnapshotWriter::Entry const& e, int grid2dIndex,
             std::string const& indent) {
  auto array = [&](std::string const& f) {
    return str("<DataItem Dimensions=\"", shape(e, 0),
               "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">", e.file, ":/fields/", f,
               "</DataItem>");
  };
  os << indent << "<Grid Name=\"grid\" GridType=\"Uniform\">\n";
  if (e.dims == 3) {
    os << indent << "  <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << shape(e, 1)
       << "\"/>\n"
       << indent << "  <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
       << indent << "    <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
       << "Format=\"XML\">" << reversed(e, e.origin) << "</DataItem>\n"
       << indent << "    <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
       << "Format=\"XML\">" << reversed(e, e.spacing) << "</DataItem>\n"
       << indent << "  </Geometry>\n";
  } else {
    os << indent << "  <Topology TopologyType=\"2DRectMesh\" Dimensions=\"" << shape(e, 1)
       << "\"/>\n"
       << indent << "  <Geometry GeometryType=\"VXVY\">\n";
    for (char const* axis : {"x", "y"})
      os << indent << "    <DataItem Reference=\"XML\">/Xdmf/Domain/DataItem[@Name=\"" << axis
         << grid2dIndex << "\"]</DataItem>\n";
    os << indent << "  </Geometry>\n";
  }
  for (auto const& f : e.fields)
    os << indent << "  <Attribute Name=\"" << f << "\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
       << indent << "    " << array(f) << "\n"
       << indent << "  </Attribute>\n";
  // Vectors join their stored components (nothing more is stored); a 2D vector's z is 0.
  for (auto const& v : e.vectors) {
    std::size_t const c = v.components.size();
    os << indent << "  <Attribute Name=\"" << v.name
       << "\" AttributeType=\"Vector\" Center=\"Cell\">\n"
       << indent << "    <DataItem ItemType=\"Function\" Function=\""
       << (c == 3 ? "JOIN($0, $1, $2)" : "JOIN($0, $1, 0 * $0)") << "\" Dimensions=\""
       << shape(e, 0) << " 3\">\n";
    for (auto const& component : v.components) os << indent << "      " << array(component) << "\n";
    os << indent << "    </DataItem>\n" << indent << "  </Attribute>\n";
  }
  os << indent << "</Grid>\n";
}

void particlesXml(std::ostream& os, SnapshotWriter::Entry const& e, std::string const& indent) {
  std::string const n = str(e.particles);
  auto item = [&](char const* name, char const* dims, char const* type, int precision) {
    return str("<DataItem Dimensions=\"", n, dims, "\" NumberType=\"", type, "\" Precision=\"",
               precision, "\" Format=\"HDF\">", e.file, ":/particles/", name, "</DataItem>");
  };
  os << indent << "<Grid Name=\"particles\" GridType=\"Uniform\">\n"
     << indent << "  <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"" << n
     << "\" NodesPerElement=\"1\"/>\n"
     << indent << "  <Geometry GeometryType=\"XYZ\">\n"
     << indent << "    " << item("position", " 3", "Float", 8) << "\n"
     << indent << "  </Geometry>\n"
     << indent << "  <Attribute Name=\"velocity\" AttributeType=\"Vector\" Center=\"Node\">\n"
     << indent << "    " << item("velocity", " 3", "Float", 8) << "\n"
     << indent << "  </Attribute>\n"
     << indent << "  <Attribute Name=\"id\" AttributeType=\"Scalar\" Center=\"Node\">\n"
     << indent << "    " << item("id", "", "Int", 8) << "\n"
     << indent << "  </Attribute>\n"
     << indent << "  <Attribute Name=\"type\" AttributeType=\"Scalar\" Center=\"Node\">\n"
     << indent << "    " << item("type", "", "Int", 4) << "\n"
     << indent << "  </Attribute>\n"
     << indent << "</Grid>\n";
}

}  // namespace

std::string xdmfText(std::string const& runName,
                     std::vector<SnapshotWriter::Entry> const& entries) {
  std::ostringstream os;
  os << "<?xml version=\"1.0\" ?>\n"
     << "<Xdmf Version=\"3.0\">\n"
     << "  <Domain>\n";
  std::vector<Grid2d> grids;  // the distinct 2D grids, their coordinates once
  std::vector<int> gridOf(entries.size(), -1);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (!entries[i].hasGrid || entries[i].dims != 2) continue;
    Grid2d const g = grid2d(entries[i]);
    auto const at = std::find(grids.begin(), grids.end(), g);
    gridOf[i] = static_cast<int>(at - grids.begin());
    if (at == grids.end()) {
      coordinatesXml(os, g, gridOf[i], "    ");
      grids.push_back(g);
    }
  }
  os << "    <Grid Name=\"" << runName
     << "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    auto const& e = entries[i];
    // One spatial collection per time: the grid and the particles side by side.
    os << "      <Grid Name=\"step " << e.step
       << "\" GridType=\"Collection\" CollectionType=\"Spatial\">\n"
       << "        <Time Value=\"" << real(e.time) << "\"/>\n";
    if (e.hasGrid) gridXml(os, e, gridOf[i], "        ");
    if (e.hasParticles) particlesXml(os, e, "        ");
    os << "      </Grid>\n";
  }
  os << "    </Grid>\n"
     << "  </Domain>\n"
     << "</Xdmf>\n";
  return os.str();
}

std::string snapshotIndexText(std::vector<SnapshotWriter::Entry> const& entries) {
  // Tab-separated: file, step, time, grid (0/1), dims, cells, origin, spacing, particles (0/1),
  // particle count, field names (space-separated), vectors (space-separated name=x,y[,z]).
  std::ostringstream os;
  for (auto const& e : entries) {
    os << e.file << '\t' << e.step << '\t' << real(e.time) << '\t' << (e.hasGrid ? 1 : 0) << '\t'
       << e.dims << '\t' << e.globalCells[0] << ' ' << e.globalCells[1] << ' ' << e.globalCells[2]
       << '\t' << real(e.origin[0]) << ' ' << real(e.origin[1]) << ' ' << real(e.origin[2]) << '\t'
       << real(e.spacing[0]) << ' ' << real(e.spacing[1]) << ' ' << real(e.spacing[2]) << '\t'
       << (e.hasParticles ? 1 : 0) << '\t' << e.particles << '\t';
    for (std::size_t f = 0; f < e.fields.size(); ++f) os << (f ? " " : "") << e.fields[f];
    os << '\t';
    for (std::size_t v = 0; v < e.vectors.size(); ++v) {
      os << (v ? " " : "") << e.vectors[v].name << '=';
      for (std::size_t c = 0; c < e.vectors[v].components.size(); ++c)
        os << (c ? "," : "") << e.vectors[v].components[c];
    }
    os << '\n';
  }
  return os.str();
}

std::vector<SnapshotWriter::Entry> snapshotIndexFromText(std::string const& text) {
  std::vector<SnapshotWriter::Entry> entries;
  std::istringstream lines(text);
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    if (line.empty()) continue;
    std::vector<std::string> cols;
    std::size_t from = 0;
    for (std::size_t tab; (tab = line.find('\t', from)) != std::string::npos; from = tab + 1)
      cols.push_back(line.substr(from, tab - from));
    cols.push_back(line.substr(from));
    SnapshotWriter::Entry e;
    // Indexes written before vectors were stored have 11 columns.
    bool good = cols.size() == 11 || cols.size() == 12;
    if (good) {
      e.file = cols[0];
      std::istringstream in(cols[1] + ' ' + cols[2] + ' ' + cols[3] + ' ' + cols[4] + ' ' +
                            cols[5] + ' ' + cols[6] + ' ' + cols[7] + ' ' + cols[8] + ' ' +
                            cols[9]);
      int grid = 0, particles = 0;
      std::string time, origin[3], spacing[3];
      in >> e.step >> time >> grid >> e.dims >> e.globalCells[0] >> e.globalCells[1] >>
          e.globalCells[2] >> origin[0] >> origin[1] >> origin[2] >> spacing[0] >> spacing[1] >>
          spacing[2] >> particles >> e.particles;
      good = !in.fail();
      // strtod reads the 17-digit values back to the same bits.
      e.time = std::strtod(time.c_str(), nullptr);
      for (int a = 0; a < 3; ++a) {
        e.origin[a] = std::strtod(origin[a].c_str(), nullptr);
        e.spacing[a] = std::strtod(spacing[a].c_str(), nullptr);
      }
      e.hasGrid = grid != 0;
      e.hasParticles = particles != 0;
      std::istringstream names(cols[10]);
      for (std::string n; names >> n;) e.fields.push_back(n);
      std::istringstream vectors(cols.size() == 12 ? cols[11] : std::string());
      for (std::string v; vectors >> v;) {
        auto const eq = v.find('=');
        good = good && eq != std::string::npos;
        if (!good) break;
        GridVector g;
        g.name = v.substr(0, eq);
        std::istringstream parts(v.substr(eq + 1));
        for (std::string c; std::getline(parts, c, ',');) g.components.push_back(c);
        e.vectors.push_back(g);
      }
    }
    if (!good)
      throw Error(
          str("snapshot index line ", number, " '", line,
              "' does not parse; expected 11 or 12 tab-separated columns (file, step, time, ...)"));
    entries.push_back(e);
  }
  return entries;
}

}  // namespace eddy::io
