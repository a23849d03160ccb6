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
/// run, each model's own check, and output.fields names fields the run writes. Throws
/// eddy::DeckError at the first rule broken, located at its key.
void checkDeck(io::Deck const& deck);

/// Collective: reads `path` on rank 0, validates it against deckSchema() and checkDeck() on
/// every rank (so a bad deck raises the same eddy::DeckError everywhere and is reported once).
io::Deck loadDeck(std::string const& path, MPI_Comm comm);

}  // namespace eddy::app
