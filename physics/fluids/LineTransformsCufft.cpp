// LineTransforms on CUDA with cuFFT. cuFFT has real-to-complex transforms only, so:
//   periodic: the real-to-complex DFT of the line, left in the Complex form (and back);
//   walls:    the DCT-II as one real DFT of n points (Makhoul 1980): the values in the Permuted
//             order v = (x_0, x_2, x_4, ..., x_5, x_3, x_1), Y_k = 2 Re(exp(-i pi k / 2n) V_k)
//             read from the DFT by the Dct form; the DCT-III inverse by the same steps in
//             reverse (W_k = exp(i pi k / 2n) (X_k - i X_{n-k}), v = DFT^-1 W).
// The reorderings happen in the moves between pencils that write and read the lines
// (FftPoisson), so a transform is one cuFFT pass (and the DCT-III's twiddle).
// The plans transform a fixed batch of lines, the same on every rank (the lines a solve asks
// for are padded to a multiple of it), so that a line's bits do not depend on how many lines a
// rank holds.
#include "fluids/LineTransforms.hpp"

#include "eddy/core/Error.hpp"

#include <cufft.h>

#include <algorithm>
#include <cmath>

namespace eddy::fluids {

namespace {
/// At most this many values per batch: a few transforms per axis on the grids of one GPU keep
/// the work areas small and the launches few.
constexpr std::size_t kBatchValues = std::size_t(1) << 24;

void check(cufftResult r, char const* what) {
  if (r != CUFFT_SUCCESS)
    throw Error(str("LineTransforms: ", what, " failed (cufftResult ", int(r), ")"));
}

using Real = Kokkos::View<double*, MemSpace>;

/// The plans and tables of one line length and kind (at namespace scope: nvcc refuses device
/// lambdas inside a private nested class).
struct Batches {
  int length = 0;
  int spectral = 0;  ///< complex entries of a line's real DFT: length / 2 + 1
  LineKind kind = LineKind::Periodic;
  std::size_t batch = 1;
  cufftHandle toComplex = 0, toReal = 0;
  bool planned = false;
  Real cosTable, sinTable;  ///< walls: cos, sin of pi k / 2n
  std::size_t workBytes = 0;

  Batches() = default;
  Batches(Batches const&) = delete;
  Batches& operator=(Batches const&) = delete;
  ~Batches() {
    if (planned) {
      cufftDestroy(toComplex);
      cufftDestroy(toReal);
    }
  }
  void bind(ExecSpace const& space) const {
    auto stream = static_cast<cudaStream_t>(compat::nativeStream(space));
    check(cufftSetStream(toComplex, stream), "cufftSetStream");
    check(cufftSetStream(toReal, stream), "cufftSetStream");
  }
  using Lines = LineTransforms::Lines;
  Lines real(double* data, Lines::Form form) const {
    Lines l;
    l.form = form;
    l.data = data;
    l.stride = l.n = length;
    return l;
  }
  Lines complex(double* data, Lines::Form form) const {
    Lines l;
    l.form = form;
    l.data = data;
    l.stride = 2 * spectral;
    l.n = length;
    l.cs = cosTable.data();
    l.sn = sinTable.data();
    return l;
  }

  /// Real lines at `values` (n apart) -> their DFTs at `spectra` (n / 2 + 1 pairs apart).
  void toSpectra(double* values, double* spectra, std::size_t lines) const {
    for (std::size_t first = 0; first < lines; first += batch)
      check(cufftExecD2Z(toComplex, values + first * length,
                         reinterpret_cast<cufftDoubleComplex*>(spectra + 2 * first * spectral)),
            "cufftExecD2Z");
  }
  /// The inverse: overwrites `spectra`.
  void toValues(double* spectra, double* values, std::size_t lines) const {
    for (std::size_t first = 0; first < lines; first += batch)
      check(cufftExecZ2D(toReal,
                         reinterpret_cast<cufftDoubleComplex*>(spectra + 2 * first * spectral),
                         values + first * length),
            "cufftExecZ2D");
  }

  /// W_k = exp(i pi k / 2n) (X_k - i X_{n-k}) of the DCT coefficients X at `coefficients` (n
  /// apart) into `spectra` (n / 2 + 1 pairs apart), over every padded line.
  void dct3Twiddle(ExecSpace const& space, double const* coefficients, double* spectra,
                   std::size_t lines) const {
    int const n = length, nc = spectral;
    double const* cs = cosTable.data();
    double const* sn = sinTable.data();
    long long const padded = static_cast<long long>((lines + batch - 1) / batch * batch);
    Kokkos::parallel_for(
        "eddy::fluids::fft::dct3Twiddle",
        Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<long long>>(space, 0, padded * nc),
        KOKKOS_LAMBDA(long long e) {
          long long const l = e / nc;
          int const k = static_cast<int>(e - l * nc);
          double const* x = coefficients + l * n;
          double const a = x[k];
          double const b = k > 0 ? x[n - k] : 0.0;  // X_n = 0
          spectra[2 * e] = cs[k] * a + sn[k] * b;
          spectra[2 * e + 1] = sn[k] * a - cs[k] * b;
        });
  }
};
}  // namespace

struct LineTransforms::Impl : Batches {};

LineTransforms::LineTransforms(ExecSpace const& space, int n, LineKind kind, std::size_t maxLines)
    : m_impl(std::make_unique<Impl>()) {
  if (n < 1) throw Error(str("LineTransforms: a line of ", n, " values"));
  Impl& m = *m_impl;
  m.length = n;
  m.spectral = n / 2 + 1;
  m.kind = kind;
  m.batch = std::max<std::size_t>(
      1, std::min(maxLines, std::max<std::size_t>(1, kBatchValues / static_cast<std::size_t>(n))));
  int const batch = static_cast<int>(m.batch);
  int len = n, nc = m.spectral;
  check(cufftCreate(&m.toComplex), "cufftCreate");
  check(cufftCreate(&m.toReal), "cufftCreate");
  m.planned = true;
  std::size_t work = 0;
  check(cufftMakePlanMany(m.toComplex, 1, &len, &len, 1, n, &nc, 1, nc, CUFFT_D2Z, batch, &work),
        "cufftMakePlanMany (D2Z)");
  m.workBytes += work;
  check(cufftMakePlanMany(m.toReal, 1, &len, &nc, 1, nc, &len, 1, n, CUFFT_Z2D, batch, &work),
        "cufftMakePlanMany (Z2D)");
  m.workBytes += work;
  if (kind == LineKind::Neumann) {
    auto c = Kokkos::View<double*, Kokkos::HostSpace>("eddy::fluids::fft::cos", n);
    auto s = Kokkos::View<double*, Kokkos::HostSpace>("eddy::fluids::fft::sin", n);
    double const pi = 3.14159265358979323846;
    for (int k = 0; k < n; ++k) {
      c(k) = std::cos(pi * k / (2.0 * n));
      s(k) = std::sin(pi * k / (2.0 * n));
    }
    m.cosTable = Real("eddy::fluids::fft::cos", n);
    m.sinTable = Real("eddy::fluids::fft::sin", n);
    Kokkos::deep_copy(space, m.cosTable, c);
    Kokkos::deep_copy(space, m.sinTable, s);
    space.fence();
  }
}

LineTransforms::~LineTransforms() = default;

std::size_t LineTransforms::values(std::size_t lines) const {
  Impl const& m = *m_impl;
  return (lines + m.batch - 1) / m.batch * m.batch * 2 * static_cast<std::size_t>(m.spectral);
}

LineTransforms::Lines LineTransforms::input(Data const& a) const {
  Impl const& m = *m_impl;
  return m.real(a.data(),
                m.kind == LineKind::Periodic ? Lines::Form::Plain : Lines::Form::Permuted);
}

LineTransforms::Lines LineTransforms::coefficients(Data const& a) const {
  Impl const& m = *m_impl;
  return m.kind == LineKind::Periodic ? m.complex(a.data(), Lines::Form::Complex)
                                      : m.real(a.data(), Lines::Form::Plain);
}

LineTransforms::Lines LineTransforms::forward(ExecSpace const& space, Data const& a, Data const& b,
                                              std::size_t lines) {
  Impl const& m = *m_impl;
  m.bind(space);
  m.toSpectra(a.data(), b.data(), lines);
  return m.complex(b.data(),
                   m.kind == LineKind::Periodic ? Lines::Form::Complex : Lines::Form::Dct);
}

LineTransforms::Lines LineTransforms::inverse(ExecSpace const& space, Data const& a, Data const& b,
                                              std::size_t lines) {
  Impl const& m = *m_impl;
  m.bind(space);
  if (m.kind == LineKind::Periodic) {
    m.toValues(a.data(), b.data(), lines);
    return m.real(b.data(), Lines::Form::Plain);
  }
  m.dct3Twiddle(space, a.data(), b.data(), lines);
  m.toValues(b.data(), a.data(), lines);
  return m.real(a.data(), Lines::Form::Permuted);
}

std::string LineTransforms::library() {
  int version = 0;
  cufftGetVersion(&version);
  return str("cuFFT ", version / 1000, ".", version / 100 % 10, ".", version % 100);
}

std::size_t LineTransforms::bytes() const {
  Impl const& m = *m_impl;
  return m.workBytes + 8 * (m.cosTable.span() + m.sinTable.span());
}

}  // namespace eddy::fluids
