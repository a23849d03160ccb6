// A program outside Eddy's tree that uses the installed package: eddy::core (the runtime and a
// decomposition), eddy::io (a deck parsed against a schema of its own), eddy::physics (steps of
// the diffusion model) and eddy::app (the model registry). It checks what it can itself and
// prints one line that tests/install/ConsumerTest.cmake compares across rank counts.
#include "ModelRegistry.hpp"
#include "diffusion/Diffusion.hpp"
#include "eddy/core/Compat.hpp"
#include "eddy/core/Decomposition.hpp"
#include "eddy/core/Runtime.hpp"
#include "eddy/core/Version.hpp"
#include "eddy/io/Deck.hpp"
#include "eddy/io/Schema.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>

namespace {

char const* const kDeck = R"(grid:
  cells: [24, 16]
  length: [1.0, 1.0]
diffusion:
  steps: 20
  background: 1.0
)";

eddy::io::Schema consumerSchema() {
  using eddy::io::Key;
  eddy::io::Schema s;
  s.add(Key::section("grid", "The grid.")
            .add(Key::intList("cells", "Cells per axis.").lengths({2, 3}).required())
            .add(Key::realList("length", "Domain size per axis.")
                     .sameLengthAs("grid.cells")
                     .defaultEach(1.0)));
  s.add(Key::section("diffusion", "A few steps of the diffusion model.")
            .add(Key::integer("steps", "Steps to take.").atLeast(1).defaultValue(10))
            .add(Key::real("background", "Constant added to the initial mode.").defaultValue(0.0)));
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  eddy::Runtime rt(argc, argv);
  int code = 0;
  try {
    auto const deck = eddy::io::parseDeck(kDeck, "consumer.yaml", consumerSchema());
    auto const cells = deck.getIntList("grid.cells");
    auto const length = deck.getDoubleList("grid.length");
    int const dims = static_cast<int>(cells.size());
    eddy::Index3 global{1, 1, 1};
    std::array<double, 3> size{1.0, 1.0, 1.0};
    for (int a = 0; a < dims; ++a) {
      global[a] = static_cast<int>(cells[a]);
      size[a] = length[a];
    }
    auto const decomp = eddy::CartDecomposition::fromComm(rt.comm(), global, dims,
                                                          eddy::Periodic3{true, true, false});

    eddy::diffusion::Parameters params;
    params.background = deck.getDouble("diffusion.background");
    params.mode = {1, 2, 1};
    eddy::ExecSpace space;
    eddy::diffusion::Model model(space, rt.comm(), decomp, size, 1, params);
    long long const steps = deck.getInt("diffusion.steps");
    for (long long s = 0; s < steps; ++s) model.step(space);
    auto const d = model.diagnostics(space);

    // The mode integrates to zero over the periodic box: the total is the background's, kept
    // to round-off by the conservative stencil. The error against the analytic decay is the
    // scheme's on this coarse grid (2.4e-3 of the amplitude); a wrong solution is far off.
    double const expectedTotal = params.background * size[0] * size[1];
    bool const totalOk = std::abs(d.total - expectedTotal) < 1e-12;
    bool const errorOk = d.l2Error < 1e-2;
    std::string models;
    for (auto const& spec : eddy::app::modelRegistry()) models += " " + spec.name;
    if (rt.rank() == 0) {
      std::printf("eddy-consumer: Eddy %s, %d rank(s), %s\n", eddy::kVersion, rt.size(),
                  decomp.describe().c_str());
      std::printf("eddy-consumer: models:%s\n", models.c_str());
      std::printf("eddy-consumer: %lld steps, total %.17g (expected %.17g), l2 error %.3e\n",
                  model.stepCount(), d.total, expectedTotal, d.l2Error);
      std::printf("eddy-consumer: checksum %.17g\n", d.checksum);
    }
    if (!totalOk || !errorOk) {
      if (rt.rank() == 0) std::printf("eddy-consumer: FAILED (total or error out of bounds)\n");
      code = 1;
    }
  } catch (std::exception const& e) {
    std::fprintf(stderr, "[rank %d] eddy-consumer: error: %s\n", rt.rank(), e.what());
    MPI_Abort(rt.comm(), 1);
  }
  return code;
}
