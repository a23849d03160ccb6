/// @file DeckMutator.hpp
/// @brief Mutants of seed decks for the deck fuzzer: byte flips, YAML punctuation, deleted,
/// duplicated and swapped lines, schema words and extreme numbers in place of tokens, huge
/// lists, deep nesting, long values, anchors, aliases and alias nests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace eddy::fuzz {

/// A deck made from a seed deck by a few mutations.
struct Mutant {
  std::string text;
  std::size_t seedDeck = 0;          ///< index into the corpus
  std::vector<std::string> applied;  ///< the mutations, in order ("replaceNumber", ...)
};

/// Makes mutants of a corpus of seed decks. Mutant `index` of a run with `seed` is a function
/// of (corpus, dictionary, seed, index) alone, so any one mutant can be made again on its own.
class DeckMutator {
 public:
  /// `dictionary`: words worth putting in a deck (the schema's section and key names, its
  /// choices); the mutator adds YAML punctuation and extreme numbers of its own.
  DeckMutator(std::vector<std::string> corpus, std::vector<std::string> dictionary);

  Mutant make(std::uint64_t seed, std::uint64_t index) const;

  std::size_t corpusSize() const { return m_corpus.size(); }

 private:
  std::vector<std::string> m_corpus;
  std::vector<std::string> m_dictionary;
};

}  // namespace eddy::fuzz
