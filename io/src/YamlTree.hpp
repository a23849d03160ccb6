/// @file YamlTree.hpp
/// @brief YAML text to a plain tree with 1-based locations, rejecting duplicate keys (which
/// yaml-cpp's YAML::Load silently accepts) and telling quoted from plain scalars, at a bounded
/// cost (io::DeckLimits).
#pragma once

#include <string>
#include <vector>

namespace eddy::io {
class DeckErrors;
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

/// "a map", "a list", "no value", `1.5`, `the string "100"`: how a node is named in messages
/// (long values elided).
std::string describe(YamlNode const& node);

}  // namespace eddy::io::detail
