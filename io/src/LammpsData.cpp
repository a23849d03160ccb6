#include "eddy/io/LammpsData.hpp"

#include "eddy/core/Error.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace eddy::io {

namespace {

/// A line of the file: its words (the comment removed) and the comment's text.
struct Line {
  int number = 0;
  std::vector<std::string> words;
  std::string comment;
};

Line split(std::string const& text, int number) {
  Line l;
  l.number = number;
  std::size_t const hash = text.find('#');
  std::string const body = text.substr(0, hash);
  if (hash != std::string::npos) {
    std::istringstream c(text.substr(hash + 1));
    c >> l.comment;  // its first word: a style name, if any
  }
  std::istringstream in(body);
  for (std::string w; in >> w;) l.words.push_back(w);
  return l;
}

bool isNumber(std::string const& w) {
  char* end = nullptr;
  std::strtod(w.c_str(), &end);
  return !w.empty() && end == w.c_str() + w.size();
}

std::string joined(std::vector<std::string> const& words, std::size_t from = 0) {
  std::string s;
  for (std::size_t i = from; i < words.size(); ++i) s += (s.empty() ? "" : " ") + words[i];
  return s;
}

class Reader {
 public:
  explicit Reader(std::string path) : m_path(std::move(path)) {}

  [[noreturn]] void fail(int line, std::string const& what, std::string const& expected) const {
    throw IoError(
        str("LAMMPS data file '", m_path, "' line ", line, ": ", what, "; expected ", expected));
  }
  [[noreturn]] void fail(std::string const& what, std::string const& expected) const {
    throw IoError(str("LAMMPS data file '", m_path, "': ", what, "; expected ", expected));
  }

  double real(Line const& l, std::size_t w) const {
    std::string const& s = l.words[w];
    char* end = nullptr;
    errno = 0;
    double const x = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || !std::isfinite(x) || errno == ERANGE)
      fail(l.number, str("'", s.substr(0, 40), "' is not a finite number"), "a number");
    return x;
  }
  long long whole(Line const& l, std::size_t w, long long min, char const* what) const {
    std::string const& s = l.words[w];
    char* end = nullptr;
    errno = 0;
    long long const x = std::strtoll(s.c_str(), &end, 10);
    if (end != s.c_str() + s.size() || s.empty() || errno == ERANGE)
      fail(l.number, str(what, " '", s.substr(0, 40), "' is not a whole number"),
           str("a whole number >= ", min));
    if (x < min) fail(l.number, str(what, " ", x), str("a whole number >= ", min));
    return x;
  }

  LammpsData read() {
    std::ifstream in(m_path, std::ios::binary);
    if (!in)
      throw IoError(str("cannot open LAMMPS data file '", m_path, "': ", std::strerror(errno)));
    std::vector<Line> lines;
    std::string text;
    LammpsData d;
    if (!std::getline(in, text)) fail("the file is empty", "a title line, a header and sections");
    if (!text.empty() && text.back() == '\r') text.pop_back();
    d.title = text;
    for (int n = 2; std::getline(in, text); ++n) {
      if (!text.empty() && text.back() == '\r') text.pop_back();
      lines.push_back(split(text, n));
    }
    std::size_t at = header(lines, d);
    sections(lines, at, d);
    return d;
  }

 private:
  std::string m_path;
  long long m_atoms = -1;
  bool m_bounds[3] = {false, false, false};

  /// Reads the header; returns the index of the first section keyword line.
  std::size_t header(std::vector<Line> const& lines, LammpsData& d) {
    std::size_t e = 0;
    for (; e < lines.size(); ++e) {
      Line const& l = lines[e];
      auto const& w = l.words;
      if (w.empty()) continue;
      if (!isNumber(w[0])) break;  // a section keyword
      std::size_t numbers = 0;
      while (numbers < w.size() && isNumber(w[numbers])) ++numbers;
      std::string const key = joined(w, numbers);
      int const axis = key == "xlo xhi" ? 0 : key == "ylo yhi" ? 1 : key == "zlo zhi" ? 2 : -1;
      if (axis >= 0 && numbers == 2 && w.size() == 4) {
        d.lo[axis] = real(l, 0);
        d.hi[axis] = real(l, 1);
        if (!(d.lo[axis] < d.hi[axis]))
          fail(l.number, str("the box's ", "xyz"[axis], " bounds ", d.lo[axis], " ", d.hi[axis]),
               "lo < hi");
        m_bounds[axis] = true;
      } else if (key == "xy xz yz") {
        fail(l.number, "tilt factors (a triclinic box)", "an orthogonal box (no 'xy xz yz' line)");
      } else if (numbers != 1) {
        fail(l.number, str("'", joined(w).substr(0, 60), "' is not a header line it reads"),
             "N atoms, N atom types, lo hi xlo xhi (ylo yhi, zlo zhi), or a section keyword");
      } else if (w.size() == 2 && key == "atoms") {
        m_atoms = whole(l, 0, 0, "the count of atoms");
      } else if (w.size() == 3 && key == "atom types") {
        d.types = static_cast<int>(whole(l, 0, 1, "the count of atom types"));
        if (d.types > 1000000) fail(l.number, str(d.types, " atom types"), "at most 1000000");
      } else if ((w.size() == 2 && (key == "bonds" || key == "angles" || key == "dihedrals" ||
                                    key == "impropers")) ||
                 (w.size() == 3 && (key == "bond types" || key == "angle types" ||
                                    key == "dihedral types" || key == "improper types"))) {
        if (whole(l, 0, 0, str("the count of ", key).c_str()) != 0)
          fail(l.number, str("'", joined(w), "': molecular topology"),
               str("0 ", key, " (the atomic style has none)"));
      } else {
        fail(l.number, str("'", joined(w).substr(0, 60), "' is not a header line it reads"),
             "N atoms, N atom types, lo hi xlo xhi (ylo yhi, zlo zhi), or a section keyword");
      }
    }
    if (m_atoms < 0) fail("the header has no 'N atoms' line", "the count of atoms");
    if (d.types < 1) fail("the header has no 'N atom types' line", "the count of atom types");
    for (int a = 0; a < 3; ++a)
      if (!m_bounds[a])
        fail(str("the header has no '", "xyz"[a], "lo ", "xyz"[a], "hi' line"),
             "the box's bounds along x, y and z");
    return e;
  }

  void sections(std::vector<Line> const& lines, std::size_t e, LammpsData& d) {
    long long const atoms = m_atoms;
    long long const types = d.types;
    std::vector<std::string> seen;
    std::unordered_map<long long, std::size_t> index;  // atom id -> position in the lists
    std::vector<bool> massGiven, velocityGiven;
    auto has = [&](char const* s) {
      for (auto const& n : seen)
        if (n == s) return true;
      return false;
    };
    while (e < lines.size()) {
      Line const& k = lines[e];
      if (k.words.empty()) {
        ++e;
        continue;
      }
      std::string const name = joined(k.words);
      bool const known = name == "Masses" || name == "Atoms" || name == "Velocities" ||
                         name == "Pair Coeffs" || name == "PairIJ Coeffs";
      if (!known) {
        if (isNumber(k.words[0]))
          fail(k.number,
               str("an entry '", name.substr(0, 60), "' after the last section's ", "entries"),
               "as many entries as the header counts");
        fail(k.number, str("the section '", name.substr(0, 60), "' is not read"),
             "Masses, Atoms, Velocities, Pair Coeffs or PairIJ Coeffs (atomic style)");
      }
      for (auto const& s : seen)
        if (s == name) fail(k.number, str("a second '", name, "' section"), "each section once");
      seen.push_back(name);
      if (name == "Atoms" && !k.comment.empty() && k.comment != "atomic")
        fail(k.number, str("atoms of style '", k.comment, "'"), "style atomic");
      if ((name == "Pair Coeffs" || name == "PairIJ Coeffs") && !k.comment.empty())
        d.pairStyle = k.comment;
      if (name == "Pair Coeffs" || name == "PairIJ Coeffs") {
        if (has("Pair Coeffs") && has("PairIJ Coeffs"))
          fail(k.number, "both Pair Coeffs and PairIJ Coeffs", "one of them");
        d.pairIJ = name == "PairIJ Coeffs";
      }
      if (e + 1 >= lines.size() || !lines[e + 1].words.empty())
        fail(e + 1 < lines.size() ? lines[e + 1].number : k.number + 1,
             str("no blank line after '", name, "'"), "a blank line after a section keyword");
      long long const count = name == "Masses" || name == "Pair Coeffs" ? types
                              : name == "PairIJ Coeffs"                 ? types * (types + 1) / 2
                                                                        : atoms;
      e += 2;
      long long got = 0;
      for (; got < count; ++e) {
        if (e >= lines.size())
          fail(str("the file ends after ", got, " of the ", count, " entries of '", name, "'"),
               str(count, " entries (",
                   name == "Masses" ? "one per atom type" : "the header's count", ")"));
        Line const& l = lines[e];
        if (l.words.empty()) continue;
        if (!isNumber(l.words[0]))
          fail(l.number,
               str("'", joined(l.words).substr(0, 60), "' after ", got, " of the ", count,
                   " entries of '", name, "'"),
               str(count, " entries"));
        entry(name, l, d, index, massGiven, velocityGiven);
        ++got;
      }
    }
    if (atoms > 0 && !has("Atoms")) fail("no 'Atoms' section", str(atoms, " atoms"));
    if (has("Masses"))
      for (long long t = 0; t < types; ++t)
        if (!massGiven[static_cast<std::size_t>(t)])
          fail(str("no mass for atom type ", t + 1), "one Masses entry per type");
    if (has("Velocities"))
      for (std::size_t a = 0; a < d.id.size(); ++a)
        if (!velocityGiven[a]) fail(str("no velocity for atom ", d.id[a]), "one per atom");
  }

  void entry(std::string const& name, Line const& l, LammpsData& d,
             std::unordered_map<long long, std::size_t>& index, std::vector<bool>& massGiven,
             std::vector<bool>& velocityGiven) {
    auto const& w = l.words;
    auto words = [&](std::size_t lo, std::size_t hi, char const* form) {
      if (w.size() < lo || w.size() > hi)
        fail(l.number, str(w.size(), " numbers in an entry of '", name, "'"), form);
    };
    auto typeOf = [&](std::size_t at) {
      long long const t = whole(l, at, 1, "the atom type");
      if (t > d.types)
        fail(l.number, str("atom type ", t), str("a type in 1 .. ", d.types, " (the header's)"));
      return static_cast<int>(t);
    };
    if (name == "Masses") {
      words(2, 2, "'type mass'");
      int const t = typeOf(0);
      double const m = real(l, 1);
      if (!(m > 0)) fail(l.number, str("mass ", m, " of type ", t), "a mass > 0");
      if (d.masses.empty()) d.masses.assign(static_cast<std::size_t>(d.types), 0.0);
      if (massGiven.empty()) massGiven.assign(static_cast<std::size_t>(d.types), false);
      if (massGiven[static_cast<std::size_t>(t - 1)])
        fail(l.number, str("a second mass for type ", t), "one per type");
      massGiven[static_cast<std::size_t>(t - 1)] = true;
      d.masses[static_cast<std::size_t>(t - 1)] = m;
    } else if (name == "Atoms") {
      if (w.size() != 5 && w.size() != 8)
        fail(l.number, str(w.size(), " numbers in an atom's entry"),
             "'id type x y z' or 'id type x y z ix iy iz' (style atomic)");
      long long const id = whole(l, 0, 1, "the atom id");
      if (!index.emplace(id, d.id.size()).second)
        fail(l.number, str("a second atom with id ", id), "unique atom ids");
      d.id.push_back(id);
      d.type.push_back(typeOf(1));
      d.position.push_back({real(l, 2), real(l, 3), real(l, 4)});
      std::array<int, 3> image{0, 0, 0};
      if (w.size() == 8)
        for (int a = 0; a < 3; ++a) {
          long long const f = whole(l, 5 + a, -(1LL << 30), "the image flag");
          if (f > (1LL << 30)) fail(l.number, str("image flag ", f), "|flag| <= 2^30");
          image[a] = static_cast<int>(f);
        }
      d.image.push_back(image);
    } else if (name == "Velocities") {
      words(4, 4, "'id vx vy vz'");
      long long const id = whole(l, 0, 1, "the atom id");
      auto const it = index.find(id);
      if (it == index.end())
        fail(l.number, str("a velocity for atom ", id, ", which the Atoms section does not have"),
             "the Atoms section before Velocities, and ids from it");
      if (d.velocity.empty()) {
        d.velocity.assign(d.id.size(), {0, 0, 0});
        velocityGiven.assign(d.id.size(), false);
      }
      if (velocityGiven[it->second])
        fail(l.number, str("a second velocity for atom ", id), "one per atom");
      velocityGiven[it->second] = true;
      d.velocity[it->second] = {real(l, 1), real(l, 2), real(l, 3)};
    } else {  // Pair Coeffs, PairIJ Coeffs
      bool const ij = name == "PairIJ Coeffs";
      words(ij ? 3 : 2, 64, ij ? "'i j coefficients...'" : "'type coefficients...'");
      PairCoefficients p;
      p.i = typeOf(0);
      p.j = ij ? typeOf(1) : p.i;
      for (std::size_t v = ij ? 2 : 1; v < w.size(); ++v) p.values.push_back(real(l, v));
      d.pairs.push_back(std::move(p));
    }
  }
};

}  // namespace

LammpsData readLammpsData(std::string const& path) {
  return Reader(path).read();
}

void writeLammpsData(std::string const& path, LammpsData const& d) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw IoError(str("cannot write LAMMPS data file '", path, "': ", std::strerror(errno)));
  std::string const title = d.title.substr(0, d.title.find('\n'));
  std::fprintf(f, "%s\n\n%zu atoms\n%d atom types\n", title.c_str(), d.id.size(), d.types);
  char const* const axes[3] = {"xlo xhi", "ylo yhi", "zlo zhi"};
  for (int a = 0; a < 3; ++a) std::fprintf(f, "%.17g %.17g %s\n", d.lo[a], d.hi[a], axes[a]);
  if (!d.masses.empty()) {
    std::fprintf(f, "\nMasses\n\n");
    for (std::size_t t = 0; t < d.masses.size(); ++t)
      std::fprintf(f, "%zu %.17g\n", t + 1, d.masses[t]);
  }
  if (!d.pairs.empty()) {
    std::fprintf(f, "\n%s%s%s\n\n", d.pairIJ ? "PairIJ Coeffs" : "Pair Coeffs",
                 d.pairStyle.empty() ? "" : " # ", d.pairStyle.c_str());
    for (auto const& p : d.pairs) {
      if (d.pairIJ)
        std::fprintf(f, "%d %d", p.i, p.j);
      else
        std::fprintf(f, "%d", p.i);
      for (double v : p.values) std::fprintf(f, " %.17g", v);
      std::fprintf(f, "\n");
    }
  }
  std::fprintf(f, "\nAtoms # atomic\n\n");
  for (std::size_t a = 0; a < d.id.size(); ++a) {
    auto const& x = d.position[a];
    std::array<int, 3> const im = a < d.image.size() ? d.image[a] : std::array<int, 3>{0, 0, 0};
    std::fprintf(f, "%lld %d %.17g %.17g %.17g %d %d %d\n", d.id[a], d.type[a], x[0], x[1], x[2],
                 im[0], im[1], im[2]);
  }
  if (!d.velocity.empty()) {
    std::fprintf(f, "\nVelocities\n\n");
    for (std::size_t a = 0; a < d.id.size(); ++a)
      std::fprintf(f, "%lld %.17g %.17g %.17g\n", d.id[a], d.velocity[a][0], d.velocity[a][1],
                   d.velocity[a][2]);
  }
  bool const ok = std::ferror(f) == 0;
  if (std::fclose(f) != 0 || !ok)
    throw IoError(str("cannot write LAMMPS data file '", path, "': ", std::strerror(errno)));
}

}  // namespace eddy::io
