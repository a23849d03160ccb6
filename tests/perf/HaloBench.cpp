// Benchmark: rank-to-rank traffic of device buffers with every transport this build offers,
// next to the direct peer copy measured in the same run (the ceiling; GPU builds on one node).
//   1. Raw messages: each rank of a pair sends one message of S bytes to the other and
//      receives one (both directions at once), for S = 2, 16, 128 MiB.
//   2. The halo exchange of an N^3-per-rank cell field with ghost width 2, ranks along x,
//      periodic: two face messages per rank per exchange.
// Bandwidth is per direction: bytes one rank sends / time. Run with 2 ranks, one per GPU:
//
//   mpirun -n 2 bench_halo [N]     (default N = 512 on GPUs, 96 on hosts)
#include "PeerCopy.hpp"
#include "PerfCommon.hpp"

#include "eddy/core/Error.hpp"
#include "eddy/core/HaloExchange.hpp"
#include "eddy/core/Runtime.hpp"
#include "eddy/core/Transport.hpp"

#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  eddy::Runtime rt(argc, argv);
  {
    using eddy::ExecSpace;
    int const n = argc > 1 ? std::atoi(argv[1]) : (eddy::kDeviceBackend ? 512 : 96);
    ExecSpace space;
    if (rt.size() % 2 != 0) {
      if (rt.rank() == 0) std::printf("bench_halo needs an even number of ranks\n");
      return 1;
    }
    std::vector<std::size_t> const sizes{2u << 20, 16u << 20, 128u << 20};
    std::vector<double> ceiling;
    std::string why;
    for (std::size_t bytes : sizes)
      ceiling.push_back(eddy::perf::peerCopyBandwidth(MPI_COMM_WORLD, bytes, &why));
    if (rt.rank() == 0) {
      std::printf("# %d ranks, %s; transports: %s\n", rt.size(), ExecSpace::name(),
                  eddy::transport::describe().c_str());
      if (!why.empty()) std::printf("# peer copy ceiling: %s\n", why.c_str());
      std::printf("| what | transport | per direction | ceiling (peer copy) | ratio |\n");
      std::printf("|---|---|---|---|---|\n");
    }
    int const peer = rt.rank() ^ 1;
    for (eddy::TransportKind kind : eddy::transport::available()) {
      char const* tname = eddy::transport::name(kind);
      eddy::PeerExchange<ExecSpace> px(MPI_COMM_WORLD, kind);
      for (std::size_t s = 0; s < sizes.size(); ++s) {
        std::size_t const count = sizes[s] / sizeof(double);
        Kokkos::View<double*, eddy::MemSpace> send(Kokkos::view_alloc(space, "eddy::perf::send"),
                                                   count);
        Kokkos::View<double*, eddy::MemSpace> recv(Kokkos::view_alloc(space, "eddy::perf::recv"),
                                                   count);
        std::vector<eddy::PeerMessage> const out{{peer, 1, 0, count}}, in{{peer, 1, 0, count}};
        double const t = eddy::perf::medianSeconds(space, 2, 9, [&] {
          px.post(space, send, out, recv, in);
          px.wait(space);
        });
        double tmax = t;
        MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        double const bw = sizes[s] / tmax;
        if (rt.rank() == 0)
          std::printf("| %zu MiB message | %s | %.1f GB/s | %.1f GB/s | %.3f |\n", sizes[s] >> 20,
                      tname, bw * 1e-9, ceiling[s] * 1e-9, ceiling[s] > 0 ? bw / ceiling[s] : 0.0);
      }
      auto const decomp = eddy::CartDecomposition::fromComm(
          MPI_COMM_WORLD, {n * rt.size(), n, n}, 3, {true, true, true}, {rt.size(), 1, 1});
      eddy::Field<eddy::MemSpace> f(space, "eddy::perf::haloField", decomp, 2);
      eddy::HaloExchange<ExecSpace> halo(space, MPI_COMM_WORLD, decomp, f, kind);
      double const t = eddy::perf::medianSeconds(space, 2, 9, [&] { halo.exchange(space, f); });
      double tmax = t;
      MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      // Only the messages to the other rank count as traffic.
      double const bytes = 2.0 * 2 * (n + 4.0) * (n + 4.0) * sizeof(double);
      std::string ignored;
      double const faceCeiling = eddy::perf::peerCopyBandwidth(
          MPI_COMM_WORLD, static_cast<std::size_t>(bytes), &ignored);
      if (rt.rank() == 0)
        std::printf(
            "| halo exchange %d^3 per rank, ghost 2 (2 x %.1f MiB) | %s | %.1f GB/s | "
            "%.1f GB/s | %.3f |\n",
            n, bytes / 2 / (1 << 20), tname, bytes / tmax * 1e-9, faceCeiling * 1e-9,
            faceCeiling > 0 ? bytes / tmax / faceCeiling : 0.0);
    }
  }
  return 0;
}
