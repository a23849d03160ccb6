/// @file ModelRegistry.hpp
/// @brief Every model `eddy run` knows, the deck schema they make up together, and the checks
/// of a deck beyond its schema, which `eddy validate` and `eddy run` share.
#pragma once

#include "Model.hpp"

#include "eddy/io/Deck.hpp"
#include "eddy/io/Schema.hpp"

#include <mpi.h>

#include <string>
#include <vector>

namespace eddy::app {

/// Every model, in the order a run of several steps them (a flow before what it carries).
std::vector<ModelSpec> const& modelRegistry();

/// The deck schema: run, grid, parallel, each model's section in registry order, diagnostics,
/// output, checkpoint (docs/deck-reference.md is its referenceMarkdown).
io::Schema const& deckSchema();

/// The registered models whose sections `deck` has, in registry order.
std::vector<ModelSpec const*> modelsOf(io::Deck const& deck);

/// The snapshot fields a run of `deck` can write, named as its files name them (prefixed in a
/// run of several models).
std::vector<FieldInfo> snapshotFields(io::Deck const& deck);

/// The rules of a deck beyond its schema: it names at least one model, its models can share a
/// run, each model's own check, and output.fields names fields the run writes. Throws one
/// eddy::DeckError that lists every rule broken, each located at its key (io::DeckErrors).
void checkDeck(io::Deck const& deck);

/// The memory a rank can give its part of a run: the least over the ranks of what is free on
/// each rank's GPU, or on a host build of each node's available memory over its ranks.
struct RankMemory {
  double freeBytes = -1.0;  ///< -1: unknown (nothing is checked)
  std::string where;        ///< "its GPU", "its share of the node's memory"
};
/// Collective over `comm`.
RankMemory rankMemory(MPI_Comm comm);

/// The rules of a deck that depend on the rank count: the decomposition exists, the largest
/// rank's block fits a field's 2^31 entries, each model's own rules on the split (md: blocks
/// wider than cutoff + skin), and the memory the models need on a rank (their bytes per cell
/// times the largest block's cells) is at most `memory`. Throws eddy::DeckError located at the
/// key to change, saying how many ranks the run needs.
void checkRanks(io::Deck const& deck, int ranks, RankMemory const& memory);

/// Collective: reads `path` on rank 0, applies rank 0's `overrides` (`--set`) and validates the
/// result against deckSchema() and checkRanks() on every rank of `comm` and checkDeck() on rank 0
/// (its rules read whole files once), so a bad deck raises the same eddy::DeckError everywhere
/// and is reported once: what `eddy validate` and `eddy run` both do. The schema's errors are
/// reported all together; when there are none, the rules' errors are.
io::Deck loadDeck(std::string const& path, MPI_Comm comm,
                  std::vector<io::DeckOverride> const& overrides = {});

}  // namespace eddy::app
