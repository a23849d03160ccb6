#include "ModelRegistry.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/io/DeckSections.hpp"

#include <algorithm>
#include <sstream>

namespace eddy::app {

// One adapter in app/models/ defines each of these.
ModelSpec fluidsModel();
ModelSpec diffusionModel();
ModelSpec mdModel();

std::vector<ModelSpec> const& modelRegistry() {
  static std::vector<ModelSpec> const specs{
      fluidsModel(),
      diffusionModel(),
      mdModel(),
  };
  return specs;
}

io::Schema const& deckSchema() {
  static io::Schema const schema = [] {
    io::Schema s;
    s.add(io::sections::run());
    s.add(io::sections::grid());
    s.add(io::sections::parallel());
    for (auto const& m : modelRegistry()) s.add(m.section());
    s.add(io::sections::diagnostics());
    s.add(io::sections::output());
    s.add(io::sections::checkpoint());
    return s;
  }();
  return schema;
}

std::vector<ModelSpec const*> modelsOf(io::Deck const& deck) {
  std::vector<ModelSpec const*> found;
  for (auto const& m : modelRegistry())
    if (deck.has(m.name)) found.push_back(&m);
  return found;
}

std::vector<FieldInfo> snapshotFields(io::Deck const& deck) {
  auto const models = modelsOf(deck);
  std::vector<FieldInfo> all;
  for (ModelSpec const* m : models)
    for (FieldInfo f : m->fields(deck)) {
      if (models.size() > 1) f.name = m->name + "_" + f.name;
      all.push_back(std::move(f));
    }
  return all;
}

void checkDeck(io::Deck const& deck) {
  auto const models = modelsOf(deck);
  std::string names;
  for (auto const& m : modelRegistry()) names += (names.empty() ? "" : ", ") + m.name;
  if (models.empty())
    deck.fail("", "the deck names no model", str("expected a model section: one of ", names));
  for (ModelSpec const* m : models)
    if (!m->sharesGrid && models.size() > 1)
      deck.fail(m->name,
                str("the ", m->name, " model reads grid.cells its own way and runs alone, but "
                    "the deck also has ", models[0] == m ? models[1]->name : models[0]->name),
                str("expected one of ", m->name, " and the other model sections"));
  for (ModelSpec const* m : models) m->check(deck);

  if (!deck.has("output")) return;
  auto const fields = snapshotFields(deck);
  std::string list = deck.getString("output.fields");
  std::replace(list.begin(), list.end(), ',', ' ');
  std::istringstream words(list);
  for (std::string w; words >> w;) {
    if (w == "all") continue;
    bool const known = std::any_of(fields.begin(), fields.end(),
                                   [&w](FieldInfo const& f) { return f.name == w; });
    if (known) continue;
    std::string allowed = "all";
    for (auto const& f : fields) allowed += ", " + f.name;
    deck.fail("output.fields", str("names '", w, "', which this run does not write"),
              fields.empty() ? std::string("expected all (this model writes particles only)")
                             : str("expected names from: ", allowed));
  }
}

io::Deck loadDeck(std::string const& path, MPI_Comm comm) {
  io::Deck deck = io::loadDeck(path, deckSchema(), comm);
  checkDeck(deck);
  return deck;
}

}  // namespace eddy::app
