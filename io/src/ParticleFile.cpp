#include "eddy/io/ParticleFile.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/io/ExtendedXyz.hpp"
#include "eddy/io/H5md.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <unordered_set>

namespace eddy::io {

bool isHdf5File(std::string const& path) {
  char head[8] = {};
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  std::size_t const got = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  return got == sizeof head && std::memcmp(head, "\x89HDF\r\n\x1a\n", sizeof head) == 0;
}

namespace {

std::string trimmed(std::string const& s) {
  std::size_t const a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return {};
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

std::vector<std::string> cells(std::string const& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    std::size_t const comma = line.find(',', start);
    out.push_back(trimmed(line.substr(start, comma - start)));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

ParticleFile readCsv(std::string const& path, int dims) {
  std::ifstream in(path);
  if (!in) throw IoError(str("cannot open particle file '", path, "': ", std::strerror(errno)));
  auto fail = [&](long long line, std::string const& what, std::string const& expected) {
    throw IoError(
        str("particle file '", path, "' line ", line, ": ", what, "; expected ", expected));
  };
  std::vector<std::string> header;
  int col[7];  // x y z u v w id
  char const* const names[7] = {"x", "y", "z", "u", "v", "w", "id"};
  ParticleFile out;
  std::string text;
  long long line = 0;
  while (std::getline(in, text)) {
    ++line;
    std::string const t = trimmed(text);
    if (t.empty() || t[0] == '#') continue;
    std::vector<std::string> const values = cells(t);
    if (header.empty()) {
      header = values;
      for (int k = 0; k < 7; ++k) {
        col[k] = -1;
        for (std::size_t c = 0; c < header.size(); ++c)
          if (header[c] == names[k]) {
            if (col[k] >= 0)
              fail(line, str("the header names column ", names[k], " twice"), "each column once");
            col[k] = static_cast<int>(c);
          }
      }
      if (dims == 2) col[2] = col[5] = -1;
      for (int a = 0; a < dims; ++a)
        if (col[a] < 0)
          fail(line, str("the header '", t.substr(0, 80), "' has no column ", names[a]),
               dims == 3 ? "columns x, y and z (u, v, w and id optional)"
                         : "columns x and y (u, v and id optional)");
      int given = 0;
      for (int a = 0; a < dims; ++a) given += col[3 + a] >= 0;
      if (given != 0 && given != dims)
        fail(line, "the header gives some velocity columns but not all",
             dims == 3 ? "u, v and w, or none of them" : "u and v, or neither");
      continue;
    }
    if (values.size() != header.size())
      fail(line, str(values.size(), " values"),
           str(header.size(), ", one per column of the header"));
    auto real = [&](int c) {
      std::string const& s = values[static_cast<std::size_t>(c)];
      char* end = nullptr;
      errno = 0;
      double const x = std::strtod(s.c_str(), &end);
      if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(x) || errno == ERANGE)
        fail(line,
             str("column ", header[static_cast<std::size_t>(c)], ": '", s.substr(0, 40),
                 "' is not a finite number"),
             "a number");
      return x;
    };
    std::array<double, 3> p{0, 0, 0};
    for (int a = 0; a < dims; ++a) p[a] = real(col[a]);
    out.position.push_back(p);
    if (col[3] >= 0) {
      std::array<double, 3> v{0, 0, 0};
      for (int a = 0; a < dims; ++a) v[a] = real(col[3 + a]);
      out.velocity.push_back(v);
    }
    if (col[6] >= 0) {
      std::string const& s = values[static_cast<std::size_t>(col[6])];
      char* end = nullptr;
      errno = 0;
      long long const id = std::strtoll(s.c_str(), &end, 10);
      if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE || id < 0)
        fail(line, str("id '", s.substr(0, 40), "'"), "a whole number >= 0");
      out.id.push_back(id);
    }
  }
  if (header.empty()) fail(line, "no header", "a header line naming the columns (x,y,...)");
  return out;
}

}  // namespace

ParticleFile readParticleFile(std::string const& path, int dims) {
  ParticleFile out;
  if (isHdf5File(path)) {
    long long frames = 0;
    H5mdParticles const p = readH5mdParticles(path, frames);
    if (frames < 1)
      throw IoError(str("H5MD file '", path, "' holds no frame; expected one or more"));
    H5mdFrame f = readH5mdFrame(path, frames - 1);
    out.position = std::move(f.position);
    out.velocity = std::move(f.velocity);
    out.id = p.id;
  } else if (isExtendedXyzPath(path)) {
    ExtendedXyz x = readExtendedXyz(path);
    out.position = std::move(x.position);
    out.velocity = std::move(x.velocity);
    out.id = std::move(x.id);
  } else {
    out = readCsv(path, dims);
  }
  if (out.position.empty())
    throw IoError(str("particle file '", path, "' holds no particle; expected one or more"));
  for (auto& p : out.position)
    if (dims == 2) p[2] = 0.0;
  for (auto& v : out.velocity)
    if (dims == 2) v[2] = 0.0;
  std::unordered_set<long long> seen;
  for (long long id : out.id)
    if (!seen.insert(id).second)
      throw IoError(
          str("particle file '", path, "': id ", id, " is given twice; expected each id once"));
  return out;
}

}  // namespace eddy::io
