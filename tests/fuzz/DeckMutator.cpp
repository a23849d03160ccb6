#include "DeckMutator.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

namespace eddy::fuzz {

namespace {

/// splitmix64: a small generator whose stream is the same on every platform (the standard
/// library's distributions are not), so a mutant's seed reproduces it anywhere.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : m_state(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// In [0, n); 0 when n is 0.
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }
  bool percent(int p) { return below(100) < static_cast<std::size_t>(p); }
  template <class T>
  T const& pick(std::vector<T> const& v) {
    return v[below(v.size())];
  }

 private:
  std::uint64_t m_state;
};

std::vector<std::string> const kPunctuation{": ",
                                            ":",
                                            "- ",
                                            "-",
                                            "[",
                                            "]",
                                            "{",
                                            "}",
                                            ",",
                                            "&a ",
                                            "*a",
                                            "&b ",
                                            "*b",
                                            "!!str ",
                                            "!!int ",
                                            "!!map ",
                                            "!custom ",
                                            "'",
                                            "\"",
                                            "#",
                                            "\n",
                                            "  ",
                                            "\t",
                                            "|\n",
                                            ">-\n",
                                            "? ",
                                            "---\n",
                                            "...\n",
                                            "%YAML 1.2\n",
                                            "\xef\xbb\xbf",
                                            std::string(1, '\0'),
                                            "\\",
                                            "\\u00e9",
                                            "\\x00",
                                            "<<: *a\n",
                                            "\r\n",
                                            "\xff\xfe",
                                            "\xc3\xa9",
                                            "~",
                                            "null",
                                            "@",
                                            "`",
                                            "%"};

std::vector<std::string> const kExtremes{"0",
                                         "-0",
                                         "-1",
                                         "1",
                                         "+1",
                                         "0.0",
                                         "3.",
                                         ".5",
                                         "1e308",
                                         "-1e308",
                                         "1e309",
                                         "1e999",
                                         "1e-320",
                                         "4.9e-324",
                                         "2147483647",
                                         "2147483648",
                                         "-2147483648",
                                         "-2147483649",
                                         "4294967296",
                                         "9223372036854775807",
                                         "9223372036854775808",
                                         "-9223372036854775808",
                                         "-9223372036854775809",
                                         "99999999999999999999999999",
                                         "nan",
                                         "NaN",
                                         ".nan",
                                         ".inf",
                                         "-.inf",
                                         "inf",
                                         "0x10",
                                         "0o17",
                                         "1_000",
                                         "1e3",
                                         "1E+2",
                                         "--1",
                                         "1.0.0",
                                         "0e0",
                                         "true",
                                         "false",
                                         "null",
                                         "~",
                                         "\"1\"",
                                         "''",
                                         "[]",
                                         "{}",
                                         "[1]",
                                         "[1, 2]",
                                         "[1, 2, 3]",
                                         "[1, 2, 3, 4]",
                                         "[0, 0]",
                                         "[-1, -1, -1]",
                                         "[true, false]",
                                         "[1e308, 1e308, 1e308]",
                                         "[2147483648, 2147483648, 2147483648]",
                                         "[4294967297, 2]"};

bool tokenChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '+' ||
         c == '-';
}

/// [begin, end) of every token (a run of letters, digits and _.+-) of `t`.
std::vector<std::pair<std::size_t, std::size_t>> tokens(std::string const& t) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t i = 0; i < t.size();) {
    if (!tokenChar(t[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < t.size() && tokenChar(t[j])) ++j;
    out.emplace_back(i, j);
    i = j;
  }
  return out;
}

std::vector<std::string> lines(std::string const& t) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= t.size(); ++i)
    if (i == t.size() || t[i] == '\n') {
      out.push_back(t.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

std::string joined(std::vector<std::string> const& ls) {
  std::string out;
  for (std::size_t i = 0; i < ls.size(); ++i) out += (i ? "\n" : "") + ls[i];
  return out;
}

/// [begin, end) of the value after the first "key: " of each line (up to a comment or the
/// line's end).
std::vector<std::pair<std::size_t, std::size_t>> values(std::string const& t) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t i = t.find(": "); i != std::string::npos; i = t.find(": ", i)) {
    std::size_t const b = i + 2;
    std::size_t e = b;
    while (e < t.size() && t[e] != '\n' && !(t[e] == '#' && t[e - 1] == ' ')) ++e;
    out.emplace_back(b, e);
    i = e;  // the next line: a line of a million ": " costs its length once
  }
  return out;
}

std::string repeatJoined(std::string const& item, std::size_t n, std::string const& sep) {
  std::string out;
  out.reserve(n * (item.size() + sep.size()));
  for (std::size_t i = 0; i < n; ++i) out += (i ? sep : "") + item;
  return out;
}

/// A list of `n` elements, flow or block style.
std::string hugeList(Rng& r) {
  static std::vector<std::size_t> const sizes{0, 1, 2, 3, 4, 17, 1000, 10001, 200000};
  static std::vector<std::string> const items{"1", "0",   "-1",     "1e308", "true",
                                              "x", "[1]", "{a: 1}", "\"s\"", "2147483648"};
  std::size_t const n = r.pick(sizes);
  std::string const item = r.pick(items);
  if (r.percent(70) || n > 20000) return "[" + repeatJoined(item, n, ", ") + "]";
  return "\n" + repeatJoined("  - " + item, n, "\n");
}

/// A value nested `d` maps or lists deep.
std::string deepNesting(Rng& r) {
  static std::vector<std::size_t> const depths{2, 4, 15, 16, 17, 100, 5000, 100000};
  std::size_t const d = r.pick(depths);
  switch (r.below(3)) {
    case 0:
      return std::string(d, '[') + "1" + std::string(d, ']');
    case 1:
      return repeatJoined("{a: ", d, "") + "1" + std::string(d, '}');
    default: {  // block maps; indentation grows with depth, so kept shallower
      std::size_t const db = std::min<std::size_t>(d, 300);
      std::string out;
      for (std::size_t i = 0; i < db; ++i) out += "\n" + std::string(2 * (i + 1), ' ') + "k:";
      return out + " 1";
    }
  }
}

/// A long scalar around the limits on values and on decks.
std::string longValue(Rng& r) {
  static std::vector<std::size_t> const sizes{61, 500, 100000, (1u << 20) - 64, (1u << 20) + 64};
  std::size_t const n = r.pick(sizes);
  switch (r.below(4)) {
    case 0:
      return std::string(n, 'x');
    case 1:
      return std::string(n, '9');
    case 2:
      return "\"" + repeatJoined("a\\n", n / 3, "") + "\"";
    default:
      return "'" + std::string(n, '\xc3') + "'";  // not UTF-8
  }
}

/// Top-level keys `n0`..`n<levels>`, each a list of `width` aliases of the one before.
std::string aliasNest(Rng& r) {
  std::size_t const levels = 2 + r.below(9), width = 2 + r.below(9);
  std::string out = "\nn0: &n0 [" + repeatJoined("x", width, ", ") + "]\n";
  for (std::size_t l = 1; l <= levels; ++l)
    out += "n" + std::to_string(l) + ": &n" + std::to_string(l) + " [" +
           repeatJoined("*n" + std::to_string(l - 1), width, ", ") + "]\n";
  return out;
}

}  // namespace

DeckMutator::DeckMutator(std::vector<std::string> corpus, std::vector<std::string> dictionary)
    : m_corpus(std::move(corpus)), m_dictionary(std::move(dictionary)) {
  if (m_corpus.empty()) m_corpus.emplace_back();
  if (m_dictionary.empty()) m_dictionary.emplace_back("run");
}

Mutant DeckMutator::make(std::uint64_t seed, std::uint64_t index) const {
  Rng r(seed * 0x100000001B3ull ^ (index + 0x9E3779B97F4A7C15ull));
  r.next();
  Mutant m;
  m.seedDeck = r.below(m_corpus.size());
  std::string t = m_corpus[m.seedDeck];
  std::size_t const count = r.percent(50) ? 1 : r.percent(50) ? 2 : 3 + r.below(4);

  auto replaceSpan = [&](std::vector<std::pair<std::size_t, std::size_t>> const& spans,
                         std::string const& with) {
    if (spans.empty()) return false;
    auto const [b, e] = spans[r.below(spans.size())];
    t.replace(b, e - b, with);
    return true;
  };
  auto someValue = [&]() -> std::string {
    switch (r.below(10)) {
      case 0:
        return hugeList(r);
      case 1:
        return deepNesting(r);
      case 2:
        return longValue(r);
      case 3:
      case 4:
        return r.pick(m_dictionary);
      default:
        return r.pick(kExtremes);
    }
  };

  for (std::size_t k = 0; k < count && t.size() < (std::size_t(4) << 20); ++k) {
    std::size_t const pos = r.below(t.size() + 1);
    std::vector<std::string> ls = lines(t);
    std::size_t const kind = r.below(100);
    std::string name;
    if (kind < 8) {
      name = "flipByte";
      if (t.empty()) t.push_back('x');
      std::size_t const at = r.below(t.size());
      t[at] = r.percent(50)   ? static_cast<char>(0x20 + r.below(0x5f))
              : r.percent(50) ? r.pick(kPunctuation).front()
                              : static_cast<char>(r.below(256));
    } else if (kind < 16) {
      name = "insertPunctuation";
      t.insert(pos, r.pick(kPunctuation));
    } else if (kind < 20) {
      name = "deleteBytes";
      t.erase(std::min(pos, t.size()), 1 + r.below(16));
    } else if (kind < 26) {
      name = "deleteLine";
      ls.erase(ls.begin() + static_cast<long>(r.below(ls.size())));
      t = joined(ls);
    } else if (kind < 30) {
      name = "duplicateLine";
      std::size_t const at = r.below(ls.size());
      ls.insert(ls.begin() + static_cast<long>(at), ls[at]);
      t = joined(ls);
    } else if (kind < 34) {
      name = "swapLines";
      std::swap(ls[r.below(ls.size())], ls[r.below(ls.size())]);
      t = joined(ls);
    } else if (kind < 38) {
      name = "spliceLine";
      std::vector<std::string> const other = lines(m_corpus[r.below(m_corpus.size())]);
      ls.insert(ls.begin() + static_cast<long>(r.below(ls.size() + 1)), r.pick(other));
      t = joined(ls);
    } else if (kind < 41) {
      name = "crossover";
      std::vector<std::string> const other = lines(m_corpus[r.below(m_corpus.size())]);
      ls.resize(r.below(ls.size() + 1));
      ls.insert(ls.end(), other.begin() + static_cast<long>(r.below(other.size())), other.end());
      t = joined(ls);
    } else if (kind < 50) {
      name = "replaceToken";
      if (!replaceSpan(tokens(t), r.pick(m_dictionary))) t.insert(pos, r.pick(m_dictionary));
    } else if (kind < 64) {
      name = "replaceNumber";
      auto spans = tokens(t);
      spans.erase(std::remove_if(spans.begin(), spans.end(),
                                 [&t](auto const& s) {
                                   return !std::isdigit(static_cast<unsigned char>(t[s.first])) &&
                                          t[s.first] != '-' && t[s.first] != '.';
                                 }),
                  spans.end());
      if (!replaceSpan(spans, r.pick(kExtremes))) t.insert(pos, r.pick(kExtremes));
    } else if (kind < 74) {
      name = "replaceValue";
      if (!replaceSpan(values(t), someValue())) t += "\nrun: " + someValue();
    } else if (kind < 82) {
      name = "insertKey";
      static std::vector<std::size_t> const indents{0, 2, 2, 4, 6};
      std::string const line =
          std::string(r.pick(indents), ' ') + r.pick(m_dictionary) + ": " + someValue();
      ls.insert(ls.begin() + static_cast<long>(r.below(ls.size() + 1)), line);
      t = joined(ls);
    } else if (kind < 88) {
      name = "indent";
      std::string& l = ls[r.below(ls.size())];
      if (r.percent(50))
        l.insert(0, 1 + r.below(2), ' ');
      else
        l.erase(0, std::min<std::size_t>(l.find_first_not_of(' '), 1 + r.below(2)));
      t = joined(ls);
    } else if (kind < 95) {
      name = "anchorAlias";
      auto const spans = values(t);
      if (spans.size() >= 2) {
        std::size_t const a = r.below(spans.size()), b = r.below(spans.size());
        // The later one first, so that the earlier span's offsets stay right.
        auto const first = spans[std::min(a, b)], second = spans[std::max(a, b)];
        bool const forward = r.percent(80);  // else the alias comes before its anchor
        if (a != b) t.replace(second.first, second.second - second.first, forward ? "*m" : "&m 1");
        t.insert(first.first, forward ? "&m " : "*m ");
      } else {
        t += "\na: &m [1, 2]\nb: *m\n";
      }
    } else {
      name = "aliasNest";
      t.insert(r.percent(50) ? t.size() : 0, aliasNest(r));
    }
    m.applied.push_back(std::move(name));
  }
  m.text = std::move(t);
  return m;
}

}  // namespace eddy::fuzz
