/// @file YamlTree.hpp
/// @brief YAML text to a plain tree with 1-based locations, rejecting duplicate keys (which
/// yaml-cpp's YAML::Load silently accepts) and telling quoted from plain scalars, at a bounded
/// cost (io::DeckLimits).
#pragma once

#include <string>
#include <vector>

namespace eddy::io {
class DeckErrors;
struct DeckOverride;
}

namespace eddy::io::detail {

struct YamlEntry;

/// A YAML node. Scalars keep their text and whether it was plain (unquoted, untagged), so a
/// quoted "100" is a string, not an integer. Aliases are expanded (within io::DeckLimits).
struct YamlNode {
  enum class Kind { Null, Scalar, Sequence, Map };
  Kind kind = Kind::Null;
  int line = 1, column = 1;  // 1-based
  std::string text;
  bool plain = true;
  std::vector<YamlNode> items;     // Sequence
  std::vector<YamlEntry> entries;  // Map, in file order
};

/// A key of a map and its value. A null value is located at its key.
struct YamlEntry {
  std::string key;
  int line = 1, column = 1;
  YamlNode value;
};

/// `file:line:col`
std::string location(std::string const& file, int line, int column);

/// Appends `c` to `out`, control characters escaped as in YAML double-quoted text (\n, \r, \t,
/// \xNN), so that a message or a resolved value stays on one line.
void appendEscaped(std::string& out, unsigned char c);

/// Parses one YAML document (located in messages as the file of `errors`). Returns a Null node
/// for empty text. Adds to `errors` and goes on for a duplicate key (the first value is kept) or
/// a key that is not a scalar (the entry is dropped). Adds the error and throws `errors` as an
/// eddy::DeckError (`file:line:col: key.path: ...`) for a syntax error, an unknown alias, a
/// second document, or a deck past io::DeckLimits: more text than DeckLimits::kBytes, deeper
/// nesting, more nodes or text once aliases are counted at their full size. An alias is measured
/// before it is copied, so a nest of aliases costs no more than the limits.
YamlNode parseYaml(std::string const& text, DeckErrors& errors);

/// Sets each override's value, parsed as YAML text of its own, at its key path of `root` (a map,
/// or the Null of an empty deck), in order, adding the maps of sections on the path that `root`
/// lacks. The nodes it adds are at line -k (column 0) for the k-th override, which `errors`
/// (given the arguments, DeckErrors::setArguments) locates at its argument. Adds to `errors`
/// and goes on with the next override for a value that is not YAML or a path through a value
/// that is not a section. Any other root is left as it is, for the schema to report.
void applyOverrides(YamlNode& root, std::vector<DeckOverride> const& overrides, DeckErrors& errors);

/// "a map", "a list", "no value", `1.5`, `the string "100"`: how a node is named in messages
/// (long values elided).
std::string describe(YamlNode const& node);

}  // namespace eddy::io::detail
