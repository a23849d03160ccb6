#include "eddy/io/H5md.hpp"

#include "SnapshotHdf5.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Version.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace eddy::io {

static_assert(sizeof(std::array<double, 3>) == 3 * sizeof(double) &&
                  sizeof(std::array<int, 3>) == 3 * sizeof(int),
              "per-particle triples are written as contiguous arrays");

namespace {

using Handle = detail::Hdf5Handle;

constexpr char const* kGroup = "/particles/trajectory";
/// The time-dependent elements of a frame, each a group with value, step and time.
constexpr char const* kBoxElements[3] = {"box/edges", "box/lower", "box/upper"};

[[noreturn]] void fail(std::string const& path, std::string const& what) {
  throw IoError(str("H5MD file '", path, "': ", what));
}

/// A fixed-length, NUL-terminated ASCII string type of `size` characters.
Handle stringType(std::size_t size) {
  Handle t{H5Tcopy(H5T_C_S1), H5Tclose};
  H5Tset_size(t.id, std::max<std::size_t>(size, 1) + 1);
  H5Tset_strpad(t.id, H5T_STR_NULLTERM);
  return t;
}

class Writer {
 public:
  explicit Writer(std::string path) : m_path(std::move(path)) {}

  void check(herr_t rc, char const* what) const {
    if (rc < 0) fail(m_path, str(what, " failed: ", detail::hdf5Reason()));
  }
  hid_t checked(hid_t id, char const* what) const {
    if (id < 0) fail(m_path, str(what, " failed: ", detail::hdf5Reason()));
    return id;
  }

  void stringAttribute(hid_t obj, char const* name, std::vector<std::string> const& values,
                       bool scalar) {
    std::size_t size = 0;
    for (auto const& v : values) size = std::max(size, v.size());
    Handle type = stringType(size);
    std::size_t const width = H5Tget_size(type.id);
    std::vector<char> buffer(width * values.size(), '\0');
    for (std::size_t i = 0; i < values.size(); ++i)
      std::memcpy(buffer.data() + i * width, values[i].data(), values[i].size());
    hsize_t const n = values.size();
    Handle space{scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), H5Sclose};
    Handle attr{checked(H5Acreate2(obj, name, type.id, space.id, H5P_DEFAULT, H5P_DEFAULT),
                        "creating an attribute"),
                H5Aclose};
    check(H5Awrite(attr.id, type.id, buffer.data()), "writing an attribute");
  }
  void intAttribute(hid_t obj, char const* name, std::vector<int> const& values, bool scalar) {
    hsize_t const n = values.size();
    Handle space{scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), H5Sclose};
    Handle attr{checked(H5Acreate2(obj, name, H5T_STD_I32LE, space.id, H5P_DEFAULT, H5P_DEFAULT),
                        "creating an attribute"),
                H5Aclose};
    check(H5Awrite(attr.id, H5T_NATIVE_INT, values.data()), "writing an attribute");
  }
  Handle group(hid_t parent, char const* name) {
    return Handle{checked(H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                          "creating a group"),
                  H5Gclose};
  }
  /// A dataset growing along its first axis: shape [0][tail...], chunks of one frame (at most
  /// 2^20 entries along each axis: HDF5 chunks stay under 4 GB).
  void growing(hid_t file, std::string const& name, hid_t type, std::vector<hsize_t> tail) {
    std::vector<hsize_t> dims{0}, max{H5S_UNLIMITED}, chunk{tail.empty() ? 1024u : 1u};
    for (hsize_t t : tail) {
      dims.push_back(t);
      max.push_back(t);
      chunk.push_back(std::clamp<hsize_t>(t, 1, hsize_t(1) << 20));
    }
    Handle space{H5Screate_simple(static_cast<int>(dims.size()), dims.data(), max.data()),
                 H5Sclose};
    Handle props{H5Pcreate(H5P_DATASET_CREATE), H5Pclose};
    check(H5Pset_chunk(props.id, static_cast<int>(chunk.size()), chunk.data()), "chunking");
    Handle set{
        checked(H5Dcreate2(file, name.c_str(), type, space.id, H5P_DEFAULT, props.id, H5P_DEFAULT),
                "creating a dataset"),
        H5Dclose};
  }
  /// A fixed dataset [n] of `data`.
  template <class T>
  void fixed(hid_t file, std::string const& name, hid_t fileType, hid_t memType,
             std::vector<T> const& data) {
    hsize_t const n = data.size();
    Handle space{H5Screate_simple(1, &n, nullptr), H5Sclose};
    Handle set{checked(H5Dcreate2(file, name.c_str(), fileType, space.id, H5P_DEFAULT, H5P_DEFAULT,
                                  H5P_DEFAULT),
                       "creating a dataset"),
               H5Dclose};
    if (n > 0)
      check(H5Dwrite(set.id, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()), "writing");
  }
  /// Appends one frame's entries `data` (the dataset's shape after its first axis) at `at`.
  void append(hid_t file, std::string const& name, hid_t memType, void const* data, hsize_t at) {
    Handle set{checked(H5Dopen2(file, name.c_str(), H5P_DEFAULT), "opening a dataset"), H5Dclose};
    Handle old{H5Dget_space(set.id), H5Sclose};
    int const rank = H5Sget_simple_extent_ndims(old.id);
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
    H5Sget_simple_extent_dims(old.id, dims.data(), nullptr);
    dims[0] = at + 1;
    check(H5Dset_extent(set.id, dims.data()), "extending a dataset");
    Handle space{H5Dget_space(set.id), H5Sclose};
    std::vector<hsize_t> start(dims.size(), 0), count = dims;
    start[0] = at;
    count[0] = 1;
    check(
        H5Sselect_hyperslab(space.id, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
        "selecting a frame");
    Handle memory{H5Screate_simple(rank, count.data(), nullptr), H5Sclose};
    hsize_t entries = 1;
    for (hsize_t c : count) entries *= c;
    if (entries > 0)
      check(H5Dwrite(set.id, memType, memory.id, space.id, H5P_DEFAULT, data), "writing a frame");
  }

 private:
  std::string m_path;
};

}  // namespace

struct H5mdWriter::Impl {
  Writer w;
  Handle file{-1, H5Fclose};
  std::size_t n = 0;
  bool velocities = true;
  long long frames = 0;
  long long lastStep = 0;
  explicit Impl(std::string const& path) : w(path) {}
};

H5mdWriter::H5mdWriter(std::string const& path, H5mdParticles const& p)
    : m_impl(std::make_unique<Impl>(path)) {
  detail::Hdf5Quiet quiet;
  Impl& m = *m_impl;
  Writer& w = m.w;
  m.n = p.id.size();
  m.velocities = p.velocities;
  if (p.species.size() != m.n || p.mass.size() != m.n)
    throw Error(str("H5mdWriter: ", m.n, " ids, ", p.species.size(), " species and ", p.mass.size(),
                    " masses; expected one of each per particle"));
  m.file.id = w.checked(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                        "creating the file");
  hid_t const f = m.file.id;
  {
    Handle h5md = w.group(f, "/h5md");
    w.intAttribute(h5md.id, "version", {1, 1}, false);
    Handle author = w.group(h5md.id, "author");
    w.stringAttribute(author.id, "name", {"N/A"}, true);
    Handle creator = w.group(h5md.id, "creator");
    w.stringAttribute(creator.id, "name", {"Eddy"}, true);
    w.stringAttribute(creator.id, "version", {str(kVersion, " (", gitDescribe(), ")")}, true);
  }
  Handle particles = w.group(f, "/particles");
  Handle group = w.group(f, kGroup);
  Handle box = w.group(group.id, "box");
  w.intAttribute(box.id, "dimension", {3}, true);
  std::vector<std::string> boundary;
  for (bool periodic : p.periodic) boundary.push_back(periodic ? "periodic" : "none");
  w.stringAttribute(box.id, "boundary", boundary, false);
  std::string const g = kGroup;
  auto element = [&](std::string const& name, hid_t type, std::vector<hsize_t> const& tail) {
    Handle e = w.group(f, (g + "/" + name).c_str());
    w.growing(f, g + "/" + name + "/value", type, tail);
    if (name == kBoxElements[0]) {
      w.growing(f, g + "/" + name + "/step", H5T_STD_I64LE, {});
      w.growing(f, g + "/" + name + "/time", H5T_IEEE_F64LE, {});
    } else {
      for (char const* d : {"/step", "/time"})
        w.check(H5Lcreate_hard(f, (g + "/" + kBoxElements[0] + d).c_str(), f,
                               (g + "/" + name + d).c_str(), H5P_DEFAULT, H5P_DEFAULT),
                "linking step and time");
    }
  };
  hsize_t const n = m.n;
  element(kBoxElements[0], H5T_IEEE_F64LE, {3, 3});
  element(kBoxElements[1], H5T_IEEE_F64LE, {3});
  element(kBoxElements[2], H5T_IEEE_F64LE, {3});
  element("position", H5T_IEEE_F64LE, {n, 3});
  element("image", H5T_STD_I32LE, {n, 3});
  if (m.velocities) element("velocity", H5T_IEEE_F64LE, {n, 3});
  w.fixed(f, g + "/id", H5T_STD_I64LE, H5T_NATIVE_LLONG, p.id);
  w.fixed(f, g + "/species", H5T_STD_I32LE, H5T_NATIVE_INT, p.species);
  w.fixed(f, g + "/mass", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, p.mass);
  w.check(H5Fflush(f, H5F_SCOPE_GLOBAL), "flushing");
}

H5mdWriter::H5mdWriter(std::string const& path, H5mdParticles const& p, long long lastStep)
    : m_impl(std::make_unique<Impl>(path)) {
  detail::Hdf5Quiet quiet;
  Impl& m = *m_impl;
  Writer& w = m.w;
  long long frames = 0;
  H5mdParticles const held = readH5mdParticles(path, frames);
  if (held.id != p.id || held.velocities != p.velocities)
    fail(path, str("holds ", held.id.size(), " particles", held.velocities ? " with velocities" : "",
                   "; expected the ", p.id.size(), p.velocities ? " with velocities" : "",
                   " of this run in the same order (the trajectory of another run?)"));
  m.n = p.id.size();
  m.velocities = p.velocities;
  m.file.id = w.checked(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "opening the file");
  hid_t const f = m.file.id;
  std::string const g = kGroup;
  // The frames up to lastStep (steps increase) stay; the datasets are cut after them.
  std::vector<long long> steps(static_cast<std::size_t>(frames));
  {
    Handle set{w.checked(H5Dopen2(f, (g + "/" + kBoxElements[0] + "/step").c_str(), H5P_DEFAULT),
                         "opening a dataset"),
               H5Dclose};
    if (frames > 0)
      w.check(H5Dread(set.id, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, steps.data()),
              "reading the steps");
  }
  long long keep = 0;
  while (keep < frames && steps[static_cast<std::size_t>(keep)] <= lastStep) ++keep;
  std::vector<std::string> sets{g + "/" + kBoxElements[0] + "/step",
                                g + "/" + kBoxElements[0] + "/time", g + "/position/value",
                                g + "/image/value"};
  for (char const* e : kBoxElements) sets.push_back(g + "/" + e + "/value");
  if (m.velocities) sets.push_back(g + "/velocity/value");
  for (auto const& name : sets) {
    Handle set{w.checked(H5Dopen2(f, name.c_str(), H5P_DEFAULT), "opening a dataset"), H5Dclose};
    Handle space{H5Dget_space(set.id), H5Sclose};
    std::vector<hsize_t> dims(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space.id)));
    H5Sget_simple_extent_dims(space.id, dims.data(), nullptr);
    dims[0] = static_cast<hsize_t>(keep);
    w.check(H5Dset_extent(set.id, dims.data()), "cutting a dataset");
  }
  w.check(H5Fflush(f, H5F_SCOPE_GLOBAL), "flushing");
  m.frames = keep;
  m.lastStep = keep > 0 ? steps[static_cast<std::size_t>(keep - 1)] : 0;
}

H5mdWriter::~H5mdWriter() = default;

long long H5mdWriter::frames() const {
  return m_impl->frames;
}

void H5mdWriter::append(H5mdFrame const& fr) {
  detail::Hdf5Quiet quiet;
  Impl& m = *m_impl;
  Writer& w = m.w;
  if (fr.position.size() != m.n || fr.image.size() != m.n ||
      (m.velocities && fr.velocity.size() != m.n))
    throw Error(str("H5mdWriter: a frame of ", fr.position.size(), " positions, ", fr.image.size(),
                    " images and ", fr.velocity.size(), " velocities; expected ", m.n, " of each",
                    m.velocities ? "" : " (no velocities)"));
  if (m.frames > 0 && !(fr.step > m.lastStep))
    throw Error(str("H5mdWriter: step ", fr.step, " after step ", m.lastStep,
                    "; expected increasing steps"));
  hid_t const f = m.file.id;
  hsize_t const at = static_cast<hsize_t>(m.frames);
  std::string const g = kGroup;
  double edges[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  for (int a = 0; a < 3; ++a) edges[a][a] = fr.upper[a] - fr.lower[a];
  std::string const e = g + "/" + kBoxElements[0];
  w.append(f, e + "/value", H5T_NATIVE_DOUBLE, edges, at);
  w.append(f, e + "/step", H5T_NATIVE_LLONG, &fr.step, at);
  w.append(f, e + "/time", H5T_NATIVE_DOUBLE, &fr.time, at);
  w.append(f, g + "/" + kBoxElements[1] + "/value", H5T_NATIVE_DOUBLE, fr.lower.data(), at);
  w.append(f, g + "/" + kBoxElements[2] + "/value", H5T_NATIVE_DOUBLE, fr.upper.data(), at);
  w.append(f, g + "/position/value", H5T_NATIVE_DOUBLE, fr.position.data(), at);
  w.append(f, g + "/image/value", H5T_NATIVE_INT, fr.image.data(), at);
  if (m.velocities) w.append(f, g + "/velocity/value", H5T_NATIVE_DOUBLE, fr.velocity.data(), at);
  w.check(H5Fflush(f, H5F_SCOPE_GLOBAL), "flushing");
  m.frames += 1;
  m.lastStep = fr.step;
}

namespace {

/// An H5MD file opened for reading, its particle group found.
struct Reader {
  std::string path;
  Handle file{-1, H5Fclose};
  std::string group;

  explicit Reader(std::string p) : path(std::move(p)) {
    std::string problem;
    file.id = detail::openForReading(path, problem);
    if (file.id < 0) fail(path, problem);
    if (!exists("/h5md")) fail(path, "has no /h5md group (not an H5MD file)");
    if (!exists("/particles")) fail(path, "has no /particles group");
    if (exists(kGroup)) {
      group = kGroup;
    } else {  // another writer's group: the first
      Handle particles{H5Gopen2(file.id, "/particles", H5P_DEFAULT), H5Gclose};
      H5G_info_t info;
      if (H5Gget_info(particles.id, &info) < 0 || info.nlinks == 0)
        fail(path, "/particles is empty");
      char name[256] = {0};
      H5Lget_name_by_idx(particles.id, ".", H5_INDEX_NAME, H5_ITER_INC, 0, name, sizeof name,
                         H5P_DEFAULT);
      group = str("/particles/", name);
    }
  }

  bool exists(std::string const& p) const { return detail::pathExists(file.id, p); }

  /// The shape of dataset `p` (relative to the particle group), or empty if it is missing.
  std::vector<hsize_t> shape(std::string const& p) const {
    std::string const full = group + "/" + p;
    if (!exists(full)) return {};
    Handle set{H5Dopen2(file.id, full.c_str(), H5P_DEFAULT), H5Dclose};
    if (set.id < 0) return {};
    Handle space{H5Dget_space(set.id), H5Sclose};
    std::vector<hsize_t> dims(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space.id)));
    H5Sget_simple_extent_dims(space.id, dims.data(), nullptr);
    return dims;
  }

  /// Reads the entries of dataset `p` whose first index is `first` (all of it when `first` < 0)
  /// as `memType` into `out` (sized by the caller).
  void read(std::string const& p, long long first, hid_t memType, void* out) const {
    std::string const full = group + "/" + p;
    Handle set{H5Dopen2(file.id, full.c_str(), H5P_DEFAULT), H5Dclose};
    if (set.id < 0) fail(path, str("has no dataset ", full));
    Handle space{H5Dget_space(set.id), H5Sclose};
    int const rank = H5Sget_simple_extent_ndims(space.id);
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
    H5Sget_simple_extent_dims(space.id, dims.data(), nullptr);
    herr_t rc;
    if (first < 0 || rank == 0) {
      rc = H5Dread(set.id, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, out);
    } else {
      std::vector<hsize_t> start(dims.size(), 0), count = dims;
      start[0] = static_cast<hsize_t>(first);
      count[0] = 1;
      H5Sselect_hyperslab(space.id, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
      Handle memory{H5Screate_simple(rank, count.data(), nullptr), H5Sclose};
      rc = H5Dread(set.id, memType, memory.id, space.id, H5P_DEFAULT, out);
    }
    if (rc < 0) fail(path, str("reading ", full, " failed: ", detail::hdf5Reason()));
  }

  /// The values of per-particle data `name` [N] (a plain dataset, or frame `frame` of a
  /// time-dependent element), or empty when the file has none.
  template <class T>
  std::vector<T> perParticle(std::string const& name, long long frame, std::size_t n,
                             hid_t memType) const {
    std::vector<T> out(n);
    auto const plain = shape(name);
    if (plain.size() == 1 && plain[0] == n) {
      if (n > 0) read(name, -1, memType, out.data());
      return out;
    }
    auto const element = shape(name + "/value");
    if (element.size() == 2 && element[1] == n && static_cast<long long>(element[0]) > frame) {
      if (n > 0) read(name + "/value", frame, memType, out.data());
      return out;
    }
    if (!plain.empty() || !element.empty())
      fail(path, str(group, "/", name, " does not hold one value per particle"));
    return {};
  }
};

}  // namespace

H5mdParticles readH5mdParticles(std::string const& path, long long& frames) {
  detail::Hdf5Quiet quiet;
  Reader r(path);
  auto const pos = r.shape("position/value");
  if (pos.size() != 3 || pos[2] != 3)
    fail(path, str(r.group, "/position/value is missing or not [frames][particles][3]"));
  frames = static_cast<long long>(pos[0]);
  std::size_t const n = pos[1];
  H5mdParticles p;
  p.id = r.perParticle<long long>("id", 0, n, H5T_NATIVE_LLONG);
  if (p.id.empty())
    for (std::size_t i = 0; i < n; ++i) p.id.push_back(static_cast<long long>(i) + 1);
  p.species = r.perParticle<int>("species", 0, n, H5T_NATIVE_INT);
  if (p.species.empty()) p.species.assign(n, 1);
  p.mass = r.perParticle<double>("mass", 0, n, H5T_NATIVE_DOUBLE);
  if (p.mass.empty()) p.mass.assign(n, 1.0);
  auto const vel = r.shape("velocity/value");
  p.velocities = !vel.empty();
  if (p.velocities && vel != pos)
    fail(path, str(r.group, "/velocity/value is not shaped as the positions"));
  // The boundary attribute: fixed- or variable-length strings, one per axis.
  std::string const box = r.group + "/box";
  if (!r.exists(box)) fail(path, str("has no ", box, " group"));
  if (H5Aexists_by_name(r.file.id, box.c_str(), "boundary", H5P_DEFAULT) > 0) {
    Handle attr{H5Aopen_by_name(r.file.id, box.c_str(), "boundary", H5P_DEFAULT, H5P_DEFAULT),
                H5Aclose};
    Handle type{H5Aget_type(attr.id), H5Tclose};
    Handle space{H5Aget_space(attr.id), H5Sclose};
    hssize_t const count = H5Sget_simple_extent_npoints(space.id);
    if (H5Tget_class(type.id) != H5T_STRING || count != 3)
      fail(path, str(box, " boundary is not three strings"));
    std::vector<std::string> values;
    if (H5Tis_variable_str(type.id) > 0) {
      Handle mem{H5Tcopy(H5T_C_S1), H5Tclose};
      H5Tset_size(mem.id, H5T_VARIABLE);
      char* s[3] = {nullptr, nullptr, nullptr};
      if (H5Aread(attr.id, mem.id, s) < 0) fail(path, str("reading ", box, " boundary failed"));
      for (char* v : s) values.emplace_back(v ? v : "");
      H5Dvlen_reclaim(mem.id, space.id, H5P_DEFAULT, s);
    } else {
      std::size_t const width = H5Tget_size(type.id);
      std::vector<char> buffer(width * 3 + 1, '\0');
      if (H5Aread(attr.id, type.id, buffer.data()) < 0)
        fail(path, str("reading ", box, " boundary failed"));
      for (int a = 0; a < 3; ++a) {
        std::string v(buffer.data() + a * width, width);
        values.push_back(v.substr(0, v.find('\0')));
      }
    }
    for (int a = 0; a < 3; ++a) {
      if (values[a] != "periodic" && values[a] != "none")
        fail(path, str(box, " boundary '", values[a], "'; expected periodic or none"));
      p.periodic[a] = values[a] == "periodic";
    }
  }
  return p;
}

H5mdFrame readH5mdFrame(std::string const& path, long long frame) {
  long long frames = 0;
  H5mdParticles const p = readH5mdParticles(path, frames);
  detail::Hdf5Quiet quiet;
  Reader r(path);
  if (frame < 0 || frame >= frames)
    fail(path, str("has ", frames, " frames; frame ", frame, " asked for"));
  std::size_t const n = p.id.size();
  H5mdFrame fr;
  auto const step = r.shape("position/step");
  if (step.size() == 1 && static_cast<long long>(step[0]) > frame) {
    r.read("position/step", frame, H5T_NATIVE_LLONG, &fr.step);
  } else {
    fr.step = frame;  // the element has no per-frame step
  }
  auto const time = r.shape("position/time");
  if (time.size() == 1 && static_cast<long long>(time[0]) > frame)
    r.read("position/time", frame, H5T_NATIVE_DOUBLE, &fr.time);
  // The box: Eddy's corners, else the edges from the origin.
  auto const lower = r.shape("box/lower/value"), upper = r.shape("box/upper/value");
  if (lower.size() == 2 && upper.size() == 2 && static_cast<long long>(lower[0]) > frame &&
      static_cast<long long>(upper[0]) > frame) {
    r.read("box/lower/value", frame, H5T_NATIVE_DOUBLE, fr.lower.data());
    r.read("box/upper/value", frame, H5T_NATIVE_DOUBLE, fr.upper.data());
  } else {
    auto const edges = r.shape("box/edges/value"), fixed = r.shape("box/edges");
    double e[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    if (edges.size() == 3 && edges[1] == 3 && edges[2] == 3 &&
        static_cast<long long>(edges[0]) > frame) {
      r.read("box/edges/value", frame, H5T_NATIVE_DOUBLE, e);
    } else if (edges.size() == 2 && edges[1] == 3 && static_cast<long long>(edges[0]) > frame) {
      double d[3];
      r.read("box/edges/value", frame, H5T_NATIVE_DOUBLE, d);
      for (int a = 0; a < 3; ++a) e[a][a] = d[a];
    } else if (fixed.size() == 1 && fixed[0] == 3) {
      double d[3];
      r.read("box/edges", -1, H5T_NATIVE_DOUBLE, d);
      for (int a = 0; a < 3; ++a) e[a][a] = d[a];
    } else if (fixed.size() == 2 && fixed[0] == 3 && fixed[1] == 3) {
      r.read("box/edges", -1, H5T_NATIVE_DOUBLE, e);
    } else {
      fail(path, str("has no box edges for frame ", frame));
    }
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        if (a != b && e[a][b] != 0.0) fail(path, "has a triclinic box; expected an orthogonal one");
    for (int a = 0; a < 3; ++a) fr.upper[a] = e[a][a];
  }
  fr.position.resize(n);
  if (n > 0) r.read("position/value", frame, H5T_NATIVE_DOUBLE, fr.position.data());
  fr.image.assign(n, {0, 0, 0});
  auto const image = r.shape("image/value");
  if (!image.empty()) {
    if (image.size() != 3 || image[1] != n || image[2] != 3 ||
        static_cast<long long>(image[0]) <= frame)
      fail(path, str(r.group, "/image/value is not shaped as the positions"));
    if (n > 0) r.read("image/value", frame, H5T_NATIVE_INT, fr.image.data());
  }
  if (p.velocities) {
    fr.velocity.resize(n);
    if (n > 0) r.read("velocity/value", frame, H5T_NATIVE_DOUBLE, fr.velocity.data());
  }
  return fr;
}

}  // namespace eddy::io
