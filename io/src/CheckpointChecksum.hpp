/// @file CheckpointChecksum.hpp
/// @brief The checksum every checkpoint dataset carries (attribute `checksum`), and the pass of
/// a restart that checks them all.
///
/// `eddy-sum64`: the sum modulo 2^64 of one term per element, term(i, b) =
/// fmix64(b ^ fmix64(i + 0x9e3779b97f4a7c15)), with i the element's index in the dataset in C
/// order (file order) and b its bits as an unsigned integer (float64 and int64: the 64 bits;
/// int32: the 32 bits, zero-extended); fmix64 is MurmurHash3's finaliser. A sum of per-element
/// terms does not depend on who adds which part: each rank adds the terms of its own block or
/// rows and one MPI_Allreduce gives the same value on any rank count, collective or gathered,
/// and a reader may split the dataset its own way. For a given index the term is a bijection of
/// the element's bits, so any change of one element (a flipped byte) changes the sum for sure;
/// changes of several elements cancel with probability about 2^-64.
#pragma once

#include "CollectiveIo.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace eddy::io::detail {

/// Name of the algorithm, root attribute `checksum_algorithm` of a checkpoint that has them.
inline constexpr char const* kChecksumAlgorithm = "eddy-sum64";

/// MurmurHash3's 64-bit finaliser: a bijection that mixes every input bit into every output bit.
inline std::uint64_t fmix64(std::uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

/// The term of the element at index `index` with bits `bits`.
inline std::uint64_t checksumTerm(std::uint64_t index, std::uint64_t bits) {
  return fmix64(bits ^ fmix64(index + 0x9e3779b97f4a7c15ULL));
}

/// Sum of the terms of `n` contiguous elements of `elemBytes` (4 or 8) bytes at `data`, the
/// first of which has index `first` in its dataset.
std::uint64_t checksumRange(void const* data, std::size_t elemBytes, std::uint64_t first,
                            std::size_t n);

/// Sum of the terms of one rank's block of a grid array (x fastest, box.count entries).
std::uint64_t checksumBlock(GridBox const& box, double const* values);

/// 16 lowercase hex digits.
std::string checksumText(std::uint64_t sum);

/// Collective: reads every dataset of `shapes` (path -> HDF5 shape) of checkpoint `path` once,
/// split over the ranks (collectively through MPI-IO) or all by rank 0 (gather), in pieces of
/// at most `maxMessageBytes`, and compares each sum with `expected` (path -> checksumText).
/// Returns, on every rank, the damaged datasets as "path (computed X, stored Y)"; a read that
/// fails throws the ranks' collective eddy::IoError with `context`.
std::vector<std::string> verifyChecksums(MPI_Comm comm, std::string const& path, bool collective,
                                         std::map<std::string, std::vector<long long>> const& shapes,
                                         std::map<std::string, std::string> const& expected,
                                         std::size_t maxMessageBytes, std::string const& context);

}  // namespace eddy::io::detail
