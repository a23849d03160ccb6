// Benchmark: one sweep of the 7-point (3D) diffusion stencil of eddy::diffusion over an N^3
// FP64 field on one rank, as effective bandwidth (one read and one write of the field) divided
// by the deep_copy bandwidth of the same bytes measured in the same run. Also the halo
// exchange of that field, and iteration variants of the same stencil (MDRange tiles, View
// indexing, marching in z, flat ranges, row blocks, shared-memory planes; the last checked
// against the model's field: the program fails if they differ). Prints a Markdown table.
//
//   bench_stencil [N]      (default 512 on GPUs, 128 on hosts)
#include "PerfCommon.hpp"

#include "diffusion/Diffusion.hpp"
#include "eddy/core/Runtime.hpp"

#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Reductions.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <vector>

namespace {

/// The diffusion stencil again, for tile-shape comparisons outside the model.
struct Stencil7 {
  eddy::GhostedView<eddy::MemSpace> u, out;
  double c;
  int nx, ny;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    double const v = u(i, j, k);
    out(i, j, k) = v + c * (u(i - 1, j, k) + u(i + 1, j, k) + u(i, j - 1, k) + u(i, j + 1, k) +
                            u(i, j, k - 1) + u(i, j, k + 1) - 6 * v);
  }
  /// Flattened index, x fastest.
  KOKKOS_INLINE_FUNCTION void operator()(long long t) const {
    int const i = static_cast<int>(t % nx);
    long long const r = t / nx;
    (*this)(i, static_cast<int>(r % ny), static_cast<int>(r / ny));
  }
};

/// The same through Kokkos' own 64-bit View indexing, to show what GhostedView's 32-bit index
/// arithmetic saves.
struct Stencil7View {
  Kokkos::View<double***, Kokkos::LayoutLeft, eddy::MemSpace> u, out;
  double c;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    double const v = u(i + 1, j + 1, k + 1);
    out(i + 1, j + 1, k + 1) =
        v + c * (u(i, j + 1, k + 1) + u(i + 2, j + 1, k + 1) + u(i + 1, j, k + 1) +
                 u(i + 1, j + 2, k + 1) + u(i + 1, j + 1, k) + u(i + 1, j + 1, k + 2) - 6 * v);
  }
};

/// The same stencil marching along z: thread (i, j, c) updates k in [c K, c K + K), keeping
/// the column u(i, j, k - 1 .. k + 1) in registers, so that each plane is read from memory
/// once per thread and the x/y neighbours come from the caches of the threads beside it.
struct Stencil7March {
  eddy::GhostedView<eddy::MemSpace> u, out;
  double c;
  int nz, chunk;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int kc) const {
    int const k0 = kc * chunk;
    int const k1 = k0 + chunk < nz ? k0 + chunk : nz;
    double below = u(i, j, k0 - 1), centre = u(i, j, k0);
    for (int k = k0; k < k1; ++k) {
      double const above = u(i, j, k + 1);
      out(i, j, k) = centre + c * (u(i - 1, j, k) + u(i + 1, j, k) + u(i, j - 1, k) +
                                   u(i, j + 1, k) + below + above - 6 * centre);
      below = centre;
      centre = above;
    }
  }
};

/// The stencil marching along z through shared memory (2.5D blocking): a team of TX x TY
/// threads holds an x-y tile of the current plane (with its one-cell rim) in team scratch and
/// steps through `chunk` planes; each thread keeps its column (k - 1, k, k + 1) in registers.
/// A cell is read from memory once per plane as the centre, the rim once more per tile (from
/// L2), where the other variants read every x-y neighbour through L1. Same arithmetic, in the
/// same order, as Stencil7.
template <int TX, int TY>
struct Stencil7Shared {
  using Member = Kokkos::TeamPolicy<eddy::ExecSpace>::member_type;
  using Plane = Kokkos::View<double*, eddy::ExecSpace::scratch_memory_space,
                             Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  eddy::GhostedView<eddy::MemSpace> u, out;
  double c;
  int nx, ny, nz, chunk, tilesX, tilesY;

  KOKKOS_INLINE_FUNCTION static constexpr int planeEntries() { return (TX + 2) * (TY + 2); }
  KOKKOS_INLINE_FUNCTION void operator()(Member const& team) const {
    Plane plane(team.team_scratch(0), planeEntries());
    int const l = team.league_rank();
    int const bx = l % tilesX, by = (l / tilesX) % tilesY, bz = l / (tilesX * tilesY);
    int const t = team.team_rank(), tx = t % TX, ty = t / TX;
    int const i = bx * TX + tx, j = by * TY + ty;
    bool const inside = i < nx && j < ny;
    int const k0 = bz * chunk, k1 = k0 + chunk < nz ? k0 + chunk : nz;
    auto at = [&](int x, int y) -> double& {
      return plane((y + 1) * (TX + 2) + x + 1);
    };
    double below = inside ? u(i, j, k0 - 1) : 0.0, centre = inside ? u(i, j, k0) : 0.0;
    for (int k = k0; k < k1; ++k) {
      double const above = inside ? u(i, j, k + 1) : 0.0;
      team.team_barrier();  // the previous plane's readers are done
      if (inside) {
        at(tx, ty) = centre;
        if (tx == 0) at(-1, ty) = u(i - 1, j, k);
        if (tx == TX - 1 || i == nx - 1) at(tx + 1, ty) = u(i + 1, j, k);
        if (ty == 0) at(tx, -1) = u(i, j - 1, k);
        if (ty == TY - 1 || j == ny - 1) at(tx, ty + 1) = u(i, j + 1, k);
      }
      team.team_barrier();
      if (inside)
        out(i, j, k) = centre + c * (at(tx - 1, ty) + at(tx + 1, ty) + at(tx, ty - 1) +
                                     at(tx, ty + 1) + below + above - 6 * centre);
      below = centre;
      centre = above;
    }
  }
};

template <int TX, int TY>
double sharedSeconds(eddy::ExecSpace const& space, Stencil7 const& st, int nz, int chunk) {
  using K = Stencil7Shared<TX, TY>;
  int const tilesX = (st.nx + TX - 1) / TX, tilesY = (st.ny + TY - 1) / TY;
  int const chunks = (nz + chunk - 1) / chunk;
  K const kernel{st.u, st.out, st.c, st.nx, st.ny, nz, chunk, tilesX, tilesY};
  Kokkos::TeamPolicy<eddy::ExecSpace> policy(space, tilesX * tilesY * chunks, TX * TY);
  policy.set_scratch_size(0, Kokkos::PerTeam(K::Plane::shmem_size(K::planeEntries())));
  return eddy::perf::medianSeconds(
      space, 3, 20, [&] { Kokkos::parallel_for("eddy::perf::stencilShared", policy, kernel); });
}

/// Largest |a - b| over the cells [0, n) of two fields, over all ranks.
double maxDifference(eddy::ExecSpace const& space, eddy::GhostedView<eddy::MemSpace> const& a,
                     eddy::GhostedView<eddy::MemSpace> const& b, std::array<int, 3> const& n) {
  return eddy::globalMax(
      space, MPI_COMM_WORLD, {0, 0, 0}, n,
      KOKKOS_LAMBDA(int i, int j, int k) { return eddy::math::fabs(a(i, j, k) - b(i, j, k)); });
}

/// The stencil over a flat 1D range with the 32-bit decoding of FlatBox (what the box
/// reductions use), against Stencil7's 64-bit % and /.
struct Stencil7Flat32 {
  Stencil7 st;
  eddy::FlatBox box;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t) const {
    int i, j, k;
    box.decode(t, i, j, k);
    st(i, j, k);
  }
};

template <int N>
double rowBlockSeconds(eddy::ExecSpace const& space, Stencil7 const& st,
                       std::array<int, 3> const& n) {
  auto const blocks = eddy::BoxRowBlocks<N>::of({0, 0, 0}, n);
  Kokkos::RangePolicy<eddy::ExecSpace, Kokkos::IndexType<std::int64_t>> policy(space, 0,
                                                                               blocks.items);
  return eddy::perf::medianSeconds(space, 3, 20, [&] {
    Kokkos::parallel_for("eddy::perf::stencilRows", policy,
                         eddy::BoxRowBlockCells<N, Stencil7>{blocks, st});
  });
}

}  // namespace

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
    // Tile shapes of the box policy (the default is marked), and a flattened 1D range.
    Stencil7 st{model.field().access(), out.access(), 0.1, local[0], local[1]};
    auto const def = eddy::boxTile<eddy::ExecSpace>();
    std::vector<std::array<int, 3>> tiles{def,         {0, 0, 0},   {16, 2, 2},  {32, 2, 2},
                                          {32, 4, 2},  {32, 4, 4},  {32, 8, 1},  {64, 2, 2},
                                          {64, 4, 1},  {64, 4, 2},  {128, 2, 1}, {128, 1, 2},
                                          {256, 1, 1}, {32, 16, 1}, {64, 8, 1}};
    if (!eddy::kDeviceBackend) tiles = {def, {local[0], 1, 1}, {local[0], 4, 4}, {32, 4, 4}};
    for (std::size_t v = 0; v < tiles.size(); ++v) {
      auto const& t = tiles[v];
      eddy::BoxPolicy<eddy::ExecSpace> policy(space, {0, 0, 0}, {local[0], local[1], local[2]},
                                              {t[0], t[1], t[2]});
      double const tv = eddy::perf::medianSeconds(
          space, 3, 20, [&] { Kokkos::parallel_for("eddy::perf::stencilTile", policy, st); });
      if (rt.rank() == 0)
        eddy::perf::row(
            eddy::str("stencil, tile ", t[0], "x", t[1], "x", t[2], v == 0 ? " (default)" : ""),
            bytes / tv * 1e-9, "GB/s", "copy", bytes / tv / copy);
    }
    for (auto const& t : std::vector<std::array<int, 3>>{
             {32, 4, 2}, {32, 8, 1}, {64, 4, 1}, {128, 2, 1}, {256, 1, 1}, {32, 2, 2}}) {
      Stencil7View viewStencil{model.field().view(), out.view(), 0.1};
      eddy::BoxPolicy<eddy::ExecSpace> policy(space, {0, 0, 0}, {local[0], local[1], local[2]},
                                              {t[0], t[1], t[2]});
      double const tv = eddy::perf::medianSeconds(space, 3, 20, [&] {
        Kokkos::parallel_for("eddy::perf::stencilView", policy, viewStencil);
      });
      if (rt.rank() == 0)
        eddy::perf::row(
            eddy::str("stencil, Kokkos View indexing, tile ", t[0], "x", t[1], "x", t[2]),
            bytes / tv * 1e-9, "GB/s", "copy", bytes / tv / copy);
    }
    for (int chunk : {8, 32})
      for (auto const& t : std::vector<std::array<int, 3>>{
               {32, 4, 1}, {32, 8, 1}, {64, 4, 1}, {128, 2, 1}, {32, 16, 1}}) {
        int const chunks = (local[2] + chunk - 1) / chunk;
        Stencil7March march{model.field().access(), out.access(), 0.1, local[2], chunk};
        eddy::BoxPolicy<eddy::ExecSpace> policy(space, {0, 0, 0}, {local[0], local[1], chunks},
                                                {t[0], t[1], t[2]});
        double const tm = eddy::perf::medianSeconds(
            space, 3, 20, [&] { Kokkos::parallel_for("eddy::perf::stencilMarch", policy, march); });
        if (rt.rank() == 0)
          eddy::perf::row(
              eddy::str("stencil marching in z, ", chunk, " planes, tile ", t[0], "x", t[1]),
              bytes / tm * 1e-9, "GB/s", "copy", bytes / tm / copy);
        if (!eddy::kDeviceBackend) break;
      }
    Kokkos::RangePolicy<eddy::ExecSpace, Kokkos::IndexType<long long>> flat(
        space, 0, static_cast<long long>(cells));
    double const tf = eddy::perf::medianSeconds(
        space, 3, 20, [&] { Kokkos::parallel_for("eddy::perf::stencilFlat", flat, st); });
    if (rt.rank() == 0)
      eddy::perf::row("stencil, flattened 1D range", bytes / tf * 1e-9, "GB/s", "copy",
                      bytes / tf / copy);
    std::array<int, 3> const n3{local[0], local[1], local[2]};
    auto const box = eddy::FlatBox::of({0, 0, 0}, n3);
    Kokkos::RangePolicy<eddy::ExecSpace, Kokkos::IndexType<std::int64_t>> flat32(space, 0,
                                                                                 box.size);
    double const tf32 = eddy::perf::medianSeconds(space, 3, 20, [&] {
      Kokkos::parallel_for("eddy::perf::stencilFlat32", flat32, Stencil7Flat32{st, box});
    });
    // Shared-memory planes in teams of 32 x TY threads on device backends (host backends run
    // teams of one thread: tile 1x1, a check of the indexing only). Each variant's field is
    // checked against Stencil7's (the same arithmetic: 0 expected).
    {
      eddy::Field<eddy::MemSpace> ref(space, "eddy::perf::stencilReference", decomp, 1);
      Kokkos::parallel_for("eddy::perf::stencilReference",
                           Kokkos::RangePolicy<eddy::ExecSpace, Kokkos::IndexType<long long>>(
                               space, 0, static_cast<long long>(cells)),
                           Stencil7{st.u, ref.access(), st.c, st.nx, st.ny});
      // Every variant starts from a spoiled field: a kernel that skips cells cannot pass.
      auto check = [&](char const* tile, int chunk, auto const& seconds) {
        Kokkos::deep_copy(space, out.view(), -1.0);
        double const t = seconds();
        double const diff = maxDifference(space, out.access(), ref.access(), n3);
        if (rt.rank() == 0)
          eddy::perf::row(eddy::str("stencil, shared-memory planes, tile ", tile, ", ", chunk,
                                    " planes per team (max difference to the model ", diff, ")"),
                          bytes / t * 1e-9, "GB/s", "copy", bytes / t / copy);
        return diff;
      };
      int const nz = local[2];
      double worst = 0.0;
      for (int chunk : {16, 64}) {
        if (eddy::kDeviceBackend) {
          worst = std::max(worst, check("32x4", chunk, [&] {
                             return sharedSeconds<32, 4>(space, st, nz, chunk);
                           }));
          worst = std::max(worst, check("32x8", chunk, [&] {
                             return sharedSeconds<32, 8>(space, st, nz, chunk);
                           }));
          worst = std::max(worst, check("32x16", chunk, [&] {
                             return sharedSeconds<32, 16>(space, st, nz, chunk);
                           }));
        } else {
          worst = std::max(worst, check("1x1", chunk,
                                        [&] { return sharedSeconds<1, 1>(space, st, nz, chunk); }));
        }
      }
      if (worst != 0.0) return 1;
    }
    double const tr[4] = {rowBlockSeconds<1>(space, st, n3), rowBlockSeconds<2>(space, st, n3),
                          rowBlockSeconds<4>(space, st, n3), rowBlockSeconds<8>(space, st, n3)};
    if (rt.rank() == 0) {
      eddy::perf::row("stencil, flattened 1D range, 32-bit decoding (FlatBox)", bytes / tf32 * 1e-9,
                      "GB/s", "copy", bytes / tf32 / copy);
      for (int v = 0; v < 4; ++v)
        eddy::perf::row(eddy::str("stencil, row blocks of ", 1 << v, " rows (BoxRowBlocks)"),
                        bytes / tr[v] * 1e-9, "GB/s", "copy", bytes / tr[v] / copy);
    }
  }
  return 0;
}
