// LineTransforms on CUDA with cuFFT. cuFFT has real-to-complex transforms only, so:
//   periodic: the real-to-complex DFT of the line, repacked into halfcomplex order (and back);
//   walls:    the DCT-II as one real DFT of n points (Makhoul 1980): v = (x_0, x_2, x_4, ...,
//             x_5, x_3, x_1), Y_k = 2 Re(exp(-i pi k / 2n) V_k); the DCT-III inverse by the
//             same steps in reverse (W_k = exp(i pi k / 2n) (X_k - i X_{n-k}), v = DFT^-1 W).
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

/// The plans and work arrays of one line length and kind (at namespace scope: nvcc refuses
/// device lambdas inside a private nested class).
struct Batches {
  int length = 0;
  int spectral = 0;  ///< complex entries of a line's real DFT: length / 2 + 1
  LineKind kind = LineKind::Periodic;
  std::size_t batch = 1;
  cufftHandle toComplex = 0, toReal = 0;
  bool planned = false;
  Real spectrum;            ///< batch x nc complex values (re, im interleaved)
  Real permuted;            ///< walls: batch x n reordered values
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
  auto policy(ExecSpace const& space) const {
    return Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<long long>>(
        space, 0, static_cast<long long>(batch) * length);
  }

  void forward(ExecSpace const& space, double* lines) const {
    int const n = length, nc = spectral;
    double* s = spectrum.data();
    if (kind == LineKind::Periodic) {
      check(cufftExecD2Z(toComplex, lines, reinterpret_cast<cufftDoubleComplex*>(s)),
            "cufftExecD2Z");
      Kokkos::parallel_for(
          "eddy::fluids::fft::toHalfcomplex", policy(space), KOKKOS_LAMBDA(long long e) {
            long long const l = e / n;
            int const p = static_cast<int>(e - l * n);
            double const* c = s + 2 * l * nc;
            lines[e] = 2 * p <= n ? c[2 * p] : c[2 * (n - p) + 1];
          });
      return;
    }
    double* v = permuted.data();
    double const* cs = cosTable.data();
    double const* sn = sinTable.data();
    Kokkos::parallel_for(
        "eddy::fluids::fft::makhoulOrder", policy(space), KOKKOS_LAMBDA(long long e) {
          long long const l = e / n;
          int const j = static_cast<int>(e - l * n);
          // v_j = x_2j for j < (n+1)/2, v_{n-1-j} = x_{2j+1}.
          int const src = 2 * j < n ? 2 * j : 2 * (n - 1 - j) + 1;
          v[e] = lines[l * n + src];
        });
    check(cufftExecD2Z(toComplex, v, reinterpret_cast<cufftDoubleComplex*>(s)), "cufftExecD2Z");
    Kokkos::parallel_for(
        "eddy::fluids::fft::dct2Twiddle", policy(space), KOKKOS_LAMBDA(long long e) {
          long long const l = e / n;
          int const k = static_cast<int>(e - l * n);
          double const* c = s + 2 * l * nc;
          // V_k = C_k for k <= n/2, conj(C_{n-k}) above.
          bool const low = 2 * k <= n;
          double const a = low ? c[2 * k] : c[2 * (n - k)];
          double const b = low ? c[2 * k + 1] : -c[2 * (n - k) + 1];
          lines[e] = 2.0 * (a * cs[k] + b * sn[k]);
        });
  }

  void inverse(ExecSpace const& space, double* lines) const {
    int const n = length, nc = spectral;
    double* s = spectrum.data();
    auto const spectralPolicy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<long long>>(
        space, 0, static_cast<long long>(batch) * nc);
    if (kind == LineKind::Periodic) {
      Kokkos::parallel_for(
          "eddy::fluids::fft::fromHalfcomplex", spectralPolicy, KOKKOS_LAMBDA(long long e) {
            long long const l = e / nc;
            int const p = static_cast<int>(e - l * nc);
            double const* x = lines + l * n;
            bool const imag = p > 0 && 2 * p < n;
            s[2 * e] = x[p];
            s[2 * e + 1] = imag ? x[n - p] : 0.0;
          });
      check(cufftExecZ2D(toReal, reinterpret_cast<cufftDoubleComplex*>(s), lines), "cufftExecZ2D");
      return;
    }
    double* v = permuted.data();
    double const* cs = cosTable.data();
    double const* sn = sinTable.data();
    Kokkos::parallel_for(
        "eddy::fluids::fft::dct3Twiddle", spectralPolicy, KOKKOS_LAMBDA(long long e) {
          long long const l = e / nc;
          int const k = static_cast<int>(e - l * nc);
          double const* x = lines + l * n;
          double const a = x[k];
          double const b = k > 0 ? x[n - k] : 0.0;  // X_n = 0
          s[2 * e] = cs[k] * a + sn[k] * b;
          s[2 * e + 1] = sn[k] * a - cs[k] * b;
        });
    check(cufftExecZ2D(toReal, reinterpret_cast<cufftDoubleComplex*>(s), v), "cufftExecZ2D");
    Kokkos::parallel_for(
        "eddy::fluids::fft::naturalOrder", policy(space), KOKKOS_LAMBDA(long long e) {
          long long const l = e / n;
          int const j = static_cast<int>(e - l * n);
          int const src = j % 2 == 0 ? j / 2 : n - 1 - j / 2;
          lines[e] = v[l * n + src];
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
  m.spectrum = Real(Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                                       std::string("eddy::fluids::fft::spectrum")),
                    2 * m.batch * m.spectral);
  if (kind == LineKind::Neumann) {
    m.permuted = Real(Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                                         std::string("eddy::fluids::fft::permuted")),
                      m.batch * n);
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

std::size_t LineTransforms::paddedLines(std::size_t lines) const {
  std::size_t const b = m_impl->batch;
  return (lines + b - 1) / b * b;
}

void LineTransforms::forward(ExecSpace const& space, Data const& data, std::size_t lines) {
  Impl const& m = *m_impl;
  m.bind(space);
  for (std::size_t first = 0; first < lines; first += m.batch)
    m.forward(space, data.data() + first * static_cast<std::size_t>(m.length));
}

void LineTransforms::inverse(ExecSpace const& space, Data const& data, std::size_t lines) {
  Impl const& m = *m_impl;
  m.bind(space);
  for (std::size_t first = 0; first < lines; first += m.batch)
    m.inverse(space, data.data() + first * static_cast<std::size_t>(m.length));
}

std::string LineTransforms::library() {
  int version = 0;
  cufftGetVersion(&version);
  return str("cuFFT ", version / 1000, ".", version / 100 % 10, ".", version % 100);
}

std::size_t LineTransforms::bytes() const {
  Impl const& m = *m_impl;
  return m.workBytes +
         8 * (m.spectrum.span() + m.permuted.span() + m.cosTable.span() + m.sinTable.span());
}

}  // namespace eddy::fluids
