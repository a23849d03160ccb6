#include "eddy/io/Deck.hpp"

#include "YamlTree.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/io/Schema.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <utility>

namespace eddy::io {

using detail::YamlEntry;
using detail::YamlNode;

/// The resolved deck: every section and key path in schema order (sections hold no value).
struct Deck::Impl {
  struct Item {
    std::string path;
    bool section = false;
    Value value;
    int line = 0;    ///< where the deck gives it; 0: not given (a default)
    int column = 0;
  };
  std::string path;
  std::vector<Item> items;  ///< line < 0: given by overrides[-line - 1]
  std::vector<DeckOverride> overrides;

  Item const& item(std::string const& keyPath, char const* getter) const {
    for (auto const& i : items)
      if (i.path == keyPath && !i.section) return i;
    throw Error(str("Deck::", getter, "(\"", keyPath, "\"): no such key in the resolved deck of ",
                    path,
                    "; expected a key path of the schema such as \"grid.cells\" (an "
                    "optional key without default is absent unless given: check has())"));
  }

  /// The key where the deck (or an override) gives it, else the nearest enclosing section the
  /// deck gives, else nullptr.
  Item const* nearestGiven(std::string const& keyPath) const {
    for (std::string p = keyPath;;) {
      for (auto const& i : items)
        if (i.path == p && i.line != 0) return &i;
      auto const dot = p.rfind('.');
      if (dot == std::string::npos) return nullptr;
      p.resize(dot);
    }
  }
};

namespace {

std::string join(std::string const& path, std::string const& key) {
  return path.empty() ? key : path + "." + key;
}

/// Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`.
std::size_t editDistance(std::string const& a, std::string const& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::size_t commonPrefix(std::string const& a, std::string const& b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

/// Every key path of the schema whose last name is `name` (to say where a misplaced key goes).
/// A name of a namedSections() entry: a letter, then letters, digits and '_'.
bool isName(std::string const& s) {
  if (s.empty() || s.size() > 64 || !std::isalpha(static_cast<unsigned char>(s[0]))) return false;
  for (unsigned char c : s)
    if (!std::isalnum(c) && c != '_') return false;
  return true;
}

void findByName(Key const& section, std::string const& path, std::string const& name,
                std::vector<std::string>& out) {
  for (auto const& k : section.children()) {
    if (k.name() == name) out.push_back(join(path, k.name()));
    if (k.isSection()) findByName(k, join(path, k.name()), name, out);
  }
}

/// Checks a YAML tree against the schema and fills the resolved items. Every error is added to
/// `errors` and the check goes on with the deck's other keys; a key whose value is wrong is left
/// out of the items (nothing that follows from it is checked, so one mistake is one error).
class Validator {
 public:
  Validator(Schema const& schema, std::vector<Deck::Impl::Item>& out, DeckErrors& errors)
      : m_schema(schema), m_out(out), m_errors(errors) {}

  void run(YamlNode const& root) {
    if (root.kind == YamlNode::Kind::Null)
      return error(1, 1, "", "the deck is empty",
                   str("expected a map of sections: ", sectionList()));
    if (root.kind != YamlNode::Kind::Map)
      return error(root.line, root.column, "", str("the deck is ", describe(root)),
                   str("expected a map of sections: ", sectionList()));
    section(m_schema.root(), &root, root.line, root.column, "");
  }

 private:
  void error(int line, int column, std::string const& path, std::string const& what,
             std::string const& allowed) {
    m_errors.add(line, column, path, what, allowed);
  }

  std::string sectionList() const {
    std::string s;
    for (auto const& k : m_schema.sections()) s += (s.empty() ? "" : ", ") + k.name();
    return s;
  }

  void unknownKey(Key const& spec, YamlEntry const& e, std::string const& path) {
    std::string allowed, best;
    std::size_t bestDistance = std::string::npos;
    for (auto const& k : spec.children()) {
      allowed += (allowed.empty() ? "" : ", ") + k.name();
      // A key far longer than every name is no typo (and its edit distance would cost its
      // length times the name's in time and memory).
      if (e.key.size() > 2 * k.name().size() + 4) continue;
      std::size_t const d = editDistance(e.key, k.name());
      // Close enough to be a typo (one edit, two for names of 4+ letters, or a third of the
      // name) or an abbreviation (the first 4 letters agree, or all of a shorter key).
      bool const close = d <= 1 || (d <= 2 && k.name().size() >= 4) || 3 * d <= k.name().size() ||
                         (e.key.size() >= 3 &&
                          commonPrefix(e.key, k.name()) >= std::min<std::size_t>(4, e.key.size()));
      if (close && d < bestDistance) {
        best = k.name();
        bestDistance = d;
      }
    }
    std::string what = str("unknown ", path.empty() ? "section" : "key", " '", elided(e.key), "'");
    if (!best.empty()) {
      what += str(" (did you mean '", best, "'?)");
    } else {
      std::vector<std::string> elsewhere;
      findByName(m_schema.root(), "", e.key, elsewhere);
      if (!elsewhere.empty()) what += str(" (did you mean ", elsewhere.front(), "?)");
    }
    error(e.line, e.column, join(path, elided(e.key)), what,
          str(path.empty() ? "allowed sections: " : str("allowed keys in ", path, ": "), allowed));
  }

  /// Validates a section given as `node` (nullptr when the deck does not give it) at line:col.
  void section(Key const& spec, YamlNode const* node, int line, int column,
               std::string const& path) {
    if (node && node->kind == YamlNode::Kind::Null) node = nullptr;  // `run:` = all defaults
    std::string keys;
    for (auto const& k : spec.children()) keys += (keys.empty() ? "" : ", ") + k.name();
    if (node && node->kind != YamlNode::Kind::Map)
      return error(line, column, path, str("got ", describe(*node)),
                   str("expected a section (a map) with keys: ", keys));
    if (spec.isNamed()) {
      m_out.push_back({path, true, {}, node ? line : 0, node ? column : 0});
      if (node)
        for (auto const& e : node->entries) {
          std::string const kp = join(path, elided(e.key));
          if (!isName(e.key))
            error(e.line, e.column, kp, str("'", elided(e.key), "' is not a name"),
                  "expected letters, digits and '_', starting with a letter");
          else
            section(*spec.child(e.key), &e.value, e.line, e.column, kp);
        }
      return;
    }
    if (node)
      for (auto const& e : node->entries)
        if (!spec.child(e.key)) unknownKey(spec, e, path);
    if (!path.empty()) m_out.push_back({path, true, {}, node ? line : 0, node ? column : 0});

    auto entry = [node](std::string const& name) -> YamlEntry const* {
      if (!node) return nullptr;
      for (auto const& e : node->entries)
        if (e.key == name) return &e;
      return nullptr;
    };
    // Keys given in place of a sibling (insteadOf): the sibling gets no default, and may not be
    // given too.
    std::vector<std::string> replaced;
    for (auto const& k : spec.children()) {
      if (k.replaces().empty() || !entry(k.name())) continue;
      replaced.push_back(k.replaces());
      if (YamlEntry const* both = entry(k.name()); both && entry(k.replaces()))
        error(both->line, both->column, join(path, k.name()),
              str("is given with ", join(path, k.replaces())),
              str("expected one of ", join(path, k.replaces()), " and ", join(path, k.name())));
    }
    for (auto const& k : spec.children()) {
      std::string const kp = join(path, k.name());
      YamlEntry const* e = entry(k.name());
      bool const standIn = std::find(replaced.begin(), replaced.end(), k.name()) != replaced.end();
      if (k.isSection()) {
        if (e)
          section(k, &e->value, e->line, e->column, kp);
        else if (!k.isOptional())
          section(k, nullptr, line, column, kp);
      } else if (e) {
        Value v = convert(k, e->value, kp, e->line, e->column);
        if (v.index() != 0) m_out.push_back({kp, false, std::move(v), e->line, e->column});
      } else if (k.isRequired()) {
        error(line, column, kp,
              node ? str("missing required key '", k.name(), "'")
                   : str("missing required key '", k.name(), "' (section '", path,
                         "' is not in the deck)"),
              str("expected ", k.expectation(), ": ", k.doc()));
      } else if (!standIn && (k.defaultVal().index() != 0 || k.defaultElement().index() != 0)) {
        m_out.push_back({kp, false, k.defaultVal()});  // a defaultEach list is filled below
      }
    }
    // Lists whose length follows another list: check what was given, fill what was not.
    for (auto const& k : spec.children()) {
      if (k.lengthPeer().empty()) continue;
      std::string const kp = join(path, k.name());
      std::string const peerPath = k.lengthPeer().find('.') == std::string::npos
                                       ? join(path, k.lengthPeer())
                                       : k.lengthPeer();
      Value* mine = find(kp);
      Value const* peer = find(peerPath);
      EDDY_REQUIRE(m_schema.find(peerPath) != nullptr, "schema key ", kp, ": sameLengthAs(\"",
                   k.lengthPeer(), "\") names no key; expected a sibling name or a full key path");
      // The peer is an optional key the deck omits, or a key whose value was wrong (reported).
      if (mine && !peer && mine->index() == 0) {
        m_out.erase(std::find_if(m_out.begin(), m_out.end(),
                                 [&kp](auto const& i) { return i.path == kp; }));
        continue;
      }
      if (!mine || !peer) continue;
      std::size_t const n = listSize(*peer);
      if (YamlEntry const* e = entry(k.name())) {
        if (listSize(*mine) != n)
          error(e->line, e->column, kp,
                str("has ", listSize(*mine), " elements but ", peerPath, " has ", n),
                str("expected one per element of ", peerPath, " (", n, ")"));
      } else if (k.defaultElement().index() != 0) {
        *mine = repeat(k.defaultElement(), n);
      }
    }
  }

  Value* find(std::string const& path) {
    for (auto& i : m_out)
      if (i.path == path && !i.section) return &i.value;
    return nullptr;
  }

  static std::size_t listSize(Value const& v) {
    if (auto const* a = std::get_if<std::vector<std::int64_t>>(&v)) return a->size();
    if (auto const* b = std::get_if<std::vector<double>>(&v)) return b->size();
    if (auto const* c = std::get_if<std::vector<bool>>(&v)) return c->size();
    return 0;
  }

  static Value repeat(Value const& element, std::size_t n) {
    if (auto const* a = std::get_if<std::int64_t>(&element))
      return std::vector<std::int64_t>(n, *a);
    if (auto const* b = std::get_if<double>(&element)) return std::vector<double>(n, *b);
    return std::vector<bool>(n, std::get<bool>(element));
  }

  /// The value of a non-section key, or none (monostate) after adding its error.
  Value convert(Key const& k, YamlNode const& n, std::string const& path, int line, int column) {
    // Non-scalar values carry their own (start) location; scalars and nulls are at line:column.
    auto wrongType = [&](std::string const& expected) {
      error(line, column, path, str("got ", describe(n)), str("expected ", expected));
      return Value{};
    };
    switch (k.type()) {
      case KeyType::Int:
      case KeyType::Double:
      case KeyType::Bool:
        if (n.kind != YamlNode::Kind::Scalar) return wrongType(k.expectation());
        return element(k, k.type(), n, path, k.expectation());
      case KeyType::String:
        if (n.kind != YamlNode::Kind::Scalar) return wrongType(k.expectation());
        return n.text;
      case KeyType::Enum:
        if (n.kind != YamlNode::Kind::Scalar ||
            std::find(k.choices().begin(), k.choices().end(), n.text) == k.choices().end())
          return wrongType(k.expectation());
        return n.text;
      case KeyType::IntList:
      case KeyType::DoubleList:
      case KeyType::BoolList:
        return list(k, n, path, line, column);
      case KeyType::Section:
        break;
    }
    return {};
  }

  /// A list, or none after adding its errors: a wrong length, and each wrong element.
  Value list(Key const& k, YamlNode const& n, std::string const& path, int line, int column) {
    if (n.kind != YamlNode::Kind::Sequence) {
      error(line, column, path, str("got ", describe(n)), str("expected ", k.expectation()));
      return {};
    }
    bool good = true;
    auto const& ok = k.allowedLengths();
    if (!ok.empty() &&
        std::find(ok.begin(), ok.end(), static_cast<int>(n.items.size())) == ok.end()) {
      error(line, column, path, str("got a list of ", n.items.size(), " elements"),
            str("expected ", k.expectation()));
      good = false;
    }
    KeyType const et = k.type() == KeyType::IntList      ? KeyType::Int
                       : k.type() == KeyType::DoubleList ? KeyType::Double
                                                         : KeyType::Bool;
    std::string const range = k.rangeText();
    std::string const each =
        str(et == KeyType::Int      ? "an integer"
            : et == KeyType::Double ? "a number"
                                    : "true or false",
            range.empty() ? "" : " ", range, " (", path, " is ", k.expectation(), ")");
    std::vector<std::int64_t> ints;
    std::vector<double> reals;
    std::vector<bool> bools;
    for (std::size_t i = 0; i < n.items.size(); ++i) {
      Value const v = element(k, et, n.items[i], str(path, '[', i, ']'), each);
      good = good && v.index() != 0;
      if (!good) continue;  // the elements are still checked, each error reported
      if (et == KeyType::Int) ints.push_back(std::get<std::int64_t>(v));
      if (et == KeyType::Double) reals.push_back(std::get<double>(v));
      if (et == KeyType::Bool) bools.push_back(std::get<bool>(v));
    }
    if (!good) return {};
    if (et == KeyType::Int) return ints;
    if (et == KeyType::Double) return reals;
    return bools;
  }

  /// One integer, number or bool (a scalar key or a list element), range-checked; or none after
  /// adding its error.
  Value element(Key const& k, KeyType t, YamlNode const& n, std::string const& path,
                std::string const& expected) {
    auto bad = [&](std::string const& what) {
      error(n.line, n.column, path, what, "expected " + expected);
      return Value{};
    };
    if (n.kind != YamlNode::Kind::Scalar || !n.plain) return bad(str("got ", describe(n)));
    std::string const& s = n.text;
    if (t == KeyType::Bool) {
      if (s == "true" || s == "True" || s == "TRUE") return true;
      if (s == "false" || s == "False" || s == "FALSE") return false;
      return bad(str("got ", describe(n)));
    }
    double value = 0;
    Value result;
    if (t == KeyType::Int) {
      bool digits = !s.empty();
      for (std::size_t i = 0; i < s.size(); ++i)
        digits = digits && (std::isdigit(static_cast<unsigned char>(s[i])) ||
                            (i == 0 && s.size() > 1 && (s[0] == '-' || s[0] == '+')));
      if (!digits) return bad(str("got ", describe(n), ", which is not an integer"));
      errno = 0;
      long long const v = std::strtoll(s.c_str(), nullptr, 10);
      if (errno == ERANGE) return bad(str(elided(s), " does not fit in a 64-bit integer"));
      value = static_cast<double>(v);
      result = static_cast<std::int64_t>(v);
    } else {
      bool chars = !s.empty() && s.find_first_not_of("0123456789+-.eE") == std::string::npos;
      char* end = nullptr;
      double const v = chars ? std::strtod(s.c_str(), &end) : 0.0;
      if (!chars || end != s.c_str() + s.size())
        return bad(str("got ", describe(n), ", which is not a number"));
      if (!std::isfinite(v)) return bad(str(elided(s), " is not a finite number"));
      value = v;
      result = v;
    }
    auto const& lo = k.min();
    auto const& hi = k.max();
    if ((lo && (value < lo->value || (!lo->inclusive && value == lo->value))) ||
        (hi && (value > hi->value || (!hi->inclusive && value == hi->value))))
      return bad(str(elided(s), " is out of range"));
    return result;
  }

  Schema const& m_schema;
  std::vector<Deck::Impl::Item>& m_out;
  DeckErrors& m_errors;
};

/// A YAML double-quoted string (escapes quotes, backslashes and control characters).
std::string quoted(std::string const& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else {
      detail::appendEscaped(out, c);
    }
  }
  return out + "\"";
}

std::string yamlValue(Value const& v) {
  std::ostringstream os;
  auto list = [&os](auto const& xs, auto each) {
    os << '[';
    for (std::size_t i = 0; i < xs.size(); ++i) os << (i ? ", " : "") << each(xs[i]);
    os << ']';
  };
  if (auto const* i = std::get_if<std::int64_t>(&v)) os << *i;
  if (auto const* d = std::get_if<double>(&v)) os << formatReal(*d);
  if (auto const* b = std::get_if<bool>(&v)) os << (*b ? "true" : "false");
  if (auto const* s = std::get_if<std::string>(&v)) os << quoted(*s);
  if (auto const* il = std::get_if<std::vector<std::int64_t>>(&v))
    list(*il, [](std::int64_t x) { return str(x); });
  if (auto const* dl = std::get_if<std::vector<double>>(&v))
    list(*dl, [](double x) { return formatReal(x); });
  if (auto const* bl = std::get_if<std::vector<bool>>(&v))
    list(*bl, [](bool x) { return std::string(x ? "true" : "false"); });
  return os.str();
}

template <class T>
T const& typed(Deck::Impl const& impl, std::string const& keyPath, char const* getter,
               char const* typeName) {
  Value const& v = impl.item(keyPath, getter).value;
  if (auto const* p = std::get_if<T>(&v)) return *p;
  throw Error(str("Deck::", getter, "(\"", keyPath, "\"): the key holds ", yamlValue(v), ", not ",
                  typeName, "; expected the getter that matches the schema type"));
}

}  // namespace

Deck::Deck() : m_impl(new Impl) {}
Deck::Deck(Impl impl) : m_impl(new Impl(std::move(impl))) {}
Deck::~Deck() {
  delete m_impl;
}
Deck::Deck(Deck const& o) : m_impl(new Impl(*o.m_impl)) {}
Deck& Deck::operator=(Deck const& o) {
  if (this != &o) *m_impl = *o.m_impl;
  return *this;
}
Deck::Deck(Deck&& o) noexcept : m_impl(o.m_impl) {
  o.m_impl = nullptr;
}
Deck& Deck::operator=(Deck&& o) noexcept {
  std::swap(m_impl, o.m_impl);
  return *this;
}

std::string const& Deck::path() const {
  return m_impl->path;
}

std::string Deck::resolvedYaml() const {
  std::ostringstream os;
  if (!m_impl->overrides.empty()) {
    os << "# deck overrides:";
    for (std::size_t i = 0; i < m_impl->overrides.size(); ++i)
      os << (i ? ", " : " ") << m_impl->overrides[i].text();
    os << '\n';
  }
  auto const& items = m_impl->items;
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto const& it = items[i];
    std::size_t const depth =
        static_cast<std::size_t>(std::count(it.path.begin(), it.path.end(), '.'));
    std::string const name = it.path.substr(it.path.rfind('.') + 1);
    os << std::string(2 * depth, ' ') << name << ':';
    if (!it.section) {
      os << ' ' << yamlValue(it.value);
    } else if (i + 1 == items.size() ||
               items[i + 1].path.compare(0, it.path.size() + 1, it.path + ".") != 0) {
      os << " {}";  // a section without keys
    }
    os << '\n';
  }
  return os.str();
}

std::vector<std::string> Deck::names(std::string const& sectionPath) const {
  std::vector<std::string> out;
  std::string const prefix = sectionPath + ".";
  for (auto const& i : m_impl->items)
    if (i.section && i.path.compare(0, prefix.size(), prefix) == 0 &&
        i.path.find('.', prefix.size()) == std::string::npos)
      out.push_back(i.path.substr(prefix.size()));
  return out;
}

std::vector<DeckOverride> const& Deck::overrides() const {
  return m_impl->overrides;
}

bool Deck::given(std::string const& keyPath) const {
  for (auto const& i : m_impl->items)
    if (i.path == keyPath) return i.line != 0;
  return false;
}

std::string Deck::location(std::string const& keyPath) const {
  auto const* i = m_impl->nearestGiven(keyPath);
  if (!i) return m_impl->path;
  if (i->line < 0) return m_impl->overrides.at(static_cast<std::size_t>(-i->line - 1)).argument();
  return detail::location(m_impl->path, i->line, i->column);
}

bool Deck::has(std::string const& keyPath) const {
  for (auto const& i : m_impl->items)
    if (i.path == keyPath) return true;
  return false;
}

std::int64_t Deck::getInt(std::string const& keyPath) const {
  return typed<std::int64_t>(*m_impl, keyPath, "getInt", "an integer");
}
double Deck::getDouble(std::string const& keyPath) const {
  return typed<double>(*m_impl, keyPath, "getDouble", "a number");
}
bool Deck::getBool(std::string const& keyPath) const {
  return typed<bool>(*m_impl, keyPath, "getBool", "true or false");
}
std::string Deck::getString(std::string const& keyPath) const {
  return typed<std::string>(*m_impl, keyPath, "getString", "a string");
}
std::vector<std::int64_t> Deck::getIntList(std::string const& keyPath) const {
  return typed<std::vector<std::int64_t>>(*m_impl, keyPath, "getIntList", "a list of integers");
}
std::vector<double> Deck::getDoubleList(std::string const& keyPath) const {
  return typed<std::vector<double>>(*m_impl, keyPath, "getDoubleList", "a list of numbers");
}
std::vector<bool> Deck::getBoolList(std::string const& keyPath) const {
  return typed<std::vector<bool>>(*m_impl, keyPath, "getBoolList", "a list of true/false");
}

void DeckErrors::add(Deck const& deck, std::string const& keyPath, std::string const& what,
                     std::string const& expected) {
  auto const* i = deck.m_impl->nearestGiven(keyPath);
  // A key an override gives is located at its argument: the errors of one deck know its
  // overrides.
  if (m_arguments.empty())
    for (auto const& o : deck.m_impl->overrides) m_arguments.push_back(o.argument());
  add(i ? i->line : 0, i ? i->column : 0, keyPath, what, expected);
}

Deck parseDeck(std::string const& text, std::string const& path, Schema const& schema,
               std::vector<DeckOverride> const& overrides) {
  DeckErrors errors(path);
  std::vector<std::string> arguments;
  for (auto const& o : overrides) arguments.push_back(o.argument());
  errors.setArguments(std::move(arguments));
  YamlNode root = detail::parseYaml(text, errors);
  detail::applyOverrides(root, overrides, errors);
  Deck::Impl impl;
  impl.path = path;
  impl.overrides = overrides;
  Validator(schema, impl.items, errors).run(root);
  errors.throwIfAny();
  return Deck(std::move(impl));
}

Deck loadDeck(std::string const& path, Schema const& schema, MPI_Comm comm,
              std::vector<DeckOverride> const& overrides) {
  int rank = 0;
  checkMpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  std::string text;
  // Rank 0's overrides, "key=value" each followed by a NUL (no argument holds one), so that
  // every rank runs rank 0's deck even if a launcher gave the ranks different arguments.
  std::string packed;
  if (rank == 0)
    for (auto const& o : overrides) packed += o.keyPath + '=' + o.value + '\0';
  // status[0]: errno of the failed read on rank 0 (0 = read); status[1]: text size;
  // status[2]: size of the packed overrides.
  long long status[3] = {0, 0, static_cast<long long>(packed.size())};
  if (rank == 0) {
    errno = 0;
    if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
      // One byte past the limit is enough for parseDeck to reject the deck, located; a larger
      // file (or /dev/zero) is not read on.
      char buf[65536];
      std::size_t got = 0;
      while (text.size() <= DeckLimits::kBytes && (got = std::fread(buf, 1, sizeof buf, f)) > 0)
        text.append(buf, std::min(got, DeckLimits::kBytes + 1 - text.size()));
      if (std::ferror(f)) status[0] = errno ? errno : EIO;
      std::fclose(f);
    } else {
      status[0] = errno ? errno : ENOENT;
    }
    status[1] = static_cast<long long>(text.size());
  }
  checkMpi(MPI_Bcast(status, 3, MPI_LONG_LONG, 0, comm), "MPI_Bcast");
  if (status[0] != 0)
    throw IoError(str("cannot read deck '", path, "': ", std::strerror(static_cast<int>(status[0])),
                      "; expected a readable YAML file"),
                  /*collective=*/true);
  text.resize(static_cast<std::size_t>(status[1]));
  if (status[1] > 0)
    checkMpi(MPI_Bcast(text.data(), static_cast<int>(status[1]), MPI_CHAR, 0, comm), "MPI_Bcast");
  // The command line bounds the overrides' size (ARG_MAX): an int counts it.
  packed.resize(static_cast<std::size_t>(status[2]));
  if (status[2] > 0)
    checkMpi(MPI_Bcast(packed.data(), static_cast<int>(status[2]), MPI_CHAR, 0, comm), "MPI_Bcast");
  std::vector<DeckOverride> same;
  for (std::size_t at = 0, end; (end = packed.find('\0', at)) != std::string::npos; at = end + 1)
    same.push_back(parseOverride(packed.substr(at, end - at)));
  return parseDeck(text, path, schema, same);
}

}  // namespace eddy::io
