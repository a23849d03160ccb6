// Benchmark: one sweep of the 7-point (3D) diffusion stencil of eddy::diffusion over an N^3
// FP64 field on one rank, as effective bandwidth (one read and one write of the field) divided
// by the deep_copy bandwidth of the same bytes measured in the same run. Also the halo
// exchange of that field. Prints a Markdown table.
//
//   bench_stencil [N]      (default 512 on GPUs, 128 on hosts)
#include "PerfCommon.hpp"

#include "diffusion/Diffusion.hpp"
#include "eddy/core/Runtime.hpp"

#include <cstdlib>

int main(int argc, char** argv) {
  eddy::Runtime rt(argc, argv);
  {
    int const n = argc > 1 ? std::atoi(argv[1]) : (eddy::kDeviceBackend ? 512 : 128);
    eddy::ExecSpace space;
    auto const decomp =
        eddy::CartDecomposition::fromComm(MPI_COMM_WORLD, {n, n, n}, 3, {true, true, true});
    eddy::diffusion::Parameters p;
    eddy::diffusion::Model model(space, MPI_COMM_WORLD, decomp, {1.0, 1.0, 1.0}, 1, p);
    eddy::Field<eddy::MemSpace> out(space, "eddy::perf::stencilOut", decomp, 1);
    auto const local = decomp.localCells();
    double const cells = double(local[0]) * local[1] * local[2];
    double const copy = eddy::perf::copyBandwidth(space, static_cast<std::size_t>(cells));
    double const ts = eddy::perf::medianSeconds(
        space, 3, 20, [&] { model.applyStencil(space, model.field(), out); });
    double const tstep = eddy::perf::medianSeconds(space, 2, 10, [&] { model.step(space); });
    double const bytes = 2.0 * sizeof(double) * cells;
    if (rt.rank() == 0) {
      std::printf("# %d^3 FP64 on %s, %d rank(s), local block %dx%dx%d; copy %.1f GB/s\n", n,
                  eddy::ExecSpace::name(), rt.size(), local[0], local[1], local[2], copy * 1e-9);
      std::printf("| what | achieved | ceiling | ratio |\n|---|---|---|---|\n");
      eddy::perf::row("7-point stencil sweep, effective bandwidth", bytes / ts * 1e-9, "GB/s",
                      "copy", bytes / ts / copy);
      eddy::perf::row("diffusion step (halo exchange + stencil), cell-updates/s",
                      cells * rt.size() / tstep, "", "stencil-only rate",
                      (cells / tstep) / (cells / ts));
    }
  }
  return 0;
}
