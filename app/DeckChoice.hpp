/// @file DeckChoice.hpp
/// @brief A deck choice and the value it selects, listed once: the schema's list of choices and
/// the reading of the deck both come from the same table, so neither can miss a value.
#pragma once

#include "eddy/core/Error.hpp"
#include "eddy/io/Deck.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace eddy::app {

/// One choice of a deck key: the word in the deck and the value it selects.
template <class T>
struct Choice {
  char const* name;
  T value;
};

/// The words of `table`, in its order (for io::Key::choice), after `first` (e.g. "auto").
template <class T, std::size_t N>
std::vector<std::string> choiceNames(Choice<T> const (&table)[N],
                                     std::vector<std::string> first = {}) {
  for (auto const& c : table) first.emplace_back(c.name);
  return first;
}

/// The value the word `name` selects; the schema admits only the table's words, so another is
/// a programming error (eddy::Error).
template <class T, std::size_t N>
T choiceValue(Choice<T> const (&table)[N], std::string const& name) {
  for (auto const& c : table)
    if (name == c.name) return c.value;
  throw Error(str("choice '", name, "' is not in its table; expected one of the schema's words"));
}

/// The word that selects `value`, for logs.
template <class T, std::size_t N>
char const* choiceName(Choice<T> const (&table)[N], T value) {
  for (auto const& c : table)
    if (c.value == value) return c.name;
  return "?";
}

}  // namespace eddy::app
