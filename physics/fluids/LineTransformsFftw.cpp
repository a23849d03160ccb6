// LineTransforms on the host with FFTW: one plan for a single line, executed on each line (the
// new-array interface, planned FFTW_UNALIGNED so that any line may be passed), so that every
// line goes through the same codelets whatever the number of lines. In place, in the Plain form:
// FFTW's real-to-real kinds are the transforms themselves.
#include "fluids/LineTransforms.hpp"

#include "eddy/core/Error.hpp"

#include <fftw3.h>

#include <cmath>
#include <mutex>

namespace eddy::fluids {

namespace {
/// FFTW's planner is not thread-safe; plans are made under this lock (executing them is).
std::mutex& plannerLock() {
  static std::mutex m;
  return m;
}

fftw_plan planLine(int n, fftw_r2r_kind kind) {
  std::lock_guard<std::mutex> lock(plannerLock());
  // A scratch line to plan on: FFTW_ESTIMATE does not write to it, but needs its alignment.
  double* line = fftw_alloc_real(static_cast<std::size_t>(n));
  if (!line) throw Error(str("LineTransforms: FFTW could not allocate a line of ", n, " values"));
  fftw_plan p = fftw_plan_r2r_1d(n, line, line, kind, FFTW_ESTIMATE | FFTW_UNALIGNED);
  fftw_free(line);
  if (!p) throw Error(str("LineTransforms: FFTW made no plan for a line of ", n, " values"));
  return p;
}
}  // namespace

struct LineTransforms::Impl {
  int n = 0;
  fftw_plan forward = nullptr;
  fftw_plan inverse = nullptr;
  ~Impl() {
    std::lock_guard<std::mutex> lock(plannerLock());
    if (forward) fftw_destroy_plan(forward);
    if (inverse) fftw_destroy_plan(inverse);
  }
  void run(ExecSpace const& space, fftw_plan plan, Data const& data, std::size_t lines) const {
    double* base = data.data();
    std::size_t const stride = static_cast<std::size_t>(n);
    Kokkos::parallel_for("eddy::fluids::fft::lines",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<long long>>(
                             space, 0, static_cast<long long>(lines)),
                         [=](long long l) {
                           double* line = base + static_cast<std::size_t>(l) * stride;
                           fftw_execute_r2r(plan, line, line);
                         });
  }
};

LineTransforms::LineTransforms(ExecSpace const&, int n, LineKind kind, std::size_t)
    : m_impl(std::make_unique<Impl>()) {
  if (n < 1) throw Error(str("LineTransforms: a line of ", n, " values"));
  m_impl->n = n;
  bool const periodic = kind == LineKind::Periodic;
  m_impl->forward = planLine(n, periodic ? FFTW_R2HC : FFTW_REDFT10);
  m_impl->inverse = planLine(n, periodic ? FFTW_HC2R : FFTW_REDFT01);
}

LineTransforms::~LineTransforms() = default;

std::size_t LineTransforms::values(std::size_t lines) const {
  return lines * static_cast<std::size_t>(m_impl->n);
}

LineTransforms::Lines LineTransforms::input(Data const& a) const {
  Lines l;
  l.data = a.data();
  l.stride = l.n = m_impl->n;
  return l;
}

LineTransforms::Lines LineTransforms::coefficients(Data const& a) const {
  return input(a);
}

LineTransforms::Lines LineTransforms::forward(ExecSpace const& space, Data const& a, Data const&,
                                              std::size_t lines) {
  m_impl->run(space, m_impl->forward, a, lines);
  return input(a);
}

LineTransforms::Lines LineTransforms::inverse(ExecSpace const& space, Data const& a, Data const&,
                                              std::size_t lines) {
  m_impl->run(space, m_impl->inverse, a, lines);
  return input(a);
}

std::string LineTransforms::library() {
  return fftw_version;
}

std::size_t LineTransforms::bytes() const {
  return 0;
}

}  // namespace eddy::fluids
