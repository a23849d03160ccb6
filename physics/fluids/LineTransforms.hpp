/// @file LineTransforms.hpp
/// @brief Real-to-real transforms of lines of doubles that diagonalise the second-order
/// cell-centred Laplacian along one axis: FFTW on host builds, cuFFT on CUDA builds.
///
/// Along a periodic axis of n cells the transform is the unnormalised real DFT in halfcomplex
/// numbering (coefficient p <= n/2 the real part of frequency p, coefficient n - p its imaginary
/// part; FFTW's R2HC); along an axis between walls (homogeneous Neumann, mirrored ghosts) it is
/// the DCT-II (FFTW's REDFT10). In both, coefficient p is an eigen-coordinate of the 1D operator
/// (2 x_c - x_{c-1} - x_{c+1}) / h^2 with eigenvalue eigenvalue(kind, n, p) / h^2, and
/// inverse(forward(x)) = scale(kind, n) x.
///
/// A transform reads and leaves its lines in the layout its backend works in (Lines): the
/// caller writes a line's values where input() says, reads the coefficients where forward()
/// left them, writes coefficients where coefficients() says and reads the values where inverse()
/// left them. The moves between pencils do the reordering a backend needs, so no pass over the
/// data is spent on it.
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

  /// Where the entries of a set of lines lie: line l from data + l * stride. Entry p is the
  /// value at position p (before forward, after inverse) or coefficient p (after forward, before
  /// inverse). A walk along a line visits slots: the entries in order, except for Complex, whose
  /// slots are its values in memory order.
  struct Lines {
    enum class Form {
      Plain,     ///< entry p at p
      Permuted,  ///< entry p at p / 2 (p even) or n - 1 - p / 2 (p odd) (Makhoul's order)
      Complex,   ///< the interleaved complex DFT (n / 2 + 1 pairs): p <= n / 2 the real part of
                 ///< pair p, p > n / 2 the imaginary part of pair n - p; the imaginary parts of
                 ///< pairs 0 and n / 2 are 0
      Dct,       ///< read only: DCT-II coefficient p, from the complex DFT of the Permuted line
    };
    Form form = Form::Plain;
    double* data = nullptr;
    long long stride = 0;
    int n = 0;
    double const* cs = nullptr;  ///< Dct: cos, sin of pi p / 2n
    double const* sn = nullptr;

    /// Slots a walk along a line visits.
    KOKKOS_INLINE_FUNCTION int slots() const { return form == Form::Complex ? 2 * (n / 2 + 1) : n; }
    /// The entry slot s holds; `zero` for the Complex slots that always hold 0 (then the
    /// entry is that of the pair's real part).
    KOKKOS_INLINE_FUNCTION int entry(int s, bool& zero) const {
      zero = false;
      if (form != Form::Complex) return s;
      int const q = s / 2;
      if (s % 2 == 0) return q;
      zero = q == 0 || 2 * q == n;
      return zero ? q : n - q;
    }
    /// The slot of entry p.
    KOKKOS_INLINE_FUNCTION int slot(int p) const {
      if (form != Form::Complex) return p;
      return 2 * p <= n ? 2 * p : 2 * (n - p) + 1;
    }
    /// The value at slot s of the line that starts at data + first.
    KOKKOS_INLINE_FUNCTION double get(long long first, int s) const {
      double const* x = data + first;
      if (form == Form::Permuted) return x[permuted(s)];
      if (form != Form::Dct) return x[s];
      // V_k = C_k for k <= n/2, conj(C_{n-k}) above; Y_k = 2 Re(exp(-i pi k / 2n) V_k).
      bool const low = 2 * s <= n;
      double const a = low ? x[2 * s] : x[2 * (n - s)];
      double const b = low ? x[2 * s + 1] : -x[2 * (n - s) + 1];
      return 2.0 * (a * cs[s] + b * sn[s]);
    }
    /// Not for Dct.
    KOKKOS_INLINE_FUNCTION double& at(long long first, int s) const {
      return data[first + (form == Form::Permuted ? permuted(s) : s)];
    }
    KOKKOS_INLINE_FUNCTION int permuted(int p) const { return p % 2 == 0 ? p / 2 : n - 1 - p / 2; }
  };

  /// Transforms of lines of `n` values of `kind`, called with at most `maxLines` lines.
  LineTransforms(ExecSpace const& space, int n, LineKind kind, std::size_t maxLines);
  ~LineTransforms();
  LineTransforms(LineTransforms const&) = delete;
  LineTransforms& operator=(LineTransforms const&) = delete;

  /// Doubles each of the two arrays passed to forward and inverse must hold for `lines` lines
  /// (rounded up to what the backend transforms at a time: padding lines are transformed too,
  /// their values ignored).
  std::size_t values(std::size_t lines) const;

  /// Where forward(a, ...) reads the values of its lines.
  Lines input(Data const& a) const;
  /// Transforms `lines` lines from input(a) (ordered on `space`); returns where the
  /// coefficients are, in `a` or `b`. Either array may be overwritten.
  Lines forward(ExecSpace const& space, Data const& a, Data const& b, std::size_t lines);
  /// Where inverse(a, ...) reads the coefficients of its lines.
  Lines coefficients(Data const& a) const;
  /// The inverse transform of `lines` lines from coefficients(a); returns where the values are,
  /// in `a` or `b`. Either array may be overwritten.
  Lines inverse(ExecSpace const& space, Data const& a, Data const& b, std::size_t lines);

  /// Eigenvalue of entry p times h^2: 2 - 2 cos(2 pi p / n) (periodic) or 2 - 2 cos(pi p / n)
  /// (walls); >= 0, 0 only for p = 0.
  static double eigenvalue(LineKind kind, int n, int p);
  /// inverse(forward(x)) / x: n (periodic) or 2n (walls).
  static double scale(LineKind kind, int n);
  /// "FFTW 3.3.10" or "cuFFT 12.0.0": the library doing the transforms.
  static std::string library();

  /// Bytes of device memory held (tables and plans' work areas).
  std::size_t bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace eddy::fluids
