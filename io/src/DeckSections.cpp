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
               .defaultValue(false))
      .add(Key::string("restart",
                       "Checkpoint file to continue from, or `latest` (the newest checkpoint of "
                       "this run in checkpoint.directory; a fresh start when there is none); "
                       "empty = start at step 0. `eddy run DECK --restart FILE` overrides it.")
               .defaultValue(""));
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
               .defaultValue("auto"))
      .add(Key::choice("transport", {"auto", "nccl", "mpi", "mpi-staged", "cuda-ipc"},
                       "How halo and particle messages between ranks travel: NCCL on the GPU "
                       "stream, MPI on the buffers (host builds, GPU-aware MPI), or MPI through "
                       "pinned host copies; auto takes the first available in that order "
                       "(EDDY_TRANSPORT overrides auto). cuda-ipc, only when chosen: halo "
                       "messages as copies between the GPUs of a node (CUDA IPC), the rest by "
                       "NCCL. `eddy info` lists what is available.")
               .defaultValue("auto"))
      .add(Key::choice("overlap", {"auto", "on", "off"},
                       "Overlap halo exchanges with computation (fluids: the velocity exchanges "
                       "with the next RK stage or the divergence, the CG direction's with the "
                       "operator; md: the ghost position refresh with the forces of atoms that "
                       "have no ghost neighbour): what reads no ghost is computed while the "
                       "messages travel, on a second GPU stream, the rest when they have "
                       "arrived. Fluid fields are bitwise the same either way, and so are "
                       "full-list forces for a given neighbour list (half-list forces up to the "
                       "order of their scatter-adds). auto: off for fluids (measured slower on two "
                       "GPUs, see docs/PERFORMANCE.md), on for md with more than one rank.")
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

Key md() {
  return Key::section(
             "md",
             "Lennard-Jones 12-6 molecular dynamics in reduced units (epsilon = sigma = mass = 1) "
             "in a periodic 3D box. grid.cells counts cubic lattice cells of edge (4 / "
             "density)^(1/3) "
             "per axis, 4 atoms each (N = 4 nx ny nz); the ranks split these cells "
             "(parallel.decomposition applies), grid.periodic must be all true and grid.length is "
             "not used. Velocity Verlet (NVE), optionally thermostatted; neighbour lists with a "
             "skin, rebuilt when an atom moved more than skin/2.")
      .optional()
      .add(Key::choice("lattice", {"fcc", "random"},
                       "Initial positions: the fcc lattice, or 4 atoms uniformly at random in each "
                       "lattice cell (overlaps give huge forces: for tests, or with a thermostat "
                       "and a small dt).")
               .defaultValue("fcc"))
      .add(Key::real("density", "Number density rho*.").greaterThan(0).defaultValue(0.8442))
      .add(Key::real("temperature",
                     "Initial temperature T*: Gaussian velocities drawn per atom from (seed, "
                     "global id), zero total momentum, rescaled to exactly T* (the same state on "
                     "any rank count).")
               .atLeast(0)
               .defaultValue(1.44))
      .add(Key::real("cutoff", "Cutoff radius rc of the potential.")
               .greaterThan(0)
               .defaultValue(2.5))
      .add(Key::real("skin", "Verlet skin: lists hold pairs within rc + skin.")
               .atLeast(0)
               .defaultValue(0.3))
      .add(Key::boolean("shift", "Shift the potential so that U(rc) = 0.").defaultValue(false))
      .add(Key::real("dt", "Time step.").greaterThan(0).defaultValue(0.005))
      .add(Key::choice("neighbor", {"auto", "half", "full"},
                       "Neighbour list: half (each pair once, scatter-add forces, ghost forces "
                       "summed back to their owners), full (no atomics, twice the pairs), or "
                       "auto: the faster on the backend (full on GPUs, half on CPUs).")
               .defaultValue("auto"))
      .add(Key::boolean("sort", "Reorder the atoms by bin at every rebuild (memory locality).")
               .defaultValue(true))
      .add(Key::choice("thermostat", {"none", "berendsen", "langevin"},
                       "Thermostat for equilibration; none gives NVE.")
               .defaultValue("none"))
      .add(Key::real("thermostat_temperature", "Target temperature of the thermostat.")
               .greaterThan(0)
               .defaultValue(1.44))
      .add(Key::integer("thermostat_steps",
                        "Steps the thermostat acts for, then NVE; 0 = the whole run.")
               .atLeast(0)
               .defaultValue(0))
      .add(Key::real("berendsen_tau", "Berendsen coupling time.").greaterThan(0).defaultValue(0.5))
      .add(Key::real("langevin_damping", "Langevin friction coefficient gamma.")
               .greaterThan(0)
               .defaultValue(1.0))
      .add(Key::integer("seed",
                        "Seed of the counter-based random numbers (velocities, random lattice, "
                        "Langevin noise), which are functions of (seed, atom id, step).")
               .atLeast(0)
               .defaultValue(12345))
      .add(Key::boolean("reproducible",
                        "Bitwise the same trajectory on any rank count: forces from the full list "
                        "summed in a canonical order (bins of one grid shared by the ranks, each "
                        "ordered by global id), reproducible global sums (neighbor: half is "
                        "replaced by full).")
               .defaultValue(false))
      .add(Key::section("rdf",
                        "Radial distribution function g(r) from the neighbour-list pairs (owned "
                        "and ghost), written to <output_dir>/<run.name>.rdf.csv.")
               .add(Key::integer("every", "Sample g(r) every this many steps; 0 = never.")
                        .atLeast(0)
                        .defaultValue(0))
               .add(Key::real("r_max", "Largest distance; 0 = the cutoff (at most the cutoff).")
                        .atLeast(0)
                        .defaultValue(0.0))
               .add(Key::integer("bins", "Number of shells over [0, r_max).")
                        .atLeast(1)
                        .defaultValue(100)))
      .add(Key::section("velocity_histogram",
                        "Distribution of the atom speeds |v|, written to "
                        "<output_dir>/<run.name>.speeds.csv.")
               .add(Key::integer("every", "Sample every this many steps; 0 = never.")
                        .atLeast(0)
                        .defaultValue(0))
               .add(Key::integer("bins", "Number of bins over [0, v_max).")
                        .atLeast(1)
                        .defaultValue(50))
               .add(Key::real("v_max", "Upper end of the bins; faster atoms are counted apart.")
                        .greaterThan(0)
                        .defaultValue(5.0)));
}

Key diagnostics() {
  return Key::section("diagnostics",
                      "Time series of the model's global diagnostics: a CSV in run.output_dir "
                      "written by rank 0, header `name [unit]` per column, one row every `every` "
                      "steps, flushed after each row.")
      .optional()
      .add(Key::integer("every", "Write a row every this many steps (step 0 included).")
               .atLeast(1)
               .defaultValue(10))
      .add(Key::string("file", "File name inside run.output_dir.").defaultValue("diagnostics.csv"));
}

Key fluids() {
  auto face = [](char const* name, char const* where) {
    return Key::choice(name, {"auto", "periodic", "wall", "moving_wall"},
                       std::string("Boundary at ") + where +
                           ": auto = periodic if grid.periodic says so, else a fixed wall.")
        .defaultValue("auto");
  };
  auto velocity = [](char const* name) {
    return Key::realList(name, "Velocity of this face when it is a moving_wall (tangential).")
        .lengths({2, 3})
        .sameLengthAs("grid.cells")
        .defaultEach(0.0)
        .unit("m/s");
  };
  return Key::section("fluids",
                      "Incompressible Navier-Stokes on a staggered (MAC) grid: RK3 with one "
                      "pressure projection per step. The Reynolds number is U L / viscosity.")
      .optional()
      .add(Key::real("viscosity", "Kinematic viscosity nu (e.g. 1 / Re for U = L = 1).")
               .greaterThan(0)
               .defaultValue(0.01)
               .unit("m^2/s"))
      .add(Key::real("density", "Density; scales the reported pressure only.")
               .greaterThan(0)
               .defaultValue(1.0)
               .unit("kg/m^3"))
      .add(Key::choice("initial", {"rest", "taylor_green", "poiseuille"},
                       "Initial velocity: at rest, the Taylor-Green vortex (periodic domain), or "
                       "the Poiseuille parabola of a channel (periodic x, walls in y).")
               .defaultValue("rest"))
      .add(Key::real("velocity_scale", "Amplitude U of the Taylor-Green vortex.")
               .greaterThan(0)
               .defaultValue(1.0)
               .unit("m/s"))
      .add(Key::realList("body_force", "Body force per unit mass (drives a periodic channel).")
               .lengths({2, 3})
               .sameLengthAs("grid.cells")
               .defaultEach(0.0)
               .unit("m/s^2"))
      .add(Key::real("dt",
                     "Fixed time step; 0 follows the cfl target (capped by max_dt and the "
                     "viscous limit).")
               .atLeast(0)
               .defaultValue(0.0)
               .unit("s"))
      .add(Key::real("cfl", "Target CFL number dt sum_a max|u_a| / h_a when dt is 0.")
               .greaterThan(0)
               .atMost(1.7)
               .defaultValue(0.5))
      .add(Key::real("max_dt", "Upper bound of the time step; 0 = none.")
               .atLeast(0)
               .defaultValue(0.0)
               .unit("s"))
      .add(Key::section("boundary", "Boundary condition per domain face.")
               .add(face("x_low", "x = 0"))
               .add(face("x_high", "x = Lx"))
               .add(face("y_low", "y = 0"))
               .add(face("y_high", "y = Ly"))
               .add(face("z_low", "z = 0 (3D)"))
               .add(face("z_high", "z = Lz (3D)")))
      .add(Key::section("wall_velocity",
                        "Velocity of each moving wall, e.g. the lid of a cavity: y_high: [1, 0]. "
                        "Must be zero along the face normal, and zero on plain walls.")
               .add(velocity("x_low"))
               .add(velocity("x_high"))
               .add(velocity("y_low"))
               .add(velocity("y_high"))
               .add(velocity("z_low"))
               .add(velocity("z_high")))
      .add(Key::section("poisson", "The pressure Poisson solver of the projection.")
               .add(Key::choice("method", {"mgcg", "cg", "jacobi"},
                                "Multigrid-preconditioned CG, plain CG, or damped Jacobi.")
                        .defaultValue("mgcg"))
               .add(Key::real("tolerance", "Relative residual ||r|| / ||rhs|| to reach.")
                        .greaterThan(0)
                        .defaultValue(1e-12))
               .add(Key::integer("max_iterations",
                                 "Iteration cap; missing the tolerance stops the run.")
                        .atLeast(1)
                        .defaultValue(500))
               .add(Key::integer("pre_sweeps",
                                 "mgcg: red-black Gauss-Seidel sweeps on each multigrid level "
                                 "before its residual goes to the next level (the coarsest "
                                 "level is solved by its own sweeps).")
                        .atLeast(0)
                        .defaultValue(2))
               .add(Key::integer("post_sweeps",
                                 "mgcg: sweeps on each level after the coarser level's "
                                 "correction is added; pre_sweeps + post_sweeps >= 1. Fewer "
                                 "sweeps make a V-cycle cheaper and may take more iterations.")
                        .atLeast(0)
                        .defaultValue(2))
               .add(Key::choice("guess", {"quadratic", "linear", "previous", "zero"},
                                "Initial guess of each step's solve: the pressure increments of "
                                "the last three or two steps extrapolated to the new step, the "
                                "last one as it is, or zero. The extrapolations save iterations "
                                "and keep two or one more cell field (16 or 8 bytes a cell).")
                        .defaultValue("quadratic"))
               .add(Key::choice("precision", {"double", "mixed"},
                                "mgcg: precision of the finest multigrid level's work field "
                                "(its sweeps' intermediate values and residual). mixed keeps "
                                "it in single precision in the memory of a double field: fewer "
                                "bytes a V-cycle, the same tolerance reached (CG, its sums and "
                                "the solution stay double), the same bits on any rank count. "
                                "double: the bits of earlier releases.")
                        .defaultValue("mixed")));
}

Key output() {
  return Key::section("output",
                      "HDF5 snapshots in run.output_dir (<run.name>_<step>.h5) and an XDMF index "
                      "(<run.name>.xmf) that ParaView opens as one time series; see "
                      "docs/output.md.")
      .optional()
      .add(Key::integer("every",
                        "Write a snapshot at step 0, every this many steps and at the end; "
                        "0 = no snapshots.")
               .atLeast(0)
               .defaultValue(100))
      .add(Key::string("fields",
                       "Grid fields to write: `all`, or names separated by spaces or commas "
                       "(fluids: pressure u v w divergence; diffusion: u). Particles (md) are "
                       "always written.")
               .defaultValue("all"))
      .add(Key::choice("mode", {"auto", "collective", "gather"},
                       "How ranks write: collective MPI-IO into one file (parallel HDF5 only), or "
                       "gather to rank 0 in messages of at most 64 MiB; auto takes collective "
                       "when HDF5 is parallel.")
               .defaultValue("auto"));
}

Key checkpoint() {
  return Key::section("checkpoint",
                      "Checkpoints: the full state of the run in "
                      "<directory>/<run.name>_<step>.chk.h5, from which `eddy run DECK --restart "
                      "FILE` continues bitwise as if the run had not stopped (also on another "
                      "rank count: fluids always, md with md.reproducible); see docs/output.md.")
      .optional()
      .add(Key::integer("every", "Write a checkpoint every this many steps; 0 = only at the end.")
               .atLeast(0)
               .defaultValue(1000))
      .add(Key::integer("keep",
                        "Checkpoints kept; older ones are deleted once a newer one is complete.")
               .atLeast(1)
               .defaultValue(2))
      .add(Key::string("directory",
                       "Directory of the checkpoint files (created if missing); empty = "
                       "<run.output_dir>/checkpoints.")
               .defaultValue(""))
      .add(Key::boolean("at_end",
                        "Also write one after the last step, so that a finished run can be "
                        "extended by raising run.steps.")
               .defaultValue(true))
      .add(Key::choice("mode", {"auto", "collective", "gather"},
                       "How ranks write and a restart reads: collective MPI-IO (parallel HDF5 "
                       "only), or through rank 0 in messages of at most 64 MiB; auto takes "
                       "collective when HDF5 is parallel.")
               .defaultValue("auto"));
}

}  // namespace sections

Schema const& deckSchema() {
  static Schema const schema = [] {
    Schema s;
    s.add(sections::run());
    s.add(sections::grid());
    s.add(sections::parallel());
    s.add(sections::diffusion());
    s.add(sections::fluids());
    s.add(sections::md());
    s.add(sections::diagnostics());
    s.add(sections::output());
    s.add(sections::checkpoint());
    return s;
  }();
  return schema;
}

}  // namespace eddy::io
