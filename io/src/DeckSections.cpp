#include "eddy/io/DeckSections.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace eddy::io {

namespace sections {

namespace {
/// Times of the run: the deck's own time unit T, or md's tau
/// (docs/user-guide.md#units-and-non-dimensionalisation).
constexpr char const* kTimeUnit = "T (md: tau)";
}  // namespace

Key run() {
  return Key::section("run", "Run control: the name of the run, its length and its output.")
      .add(Key::string("name", "Name of the run; prefixes output files.").defaultValue("eddy"))
      .add(Key::integer("steps",
                        "Number of time steps to take (counted from step 0, also in a restarted "
                        "run); with end_time and no steps, the run takes as many as it needs.")
               .atLeast(0)
               .defaultValue(100))
      .add(Key::real("end_time",
                     "Simulated time at which the run ends, in the model's time unit; a run whose "
                     "models can shorten their step (fluids, diffusion) lands on it exactly, md "
                     "stops at the first step that reaches it. With steps too, whichever comes "
                     "first ends the run.")
               .greaterThan(0)
               .unit(kTimeUnit))
      .add(Key::string("max_wall_time",
                       "Wall-clock limit of the run: seconds (3600), H:MM:SS or D-HH:MM:SS. Near "
                       "it the run writes a checkpoint and exits with code 75, so that a batch "
                       "job resubmits it with `--restart latest`; it keeps room for two of its "
                       "slowest steps and two of its slowest checkpoints (before the first "
                       "checkpoint, a tenth of the limit, at most a minute). SIGTERM, SIGUSR1 and "
                       "SIGINT do the same at once."))
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
      .add(Key::intList("cells",
                        "Number of cells per direction (x, y[, z]); at most 2^30, so that cell "
                        "indices, ghosts included, fit a 32-bit integer.")
               .lengths({2, 3})
               .atLeast(1)
               .atMost(1 << 30)
               .required())
      .add(Key::realList("length", "Domain length per direction.")
               .lengths({2, 3})
               .greaterThan(0)
               .sameLengthAs("grid.cells")
               .defaultEach(1.0)
               .unit("L"))
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
               .atMost(1 << 30)
               .defaultValue(std::vector<std::int64_t>{0, 0, 0}))
      .add(Key::choice("gpu_aware_mpi", {"auto", "on", "off"},
                       "Pass device buffers to MPI directly: auto probes the MPI library "
                       "(EDDY_GPU_AWARE_MPI overrides the probe).")
               .defaultValue("auto"))
      .add(Key::choice("transport", {"auto", "nccl", "mpi", "mpi-staged"},
                       "How halo and particle messages between ranks travel: NCCL on the GPU "
                       "stream, MPI on the buffers (host builds, GPU-aware MPI), or MPI through "
                       "pinned host copies; auto takes the first available in that order "
                       "(EDDY_TRANSPORT overrides auto). `eddy info` lists what is available.")
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

Key diagnostics() {
  return Key::section("diagnostics",
                      "Time series of the model's global diagnostics: a CSV in run.output_dir "
                      "written by rank 0, header `name [unit]` per column, one row every `every` "
                      "steps, flushed after each row.")
      .optional()
      .add(Key::integer("every", "Write a row every this many steps (step 0 included).")
               .atLeast(1)
               .defaultValue(10))
      .add(Key::real("every_time",
                     "Write a row every this much simulated time instead, exclusive with every: "
                     "at its multiples (fluids and diffusion shorten a step to land on each, "
                     "md writes at the first step past it) and at step 0.")
               .greaterThan(0)
               .unit(kTimeUnit)
               .insteadOf("every"))
      .add(Key::string("file", "File name inside run.output_dir.").defaultValue("diagnostics.csv"));
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
      .add(Key::real("every_time",
                     "Write a snapshot every this much simulated time instead, exclusive with "
                     "every: at its multiples (landed on as diagnostics.every_time says), step 0 "
                     "and the end.")
               .greaterThan(0)
               .unit(kTimeUnit)
               .insteadOf("every"))
      .add(Key::string("fields",
                       "Grid fields to write: `all`, or names separated by spaces or commas, or "
                       "both (fluids: pressure u v w divergence; diffusion: u; in a run of "
                       "several models each name starts with its model's, as in fluids_u). "
                       "Derived fields are written only when named, not by `all`, as each costs a "
                       "kernel and a field of storage per snapshot; fluids: vorticity (the vector "
                       "vorticity_x, _y, _z in 3D, the scalar omega_z in 2D, 1/s), q_criterion "
                       "(Q = (|Omega|^2 - |S|^2) / 2 of the velocity gradient, 1/s^2) and speed "
                       "(|u|, m/s), at cell centres from second-order differences of the face "
                       "velocities. Particles (md) are always written.")
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
                      "rank count: fluids and diffusion always, md with md.reproducible); see "
                      "docs/output.md.")
      .optional()
      .add(Key::integer("every", "Write a checkpoint every this many steps; 0 = only at the end.")
               .atLeast(0)
               .defaultValue(1000))
      .add(Key::real("every_time",
                     "Write a checkpoint every this much simulated time instead, exclusive with "
                     "every: at its multiples (landed on as diagnostics.every_time says).")
               .greaterThan(0)
               .unit(kTimeUnit)
               .insteadOf("every"))
      .add(Key::integer("keep",
                        "Checkpoints kept; older ones are deleted once a newer one is complete.")
               .atLeast(1)
               .atMost(100000)
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

}  // namespace eddy::io
