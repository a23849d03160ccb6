#include "particles/MomentumExchange.hpp"

#include "eddy/core/BoxPolicy.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/Timer.hpp"

#include <climits>
#include <cmath>

namespace eddy::particles {

namespace {

/// The face sums per component (components >= dims alias the first).
using Sums = std::array<GhostedView<MemSpace, long long>, 3>;

KOKKOS_INLINE_FUNCTION int clampTo(int i, int top) {
  return i < 0 ? 0 : (i > top ? top : i);
}

/// Deposit::Atomic: the sums zeroed, then each particle's shares added atomically.
void addAtomically(ExecSpace const& space, DepositRule const& rule, int dims, Sums const& sums,
                   Positions<MemSpace> const& x, ParticleVectors<MemSpace> const& j, int n) {
  for (int c = 0; c < dims; ++c) Kokkos::deep_copy(space, sums[c].view, 0ll);
  auto const s0 = sums[0], s1 = sums[1], s2 = sums[2];
  Kokkos::parallel_for(
      "eddy::particles::depositImpulse", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const int p) {
        double const at[3] = {x(p, 0), x(p, 1), x(p, 2)};
        for (int c = 0; c < dims; ++c) {
          double const jc = j(p, c);
          if (jc == 0.0) continue;
          int lo[3] = {0, 0, 0};
          double w[3] = {0.0, 0.0, 0.0};
          for (int a = 0; a < dims; ++a) rule.stencil.locate(a, c, at[a], lo[a], w[a]);
          auto const sum = c == 0 ? s0 : (c == 1 ? s1 : s2);
          for (int corner = 0; corner < (1 << dims); ++corner) {
            int e[3] = {0, 0, 0};
            double const weight = rule.corner(c, lo, w, corner, e);
            addExactly(&sum(e[0], e[1], e[2]), rule.scale.quantize(weight * jc));
          }
        }
      });
}

/// Deposit::Gather: the particles chained by cell through `head` and `next` (n entries at
/// least), then each face position's sums written once.
void gather(ExecSpace const& space, DepositRule const& rule, int dims, Sums const& sums,
            Kokkos::View<int*, MemSpace> const& head, Kokkos::View<int*, MemSpace> const& next,
            Positions<MemSpace> const& x, ParticleVectors<MemSpace> const& j, int n) {
  int const nx = rule.stencil.cells[0], ny = rule.stencil.cells[1];
  int const nz = dims == 3 ? rule.stencil.cells[2] : 1;
  int const top[3] = {nx - 1, ny - 1, nz - 1};
  // The particles chained by cell, in whatever order the exchanges land: the sums are integers.
  Kokkos::deep_copy(space, head, -1);
  Kokkos::parallel_for(
      "eddy::particles::chainByCell", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const int p) {
        int b[3] = {0, 0, 0};
        for (int a = 0; a < dims; ++a) {
          double w;
          rule.stencil.locate(a, a, x(p, a), b[a], w);
          b[a] = clampTo(b[a], top[a]);
        }
        next(p) = Kokkos::atomic_exchange(&head(b[0] + nx * (b[1] + ny * b[2])), p);
      });
  auto const s0 = sums[0], s1 = sums[1], s2 = sums[2];
  std::array<int, 3> const lo{-2, -2, dims == 3 ? -2 : 0};
  std::array<int, 3> const hi{nx + 2, ny + 2, dims == 3 ? nz + 2 : 1};
  forEachCell(
      "eddy::particles::gatherImpulse", space, lo, hi, KOKKOS_LAMBDA(int i, int jj, int k) {
        int const e[3] = {i, jj, k};
        int from[3] = {0, 0, 0}, to[3] = {0, 0, 0};
        for (int a = 0; a < dims; ++a) {
          from[a] = clampTo(e[a] - 1, top[a]);
          to[a] = clampTo(e[a] + 1, top[a]);
        }
        // As unsigned: two's complement wraps where a signed sum could not (addExactly).
        unsigned long long total[3] = {0, 0, 0};
        for (int bz = from[2]; bz <= to[2]; ++bz)
          for (int by = from[1]; by <= to[1]; ++by)
            for (int bx = from[0]; bx <= to[0]; ++bx)
              for (int p = head(bx + nx * (by + ny * bz)); p >= 0; p = next(p)) {
                // locate() along each axis, for the component along it and for the others,
                // from the same expressions (x / h - 0 and x / h - 1/2): the same bits.
                int lowAlong[3] = {0, 0, 0}, lowAcross[3] = {0, 0, 0};
                double wAlong[3] = {0.0, 0.0, 0.0}, wAcross[3] = {0.0, 0.0, 0.0};
                for (int a = 0; a < dims; ++a) {
                  double const scaled = x(p, a) * rule.stencil.invH[a];
                  rule.stencil.locateScaled(a, true, scaled - 0.0, lowAlong[a], wAlong[a]);
                  rule.stencil.locateScaled(a, false, scaled - 0.5, lowAcross[a], wAcross[a]);
                }
                for (int c = 0; c < dims; ++c) {
                  double const jc = j(p, c);
                  if (jc == 0.0) continue;
                  int low[3] = {0, 0, 0};
                  double w[3] = {0.0, 0.0, 0.0};
                  bool on[3][2] = {{true, false}, {true, false}, {true, false}};
                  bool reaches = true;
                  for (int a = 0; a < dims; ++a) {
                    low[a] = a == c ? lowAlong[a] : lowAcross[a];
                    w[a] = a == c ? wAlong[a] : wAcross[a];
                    on[a][0] = rule.onComputed(c, a, low[a]) == e[a];
                    on[a][1] = rule.onComputed(c, a, low[a] + 1) == e[a];
                    reaches = reaches && (on[a][0] || on[a][1]);
                  }
                  if (!reaches) continue;
                  // The corners of p's stencil of c on this position's face of c.
                  for (int corner = 0; corner < (1 << dims); ++corner) {
                    bool lands = true;
                    for (int a = 0; a < dims; ++a) lands = lands && on[a][(corner >> a) & 1];
                    if (!lands) continue;
                    int f[3] = {0, 0, 0};  // this face, by `on`
                    double const weight = rule.corner(c, low, w, corner, f);
                    total[c] += static_cast<unsigned long long>(rule.scale.quantize(weight * jc));
                  }
                }
              }
        s0(i, jj, k) = static_cast<long long>(total[0]);
        if (dims > 1) s1(i, jj, k) = static_cast<long long>(total[1]);
        if (dims > 2) s2(i, jj, k) = static_cast<long long>(total[2]);
      });
}

}  // namespace

MomentumExchange::MomentumExchange(ExecSpace const& space, MPI_Comm comm,
                                   CartDecomposition const& decomp,
                                   std::array<double, 3> const& length, int ghost,
                                   double fluidDensity, Deposit method)
    : m_comm(comm), m_dims(decomp.dims()), m_method(method) {
  EDDY_REQUIRE(fluidDensity > 0, "MomentumExchange: fluid density ", fluidDensity,
               "; expected > 0");
  EDDY_REQUIRE(ghost >= 2, "MomentumExchange: ", ghost,
               " ghost layers; expected at least 2 (the faces a particle reaches)");
  m_rule.stencil = MacStencil::make(decomp, length, ghost);
  double volume = 1.0;
  for (int a = 0; a < m_dims; ++a) volume *= length[a] / decomp.globalCells()[a];
  m_rule.perVolume = 1.0 / (fluidDensity * volume);
  for (int c = 0; c < 3; ++c)
    for (int a = 0; a < 3; ++a) {
      int const n = decomp.globalCells()[a];
      bool const bounded = a < m_dims && !decomp.isPeriodic(a);
      // Along its own axis a component's boundary faces (0 and n) are the boundary's.
      m_rule.first[c][a] = bounded ? (a == c ? 1 : 0) : INT_MIN / 2;
      m_rule.last[c][a] = bounded ? n - 1 : INT_MAX / 2;
    }
  Centering const faces[3] = {Centering::FaceX, Centering::FaceY, Centering::FaceZ};
  char const* const sumLabel[3] = {"eddy::particles::exchange_x", "eddy::particles::exchange_y",
                                   "eddy::particles::exchange_z"};
  for (int c = 0; c < m_dims; ++c) {
    m_sum[c] =
        std::make_unique<Field<MemSpace, long long>>(space, sumLabel[c], decomp, ghost, faces[c]);
    m_halo[c] =
        std::make_unique<HaloExchange<ExecSpace, long long>>(space, comm, decomp, *m_sum[c]);
  }
  if (m_method == Deposit::Gather) {
    // The ghosts beyond the gather's reach stay as allocated (zero): they add nothing.
    std::size_t cells = 1;
    for (int a = 0; a < m_dims; ++a) cells *= static_cast<std::size_t>(m_rule.stencil.cells[a]);
    m_head = Kokkos::View<int*, MemSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "eddy::particles::cellHeads"), cells);
  }
}

void MomentumExchange::deposit(ExecSpace const& space, Positions<MemSpace> const& x,
                               ParticleVectors<MemSpace> const& j, int n, long long count) {
  ScopedRegion region("eddy::particles::exchange");
  int const dims = m_dims;
  double largest = 0.0;
  Kokkos::parallel_reduce(
      "eddy::particles::largestImpulse", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(const int p, double& most) {
        for (int c = 0; c < dims; ++c) most = math::fmax(most, math::fabs(j(p, c)));
      },
      Kokkos::Max<double>(largest));
  double global = 0.0;
  largest = std::fmax(largest, 0.0);
  checkMpi(MPI_Allreduce(&largest, &global, 1, MPI_DOUBLE, MPI_MAX, m_comm),
           "MPI_Allreduce(largest impulse)");
  if (!std::isfinite(global))
    throw Error(str("particles: a drag impulse of ", global,
                    " (not finite): the particles or the flow blew up"),
                ExitCode::Failure, true);
  m_acts = global > 0;
  if (!m_acts) return;
  // 2 count x largest bounds every face's sum with the rounding of its terms included.
  m_rule.scale = FixedPoint::forBound(global, 2 * std::max(count, 1ll));
  Sums sums;
  for (int c = 0; c < 3; ++c) sums[c] = m_sum[c < dims ? c : 0]->access();
  if (m_method == Deposit::Gather) {
    if (static_cast<int>(m_next.extent(0)) < n)
      m_next = Kokkos::View<int*, MemSpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "eddy::particles::cellLinks"),
          n + n / 4 + 16);
    gather(space, m_rule, dims, sums, m_head, m_next, x, j, n);
  } else {
    addAtomically(space, m_rule, dims, sums, x, j, n);
  }
  for (int c = 0; c < dims; ++c) m_halo[c]->sumIntoOwners(space, *m_sum[c]);
}

fluids::FaceImpulse MomentumExchange::impulse() const {
  fluids::FaceImpulse f;
  f.acts = m_acts;
  for (int c = 0; c < 3; ++c) f.sum[c] = m_sum[c < m_dims ? c : 0]->access();
  f.unit = m_rule.scale.unit;
  f.perVolume = m_rule.perVolume;
  return f;
}

std::size_t MomentumExchange::bytes() const {
  std::size_t b = 0;
  for (int c = 0; c < m_dims; ++c) b += m_sum[c]->bytes() + m_halo[c]->bytes();
  return b + m_head.size() * sizeof(int) + m_next.size() * sizeof(int);
}

}  // namespace eddy::particles
