#include "ModelRegistry.hpp"
#include "SnapshotOutput.hpp"

#include "RunControl.hpp"

#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/io/DeckSections.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <optional>

namespace eddy::app {

// One adapter in app/models/ defines each of these.
ModelSpec fluidsModel();
ModelSpec diffusionModel();
ModelSpec scalarsModel();
ModelSpec particlesModel();
ModelSpec mdModel();

std::vector<ModelSpec> const& modelRegistry() {
  static std::vector<ModelSpec> const specs{
      fluidsModel(), diffusionModel(), scalarsModel(), particlesModel(), mdModel(),
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
  io::DeckErrors errors(deck.path());
  auto const models = modelsOf(deck);
  std::string names;
  for (auto const& m : modelRegistry()) names += (names.empty() ? "" : ", ") + m.name;
  if (models.empty())
    errors.add(deck, "", "the deck names no model",
               str("expected a model section: one of ", names));
  for (ModelSpec const* m : models)
    if (!m->sharesGrid && models.size() > 1)
      errors.add(deck, m->name,
                 str("the ", m->name,
                     " model reads grid.cells its own way and runs alone, but "
                     "the deck also has ",
                     models[0] == m ? models[1]->name : models[0]->name),
                 str("expected one of ", m->name, " and the other model sections"));
  for (ModelSpec const* m : models) m->check(deck, errors);
  checkRunControl(deck, errors);

  if (deck.has("output") && !models.empty()) {
    auto const fields = snapshotFields(deck);
    for (std::string const& w : requestedFields(deck)) {
      if (w == "all") continue;
      bool const known = std::any_of(fields.begin(), fields.end(),
                                     [&w](FieldInfo const& f) { return f.name == w; });
      if (known) continue;
      std::string allowed = "all", onRequest;
      for (auto const& f : fields) {
        if (f.onRequest)
          onRequest += (onRequest.empty() ? "" : ", ") + f.name;
        else
          allowed += ", " + f.name;
      }
      errors.add(deck, "output.fields",
                 str("names '", io::elided(w), "', which this run does not write"),
                 fields.empty()
                     ? std::string("expected all (this model writes particles only)")
                     : str("expected names from: ", allowed,
                           onRequest.empty() ? std::string()
                                             : "; and, written only when named: " + onRequest));
    }
  }
  errors.throwIfAny();
}

RankMemory rankMemory(MPI_Comm comm) {
  RankMemory m;
  double free = -1.0;
  if constexpr (kDeviceBackend) {
    free = compat::freeDeviceBytes();
    m.where = "each rank's GPU";
  } else {
    // MemAvailable of the node, shared by the node's ranks.
    std::ifstream meminfo("/proc/meminfo");
    for (std::string key; meminfo >> key;) {
      double kib = 0;
      meminfo >> kib;
      if (key == "MemAvailable:") free = kib * 1024.0;
      meminfo.ignore(256, '\n');
    }
    MPI_Comm node = MPI_COMM_NULL;
    checkMpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
             "MPI_Comm_split_type (rankMemory)");
    int local = 1;
    MPI_Comm_size(node, &local);
    MPI_Comm_free(&node);
    if (free > 0) free /= local;
    m.where = "each rank's share of its node's memory";
  }
  // The least over the ranks; a rank that cannot tell (-1) leaves the check to the others.
  double const mine = free > 0 ? free : std::numeric_limits<double>::infinity();
  double least = 0;
  checkMpi(MPI_Allreduce(&mine, &least, 1, MPI_DOUBLE, MPI_MIN, comm),
           "MPI_Allreduce (rankMemory)");
  m.freeBytes = std::isfinite(least) ? least : -1.0;
  return m;
}

namespace {
std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return buf;
}
}  // namespace

void checkRanks(io::Deck const& deck, int ranks, RankMemory const& memory) {
  io::DeckErrors errors(deck.path());
  auto const models = modelsOf(deck);
  auto const cellList = deck.getIntList("grid.cells");
  auto const periodicList = deck.getBoolList("grid.periodic");
  auto const forcedList = deck.getIntList("parallel.decomposition");
  int const dims = static_cast<int>(cellList.size());
  Index3 cells{1, 1, 1}, forced{0, 0, 0};
  std::array<bool, 3> periodic{false, false, false};
  for (int a = 0; a < dims; ++a) {
    cells[a] = static_cast<int>(cellList[a]);  // at most 2^30 (the schema's range)
    periodic[a] = periodicList[a];
  }
  for (std::size_t a = 0; a < forcedList.size() && a < 3; ++a)
    forced[a] = static_cast<int>(forcedList[a]);
  bool const forcedGiven = deck.given("parallel.decomposition");
  std::optional<CartDecomposition> decomp;
  try {
    decomp.emplace(cells, dims, periodic, ranks, 0, forced);
  } catch (ConfigError const& e) {
    // Its message says what is wrong and, after "; ", what is expected.
    std::string what = e.what();
    std::string expected = "expected fewer ranks, or more cells along the axes they split";
    if (what.rfind("CartDecomposition: ", 0) == 0) what.erase(0, 19);
    if (auto const cut = what.find("; expected"); cut != std::string::npos) {
      expected = what.substr(cut + 2);
      what.resize(cut);
    }
    errors.add(deck, forcedGiven ? "parallel.decomposition" : "grid.cells",
               str("no decomposition over ", ranks, " rank(s): ", what), expected);
    errors.throwIfAny();  // the rules below need the decomposition
  }
  // The largest rank's block: ceil(n / p) cells along each axis.
  double largest = 1, entries = 1;
  int const ghost = static_cast<int>(deck.getInt("grid.ghost"));
  for (int a = 0; a < dims; ++a) {
    int const n = cells[a], p = decomp->procGrid()[a];
    int const widest = n / p + (n % p ? 1 : 0);
    largest *= widest;
    entries *= widest + 1 + 2 * ghost;  // a face field with its ghosts
  }
  double const limit = 2147483647.0;
  bool const grid = std::any_of(models.begin(), models.end(),
                                [](ModelSpec const* m) { return m->sharesGrid; });
  if (grid && entries > limit)
    errors.add(deck, "grid.cells",
              str("the largest rank's block of ", decomp->describe(), " holds ", largest,
                  " cells, ", entries, " entries a field with its ghosts"),
              str("expected at most 2^31 - 1 entries a field on a rank: use at least ",
                  static_cast<long long>(std::ceil(ranks * entries / limit)), " ranks"));
  for (ModelSpec const* m : models)
    if (m->checkDecomposition) m->checkDecomposition(deck, *decomp, errors);
  double perCell = 0;
  for (ModelSpec const* m : models) perCell += m->bytesPerCell(deck);
  double const need = perCell * largest;
  if (memory.freeBytes > 0 && need > memory.freeBytes)
    errors.add(deck, "grid.cells",
              str("the run needs about ", gib(need), " on each of its ", ranks, " rank(s) (",
                  perCell, " bytes a cell, ", largest, " cells on the largest rank), more than "
                  "the ", gib(memory.freeBytes), " free on ", memory.where),
              str("expected at least ",
                  static_cast<long long>(std::ceil(ranks * need / memory.freeBytes)),
                  " ranks (one per GPU on GPU nodes), or fewer cells"));
  errors.throwIfAny();
}

io::Deck loadDeck(std::string const& path, MPI_Comm comm,
                  std::vector<io::DeckOverride> const& overrides) {
  io::Deck deck = io::loadDeck(path, deckSchema(), comm, overrides);
  int rank = 0, ranks = 1;
  checkMpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  checkMpi(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  // Rank 0 applies the rules (some read whole files: a body's surface, an initial field) and
  // every rank raises its verdict: status 0 the deck keeps them, 1 a deck error, 2 another error
  // with exit code status[2].
  std::string verdict;
  long long status[3] = {0, 0, 0};
  if (rank == 0) {
    try {
      checkDeck(deck);
    } catch (DeckError const& e) {
      verdict = e.what();
      status[0] = 1;
    } catch (Error const& e) {
      verdict = e.what();
      status[0] = 2;
      status[2] = static_cast<long long>(e.code());
    } catch (std::exception const& e) {
      verdict = e.what();
      status[0] = 2;
      status[2] = static_cast<long long>(ExitCode::Failure);
    }
    status[1] = static_cast<long long>(verdict.size());
  }
  checkMpi(MPI_Bcast(status, 3, MPI_LONG_LONG, 0, comm), "MPI_Bcast");
  verdict.resize(static_cast<std::size_t>(status[1]));
  if (status[1] > 0)
    checkMpi(MPI_Bcast(verdict.data(), static_cast<int>(status[1]), MPI_CHAR, 0, comm),
             "MPI_Bcast");
  if (status[0] == 1) throw DeckError(verdict);
  if (status[0] == 2) throw Error(verdict, static_cast<ExitCode>(status[2]), /*collective=*/true);
  checkRanks(deck, ranks, rankMemory(comm));
  return deck;
}

}  // namespace eddy::app
