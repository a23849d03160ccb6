/// @file Schema.hpp
/// @brief What a deck may contain: sections, their keys, types, defaults, ranges, units and docs.
///
/// A model describes its section once and registers it; validation, defaults, the resolved deck
/// and docs/deck-reference.md all come from that description:
/// @code
///   Key fluids = Key::section("fluids", "Incompressible Navier-Stokes solver.")
///       .add(Key::real("viscosity", "Kinematic viscosity.").greaterThan(0).unit("L^2/T")
///                .required())
///       .add(Key::choice("scheme", {"upwind", "central"}, "Advection scheme.")
///                .defaultValue("upwind"))
///       .add(Key::realList("gravity", "Body force per unit mass.").lengths({2, 3})
///                .sameLengthAs("grid.cells").defaultEach(0.0).unit("L/T^2"));
///   schema.add(std::move(fluids));  // see deckSchema() in app/ModelRegistry.cpp
/// @endcode
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace eddy::io {

/// The type of a key. `Enum` is a string restricted to a list of choices; `Section` is a map of
/// further keys.
enum class KeyType { Int, Double, Bool, String, Enum, IntList, DoubleList, BoolList, Section };

/// A deck value: a default in the schema or a resolved value in a Deck (`monostate` = none).
/// Enum values are strings.
using Value = std::variant<std::monostate, std::int64_t, double, bool, std::string,
                           std::vector<std::int64_t>, std::vector<double>, std::vector<bool>>;

/// One end of a range: `value` and whether the value itself is allowed.
struct Bound {
  double value = 0.0;
  bool inclusive = true;
};

/// A key of the schema, or a section (a key whose value is a map of keys). Built fluently:
/// `Key::integer("steps", "Number of time steps.").atLeast(0).defaultValue(100)`.
/// A key is required, has a default, or (neither) is optional: absent unless the deck gives it.
/// Ranges apply to numbers and to every element of numeric lists. Misuse of the builder (a
/// default of the wrong type, a range on a string, ...) throws eddy::Error.
class Key {
 public:
  static Key integer(std::string name, std::string doc);
  static Key real(std::string name, std::string doc);
  static Key boolean(std::string name, std::string doc);
  static Key string(std::string name, std::string doc);
  static Key choice(std::string name, std::vector<std::string> choices, std::string doc);
  static Key intList(std::string name, std::string doc);
  static Key realList(std::string name, std::string doc);
  static Key boolList(std::string name, std::string doc);
  /// A section. It is always present in the resolved deck (keys at their defaults) unless
  /// optional(), then only when the deck gives it.
  static Key section(std::string name, std::string doc);
  /// A section of entries the deck names, each a section of the keys of `entry` (whose own name
  /// is only the placeholder the reference shows, e.g. "<name>"): `bodies: {cylinder: {...},
  /// post: {...}}`. Names are letters, digits and '_', starting with a letter; the entries keep
  /// the deck's order. Present (empty) when the deck gives none, unless optional().
  static Key namedSections(std::string name, std::string doc, Key entry);

  Key& required();
  Key& defaultValue(Value v);
  Key& defaultValue(bool v) { return defaultValue(Value(v)); }
  Key& defaultValue(int v) { return defaultValue(Value(static_cast<std::int64_t>(v))); }
  Key& defaultValue(std::int64_t v) { return defaultValue(Value(v)); }
  Key& defaultValue(double v) { return defaultValue(Value(v)); }
  Key& defaultValue(char const* v) { return defaultValue(Value(std::string(v))); }
  /// List default: `element` repeated, as many times as the sameLengthAs() key has elements.
  Key& defaultEach(Value element);
  Key& defaultEach(bool v) { return defaultEach(Value(v)); }
  Key& defaultEach(int v) { return defaultEach(Value(static_cast<std::int64_t>(v))); }
  Key& defaultEach(double v) { return defaultEach(Value(v)); }
  Key& atLeast(double v);      ///< value >= v
  Key& greaterThan(double v);  ///< value > v
  Key& atMost(double v);       ///< value <= v
  Key& lessThan(double v);     ///< value < v
  Key& unit(std::string u);
  /// Allowed list lengths, e.g. {2, 3}; empty = any length >= 1.
  Key& lengths(std::vector<int> allowed);
  /// This list must have as many elements as another list key: a sibling name ("cells") or a
  /// full path ("grid.cells") of a key validated earlier (earlier section, or same section).
  Key& sameLengthAs(std::string keyPath);
  /// This key stands instead of sibling `name` (`every_time` instead of `every`): when the deck
  /// gives this key, the sibling is left out of the resolved deck rather than given its default,
  /// and a deck that gives both is refused at this key.
  Key& insteadOf(std::string name);
  /// Sections only: absent from the resolved deck unless the deck gives it.
  Key& optional();
  /// Sections only: appends a key or a nested section. Throws on a duplicate name.
  Key& add(Key key);

  std::string const& name() const { return m_name; }
  std::string const& doc() const { return m_doc; }
  KeyType type() const { return m_type; }
  bool isSection() const { return m_type == KeyType::Section; }
  /// A namedSections() key: its only child is the entry every name of the deck takes.
  bool isNamed() const { return m_named; }
  bool isList() const;
  bool isRequired() const { return m_required; }
  bool isOptional() const { return m_optional; }
  Value const& defaultVal() const { return m_default; }
  Value const& defaultElement() const { return m_defaultEach; }
  std::optional<Bound> const& min() const { return m_min; }
  std::optional<Bound> const& max() const { return m_max; }
  std::string const& unitName() const { return m_unit; }
  std::vector<std::string> const& choices() const { return m_choices; }
  std::vector<int> const& allowedLengths() const { return m_lengths; }
  std::string const& lengthPeer() const { return m_sameLengthAs; }
  std::string const& replaces() const { return m_insteadOf; }
  std::vector<Key> const& children() const { return m_children; }
  /// The child called `name`; of a namedSections() key, its entry for any name.
  Key const* child(std::string const& name) const;

  /// "an integer", "a list of 2 or 3 numbers", "one of: auto, on, off", ...
  std::string typeText() const;
  /// The range as text: ">= 0", "> 0", "in [1, 4]", or "" when unbounded.
  std::string rangeText() const;
  /// What the key accepts, for messages: "a list of 2 or 3 integers, each >= 1".
  std::string expectation() const;
  /// The default as text for docs ("100", "[0, 0, 0]", "1.0 per direction") or "".
  std::string defaultText() const;

 private:
  Key(std::string name, KeyType type, std::string doc);
  void requireNumeric(char const* what) const;

  std::string m_name;
  KeyType m_type;
  std::string m_doc;
  bool m_required = false;
  bool m_optional = false;
  bool m_named = false;
  Value m_default;
  Value m_defaultEach;
  std::optional<Bound> m_min, m_max;
  std::string m_unit;
  std::vector<std::string> m_choices;
  std::vector<int> m_lengths;
  std::string m_sameLengthAs;
  std::string m_insteadOf;
  std::vector<Key> m_children;
};

/// The top level of a deck: an ordered list of sections.
class Schema {
 public:
  Schema();
  /// Registers a section (Key::section). Throws eddy::Error on a duplicate name or a non-section.
  Schema& add(Key section);
  std::vector<Key> const& sections() const { return m_root.children(); }
  /// The root as a section without a name (validation walks it like any section).
  Key const& root() const { return m_root; }
  /// The key or section at `keyPath` ("grid.cells"), or nullptr.
  Key const* find(std::string const& keyPath) const;

 private:
  Key m_root;
};

/// The Markdown reference of every section and key (docs/deck-reference.md is this text).
std::string referenceMarkdown(Schema const& schema);

/// Formats a double so that it reads back exactly and always looks like a real ("1.0", "2.5e-08").
std::string formatReal(double v);

}  // namespace eddy::io
