/// @file Deck.hpp
/// @brief A validated input deck: every key checked against the schema, defaults filled in.
#pragma once

#include "eddy/io/DeckErrors.hpp"

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace eddy::io {

class Schema;

/// One deck value given on the command line, `--set key.path=value`: it replaces (or adds) the
/// value at `keyPath` of the deck file's YAML tree before the schema checks it, so it is checked
/// as the file is. Sections on the path that the file lacks are added.
struct DeckOverride {
  std::string keyPath;  ///< names separated by dots, e.g. "run.steps"
  std::string value;    ///< YAML text: "200", "[64, 64]", "{y_high: moving_wall}"
  /// `key.path=value`, control characters escaped: how logs and the resolved deck list it.
  std::string text() const;
  /// `--set key.path=value`: where a deck error locates a wrong value.
  std::string argument() const;
};

/// Parses the text after `--set`, `key.path=value` (the first '=' ends the key path). Throws
/// eddy::UsageError, naming the argument and the expected form, when there is no '=' or a name
/// of the key path is empty; an unknown name is the schema's to report (a deck error).
DeckOverride parseOverride(std::string const& text);

/// A deck after validation. Keys are addressed by their path, e.g. "grid.cells" or "run.steps".
/// Every key the schema knows is present (given, or its default), so the getters throw only for
/// a path the schema does not define or a type that does not match it (programming errors).
class Deck {
 public:
  Deck();
  ~Deck();
  Deck(Deck const&);
  Deck& operator=(Deck const&);
  Deck(Deck&&) noexcept;
  Deck& operator=(Deck&&) noexcept;

  /// The file the deck came from.
  std::string const& path() const;
  /// The resolved deck (defaults filled in) as YAML text, in schema order. With overrides, a
  /// first comment line lists them (`# deck overrides: run.steps=3, ...`); the text reads back
  /// as the same deck.
  std::string resolvedYaml() const;
  /// The command-line values the deck was read with, in command-line order.
  std::vector<DeckOverride> const& overrides() const;

  /// True when the section or key exists after resolution (optional sections may be absent).
  bool has(std::string const& keyPath) const;
  /// The names of the entries of a namedSections() section, in the deck's order (empty when
  /// the section is absent or has none).
  std::vector<std::string> names(std::string const& sectionPath) const;
  /// True when the deck file or an override gives the section or key (not a default).
  bool given(std::string const& keyPath) const;
  /// `file:line:col` of the key where the deck gives it, else of the nearest enclosing section
  /// the deck gives, else the file's path; `--set key.path=value` where an override gives it. (A
  /// rule across keys that the schema cannot state, a model's check, reports an error there with
  /// DeckErrors::add(deck, keyPath, ...).)
  std::string location(std::string const& keyPath) const;
  std::int64_t getInt(std::string const& keyPath) const;
  double getDouble(std::string const& keyPath) const;
  bool getBool(std::string const& keyPath) const;
  std::string getString(std::string const& keyPath) const;
  std::vector<std::int64_t> getIntList(std::string const& keyPath) const;
  std::vector<double> getDoubleList(std::string const& keyPath) const;
  std::vector<bool> getBoolList(std::string const& keyPath) const;

  struct Impl;

 private:
  explicit Deck(Impl impl);
  Impl* m_impl;
  friend Deck parseDeck(std::string const& text, std::string const& path, Schema const& schema,
                        std::vector<DeckOverride> const& overrides);
  friend class DeckErrors;
};

/// Parses and validates deck text, `overrides` applied in order to its YAML tree first (a later
/// one of the same key wins). `path` is used in messages (`path:line:col`). Throws one
/// eddy::DeckError that lists every error of the deck (DeckErrors), each with the location (the
/// argument for an override's value), the key path and what was expected. Text past DeckLimits
/// is rejected at the place it passes them.
Deck parseDeck(std::string const& text, std::string const& path, Schema const& schema,
               std::vector<DeckOverride> const& overrides = {});

/// Collective: rank 0 reads `path` (at most DeckLimits::kBytes and one byte of it) and
/// broadcasts the text with rank 0's `overrides`, and every rank parses and validates them, so
/// every rank runs the same deck and a bad deck raises the same eddy::DeckError on every rank,
/// reported once. An unreadable file raises a collective eddy::IoError naming the path and
/// errno text.
Deck loadDeck(std::string const& path, Schema const& schema, MPI_Comm comm,
              std::vector<DeckOverride> const& overrides = {});

}  // namespace eddy::io
