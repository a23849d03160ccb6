/// @file LineTransforms.hpp
/// @brief Real-to-real transforms of contiguous lines of doubles that diagonalise the
/// second-order cell-centred Laplacian along one axis: FFTW on host builds, cuFFT on CUDA builds.
///
/// Along a periodic axis of n cells the transform is the unnormalised real DFT in halfcomplex
/// order (entry p <= n/2 the real part of frequency p, entry n - p its imaginary part; FFTW's
/// R2HC); along an axis between walls (homogeneous Neumann, mirrored ghosts) it is the DCT-II
/// (FFTW's REDFT10). In both, entry p of the transform is an eigen-coordinate of the 1D operator
/// (2 x_c - x_{c-1} - x_{c+1}) / h^2 with eigenvalue eigenvalue(kind, n, p) / h^2, and
/// inverse(forward(x)) = scale(kind, n) x.
///
/// Every line is transformed by the same plan whatever the number of lines, so a line's result
/// depends on its values only: the bits do not change with the decomposition.
#pragma once

#include "eddy/core/Compat.hpp"

#include <cstddef>
#include <memory>
#include <string>

namespace eddy::fluids {

enum class LineKind { Periodic, Neumann };

class LineTransforms {
 public:
  using Data = Kokkos::View<double*, MemSpace>;

  /// Transforms of lines of `n` values of `kind`, called with at most `maxLines` lines.
  LineTransforms(ExecSpace const& space, int n, LineKind kind, std::size_t maxLines);
  ~LineTransforms();
  LineTransforms(LineTransforms const&) = delete;
  LineTransforms& operator=(LineTransforms const&) = delete;

  /// Lines the storage passed to forward and inverse must hold: `lines` rounded up to what the
  /// backend transforms at a time (padding lines are transformed too, their values ignored).
  std::size_t paddedLines(std::size_t lines) const;

  /// In place on `lines` lines of n values at data(0), data(n), ... (ordered on `space`).
  void forward(ExecSpace const& space, Data const& data, std::size_t lines);
  void inverse(ExecSpace const& space, Data const& data, std::size_t lines);

  /// Eigenvalue of entry p times h^2: 2 - 2 cos(2 pi p / n) (periodic) or 2 - 2 cos(pi p / n)
  /// (walls); >= 0, 0 only for p = 0.
  static double eigenvalue(LineKind kind, int n, int p);
  /// inverse(forward(x)) / x: n (periodic) or 2n (walls).
  static double scale(LineKind kind, int n);
  /// "FFTW 3.3.10" or "cuFFT 12.0.0": the library doing the transforms.
  static std::string library();

  /// Bytes of device memory held (work arrays and plans' work areas).
  std::size_t bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace eddy::fluids
