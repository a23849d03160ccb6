// The diffusion model's adapter: its deck section, the deck read into diffusion::Parameters,
// and the model as `eddy run` drives it (physics/diffusion holds the model itself). The worked
// example of docs/developing.md.
#include "../Format.hpp"
#include "../Model.hpp"

#include "diffusion/Diffusion.hpp"
#include "eddy/core/FieldHost.hpp"

#include <cmath>
#include <cstdio>

namespace eddy::app {

namespace {

using io::Key;

Key section() {
  return Key::section("diffusion",
                      "Scalar diffusion du/dt = kappa lap(u) from one Fourier mode, with its "
                      "analytic decay as reference. Periodic axes wrap; walls are insulating.")
      .optional()
      .add(Key::real("diffusivity", "Diffusivity kappa.")
               .greaterThan(0)
               .defaultValue(0.01)
               .unit("L^2/T"))
      .add(Key::real("dt",
                     "Time step; 0 takes `stability` times the explicit limit. With other models "
                     "in the run, the run's step is the smallest any of them can take.")
               .atLeast(0)
               .defaultValue(0.0)
               .unit("T"))
      .add(Key::real("stability", "Fraction of the explicit stability limit used when dt is 0.")
               .greaterThan(0)
               .atMost(1)
               .defaultValue(0.5))
      .add(Key::intList("mode", "Fourier mode number per direction of the initial state.")
               .lengths({2, 3})
               .atLeast(0)
               .sameLengthAs("grid.cells")
               .defaultEach(1))
      .add(Key::real("amplitude", "Amplitude A of the initial mode.").defaultValue(1.0))
      .add(Key::real("background", "Constant B added to the initial mode.").defaultValue(0.0));
}

diffusion::Parameters parameters(io::Deck const& deck) {
  diffusion::Parameters p;
  p.diffusivity = deck.getDouble("diffusion.diffusivity");
  p.dt = deck.getDouble("diffusion.dt");
  p.stability = deck.getDouble("diffusion.stability");
  auto const mode = deck.getIntList("diffusion.mode");
  for (std::size_t a = 0; a < mode.size() && a < 3; ++a) p.mode[a] = static_cast<int>(mode[a]);
  p.amplitude = deck.getDouble("diffusion.amplitude");
  p.background = deck.getDouble("diffusion.background");
  return p;
}

void check(io::Deck const& deck, io::DeckErrors& errors) {
  auto const cells = deck.getIntList("grid.cells");
  auto const length = deck.getDoubleList("grid.length");
  std::array<double, 3> spacing{1.0, 1.0, 1.0};
  for (std::size_t a = 0; a < cells.size(); ++a) spacing[a] = length[a] / cells[a];
  for (auto const& v :
       diffusion::violations(parameters(deck), static_cast<int>(cells.size()), spacing))
    errors.add(deck, v.key, v.what, v.expected);
}

std::vector<FieldInfo> fields(io::Deck const&) {
  return {{"u", "1", Centering::Cell}};
}

double bytesPerCell(io::Deck const&) {
  return 16.0;  // u and the next step's u
}

class DiffusionModel final : public Model {
 public:
  explicit DiffusionModel(ModelContext const& c)
      : m_decomp(c.decomp),
        m_length(c.length),
        m_params(parameters(c.deck)),
        m_model(ExecSpace(), c.rt.comm(), c.decomp, c.length,
                static_cast<int>(c.deck.getInt("grid.ghost")), m_params),
        m_lastDt(m_model.dt()) {}

  std::vector<std::string> startLines() const override {
    return {str("diffusion: kappa ", m_params.diffusivity, " [L^2/T], dt ", m_model.dt(), " [T] (",
                m_model.dt() / m_model.stableDt(), " of the stability limit)")};
  }

  double maxDt(ExecSpace const&) override { return m_model.dt(); }
  void step(ExecSpace const& space, double dt, long long, bool) override {
    m_model.step(space, dt);
    m_lastDt = dt;
  }
  long long stepCount() const override { return m_model.stepCount(); }
  double time() const override { return m_model.time(); }
  double lastDt() const override { return m_lastDt; }
  std::pair<double, std::string> work() const override {
    return {globalCellCount(m_decomp), "cell-updates"};
  }

  std::string progress(ExecSpace const& space) override {
    auto const d = m_model.diagnostics(space);
    char buf[200];
    std::snprintf(buf, sizeof buf, "t %.6e  dt %.3e  total %.12e  max|u| %.6e  L2 err %.3e",
                  m_model.time(), m_lastDt, d.total, d.maxAbs, d.l2Error);
    m_last = d;
    return buf;
  }
  std::vector<Column> columns() const override {
    // The scalar is dimensionless (the equation is linear: any unit of u scales out); its
    // integral has the unit of the domain's volume.
    return {{"t", "T"},
            {"dt", "T"},
            {"total", m_decomp.dims() == 3 ? "L^3" : "L^2"},
            {"max_abs_u", "1"},
            {"l2_error", "1"}};
  }
  std::vector<double> values(ExecSpace const& space) override {
    auto const d = m_model.diagnostics(space);
    return {m_model.time(), m_lastDt, d.total, d.maxAbs, d.l2Error};
  }

  void snapshot(ExecSpace const& space, std::vector<std::string> const& fields,
                io::SnapshotData& data) override {
    data.hasGrid = true;
    data.grid = gridGeometry(m_decomp, m_length);
    for (auto const& name : fields)
      if (name == "u") data.fields.push_back({"u", "1", ownedEntries(space, m_model.field())});
  }
  void save(ExecSpace const& space, StateOut& out) override {
    saveGridSize(out, m_decomp, m_length);
    out.reals("last_dt") = {m_lastDt};
    out.grid(checkpointGrid(space, m_model.field(), m_decomp, "u", "1"));
  }
  void restore(ExecSpace const& space, StateIn const& in) override {
    requireGridSize(in, m_decomp, m_length);
    m_model.restoreState(space, in.readOwned(m_model.field(), m_decomp, "u"), in.file().step(),
                         in.file().time());
    m_lastDt = in.real("last_dt");
  }

  std::string finalLine(ExecSpace const&, double, long long) override {
    double const analytic =
        m_params.amplitude * std::exp(-m_model.decayRate() * m_model.time());
    return str("t ", m_model.time(), " [T], L2 error vs analytic ", m_last.l2Error, ", relative ",
               m_last.l2Error / analytic, ", checksum ", hexBits(m_last.checksum), " (",
               m_last.checksum, ")");
  }

 private:
  CartDecomposition const& m_decomp;
  std::array<double, 3> m_length;
  diffusion::Parameters m_params;
  diffusion::Model m_model;
  double m_lastDt;
  diffusion::Diagnostics m_last;  ///< of the last progress line
};

}  // namespace

ModelSpec diffusionModel() {
  return modelSpec<DiffusionModel>("diffusion", section, check, fields, bytesPerCell);
}

}  // namespace eddy::app
