/// @file Particles.hpp
/// @brief Structure-of-arrays particle container: owned particles first, then ghost copies.
///
/// Memory: 144 bytes per row (position, velocity, force, reference position and velocity origin
/// 3 x 8 each, global id 8, type 4, periodic image 3 x 4), with up to 25% spare capacity so that
/// rebuilds rarely reallocate. Ghost rows carry position, id and type; their velocity, image,
/// reference and origin are unused and their force only collects half-list contributions.
/// Implements the container concept of eddy/core/ParticleComm.hpp (migration and ghosts).
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/ParticleComm.hpp"

#include <cstdint>
#include <string>

namespace eddy::md {

using eddy::Positions;
/// Velocities, (n, 3) doubles: 24 bytes per particle.
template <class Mem>
using Velocities = ParticleVectors<Mem>;
/// Forces, (n, 3) doubles: 24 bytes per particle.
template <class Mem>
using Forces = ParticleVectors<Mem>;
/// Global particle ids, unique over all ranks: 8 bytes per particle.
template <class Mem>
using GlobalIds = Kokkos::View<std::int64_t*, Mem>;
/// The most atom types a system holds (the pair table of LennardJonesMixture is kMaxTypes^2).
inline constexpr int kMaxTypes = 8;
/// Particle types (species index, 0 .. kMaxTypes - 1): 4 bytes per particle.
template <class Mem>
using Types = Kokkos::View<int*, Mem>;
/// Periodic image counts (ix, iy, iz): the unwrapped position is x + image * L per axis, L the
/// box edge. 12 bytes per particle.
template <class Mem>
using Images = Kokkos::View<int* [3], Mem>;

/// Unwrapped positions an atom's displacement is measured from (the mean-squared displacement),
/// (n, 3) doubles: 24 bytes per particle. They move with the atom and are never wrapped.
template <class Mem>
using References = ParticleVectors<Mem>;
/// Velocities a velocity autocorrelation is measured from, (n, 3) doubles: 24 bytes per
/// particle. They move with the atom.
template <class Mem>
using VelocityOrigins = ParticleVectors<Mem>;

/// Row codec for migration: position, velocity, id, type, image, reference, velocity origin (17
/// doubles). The image slots are counted by every periodic shift of the position
/// (ParticleComm.hpp).
template <class Mem>
struct MigrationCodec {
  static constexpr int width = 17;
  static constexpr int imageSlot = 8;
  static constexpr int referenceSlot = 11;
  static constexpr int originSlot = 14;
  Positions<Mem> x;
  Velocities<Mem> v;
  GlobalIds<Mem> id;
  Types<Mem> type;
  Images<Mem> image;
  References<Mem> reference;
  VelocityOrigins<Mem> origin;
  KOKKOS_INLINE_FUNCTION void pack(int i, double* row) const {
    for (int d = 0; d < 3; ++d) {
      row[d] = x(i, d);
      row[3 + d] = v(i, d);
      row[imageSlot + d] = static_cast<double>(image(i, d));
      row[referenceSlot + d] = reference(i, d);
      row[originSlot + d] = origin(i, d);
    }
    row[6] = eddy::detail::int64AsDouble(id(i));
    row[7] = static_cast<double>(type(i));
  }
  KOKKOS_INLINE_FUNCTION void unpack(int i, double const* row) const {
    for (int d = 0; d < 3; ++d) {
      x(i, d) = row[d];
      v(i, d) = row[3 + d];
      image(i, d) = static_cast<int>(row[imageSlot + d]);
      reference(i, d) = row[referenceSlot + d];
      origin(i, d) = row[originSlot + d];
    }
    id(i) = eddy::detail::doubleAsInt64(row[6]);
    type(i) = static_cast<int>(row[7]);
  }
  KOKKOS_INLINE_FUNCTION void copy(int from, int to) const {
    for (int d = 0; d < 3; ++d) {
      x(to, d) = x(from, d);
      v(to, d) = v(from, d);
      image(to, d) = image(from, d);
      reference(to, d) = reference(from, d);
      origin(to, d) = origin(from, d);
    }
    id(to) = id(from);
    type(to) = type(from);
  }
};

/// Row codec for ghosts: position, id, type (5 doubles).
template <class Mem>
struct GhostCodec {
  static constexpr int width = 5;
  Positions<Mem> x;
  GlobalIds<Mem> id;
  Types<Mem> type;
  KOKKOS_INLINE_FUNCTION void pack(int i, double* row) const {
    for (int d = 0; d < 3; ++d) row[d] = x(i, d);
    row[3] = eddy::detail::int64AsDouble(id(i));
    row[4] = static_cast<double>(type(i));
  }
  KOKKOS_INLINE_FUNCTION void unpack(int i, double const* row) const {
    for (int d = 0; d < 3; ++d) x(i, d) = row[d];
    id(i) = eddy::detail::doubleAsInt64(row[3]);
    type(i) = static_cast<int>(row[4]);
  }
};

/// Particles of one rank in memory space `Mem`: `owned()` owned rows, then ghosts up to `size()`.
template <class Mem = MemSpace>
class Particles {
 public:
  using memory_space = Mem;

  Particles() = default;
  /// `n` owned particles, zero-initialised.
  template <class Exec>
  Particles(Exec const& space, int n) {
    resize(space, n);
    m_owned = n;
  }

  int size() const { return m_size; }
  int owned() const { return m_owned; }
  int ghosts() const { return m_size - m_owned; }
  int capacity() const { return static_cast<int>(m_x.extent(0)); }
  /// Declares the first `n` rows owned (after migration; the rest are ghosts).
  void setOwned(int n) {
    EDDY_REQUIRE(n >= 0 && n <= m_size, "Particles::setOwned: ", n, " owned rows of ", m_size,
                 " held; expected 0 <= n <= size");
    m_owned = n;
  }

  /// Holds `n` rows, keeping the first min(n, size()); grows the capacity by 25% headroom.
  template <class Exec>
  void resize(Exec const& space, int n) {
    EDDY_REQUIRE(n >= 0, "Particles::resize: ", n, " rows; expected >= 0");
    if (n > capacity()) {
      std::size_t const cap = static_cast<std::size_t>(n) * 5 / 4 + 32;
      realloc(space, cap, m_size);
    }
    m_size = n;
    if (m_owned > n) m_owned = n;
  }

  Positions<Mem> const& positions() const { return m_x; }
  Velocities<Mem> const& velocities() const { return m_v; }
  Forces<Mem> const& forces() const { return m_f; }
  GlobalIds<Mem> const& ids() const { return m_id; }
  Types<Mem> const& types() const { return m_type; }
  Images<Mem> const& images() const { return m_image; }
  References<Mem> const& references() const { return m_reference; }
  VelocityOrigins<Mem> const& velocityOrigins() const { return m_origin; }

  MigrationCodec<Mem> migrationCodec() const {
    return {m_x, m_v, m_id, m_type, m_image, m_reference, m_origin};
  }
  GhostCodec<Mem> ghostCodec() const { return {m_x, m_id, m_type}; }

  /// Bytes held per row of capacity.
  static constexpr int bytesPerParticle() { return 5 * 24 + 8 + 4 + 12; }

 private:
  /// New arrays of `cap` rows holding the first `keep` rows of the old ones.
  template <class Exec>
  void realloc(Exec const& space, std::size_t cap, int keep) {
    auto const kept = static_cast<std::size_t>(keep > 0 ? keep : 0);
    auto grow = [&](auto& view, char const* label) {
      eddy::detail::growRows(space, view, cap, kept, label);
    };
    grow(m_x, "eddy::md::positions");
    grow(m_v, "eddy::md::velocities");
    grow(m_f, "eddy::md::forces");
    grow(m_id, "eddy::md::ids");
    grow(m_type, "eddy::md::types");
    grow(m_image, "eddy::md::images");
    grow(m_reference, "eddy::md::references");
    grow(m_origin, "eddy::md::velocity_origins");
  }

  Positions<Mem> m_x;
  Velocities<Mem> m_v;
  Forces<Mem> m_f;
  GlobalIds<Mem> m_id;
  Types<Mem> m_type;
  Images<Mem> m_image;
  References<Mem> m_reference;
  VelocityOrigins<Mem> m_origin;
  int m_size = 0;
  int m_owned = 0;
};

}  // namespace eddy::md
