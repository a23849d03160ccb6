/// @file CounterRandom.hpp
/// @brief Counter-based random numbers: each draw is a pure function of (seed, stream, global
/// id, step, component), so it is the same on any rank count, in any row order and on any
/// backend, and a run is continued from (seed, step) alone (no generator state to save).
///
/// The key of a draw chains the splitmix64 finaliser over its coordinates; a uniform takes the
/// top 53 bits of the mixed key. Normals come from Marsaglia's polar method, whose logarithm is
/// evaluated here with +, -, *, / only (library `log` differs in the last bit between the host
/// and the device, IEEE arithmetic does not), so a normal is bitwise the same wherever the
/// compiler does not fuse multiply-adds differently (see docs/running.md).
#pragma once

#include "eddy/core/Compat.hpp"

#include <cstdint>

namespace eddy::md {

/// A 64-bit mix (splitmix64 finaliser): decomposition-independent pseudo-random numbers from
/// a seed and a global id.
KOKKOS_INLINE_FUNCTION std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
/// Uniform in [0, 1) from 53 bits of a mixed key.
KOKKOS_INLINE_FUNCTION double unitFromKey(std::uint64_t key) {
  return static_cast<double>(mix64(key) >> 11) * (1.0 / 9007199254740992.0);
}

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

/// Natural logarithm of a positive normal double with basic arithmetic only: the exponent and
/// the mantissa m in [sqrt(1/2), sqrt(2)) are split exactly through the bits, then
/// log m = 2 atanh(t), t = (m - 1) / (m + 1), |t| <= 0.1716, by its series to t^23 (the
/// remainder is below 1e-17). Relative error a few 1e-16.
KOKKOS_INLINE_FUNCTION double portableLog(double x) {
  union {
    double d;
    std::uint64_t u;
  } pun;
  pun.d = x;
  int e = static_cast<int>((pun.u >> 52) & 0x7ffu) - 1023;
  pun.u = (pun.u & ((std::uint64_t(1) << 52) - 1)) | (std::uint64_t(1023) << 52);
  double m = pun.d;  // in [1, 2)
  if (m > 1.4142135623730951) {
    m *= 0.5;
    ++e;
  }
  double const t = (m - 1.0) / (m + 1.0);
  double const t2 = t * t;
  double s = 1.0 / 23.0;
  s = s * t2 + 1.0 / 21.0;
  s = s * t2 + 1.0 / 19.0;
  s = s * t2 + 1.0 / 17.0;
  s = s * t2 + 1.0 / 15.0;
  s = s * t2 + 1.0 / 13.0;
  s = s * t2 + 1.0 / 11.0;
  s = s * t2 + 1.0 / 9.0;
  s = s * t2 + 1.0 / 7.0;
  s = s * t2 + 1.0 / 5.0;
  s = s * t2 + 1.0 / 3.0;
  s = s * t2 + 1.0;
  // ln 2 split so that e * ln2Hi is exact for |e| < 2^11.
  double const ln2Hi = 6.93147180369123816490e-01, ln2Lo = 1.90821492927058770002e-10;
  double const de = static_cast<double>(e);
  return de * ln2Hi + (de * ln2Lo + 2.0 * t * s);
}

/// Standard normal from a key (Marsaglia's polar method; attempt a draws the uniform pair at
/// keys key + 2a, key + 2a + 1 and is accepted with probability pi / 4).
KOKKOS_INLINE_FUNCTION double normalFromKey(std::uint64_t key) {
  for (std::uint64_t a = 0; a < 128; a += 2) {
    double const u = 2.0 * unitFromKey(key + a) - 1.0;  // exact: a multiple of 2^-52
    double const v = 2.0 * unitFromKey(key + a + 1) - 1.0;
    double const s = u * u + v * v;
    if (s < 1.0 && s > 0.0) return u * math::sqrt(-2.0 * portableLog(s) / s);
  }
  return 0.0;  // 64 rejections in a row: probability below 1e-42
}

/// Standard normal for component `component` of atom `id` at step `step` of `stream`.
KOKKOS_INLINE_FUNCTION double counterNormal(std::uint64_t seed, RandomStream stream,
                                            std::int64_t id, std::int64_t step, int component) {
  return normalFromKey(counterKey(seed, stream, id, step, component));
}

}  // namespace eddy::md
