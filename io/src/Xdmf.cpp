// The XDMF 3 index of a run's snapshots: a temporal collection that ParaView opens as one time
// series (File > Open the .xmf, "XDMF Reader").
#include "eddy/io/Snapshot.hpp"

#include "eddy/core/Error.hpp"

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

// "nz ny nx" of the cells plus `add`; a 2D grid is one cell thick ("1 ny nx" cells, "2 ny+1
// nx+1" points), so ParaView shows it as a thin slab in the x-y plane.
std::string shape(SnapshotWriter::Entry const& e, int add) {
  int const nz = (e.dims == 3 ? e.globalCells[2] : 1) + add;
  return str(nz, " ", e.globalCells[1] + add, " ", e.globalCells[0] + add);
}

// Reversed (z y x) per-axis values, as XDMF's ORIGIN_DXDYDZ wants them. In 2D, z is 0 for the
// origin and the smaller cell size for the spacing (any positive value would do).
std::string reversed(SnapshotWriter::Entry const& e, std::array<double, 3> const& v, double z2d) {
  return str(real(e.dims == 3 ? v[2] : z2d), " ", real(v[1]), " ", real(v[0]));
}

void gridXml(std::ostream& os, SnapshotWriter::Entry const& e, std::string const& indent) {
  double const dz2d = e.spacing[0] < e.spacing[1] ? e.spacing[0] : e.spacing[1];
  os << indent << "<Grid Name=\"grid\" GridType=\"Uniform\">\n"
     << indent << "  <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << shape(e, 1)
     << "\"/>\n"
     << indent << "  <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
     << indent
     << "    <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">"
     << reversed(e, e.origin, 0.0) << "</DataItem>\n"
     << indent
     << "    <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">"
     << reversed(e, e.spacing, dz2d) << "</DataItem>\n"
     << indent << "  </Geometry>\n";
  for (auto const& f : e.fields)
    os << indent << "  <Attribute Name=\"" << f << "\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
       << indent << "    <DataItem Dimensions=\"" << shape(e, 0)
       << "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" << e.file << ":/fields/" << f
       << "</DataItem>\n"
       << indent << "  </Attribute>\n";
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
     << "  <Domain>\n"
     << "    <Grid Name=\"" << runName
     << "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (auto const& e : entries) {
    // One spatial collection per time: the grid and the particles side by side.
    os << "      <Grid Name=\"step " << e.step
       << "\" GridType=\"Collection\" CollectionType=\"Spatial\">\n"
       << "        <Time Value=\"" << real(e.time) << "\"/>\n";
    if (e.hasGrid) gridXml(os, e, "        ");
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
  // particle count, field names (space-separated).
  std::ostringstream os;
  for (auto const& e : entries) {
    os << e.file << '\t' << e.step << '\t' << real(e.time) << '\t' << (e.hasGrid ? 1 : 0) << '\t'
       << e.dims << '\t' << e.globalCells[0] << ' ' << e.globalCells[1] << ' ' << e.globalCells[2]
       << '\t' << real(e.origin[0]) << ' ' << real(e.origin[1]) << ' ' << real(e.origin[2]) << '\t'
       << real(e.spacing[0]) << ' ' << real(e.spacing[1]) << ' ' << real(e.spacing[2]) << '\t'
       << (e.hasParticles ? 1 : 0) << '\t' << e.particles << '\t';
    for (std::size_t f = 0; f < e.fields.size(); ++f) os << (f ? " " : "") << e.fields[f];
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
    bool good = cols.size() == 11;
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
    }
    if (!good)
      throw Error(
          str("snapshot index line ", number, " '", line,
              "' does not parse; expected 11 tab-separated columns (file, step, time, ...)"));
    entries.push_back(e);
  }
  return entries;
}

}  // namespace eddy::io
