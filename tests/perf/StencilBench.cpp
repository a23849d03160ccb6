// Benchmark: one sweep of the 7-point (3D) diffusion stencil of eddy::diffusion over an N^3
// FP64 field on one rank, as effective bandwidth (one read and one write of the field) divided
// by the deep_copy bandwidth of the same bytes measured in the same run. Also the halo exchange
// of that field; iteration variants of the same stencil (MDRange tiles, View indexing, marching
// in z, flat ranges, row blocks, planes streamed through team scratch by sweepSevenPoint); and
// the ceilings of the iterations themselves (copies of the field: flat with 8 and 16 bytes per
// thread, by row blocks, by planes). Prints a Markdown table.
//
//   bench_stencil [N]      (default 512 on GPUs, 128 on hosts)
//   bench_stencil N rounds [R]   only the model's sweep and its candidate iterations, in R
//                                interleaved rounds (default 5)
#include "PerfCommon.hpp"

#include "diffusion/Diffusion.hpp"
#include "eddy/core/Runtime.hpp"

#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/StencilSweep.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <functional>
#include <string>
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

/// The stencil as a seven-point map (sweepSevenPoint's f).
struct Stencil7Map {
  double c;
  KOKKOS_INLINE_FUNCTION double operator()(int, int, int, eddy::Neighbours7 const& u) const {
    return u.c + c * (u.xm + u.xp + u.ym + u.yp + u.zm + u.zp - 6 * u.c);
  }
};

/// The diffusion model's arithmetic as a seven-point map (Diffusion.cpp), to tell its cost from
/// the iteration's.
struct DiffusionMap {
  double cx, cy, cz;
  int dims;
  KOKKOS_INLINE_FUNCTION double operator()(int, int, int, eddy::Neighbours7 const& u) const {
    double d = cx * (u.xm - 2 * u.c + u.xp) + cy * (u.ym - 2 * u.c + u.yp);
    if (dims == 3) d += cz * (u.zm - 2 * u.c + u.zp);
    return u.c + d;
  }
};

/// A copy as a seven-point map: the plane iteration's own ceiling (no stencil arithmetic).
struct CopyMap {
  KOKKOS_INLINE_FUNCTION double operator()(int, int, int, eddy::Neighbours7 const& u) const {
    return u.c;
  }
};

/// A copy cell by cell through GhostedView: the row-block iteration's own ceiling.
struct CopyCell {
  eddy::GhostedView<eddy::MemSpace> u, out;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const { out(i, j, k) = u(i, j, k); }
};

/// A flat copy of `n` values, `Width` (1 or 2) consecutive doubles per thread (2: one 16-byte
/// load and store on GPUs, compat::load2 / store2): what a plain kernel's accesses reach,
/// against deep_copy.
template <int Width>
struct FlatCopy {
  double const* a;
  double* b;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t) const {
    if constexpr (Width == 2) {
      auto const v = eddy::compat::load2(a + 2 * t);
      eddy::compat::store2(b + 2 * t, v.x, v.y);
    } else {
      b[t] = a[t];
    }
  }
};

template <int Width>
double flatCopySeconds(eddy::ExecSpace const& space, double const* a, double* b, std::int64_t n) {
  Kokkos::RangePolicy<eddy::ExecSpace, Kokkos::IndexType<std::int64_t>> policy(space, 0, n / Width);
  return eddy::perf::medianSeconds(space, 3, 20, [&] {
    Kokkos::parallel_for("eddy::perf::flatCopy", policy, FlatCopy<Width>{a, b});
  });
}

/// Seconds per sweep of the plane-streaming iteration with tile TX x TY, Depth planes in flight,
/// a cell or (Pairs) two cells adjacent in x per thread, and `run` planes per team (0: the
/// sweep's choice).
template <int TX, int TY, int Depth, bool Pairs = false, class Map = Stencil7Map>
double planeSweepSeconds(eddy::ExecSpace const& space, Stencil7 const& st,
                         std::array<int, 3> const& n, int run, Map const& map = Map{0.1}) {
  return eddy::perf::medianSeconds(space, 3, 20, [&] {
    eddy::sweepSevenPointPlanes<TX, TY, Depth, Pairs>("eddy::perf::stencilPlanes", space, st.u,
                                                      st.out, {0, 0, 0}, n, run, map);
  });
}

/// `rounds` rounds; in each, the copy bandwidth and every candidate once (median of 20 sweeps).
/// Prints each candidate's ratio to the copy of the same round, and their median.
void interleavedRounds(eddy::Runtime const& rt, eddy::ExecSpace const& space, Stencil7 const& st,
                       std::array<int, 3> const& n3, eddy::diffusion::Model& model,
                       eddy::Field<eddy::MemSpace>& out, int rounds) {
  struct Candidate {
    std::string what;
    std::function<double()> seconds;
    std::vector<double> ratios;
  };
  DiffusionMap const diffusion{0.1, 0.1, 0.1, 3};
  std::vector<Candidate> cs;
  auto add = [&](std::string what, std::function<double()> seconds) {
    cs.push_back(Candidate{std::move(what), std::move(seconds), {}});
  };
  add("the model's sweep", [&] {
    return eddy::perf::medianSeconds(space, 3, 20,
                                     [&] { model.applyStencil(space, model.dt(), model.field(), out); });
  });
  if (eddy::kDeviceBackend) {
    add("planes 128x4, depth 3, pairs, 64 planes, diffusion arithmetic",
        [&] { return planeSweepSeconds<128, 4, 3, true>(space, st, n3, 64, diffusion); });
    add("planes 128x4, depth 2, pairs, 64 planes, diffusion arithmetic",
        [&] { return planeSweepSeconds<128, 4, 2, true>(space, st, n3, 64, diffusion); });
    add("planes 128x4, depth 2, pairs, 64 planes",
        [&] { return planeSweepSeconds<128, 4, 2, true>(space, st, n3, 64); });
    add("planes 128x4, depth 3, pairs, 64 planes",
        [&] { return planeSweepSeconds<128, 4, 3, true>(space, st, n3, 64); });
    add("planes 64x8, depth 2, pairs, 64 planes, diffusion arithmetic",
        [&] { return planeSweepSeconds<64, 8, 2, true>(space, st, n3, 64, diffusion); });
    add("planes 128x4, depth 2, pairs, 64 planes, a copy",
        [&] { return planeSweepSeconds<128, 4, 2, true>(space, st, n3, 64, CopyMap{}); });
    // Taller tiles (fewer ghost rows read per cell) and deeper pipelines, which fit the scratch
    // limit since the value below a cell is carried in registers (Depth + 2 planes a team).
    add("planes 128x4, depth 4, pairs, 64 planes, diffusion arithmetic",
        [&] { return planeSweepSeconds<128, 4, 4, true>(space, st, n3, 64, diffusion); });
    add("planes 128x6, depth 2, pairs, 64 planes, diffusion arithmetic",
        [&] { return planeSweepSeconds<128, 6, 2, true>(space, st, n3, 64, diffusion); });
    add("planes 128x8, depth 1, pairs, 64 planes, diffusion arithmetic",
        [&] { return planeSweepSeconds<128, 8, 1, true>(space, st, n3, 64, diffusion); });
    add("planes 64x16, depth 2, pairs, 64 planes, diffusion arithmetic",
        [&] { return planeSweepSeconds<64, 16, 2, true>(space, st, n3, 64, diffusion); });
    add("planes 64x8, depth 3, pairs, 64 planes, diffusion arithmetic",
        [&] { return planeSweepSeconds<64, 8, 3, true>(space, st, n3, 64, diffusion); });
    add("planes 64x12, depth 2, pairs, 64 planes, diffusion arithmetic",
        [&] { return planeSweepSeconds<64, 12, 2, true>(space, st, n3, 64, diffusion); });
    add("planes 96x8, depth 2, pairs, 64 planes, diffusion arithmetic",
        [&] { return planeSweepSeconds<96, 8, 2, true>(space, st, n3, 64, diffusion); });
  }
  std::int64_t const span = static_cast<std::int64_t>(st.u.view.span()) / 2 * 2;
  add("copy kernel, flat, 16 bytes per thread (bytes of the field)", [&] {
    return flatCopySeconds<2>(space, st.u.view.data(), st.out.view.data(), span) *
           (double(n3[0]) * n3[1] * n3[2] / span);
  });
  double const bytes = 16.0 * n3[0] * n3[1] * n3[2];
  std::vector<double> copies;
  for (int r = 0; r < rounds; ++r) {
    double const copy = eddy::perf::copyBandwidth(space, bytes / 16);
    copies.push_back(copy);
    for (auto& c : cs) {
      double ratio = 0;  // 0: the candidate cannot run here (its scratch does not fit a team)
      try {
        ratio = bytes / c.seconds() / copy;
      } catch (eddy::Error const& e) {
        if (r == 0 && rt.rank() == 0) std::printf("# %s: skipped (%s)\n", c.what.c_str(), e.what());
      }
      c.ratios.push_back(ratio);
    }
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  if (rt.rank() != 0) return;
  std::printf("# %d^3 FP64 on %s, %d interleaved rounds; copy %.1f GB/s (median)\n", n3[0],
              eddy::ExecSpace::name(), rounds, median(copies) * 1e-9);
  std::printf("| candidate | ratio to copy, median | each round |\n|---|---|---|\n");
  for (auto const& c : cs) {
    std::string each;
    for (double x : c.ratios) each += eddy::str(x).substr(0, 5) + " ";
    std::printf("| %s | %.3f | %s|\n", c.what.c_str(), median(c.ratios), each.c_str());
  }
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
    Stencil7 st{model.field().access(), out.access(), 0.1, local[0], local[1]};
    std::array<int, 3> const n3{local[0], local[1], local[2]};
    if (argc > 2 && std::string(argv[2]) == "rounds") {
      // The candidate iterations of the model's sweep in interleaved rounds (each round measures
      // every candidate and the copy once): a kernel's place in a long benchmark moves its
      // figure, interleaving spreads that over all of them.
      interleavedRounds(rt, space, st, n3, model, out, argc > 3 ? std::atoi(argv[3]) : 5);
      return 0;
    }
    double const copy = eddy::perf::copyBandwidth(space, static_cast<std::size_t>(cells));
    double const ts = eddy::perf::medianSeconds(
        space, 3, 20, [&] { model.applyStencil(space, model.dt(), model.field(), out); });
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
    auto const def = eddy::GridTuning<eddy::ExecSpace>::current().boxTile;
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
    auto const box = eddy::FlatBox::of({0, 0, 0}, n3);
    Kokkos::RangePolicy<eddy::ExecSpace, Kokkos::IndexType<std::int64_t>> flat32(space, 0,
                                                                                 box.size);
    double const tf32 = eddy::perf::medianSeconds(space, 3, 20, [&] {
      Kokkos::parallel_for("eddy::perf::stencilFlat32", flat32, Stencil7Flat32{st, box});
    });
    double const tr[4] = {rowBlockSeconds<1>(space, st, n3), rowBlockSeconds<2>(space, st, n3),
                          rowBlockSeconds<4>(space, st, n3), rowBlockSeconds<8>(space, st, n3)};
    if (rt.rank() == 0) {
      eddy::perf::row("stencil, flattened 1D range, 32-bit decoding (FlatBox)", bytes / tf32 * 1e-9,
                      "GB/s", "copy", bytes / tf32 / copy);
      for (int v = 0; v < 4; ++v)
        eddy::perf::row(eddy::str("stencil, row blocks of ", 1 << v, " rows (BoxRowBlocks)"),
                        bytes / tr[v] * 1e-9, "GB/s", "copy", bytes / tr[v] / copy);
    }
    // Plane streaming through team scratch (sweepSevenPoint's iteration on CUDA): tile, planes
    // in flight, planes per team.
    struct PlaneVariant {
      std::string shape;
      int run;
      double seconds;
    };
    std::vector<PlaneVariant> planes;
    // (Host backends run teams of one thread, and their team scratch holds 32 KiB: the plane
    // iteration is for GPUs only.)
    for (int run : {0, 32, 64, 128}) {
      if (!eddy::kDeviceBackend) break;
      // A shape whose scratch does not fit a team is reported, not fatal.
      auto add = [&](std::string shape, auto seconds) {
        try {
          planes.push_back({std::move(shape), run, seconds()});
        } catch (eddy::Error const& e) {
          if (rt.rank() == 0) std::printf("| %s: skipped (%s) | | | |\n", shape.c_str(), e.what());
        }
      };
      add("128x4, depth 2, pairs (the sweep's)",
          [&] { return planeSweepSeconds<128, 4, 2, true>(space, st, n3, run); });
      add("128x4, depth 2, pairs, the diffusion model's arithmetic", [&] {
        return planeSweepSeconds<128, 4, 2, true>(space, st, n3, run,
                                                  DiffusionMap{0.1, 0.1, 0.1, 3});
      });
      add("128x4, depth 3, pairs",
          [&] { return planeSweepSeconds<128, 4, 3, true>(space, st, n3, run); });
      add("128x4, depth 3, pairs, the diffusion model's arithmetic", [&] {
        return planeSweepSeconds<128, 4, 3, true>(space, st, n3, run,
                                                  DiffusionMap{0.1, 0.1, 0.1, 3});
      });
      add("128x4, depth 3", [&] { return planeSweepSeconds<128, 4, 3>(space, st, n3, run); });
      add("128x4, depth 2", [&] { return planeSweepSeconds<128, 4, 2>(space, st, n3, run); });
      add("128x2, depth 3, pairs",
          [&] { return planeSweepSeconds<128, 2, 3, true>(space, st, n3, run); });
      add("64x8, depth 2, pairs",
          [&] { return planeSweepSeconds<64, 8, 2, true>(space, st, n3, run); });
      add("64x4, depth 3, pairs",
          [&] { return planeSweepSeconds<64, 4, 3, true>(space, st, n3, run); });
    }
    // The iterations' own ceilings: the same sweeps copying the centre value.
    double copyPlanes[2] = {0, 0};  // GPUs only, as above
    if (eddy::kDeviceBackend) {
      copyPlanes[0] = planeSweepSeconds<128, 4, 2, false>(space, st, n3, 64, CopyMap{});
      copyPlanes[1] = planeSweepSeconds<128, 4, 2, true>(space, st, n3, 64, CopyMap{});
    }
    auto const rows4 = eddy::BoxRowBlocks<4>::of({0, 0, 0}, n3);
    double const copyRows = eddy::perf::medianSeconds(space, 3, 20, [&] {
      Kokkos::parallel_for("eddy::perf::copyRows",
                           Kokkos::RangePolicy<eddy::ExecSpace, Kokkos::IndexType<std::int64_t>>(
                               space, 0, rows4.items),
                           eddy::BoxRowBlockCells<4, CopyCell>{rows4, CopyCell{st.u, st.out}});
    });
    std::int64_t const span = static_cast<std::int64_t>(st.u.view.span()) / 2 * 2;
    double const flatCopy[2] = {
        flatCopySeconds<1>(space, st.u.view.data(), st.out.view.data(), span),
        flatCopySeconds<2>(space, st.u.view.data(), st.out.view.data(), span)};
    if (rt.rank() == 0) {
      for (int w = 0; w < 2; ++w)
        eddy::perf::row(eddy::str("copy kernel, flat, ", 8 * (w + 1), " bytes per thread"),
                        16.0 * span / flatCopy[w] * 1e-9, "GB/s", "copy",
                        16.0 * span / flatCopy[w] / copy);
      if (eddy::kDeviceBackend) {
        eddy::perf::row("copy of the field, planes in team scratch, tile 128x4, depth 2, 64 planes",
                        bytes / copyPlanes[0] * 1e-9, "GB/s", "copy", bytes / copyPlanes[0] / copy);
        eddy::perf::row(
            "copy of the field, planes in team scratch, tile 128x4, depth 2, pairs, 64 planes",
            bytes / copyPlanes[1] * 1e-9, "GB/s", "copy", bytes / copyPlanes[1] / copy);
      }
      eddy::perf::row("copy of the field, row blocks of 4 rows", bytes / copyRows * 1e-9, "GB/s",
                      "copy", bytes / copyRows / copy);
    }
    if (rt.rank() == 0)
      for (auto const& v : planes)
        eddy::perf::row(eddy::str("stencil, planes in team scratch, tile ", v.shape, ", ",
                                  v.run > 0 ? eddy::str(v.run, " planes per team")
                                            : std::string("planes per team by the sweep")),
                        bytes / v.seconds * 1e-9, "GB/s", "copy", bytes / v.seconds / copy);
  }
  return 0;
}
