/// @file Model.hpp
/// @brief The seam between `eddy run` and a model: what a model's adapter provides, and the
/// registry entry that turns a deck section into a model.
///
/// A model is a physics folder that knows nothing of decks or files, plus one adapter in
/// app/models/ that implements Model and declares a ModelSpec; app/ModelRegistry.cpp lists the
/// specs. The app owns the one time loop (Simulation.cpp), the outputs and the checkpoints:
/// each step it asks every model for the largest step it can take, advances them all by the
/// smallest, in registry order, and writes what they give. docs/developing.md walks through
/// adding a model.
///
/// Several models in one run (a flow and what it carries) share the run's one decomposition
/// and time step; a model reads another through a typed interface it finds with
/// ModelSet::find<Interface>() in couple(), never through the app. In such a run every name a
/// model writes (snapshot fields, diagnostics columns, checkpoint arrays and attributes) is
/// prefixed with `<model>_`, so that `u` of one model and `u` of another stay apart.
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Field.hpp"
#include "eddy/core/Runtime.hpp"
#include "eddy/io/Checkpoint.hpp"
#include "eddy/io/Deck.hpp"
#include "eddy/io/Schema.hpp"
#include "eddy/io/Snapshot.hpp"

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace eddy::app {

/// A grid field a model can write to snapshots. Snapshots hold cell-centred values: a field the
/// model keeps on faces is written as the average of each cell's two faces.
struct FieldInfo {
  std::string name;   ///< dataset name, and what `output.fields` calls it
  std::string units;  ///< stored with the dataset
  Centering centering = Centering::Cell;  ///< where the model holds it
  /// Written only when `output.fields` names it, not for `all`: a quantity computed for the
  /// snapshot (vorticity), which costs compute and storage the run does not otherwise need.
  bool onRequest = false;
};

/// One column of the diagnostics time series: name and unit.
struct Column {
  std::string name;
  std::string unit;
};

/// A model's part of a checkpoint being written: what it adds is stored under its own names,
/// prefixed in a run of several models. Step and time are the run's.
class StateOut {
 public:
  StateOut(io::CheckpointData& data, std::string prefix)
      : m_data(data), m_prefix(std::move(prefix)) {}
  /// Adds an array of owned entries (ownedEntries of a field, with its place in the global
  /// array); its name gets the prefix.
  void grid(io::CheckpointGrid g);
  std::vector<double>& reals(std::string const& name);
  std::vector<std::int64_t>& integers(std::string const& name);
  /// The particles of the run (one model of a run may have them).
  void particles(io::CheckpointParticles p);

 private:
  io::CheckpointData& m_data;
  std::string m_prefix;
};

/// A model's part of the checkpoint a run continues from (names as StateOut stored them).
class StateIn {
 public:
  StateIn(io::CheckpointReader const& file, std::string prefix)
      : m_file(file), m_prefix(std::move(prefix)) {}
  /// The file itself: step, time, path, ranks and the particle rows.
  io::CheckpointReader const& file() const { return m_file; }
  double real(std::string const& name) const;
  std::int64_t integer(std::string const& name) const;
  std::vector<double> const& reals(std::string const& name) const;
  std::vector<std::int64_t> const& integers(std::string const& name) const;
  bool hasInteger(std::string const& name) const;
  bool hasReal(std::string const& name) const;
  /// The entries of array `name` that `f`'s owned box covers on this rank, after checking that
  /// the array has the global shape of `f`'s entries (requireSame's error otherwise).
  std::vector<double> readOwned(Field<MemSpace> const& f, CartDecomposition const& decomp,
                                std::string const& name) const;
  /// Throws a collective eddy::DeckError (exit code 3: the deck does not fit its restart file)
  /// naming the file when the deck's `what` (a noun such as "grid.cells" or "particle count"),
  /// `deckValue`, differs from the checkpoint's. Every mismatch of deck and checkpoint goes
  /// through here (or openRestart), so that all have the one exit code.
  void requireSame(std::string const& what, std::string const& deckValue,
                   std::string const& fileValue) const;

 private:
  io::CheckpointReader const& m_file;
  std::string m_prefix;
};

/// Where this rank's owned entries of `f` lie in the global array a checkpoint stores (for a
/// face field of a non-periodic axis one entry more along it), without values.
io::CheckpointGrid ownedGrid(Field<MemSpace> const& f, CartDecomposition const& decomp);
/// ownedGrid with the values (ownedEntries) and a name and unit: one array of a checkpoint.
io::CheckpointGrid checkpointGrid(ExecSpace const& space, Field<MemSpace> const& f,
                                  CartDecomposition const& decomp, std::string name,
                                  std::string units);
/// The snapshot geometry of `decomp`'s block on this rank for a domain of `length`.
io::GridGeometry gridGeometry(CartDecomposition const& decomp, std::array<double, 3> const& length);
/// Cells of `decomp`'s global grid (the work of a grid model's step).
double globalCellCount(CartDecomposition const& decomp);
/// Stores the grid's size (`cells`, `length`) with a grid model's state ...
void saveGridSize(StateOut& out, CartDecomposition const& decomp,
                  std::array<double, 3> const& length);
/// ... and checks at a restart that the checkpoint's is this run's (StateIn::requireSame).
void requireGridSize(StateIn const& in, CartDecomposition const& decomp,
                     std::array<double, 3> const& length);

class ModelSet;

/// A model as `eddy run` drives it. Every call that says "collective" is made on every rank.
class Model {
 public:
  virtual ~Model() = default;

  /// Lines logged once the model is built (parameters, resolved choices, memory).
  virtual std::vector<std::string> startLines() const = 0;
  /// Connects to the other models of the run, all built (a model that reads another finds it
  /// with models.find<Interface>()). Nothing by default.
  virtual void couple(ModelSet& models) { (void)models; }
  /// Collective, once before the first step (after a restore): opens the model's own outputs.
  /// `restartStep` >= 0: the run continues from a checkpoint of that step.
  virtual void begin(ExecSpace const& space, long long restartStep) {
    (void)space;
    (void)restartStep;
  }

  /// Collective: the largest time step the model can take next (its stability or CFL limit, or
  /// its fixed step).
  virtual double maxDt(ExecSpace const& space) = 0;
  /// Collective: advances from step `s` to s + 1 by `dt` (at most maxDt()). `more`: the loop
  /// takes the next step with nothing read in between (TimeLoop.hpp), so the step may leave
  /// work to the next one.
  virtual void step(ExecSpace const& space, double dt, long long s, bool more) = 0;
  /// True when the model takes only its fixed step (maxDt() every time): the run then does not
  /// shorten a step to land on run.end_time or on an output time, it stops or writes at the
  /// first step that reaches it.
  virtual bool fixedStep() const { return false; }
  virtual long long stepCount() const = 0;
  virtual double time() const = 0;
  /// The last step's dt (the model's own before the first step).
  virtual double lastDt() const = 0;
  /// Unit of time in snapshots and logs: "T", the time unit of the deck's own consistent units
  /// (docs/user-guide.md), or a model's named unit such as md's "tau".
  virtual std::string timeUnits() const { return "T"; }
  /// Work of one step and its unit ("cell-updates", "atom-steps"), for the rate in progress lines.
  virtual std::pair<double, std::string> work() const = 0;

  /// Collective: the progress line's fields ("t 1.0e+00  dt 1.0e-03  KE ...").
  virtual std::string progress(ExecSpace const& space) = 0;
  /// The diagnostics columns after `step`, and (collective) their values now.
  virtual std::vector<Column> columns() const = 0;
  virtual std::vector<double> values(ExecSpace const& space) = 0;
  /// Samples a model keeps on its own schedule (md: g(r), speeds): due at `step`, and
  /// (collective) the sample, which checks itself what is due.
  virtual bool sampleDue(long long step) const {
    (void)step;
    return false;
  }
  virtual void sample(ExecSpace const& space) { (void)space; }

  /// Collective: adds to `data` the grid fields named in `fields` (those of ModelSpec::fields
  /// that the deck asks for; with their geometry) or the model's particles.
  virtual void snapshot(ExecSpace const& space, std::vector<std::string> const& fields,
                        io::SnapshotData& data) = 0;
  /// Collective: the model's whole state, from which restore() continues bitwise.
  virtual void save(ExecSpace const& space, StateOut& out) = 0;
  /// Collective: continues from a checkpoint (any rank count), after checking that it holds
  /// this model on the same grid.
  virtual void restore(ExecSpace const& space, StateIn const& in) = 0;

  /// Collective, after the last step: the final line's text (after "final: "). `loopSeconds`:
  /// the time loop's wall time; `stepsRun`: the steps this run took.
  virtual std::string finalLine(ExecSpace const& space, double loopSeconds,
                                long long stepsRun) = 0;
};

/// What a model is built from: the deck, the run's decomposition and domain.
struct ModelContext {
  Runtime const& rt;
  io::Deck const& deck;
  CartDecomposition const& decomp;
  std::array<double, 3> length;  ///< grid.length (unused axes 1)
};

/// A model as the registry knows it: its deck section, its one check, the fields it writes
/// and how to build it.
struct ModelSpec {
  /// The deck section that selects the model ("fluids").
  std::string name;
  /// The section's schema (keys, types, defaults, ranges, units, docs).
  io::Key (*section)();
  /// Rules across keys that the schema cannot state, on a deck that has this section: adds
  /// every rule broken to `errors` (`errors.add(deck, key, what, expected)`, located at the key;
  /// the model's own check of its parameters). Run by `eddy validate` and by `eddy run` before
  /// anything is built; they report every error of the deck at once.
  void (*check)(io::Deck const& deck, io::DeckErrors& errors);
  /// The grid fields a run of this deck can write to snapshots.
  std::vector<FieldInfo> (*fields)(io::Deck const& deck);
  /// Builds the model (collective).
  std::unique_ptr<Model> (*make)(ModelContext const& context);
  /// Bytes of memory one cell of grid.cells costs the model, from the fields it allocates (an
  /// estimate, ghosts left out): with the largest rank's cells, what the run needs on a rank.
  double (*bytesPerCell)(io::Deck const& deck);
  /// Rules that depend on how the ranks split grid.cells (nullptr: none): each one broken is
  /// added to `errors`.
  void (*checkDecomposition)(io::Deck const& deck, CartDecomposition const& decomp,
                             io::DeckErrors& errors) = nullptr;
  /// True when the model discretises the grid's cells, so that it can share a run with the
  /// other such models; false when it reads grid.cells its own way (md: lattice cells) and
  /// runs alone.
  bool sharesGrid = true;
};

/// The spec of the adapter class `M`, built from a ModelContext.
template <class M>
ModelSpec modelSpec(std::string name, io::Key (*section)(),
                    void (*check)(io::Deck const&, io::DeckErrors&),
                    std::vector<FieldInfo> (*fields)(io::Deck const&),
                    double (*bytesPerCell)(io::Deck const&)) {
  ModelSpec s;
  s.name = std::move(name);
  s.section = section;
  s.check = check;
  s.fields = fields;
  s.make = [](ModelContext const& c) -> std::unique_ptr<Model> { return std::make_unique<M>(c); };
  s.bytesPerCell = bytesPerCell;
  return s;
}

/// The models of one run, in registry order: the first leads (its step, time and time unit
/// are the run's).
class ModelSet {
 public:
  struct Entry {
    ModelSpec const* spec;
    std::unique_ptr<Model> model;
  };
  /// Collective: builds every model whose section the deck has, then couples them.
  explicit ModelSet(ModelContext const& context);

  std::vector<Entry> const& entries() const { return m_entries; }
  Model& lead() const { return *m_entries.front().model; }
  bool coupled() const { return m_entries.size() > 1; }
  /// "fluids", or "fluids+diffusion": stored in checkpoints, which restart the same set.
  std::string names() const;
  /// The prefix of the names a model writes: "" alone, "<model>_" in a coupled run.
  std::string prefix(Entry const& e) const { return coupled() ? e.spec->name + "_" : ""; }
  /// The first model that implements `Interface`, or nullptr.
  template <class Interface>
  Interface* find() const {
    for (auto const& e : m_entries)
      if (auto* p = dynamic_cast<Interface*>(e.model.get())) return p;
    return nullptr;
  }

 private:
  std::vector<Entry> m_entries;
};

}  // namespace eddy::app
