// eddy_compare_checkpoints A B: exit 0 when two checkpoint files hold the same state bit for
// bit, else 1 with the first differences. Compared: the root attributes model, step and time;
// every grid array under /fields (shape and values); the particles under /particles matched by
// global id (the row order depends on the rank count), every array of every atom. Attributes
// that name the run rather than its state (deck, ranks, decomposition, version) are not
// compared. Used by the restart tests (tests/cli/RestartBitwise.cmake).
#include <hdf5.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

struct Dataset {
  std::vector<hsize_t> dims;
  std::vector<double> reals;  // float datasets
  std::vector<std::int64_t> integers;
  bool isReal = false;
};

struct File {
  std::string path;
  std::string model;
  std::int64_t step = -1;
  double time = 0.0;
  std::map<std::string, Dataset> data;  // "/fields/u", "/particles/position", ...
};

int g_differences = 0;

void report(std::string const& what) {
  if (g_differences++ < 20) std::printf("DIFFERENT: %s\n", what.c_str());
}

bool bitwiseEqual(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

herr_t collect(hid_t group, char const* name, H5L_info_t const*, void* client) {
  auto* walk = static_cast<std::pair<File*, std::string>*>(client);
  hid_t const d = H5Dopen2(group, name, H5P_DEFAULT);
  if (d < 0) return 0;
  Dataset ds;
  hid_t const space = H5Dget_space(d);
  int const rank = H5Sget_simple_extent_ndims(space);
  ds.dims.assign(rank, 0);
  H5Sget_simple_extent_dims(space, ds.dims.data(), nullptr);
  hsize_t n = 1;
  for (auto const x : ds.dims) n *= x;
  hid_t const type = H5Dget_type(d);
  ds.isReal = H5Tget_class(type) == H5T_FLOAT;
  if (ds.isReal) {
    ds.reals.resize(n);
    if (n > 0) H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, ds.reals.data());
  } else {
    ds.integers.resize(n);
    if (n > 0) H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, ds.integers.data());
  }
  H5Tclose(type);
  H5Sclose(space);
  H5Dclose(d);
  walk->first->data[walk->second + "/" + name] = ds;
  return 0;
}

bool load(char const* path, File& f) {
  f.path = path;
  hid_t const file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) {
    std::printf("cannot open '%s'\n", path);
    return false;
  }
  hid_t a = H5Aopen(file, "model", H5P_DEFAULT);
  if (a >= 0) {
    hid_t const t = H5Aget_type(a);
    std::string s(H5Tget_size(t), '\0');
    H5Aread(a, t, &s[0]);
    f.model = s.substr(0, s.find('\0'));
    H5Tclose(t);
    H5Aclose(a);
  }
  a = H5Aopen(file, "step", H5P_DEFAULT);
  if (a >= 0) {
    H5Aread(a, H5T_NATIVE_INT64, &f.step);
    H5Aclose(a);
  }
  a = H5Aopen(file, "time", H5P_DEFAULT);
  if (a >= 0) {
    H5Aread(a, H5T_NATIVE_DOUBLE, &f.time);
    H5Aclose(a);
  }
  for (char const* group : {"/fields", "/particles"}) {
    if (H5Lexists(file, group, H5P_DEFAULT) <= 0) continue;
    hid_t const g = H5Gopen2(file, group, H5P_DEFAULT);
    std::pair<File*, std::string> walk{&f, group};
    hsize_t idx = 0;
    H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, collect, &walk);
    H5Gclose(g);
  }
  H5Fclose(file);
  return true;
}

/// Rows of dataset `name` keyed by id: width values per row.
std::map<std::int64_t, std::vector<double>> byId(File const& f, std::string const& name,
                                                 std::vector<std::int64_t> const& ids) {
  std::map<std::int64_t, std::vector<double>> rows;
  auto const& d = f.data.at(name);
  std::size_t const width = d.dims.size() > 1 ? d.dims[1] : 1;
  for (std::size_t r = 0; r < ids.size(); ++r) {
    std::vector<double> v;
    for (std::size_t c = 0; c < width; ++c)
      v.push_back(d.isReal ? d.reals[r * width + c]
                           : static_cast<double>(d.integers[r * width + c]));
    rows[ids[r]] = v;
  }
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::printf("usage: eddy_compare_checkpoints A.chk.h5 B.chk.h5\n");
    return 2;
  }
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  File a, b;
  if (!load(argv[1], a) || !load(argv[2], b)) return 1;
  if (a.model.empty() || a.step < 0) {
    std::printf("'%s' is not a checkpoint\n", argv[1]);
    return 1;
  }
  if (a.model != b.model) report("model " + a.model + " vs " + b.model);
  if (a.step != b.step) report("step " + std::to_string(a.step) + " vs " + std::to_string(b.step));
  if (!bitwiseEqual(a.time, b.time)) report("time");
  std::size_t values = 0, arrays = 0;
  for (auto const& entry : a.data) {
    std::string const& name = entry.first;
    if (name == "/particles/rank_rows" || name.rfind("/particles/", 0) == 0) continue;
    auto const it = b.data.find(name);
    if (it == b.data.end()) {
      report(name + " missing in B");
      continue;
    }
    Dataset const &x = entry.second, &y = it->second;
    if (x.dims != y.dims) {
      report(name + ": shapes differ");
      continue;
    }
    ++arrays;
    for (std::size_t i = 0; i < x.reals.size(); ++i, ++values)
      if (!bitwiseEqual(x.reals[i], y.reals[i]))
        report(name + "[" + std::to_string(i) + "]: " + std::to_string(x.reals[i]) + " vs " +
               std::to_string(y.reals[i]));
    for (std::size_t i = 0; i < x.integers.size(); ++i, ++values)
      if (x.integers[i] != y.integers[i]) report(name + "[" + std::to_string(i) + "]");
  }
  for (auto const& entry : b.data)
    if (!a.data.count(entry.first)) report(entry.first + " missing in A");
  if (a.data.count("/particles/id")) {
    if (!b.data.count("/particles/id")) {
      report("/particles/id missing in B");
    } else {
      auto const& ida = a.data.at("/particles/id").integers;
      auto const& idb = b.data.at("/particles/id").integers;
      for (auto const& entry : a.data) {
        std::string const& name = entry.first;
        if (name.rfind("/particles/", 0) != 0 || name == "/particles/rank_rows" ||
            name == "/particles/id" || !b.data.count(name))
          continue;
        auto const ra = byId(a, name, ida), rb = byId(b, name, idb);
        if (ra.size() != ida.size() || rb.size() != idb.size() || ra.size() != rb.size()) {
          report(name + ": atom counts or ids differ");
          continue;
        }
        ++arrays;
        for (auto const& row : ra) {
          auto const other = rb.find(row.first);
          if (other == rb.end()) {
            report(name + ": id " + std::to_string(row.first) + " missing in B");
            continue;
          }
          for (std::size_t c = 0; c < row.second.size(); ++c, ++values)
            if (!bitwiseEqual(row.second[c], other->second[c]))
              report(name + " id " + std::to_string(row.first) + " component " + std::to_string(c) +
                     ": " + std::to_string(row.second[c]) + " vs " +
                     std::to_string(other->second[c]));
        }
      }
    }
  }
  if (arrays == 0) report("no arrays to compare");
  std::printf("%s (%s, step %lld): %zu arrays, %zu values compared, %d differences\n", argv[2],
              a.model.c_str(), static_cast<long long>(a.step), arrays, values, g_differences);
  return g_differences == 0 ? 0 : 1;
}
