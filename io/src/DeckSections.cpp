#include "DeckSections.hpp"

#include "eddy/io/Deck.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace eddy::io {

namespace sections {

Key run() {
  return Key::section("run", "Run control: the name of the run, its length and its output.")
      .add(Key::string("name", "Name of the run; prefixes output files.").defaultValue("eddy"))
      .add(Key::integer("steps", "Number of time steps to take.").atLeast(0).defaultValue(100))
      .add(Key::string("output_dir", "Directory for output, logs and checkpoints.")
               .defaultValue("output"))
      .add(Key::integer("progress_every", "Print a progress line every this many steps.")
               .atLeast(1)
               .defaultValue(10))
      .add(Key::boolean("debug_log", "Write a per-rank debug log to output_dir.")
               .defaultValue(false));
}

Key grid() {
  return Key::section("grid", "The Cartesian grid; the length of `cells` makes the run 2D or 3D.")
      .add(Key::intList("cells", "Number of cells per direction (x, y[, z]).")
               .lengths({2, 3})
               .atLeast(1)
               .required())
      .add(Key::realList("length", "Domain length per direction.")
               .lengths({2, 3})
               .greaterThan(0)
               .sameLengthAs("grid.cells")
               .defaultEach(1.0)
               .unit("m"))
      .add(Key::boolList("periodic", "Whether each direction is periodic.")
               .lengths({2, 3})
               .sameLengthAs("grid.cells")
               .defaultEach(false))
      .add(Key::integer("ghost", "Ghost cell layers around each subdomain.")
               .atLeast(1)
               .atMost(4)
               .defaultValue(1));
}

Key parallel() {
  return Key::section("parallel", "Domain decomposition over MPI ranks and MPI transport.")
      .add(Key::intList("decomposition",
                        "Ranks per direction; 0 lets Eddy choose that direction (all 0 = "
                        "automatic).")
               .lengths({2, 3})
               .atLeast(0)
               .defaultValue(std::vector<std::int64_t>{0, 0, 0}))
      .add(Key::choice("gpu_aware_mpi", {"auto", "on", "off"},
                       "Pass device buffers to MPI directly: auto probes the MPI library "
                       "(EDDY_GPU_AWARE_MPI overrides the probe).")
               .defaultValue("auto"));
}

Key diffusion() {
  return Key::section("diffusion",
                      "Scalar diffusion du/dt = kappa lap(u) from one Fourier mode, with its "
                      "analytic decay as reference. Periodic axes wrap; walls are insulating.")
      .optional()
      .add(Key::real("diffusivity", "Diffusivity kappa.")
               .greaterThan(0)
               .defaultValue(0.01)
               .unit("m^2/s"))
      .add(Key::real("dt", "Time step; 0 takes `stability` times the explicit limit.")
               .atLeast(0)
               .defaultValue(0.0)
               .unit("s"))
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

}  // namespace sections

Schema const& deckSchema() {
  static Schema const schema = [] {
    Schema s;
    s.add(sections::run());
    s.add(sections::grid());
    s.add(sections::parallel());
    s.add(sections::diffusion());
    return s;
  }();
  return schema;
}

}  // namespace eddy::io
