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
  /// The resolved deck (defaults filled in) as YAML text, in schema order.
  std::string resolvedYaml() const;

  /// True when the section or key exists after resolution (optional sections may be absent).
  bool has(std::string const& keyPath) const;
  /// True when the deck file gives the section or key (not a default).
  bool given(std::string const& keyPath) const;
  /// `file:line:col` of the key where the deck gives it, else of the nearest enclosing section
  /// the deck gives, else the file's path. (A rule across keys that the schema cannot state, a
  /// model's check, reports an error there with DeckErrors::add(deck, keyPath, ...).)
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
  friend Deck parseDeck(std::string const& text, std::string const& path, Schema const& schema);
  friend class DeckErrors;
};

/// Parses and validates deck text. `path` is used in messages (`path:line:col`). Throws one
/// eddy::DeckError that lists every error of the deck (DeckErrors), each with the location, the
/// key path and what was expected. Text past DeckLimits is rejected at the place it passes them.
Deck parseDeck(std::string const& text, std::string const& path, Schema const& schema);

/// Collective: rank 0 reads `path` (at most DeckLimits::kBytes and one byte of it), broadcasts
/// the text, and every rank parses and validates it, so a bad deck raises the same
/// eddy::DeckError on every rank and is reported once. An unreadable file raises a collective
/// eddy::IoError naming the path and errno text.
Deck loadDeck(std::string const& path, Schema const& schema, MPI_Comm comm);

}  // namespace eddy::io
