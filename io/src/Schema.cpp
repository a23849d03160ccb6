#include "eddy/io/Schema.hpp"

#include "eddy/core/Error.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <utility>

namespace eddy::io {

namespace {

char const* typeName(KeyType t) {
  switch (t) {
    case KeyType::Int:
      return "integer";
    case KeyType::Double:
      return "number";
    case KeyType::Bool:
      return "true or false";
    case KeyType::String:
      return "string";
    case KeyType::Enum:
      return "choice";
    case KeyType::IntList:
      return "list of integers";
    case KeyType::DoubleList:
      return "list of numbers";
    case KeyType::BoolList:
      return "list of true/false";
    case KeyType::Section:
      return "section";
  }
  return "?";
}

/// The variant index a default of this key type must have (0 when defaults are not allowed).
std::size_t valueIndex(KeyType t) {
  switch (t) {
    case KeyType::Int:
      return 1;
    case KeyType::Double:
      return 2;
    case KeyType::Bool:
      return 3;
    case KeyType::String:
    case KeyType::Enum:
      return 4;
    case KeyType::IntList:
      return 5;
    case KeyType::DoubleList:
      return 6;
    case KeyType::BoolList:
      return 7;
    case KeyType::Section:
      return 0;
  }
  return 0;
}

std::size_t elementIndex(KeyType t) {
  switch (t) {
    case KeyType::IntList:
      return 1;
    case KeyType::DoubleList:
      return 2;
    case KeyType::BoolList:
      return 3;
    default:
      return 0;
  }
}

/// A bound as text: "0" rather than "0.0" for whole numbers.
std::string formatNumber(double v) {
  if (std::fabs(v) < 9.0e15 && v == std::trunc(v)) return str(static_cast<std::int64_t>(v));
  return formatReal(v);
}

template <class T>
std::string joinList(std::vector<T> const& v) {
  std::ostringstream os;
  os << '[';
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) os << ", ";
    if constexpr (std::is_same_v<T, double>)
      os << formatReal(v[i]);
    else if constexpr (std::is_same_v<T, bool>)
      os << (v[i] ? "true" : "false");
    else
      os << v[i];
  }
  os << ']';
  return os.str();
}

std::string valueText(Value const& v) {
  struct Visitor {
    std::string operator()(std::monostate) const { return ""; }
    std::string operator()(std::int64_t x) const { return str(x); }
    std::string operator()(double x) const { return formatReal(x); }
    std::string operator()(bool x) const { return x ? "true" : "false"; }
    std::string operator()(std::string const& x) const { return str('"', x, '"'); }
    std::string operator()(std::vector<std::int64_t> const& x) const { return joinList(x); }
    std::string operator()(std::vector<double> const& x) const { return joinList(x); }
    std::string operator()(std::vector<bool> const& x) const {
      return joinList(std::vector<bool>(x));
    }
  };
  return std::visit(Visitor{}, v);
}

}  // namespace

std::string formatReal(double v) {
  if (std::isnan(v)) return ".nan";
  if (std::isinf(v)) return v > 0 ? ".inf" : "-.inf";
  char buf[40];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s(buf);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

Key::Key(std::string name, KeyType type, std::string doc)
    : m_name(std::move(name)), m_type(type), m_doc(std::move(doc)) {}

Key Key::integer(std::string name, std::string doc) {
  return Key(std::move(name), KeyType::Int, std::move(doc));
}
Key Key::real(std::string name, std::string doc) {
  return Key(std::move(name), KeyType::Double, std::move(doc));
}
Key Key::boolean(std::string name, std::string doc) {
  return Key(std::move(name), KeyType::Bool, std::move(doc));
}
Key Key::string(std::string name, std::string doc) {
  return Key(std::move(name), KeyType::String, std::move(doc));
}
Key Key::choice(std::string name, std::vector<std::string> choices, std::string doc) {
  EDDY_REQUIRE(!choices.empty(), "schema key '", name, "': a choice needs at least one option");
  Key k(std::move(name), KeyType::Enum, std::move(doc));
  k.m_choices = std::move(choices);
  return k;
}
Key Key::intList(std::string name, std::string doc) {
  return Key(std::move(name), KeyType::IntList, std::move(doc));
}
Key Key::realList(std::string name, std::string doc) {
  return Key(std::move(name), KeyType::DoubleList, std::move(doc));
}
Key Key::boolList(std::string name, std::string doc) {
  return Key(std::move(name), KeyType::BoolList, std::move(doc));
}
Key Key::section(std::string name, std::string doc) {
  return Key(std::move(name), KeyType::Section, std::move(doc));
}

Key Key::namedSections(std::string name, std::string doc, Key entry) {
  EDDY_REQUIRE(entry.isSection(), "schema key '", name, "': namedSections() needs a section entry");
  Key k(std::move(name), KeyType::Section, std::move(doc));
  k.m_children.push_back(std::move(entry));
  k.m_named = true;
  return k;
}

bool Key::isList() const {
  return m_type == KeyType::IntList || m_type == KeyType::DoubleList || m_type == KeyType::BoolList;
}

Key& Key::required() {
  EDDY_REQUIRE(!isSection(), "schema section '", m_name, "': sections cannot be required");
  m_required = true;
  return *this;
}

Key& Key::defaultValue(Value v) {
  // An integer literal is fine as a real default.
  if (m_type == KeyType::Double && v.index() == 1)
    v = static_cast<double>(std::get<std::int64_t>(v));
  if (m_type == KeyType::DoubleList && v.index() == 5) {
    auto const& iv = std::get<std::vector<std::int64_t>>(v);
    v = std::vector<double>(iv.begin(), iv.end());
  }
  EDDY_REQUIRE(valueIndex(m_type) != 0 && v.index() == valueIndex(m_type), "schema key '", m_name,
               "': default ", valueText(v), " does not fit a ", typeName(m_type));
  if (m_type == KeyType::Enum) {
    bool found = false;
    for (auto const& c : m_choices) found = found || c == std::get<std::string>(v);
    EDDY_REQUIRE(found, "schema key '", m_name, "': default ", valueText(v),
                 " is not one of its choices");
  }
  m_default = std::move(v);
  return *this;
}

Key& Key::defaultEach(Value element) {
  if (m_type == KeyType::DoubleList && element.index() == 1)
    element = static_cast<double>(std::get<std::int64_t>(element));
  EDDY_REQUIRE(isList() && element.index() == elementIndex(m_type), "schema key '", m_name,
               "': defaultEach(", valueText(element), ") needs a list key of that element type");
  m_defaultEach = std::move(element);
  return *this;
}

void Key::requireNumeric(char const* what) const {
  EDDY_REQUIRE(m_type == KeyType::Int || m_type == KeyType::Double || m_type == KeyType::IntList ||
                   m_type == KeyType::DoubleList,
               "schema key '", m_name, "': ", what, " needs a numeric key, not a ",
               typeName(m_type));
}

Key& Key::atLeast(double v) {
  requireNumeric("atLeast");
  m_min = Bound{v, true};
  return *this;
}
Key& Key::greaterThan(double v) {
  requireNumeric("greaterThan");
  m_min = Bound{v, false};
  return *this;
}
Key& Key::atMost(double v) {
  requireNumeric("atMost");
  m_max = Bound{v, true};
  return *this;
}
Key& Key::lessThan(double v) {
  requireNumeric("lessThan");
  m_max = Bound{v, false};
  return *this;
}
Key& Key::unit(std::string u) {
  m_unit = std::move(u);
  return *this;
}
Key& Key::lengths(std::vector<int> allowed) {
  EDDY_REQUIRE(isList(), "schema key '", m_name, "': lengths() needs a list key");
  m_lengths = std::move(allowed);
  return *this;
}
Key& Key::insteadOf(std::string name) {
  EDDY_REQUIRE(!isSection(), "schema key '", m_name, "': insteadOf() needs a key, not a section");
  m_insteadOf = std::move(name);
  return *this;
}
Key& Key::sameLengthAs(std::string keyPath) {
  EDDY_REQUIRE(isList(), "schema key '", m_name, "': sameLengthAs() needs a list key");
  m_sameLengthAs = std::move(keyPath);
  return *this;
}
Key& Key::optional() {
  EDDY_REQUIRE(isSection(), "schema key '", m_name,
               "': optional() is for sections (a key without default is already optional)");
  m_optional = true;
  return *this;
}
Key& Key::add(Key key) {
  EDDY_REQUIRE(isSection(), "schema key '", m_name, "': add() needs a section");
  EDDY_REQUIRE(!m_named, "schema key '", m_name, "': the entry of namedSections() holds the keys");
  EDDY_REQUIRE(child(key.name()) == nullptr, "schema section '", m_name, "': key '", key.name(),
               "' is defined twice");
  EDDY_REQUIRE(!key.name().empty() && key.name().find('.') == std::string::npos, "schema section '",
               m_name, "': key name '", key.name(), "' must be non-empty without '.'");
  m_children.push_back(std::move(key));
  return *this;
}

Key const* Key::child(std::string const& name) const {
  if (m_named) return name.empty() ? nullptr : &m_children.front();
  for (auto const& c : m_children)
    if (c.name() == name) return &c;
  return nullptr;
}

std::string Key::typeText() const {
  auto lengthText = [this] {
    std::string s;
    for (std::size_t i = 0; i < m_lengths.size(); ++i)
      s += str(i == 0 ? "" : (i + 1 == m_lengths.size() ? " or " : ", "), m_lengths[i]);
    return s.empty() ? std::string() : s + " ";
  };
  switch (m_type) {
    case KeyType::Int:
      return "an integer";
    case KeyType::Double:
      return "a number";
    case KeyType::Bool:
      return "true or false";
    case KeyType::String:
      return "a string";
    case KeyType::Enum: {
      std::string s = "one of: ";
      for (std::size_t i = 0; i < m_choices.size(); ++i) s += (i ? ", " : "") + m_choices[i];
      return s;
    }
    case KeyType::IntList:
      return str("a list of ", lengthText(), "integers");
    case KeyType::DoubleList:
      return str("a list of ", lengthText(), "numbers");
    case KeyType::BoolList:
      return str("a list of ", lengthText(), "true/false values");
    case KeyType::Section:
      return "a map of keys";
  }
  return "?";
}

std::string Key::rangeText() const {
  if (m_min && m_max)
    return str("in ", m_min->inclusive ? '[' : '(', formatNumber(m_min->value), ", ",
               formatNumber(m_max->value), m_max->inclusive ? ']' : ')');
  if (m_min) return str(m_min->inclusive ? ">= " : "> ", formatNumber(m_min->value));
  if (m_max) return str(m_max->inclusive ? "<= " : "< ", formatNumber(m_max->value));
  return "";
}

std::string Key::expectation() const {
  std::string s = typeText();
  std::string const range = rangeText();
  if (!range.empty()) s += (isList() ? ", each " : " ") + range;
  if (!m_sameLengthAs.empty()) s += str(", as many as ", m_sameLengthAs);
  return s;
}

std::string Key::defaultText() const {
  if (m_defaultEach.index() != 0)
    return str(valueText(m_defaultEach), " each (as many as ", m_sameLengthAs, ")");
  return valueText(m_default);
}

Schema::Schema() : m_root(Key::section("", "")) {}

Schema& Schema::add(Key section) {
  EDDY_REQUIRE(section.isSection(), "schema: '", section.name(),
               "' is registered at the top level but is not a section");
  m_root.add(std::move(section));
  return *this;
}

Key const* Schema::find(std::string const& keyPath) const {
  Key const* k = &m_root;
  std::size_t start = 0;
  while (k) {
    std::size_t const dot = keyPath.find('.', start);
    k = k->child(keyPath.substr(start, dot == std::string::npos ? dot : dot - start));
    if (dot == std::string::npos) return k;
    start = dot + 1;
  }
  return nullptr;
}

namespace {

/// Escapes `|` so a cell cannot break the Markdown table.
std::string cell(std::string const& s) {
  std::string out;
  for (char c : s) out += (c == '|') ? std::string("\\|") : std::string(1, c);
  return out;
}

void sectionMarkdown(std::ostringstream& os, Key const& section, std::string const& path) {
  os << "\n## `" << path << "`" << (section.isOptional() ? " (optional section)" : "") << "\n\n"
     << section.doc() << "\n\n";
  if (section.isNamed()) {
    Key const& entry = section.children().front();
    os << "Entries named by the deck (letters, digits and `_`), each a section of the keys of `"
       << path << "." << entry.name() << "`.\n";
    sectionMarkdown(os, entry, path + "." + entry.name());
    return;
  }
  std::vector<std::pair<Key const*, std::string>> nested;
  bool header = false;
  for (auto const& k : section.children()) {
    if (k.isSection()) {
      nested.emplace_back(&k, path + "." + k.name());
      continue;
    }
    if (!header) {
      os << "| Key | Type | Default | Unit | Allowed | Meaning |\n"
         << "|-----|------|---------|------|---------|---------|\n";
      header = true;
    }
    std::string allowed = k.rangeText();
    if (k.isList() && !allowed.empty()) allowed = "each " + allowed;
    if (!k.lengthPeer().empty())
      allowed += str(allowed.empty() ? "" : "; ", "as many as `", k.lengthPeer(), "`");
    std::string const def =
        k.isRequired() ? "**required**" : (k.defaultText().empty() ? "(none)" : k.defaultText());
    os << "| `" << k.name() << "` | " << cell(k.typeText()) << " | " << cell(def) << " | "
       << cell(k.unitName().empty() ? "-" : k.unitName()) << " | "
       << cell(allowed.empty() ? "-" : allowed) << " | " << cell(k.doc()) << " |\n";
  }
  for (auto const& [k, p] : nested) sectionMarkdown(os, *k, p);
}

}  // namespace

std::string referenceMarkdown(Schema const& schema) {
  std::ostringstream os;
  os << "# Deck reference\n\n"
     << "<!-- Generated from the schema (eddy::io::referenceMarkdown(eddy::app::deckSchema())); "
        "test_deck fails when this file and the schema disagree. -->\n\n"
     << "An Eddy deck is one YAML map of sections. Every key is checked: unknown or duplicate "
        "keys, wrong types, values out of range and missing required keys are errors that name "
        "the key path and `file:line:col`. Keys that are not given take their default; "
        "`eddy validate DECK` prints the resolved deck. A key without default that is not "
        "required is optional (absent unless given).\n\n"
     << "Sections:";
  for (auto const& s : schema.sections()) os << " `" << s.name() << "`";
  os << "\n";
  for (auto const& s : schema.sections()) sectionMarkdown(os, s, s.name());
  return os.str();
}

}  // namespace eddy::io
