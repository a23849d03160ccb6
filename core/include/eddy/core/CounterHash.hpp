/// @file CounterHash.hpp
/// @brief Counter-based pseudo-random numbers: a draw is a pure function of a key built from
/// global ids (a seed, an atom, a cell), so it is the same on any rank count, in any order and on
/// any backend, with no generator state to save.
#pragma once

#include "eddy/core/Compat.hpp"

#include <cstdint>

namespace eddy {

/// A 64-bit mix (the splitmix64 finaliser).
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

}  // namespace eddy
