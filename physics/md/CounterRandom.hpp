/// @file CounterRandom.hpp
/// @brief Counter-based random numbers: each draw is a pure function of (seed, stream, global
/// id, step, component), so it is the same on any rank count, in any row order and on any
/// backend, and a run is continued from (seed, step) alone (no generator state to save).
///
/// The key of a draw chains the splitmix64 finaliser over its coordinates; a uniform takes the
/// top 53 bits of the mixed key. Normals come from Marsaglia's polar method, whose logarithm is
/// evaluated with +, -, *, / only (math::portableLog; library `log` differs in the last bit between
/// the host and the device, IEEE arithmetic does not), so a normal is bitwise the same wherever the
/// compiler does not fuse multiply-adds differently (see docs/running.md).
#pragma once

#include "eddy/core/Compat.hpp"
#include "eddy/core/CounterHash.hpp"
#include "eddy/core/PortableMath.hpp"

#include <cstdint>

namespace eddy::md {

// The mix and the uniform draw are core's (CounterHash.hpp), shared with the grid models.
using eddy::mix64;
using eddy::unitFromKey;

/// Independent streams of draws under one seed.
enum class RandomStream : std::uint64_t { Velocity = 1, Langevin = 2 };

/// Key of one draw: (seed, stream, global id, step, component) mixed into 64 bits.
KOKKOS_INLINE_FUNCTION std::uint64_t counterKey(std::uint64_t seed, RandomStream stream,
                                                std::int64_t id, std::int64_t step, int component) {
  std::uint64_t h = mix64(mix64(seed) ^ static_cast<std::uint64_t>(stream));
  h = mix64(h ^ static_cast<std::uint64_t>(id));
  h = mix64(h ^ static_cast<std::uint64_t>(step));
  return mix64(h ^ static_cast<std::uint64_t>(component));
}

/// Standard normal from a key (Marsaglia's polar method; attempt a draws the uniform pair at
/// keys key + 2a, key + 2a + 1 and is accepted with probability pi / 4). The logarithm is
/// math::portableLog.
KOKKOS_INLINE_FUNCTION double normalFromKey(std::uint64_t key) {
  for (std::uint64_t a = 0; a < 128; a += 2) {
    double const u = 2.0 * unitFromKey(key + a) - 1.0;  // exact: a multiple of 2^-52
    double const v = 2.0 * unitFromKey(key + a + 1) - 1.0;
    double const s = u * u + v * v;
    if (s < 1.0 && s > 0.0) return u * math::sqrt(-2.0 * math::portableLog(s) / s);
  }
  return 0.0;  // 64 rejections in a row: probability below 1e-42
}

/// Standard normal for component `component` of atom `id` at step `step` of `stream`.
KOKKOS_INLINE_FUNCTION double counterNormal(std::uint64_t seed, RandomStream stream,
                                            std::int64_t id, std::int64_t step, int component) {
  return normalFromKey(counterKey(seed, stream, id, step, component));
}

}  // namespace eddy::md
