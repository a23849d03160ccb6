#include "eddy/io/ExtendedXyz.hpp"

#include "eddy/core/Error.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_set>
#include <utility>

namespace eddy::io {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> words(std::string const& text) {
  std::vector<std::string> w;
  std::istringstream in(text);
  for (std::string s; in >> s;) w.push_back(s);
  return w;
}

/// One column group of the Properties key.
struct Property {
  std::string name;
  char type = 'R';
  int columns = 1;
  int first = 0;  ///< its first word on an atom line
};

class Reader {
 public:
  explicit Reader(std::string path) : m_path(std::move(path)) {}

  [[noreturn]] void fail(long long line, std::string const& what,
                         std::string const& expected) const {
    throw IoError(
        str("extended XYZ file '", m_path, "' line ", line, ": ", what, "; expected ", expected));
  }

  double real(std::string const& s, long long line, std::string const& what) const {
    char* end = nullptr;
    errno = 0;
    double const x = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(x) || errno == ERANGE)
      fail(line, str(what, " '", s.substr(0, 40), "' is not a finite number"), "a number");
    return x;
  }
  long long whole(std::string const& s, long long line, std::string const& what,
                  long long min) const {
    char* end = nullptr;
    errno = 0;
    long long const x = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE)
      fail(line, str(what, " '", s.substr(0, 40), "' is not a whole number"),
           str("a whole number >= ", min));
    if (x < min) fail(line, str(what, " ", x), str("a whole number >= ", min));
    return x;
  }

  ExtendedXyz read() {
    std::ifstream in(m_path, std::ios::binary);
    if (!in)
      throw IoError(str("cannot open extended XYZ file '", m_path, "': ", std::strerror(errno)));
    std::size_t seen = 0;  // lines read so far
    auto next = [&](std::string& text) {
      if (!std::getline(in, text)) return false;
      if (!text.empty() && text.back() == '\r') text.pop_back();
      ++seen;
      return true;
    };
    // The frames: a count line, a comment line and that many atom lines each; blank lines may
    // end the file. Only the last frame is kept (a trajectory may be far larger than a frame).
    ExtendedXyz out;
    std::vector<std::string> last;  // its count line, comment line and atom lines
    std::size_t lastAt = 0;         // the index of its count line in the file
    for (std::string text; next(text);) {
      std::size_t const at = seen - 1;
      if (words(text).empty()) {
        for (std::string rest; next(rest);)
          if (!words(rest).empty()) fail(line(at), "a blank line", "the number of atoms of a frame");
        break;
      }
      auto const w = words(text);
      if (w.size() != 1)
        fail(line(at), str("'", text.substr(0, 40), "'"),
             "the number of atoms of a frame alone on its line");
      auto const n = static_cast<std::size_t>(whole(w[0], line(at), "the atom count", 1));
      std::vector<std::string> lines{text};
      for (std::string l; lines.size() < n + 2 && next(l);) lines.push_back(std::move(l));
      if (lines.size() < n + 2)
        fail(line(at), str("a frame of ", n, " atoms followed by ", lines.size() - 1, " lines"),
             str("a comment line and ", n, " atom lines"));
      last = std::move(lines);
      lastAt = at;
      ++out.frames;
    }
    if (out.frames == 0) fail(1, "no frame", "the number of atoms, a comment line and the atoms");
    frame(last, lastAt, out);
    return out;
  }

 private:
  long long line(std::size_t index) const { return static_cast<long long>(index) + 1; }

  /// The key=value pairs of comment line `text` (keys lowercased; flags left out).
  std::vector<std::pair<std::string, std::string>> keyValues(std::string const& text,
                                                             long long number) const {
    std::vector<std::pair<std::string, std::string>> out;
    std::size_t p = 0;
    auto space = [&](std::size_t k) {
      return std::isspace(static_cast<unsigned char>(text[k]));
    };
    while (p < text.size()) {
      while (p < text.size() && space(p)) ++p;
      std::size_t const start = p;
      while (p < text.size() && !space(p) && text[p] != '=') ++p;
      std::string const key = text.substr(start, p - start);
      if (p >= text.size() || text[p] != '=') continue;  // a flag
      ++p;
      std::string value;
      if (p < text.size() && (text[p] == '"' || text[p] == '{')) {
        char const close = text[p] == '"' ? '"' : '}';
        ++p;
        bool closed = false;
        while (p < text.size()) {
          if (close == '"' && text[p] == '\\' && p + 1 < text.size()) {
            value += text[p + 1];
            p += 2;
            continue;
          }
          if (text[p] == close) {
            closed = true;
            ++p;
            break;
          }
          value += text[p++];
        }
        if (!closed)
          fail(number, str("the value of ", key, " has no closing ", close),
               str("a value closed by ", close));
      } else {
        while (p < text.size() && !space(p)) value += text[p++];
      }
      out.emplace_back(lower(key), value);
    }
    return out;
  }

  std::vector<Property> properties(std::string const& spec, long long number) const {
    std::vector<std::string> parts;
    std::string part;
    for (std::istringstream in(spec); std::getline(in, part, ':');) parts.push_back(part);
    char const* const expected = "Properties as name:type:columns triples (type S, R, I or L)";
    if (parts.empty() || parts.size() % 3 != 0)
      fail(number, str("Properties=", spec.substr(0, 80)), expected);
    std::vector<Property> out;
    int first = 0;
    for (std::size_t k = 0; k < parts.size(); k += 3) {
      Property p;
      p.name = parts[k];
      if (parts[k + 1].size() != 1 ||
          std::string("SRIL").find(parts[k + 1][0]) == std::string::npos || p.name.empty())
        fail(number, str("Properties=", spec.substr(0, 80)), expected);
      p.type = parts[k + 1][0];
      p.columns = static_cast<int>(whole(parts[k + 2], number, "the column count of " + p.name, 1));
      p.first = first;
      first += p.columns;
      out.push_back(p);
    }
    return out;
  }

  /// Reads frame `lines` (its count, comment and atom lines; the count line the file's line
  /// index `at`) into `out`.
  void frame(std::vector<std::string> const& lines, std::size_t at, ExtendedXyz& out) const {
    std::size_t const n = lines.size() - 2;
    long long const comment = line(at + 1);
    bool haveLattice = false;
    std::string spec = "species:S:1:pos:R:3";
    for (auto const& [key, value] : keyValues(lines[1], comment)) {
      auto const v = words(value);
      if (key == "lattice") {
        if (v.size() != 9)
          fail(comment, str("Lattice has ", v.size(), " numbers"),
               "nine: the cell vectors a, b and c");
        double cell[9];
        for (int k = 0; k < 9; ++k)
          cell[k] = real(v[static_cast<std::size_t>(k)], comment, "Lattice value");
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c)
            if (r != c && cell[3 * r + c] != 0.0)
              fail(comment, str("a cell that is not orthogonal (Lattice=\"", value, "\")"),
                   "cell vectors along x, y and z (a triclinic box is not supported)");
        for (int a = 0; a < 3; ++a) {
          if (!(cell[4 * a] > 0))
            fail(comment, str("a cell edge ", cell[4 * a], " along axis ", a), "edges > 0");
          out.hi[a] = cell[4 * a];
        }
        haveLattice = true;
      } else if (key == "origin") {
        if (v.size() != 3)
          fail(comment, str("Origin has ", v.size(), " numbers"), "three: the box's low corner");
        for (int a = 0; a < 3; ++a)
          out.lo[a] = real(v[static_cast<std::size_t>(a)], comment, "Origin value");
      } else if (key == "pbc") {
        bool periodic = v.size() == 3;
        for (auto const& b : v)
          periodic = periodic && (lower(b) == "t" || lower(b) == "true" || b == "1");
        if (!periodic)
          fail(comment, str("pbc=\"", value, "\""), "a box periodic on every axis (pbc=\"T T T\")");
      } else if (key == "properties") {
        spec = value;
      }
    }
    if (!haveLattice) fail(comment, "no Lattice", "Lattice=\"ax 0 0 0 by 0 0 0 cz\" (the box)");
    for (int a = 0; a < 3; ++a) out.hi[a] += out.lo[a];

    auto const props = properties(spec, comment);
    int width = 0;
    Property const *species = nullptr, *pos = nullptr, *velo = nullptr, *mass = nullptr,
                   *id = nullptr;
    for (auto const& p : props) {
      width += p.columns;
      std::string const name = lower(p.name);
      auto take = [&](Property const*& slot, char type, int columns) {
        if (p.type != type || p.columns != columns)
          fail(comment, str("the property ", p.name, " is ", p.type, ":", p.columns),
               str(p.name, ":", type, ":", columns));
        slot = &p;
      };
      if (name == "species")
        take(species, 'S', 1);
      else if (name == "pos")
        take(pos, 'R', 3);
      else if (name == "velo" || name == "vel" || name == "velocities")
        take(velo, 'R', 3);
      else if (name == "mass" || name == "masses")
        take(mass, 'R', 1);
      else if (name == "id")
        take(id, 'I', 1);
    }
    if (!species || !pos)
      fail(comment,
           str("Properties=", spec.substr(0, 80), " without ", !species ? "species" : "pos"),
           "the columns species:S:1 and pos:R:3");

    out.id.reserve(n);
    out.type.reserve(n);
    out.position.reserve(n);
    if (velo) out.velocity.reserve(n);
    std::unordered_set<long long> ids;
    for (std::size_t i = 0; i < n; ++i) {
      long long const number = line(at + 2 + i);
      auto const w = words(lines[2 + i]);
      if (static_cast<int>(w.size()) != width)
        fail(number, str("an atom line of ", w.size(), " values"),
             str(width, " (Properties=", spec.substr(0, 80), ")"));
      std::string const& name = w[static_cast<std::size_t>(species->first)];
      auto const known = std::find(out.species.begin(), out.species.end(), name);
      int const t = static_cast<int>(known - out.species.begin());
      if (known == out.species.end()) out.species.push_back(name);
      out.type.push_back(t);
      std::array<double, 3> x{};
      for (int a = 0; a < 3; ++a)
        x[a] = real(w[static_cast<std::size_t>(pos->first + a)], number, "position");
      out.position.push_back(x);
      if (velo) {
        for (int a = 0; a < 3; ++a)
          x[a] = real(w[static_cast<std::size_t>(velo->first + a)], number, "velocity");
        out.velocity.push_back(x);
      }
      if (mass) {
        double const m = real(w[static_cast<std::size_t>(mass->first)], number, "mass");
        if (out.masses.size() <= static_cast<std::size_t>(t))
          out.masses.resize(static_cast<std::size_t>(t) + 1, 0.0);
        double& given = out.masses[static_cast<std::size_t>(t)];
        if (!(m > 0) || (given > 0 && m != given))
          fail(number,
               str("the mass ", m, " for species ", name,
                   given > 0 ? str(" (", given, " before)") : ""),
               "one mass > 0 per species");
        given = m;
      }
      long long const tag = id ? whole(w[static_cast<std::size_t>(id->first)], number, "id", 1)
                               : static_cast<long long>(i) + 1;
      if (!ids.insert(tag).second)
        fail(number, str("the id ", tag, " a second time"), "unique ids");
      out.id.push_back(tag);
    }
  }

  std::string m_path;
};

}  // namespace

bool isExtendedXyzPath(std::string const& path) {
  auto const dot = path.rfind('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return false;
  std::string const ext = lower(path.substr(dot + 1));
  return ext == "xyz" || ext == "extxyz";
}

ExtendedXyz readExtendedXyz(std::string const& path) {
  return Reader(path).read();
}

}  // namespace eddy::io
