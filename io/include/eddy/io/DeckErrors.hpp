/// @file DeckErrors.hpp
/// @brief Every error of one deck, each located, reported together as one eddy::DeckError; and
/// what reading a deck may cost before it is rejected.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace eddy::io {

class Deck;

/// Bounds on what reading one deck may cost, so that hostile input (a nest of YAML aliases, a
/// huge file, deep nesting) is a located deck error (exit 3), not an exhausted machine. A deck
/// of this code's schema is a few hundred bytes, about a hundred values and 4 levels deep.
struct DeckLimits {
  /// Bytes of deck text; `eddy` reads no more than this (and one byte) of the file.
  static constexpr std::size_t kBytes = std::size_t(1) << 20;
  /// YAML nodes (maps, lists, keys, values), every alias counted at its full size.
  static constexpr std::size_t kNodes = 10000;
  /// Bytes of keys and values, every alias counted at its full size.
  static constexpr std::size_t kTextBytes = std::size_t(2) << 20;
  /// Nested maps and lists, the top-level map being 1.
  static constexpr int kDepth = 16;
};

/// `text` as a message shows a value: control characters escaped (`\n`, `\t`, `\x01`) so that
/// an error stays one line, and past `keep` characters cut, with the length said:
/// `xxxx... (1048576 characters)`. A 1 MB value is not repeated whole.
std::string elided(std::string const& text, std::size_t keep = 60);

/// The errors found in one deck: schema checks and the models' rules add to it and go on, and
/// it is thrown once as an eddy::DeckError whose message holds them all, one line each,
/// `file:line:col: key.path: what; expected` (`file: ...` for a rule of the whole file), in file
/// order (errors at one place in the order they were found). At most kShown are listed; a last
/// line counts the others. A value given on the command line (`--set key.path=value`) has no
/// place in the file: its errors are located at the argument, `--set run.steps=abc: run.steps:
/// ...`, after the file's.
class DeckErrors {
 public:
  static constexpr std::size_t kShown = 20;

  explicit DeckErrors(std::string file);

  /// Names the command-line arguments that lines -1, -2, ... stand for (`--set run.steps=abc`).
  void setArguments(std::vector<std::string> arguments);

  /// An error at `line:column` (1-based; line 0: the file as a whole; line -k: the k-th
  /// argument of setArguments, column unused) of `path` (a key path, "" = the top level):
  /// `what` is wrong and `expected` what is allowed.
  void add(int line, int column, std::string const& path, std::string const& what,
           std::string const& expected);
  /// An error of key `keyPath` of a resolved deck (a model's rule across keys), located where
  /// the deck gives the key, else at its nearest given section (Deck::location).
  void add(Deck const& deck, std::string const& keyPath, std::string const& what,
           std::string const& expected);
  /// An error whose text after the location is given whole ("YAML syntax error: ...").
  void addText(int line, int column, std::string const& text);
  /// Every error of `other` placed at `line:column` of this file instead of its own place (the
  /// errors of a command-line value, parsed as YAML text of its own, located at its argument).
  void addAll(DeckErrors const& other, int line, int column);

  bool empty() const { return m_count == 0; }
  /// The number of errors added (also those past kShown).
  std::size_t size() const { return m_count; }
  /// The message: one located line per error, as described above.
  std::string message() const;
  /// Throws eddy::DeckError(message()) when an error was added.
  void throwIfAny() const;

 private:
  struct Entry {
    int line;
    int column;
    std::size_t order;
    std::string text;
  };
  /// Where line:column is: `file:line:col`, the file, or the argument it stands for.
  std::string where(int line, int column) const;
  std::string m_file;
  std::vector<std::string> m_arguments;
  std::vector<Entry> m_first;  ///< the kShown first in file order, sorted
  std::size_t m_count = 0;
};

}  // namespace eddy::io
