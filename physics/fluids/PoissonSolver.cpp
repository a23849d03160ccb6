#include "fluids/PoissonSolver.hpp"

#include "eddy/core/FieldBoundary.hpp"

#include "fluids/FftPoisson.hpp"
#include "fluids/Multigrid.hpp"
#include "fluids/PoissonKernels.hpp"

#include "eddy/core/BoxSplit.hpp"
#include "eddy/core/Error.hpp"
#include "eddy/core/HaloExchange.hpp"
#include "eddy/core/ReproducibleAccumulator.hpp"
#include "eddy/core/Timer.hpp"
#include "eddy/core/Tuning.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace eddy::fluids {

namespace {
using FieldType = Field<MemSpace>;
using Halo = HaloExchange<ExecSpace>;

/// Damping of the Jacobi iteration: D^-1 A has eigenvalues in [0, 2], so omega < 1 keeps the
/// checkerboard mode from oscillating; 0.8 damps it by 0.6 per sweep.
constexpr double kJacobiOmega = 0.8;
}  // namespace

char const* toString(PoissonMethod m) {
  switch (m) {
    case PoissonMethod::Auto:
      return "auto";
    case PoissonMethod::Fft:
      return "fft";
    case PoissonMethod::MultigridCG:
      return "mgcg";
    case PoissonMethod::CG:
      return "cg";
    case PoissonMethod::Jacobi:
      return "jacobi";
  }
  return "?";
}

PoissonMethod resolve(PoissonMethod m, CartDecomposition const& decomp) {
  if (m != PoissonMethod::Auto) return m;
  return FftPoisson::refusal(decomp).empty() ? PoissonMethod::Fft : PoissonMethod::MultigridCG;
}

struct PoissonSolver::Impl {
  Impl(ExecSpace const& space, MPI_Comm c, CartDecomposition const& d,
       std::array<double, 3> const& cellSize, PoissonOptions const& opt)
      : comm(c),
        decomp(d),
        h(cellSize),
        options(opt),
        grid(detail::PoissonGrid::make(d, cellSize)) {
    options.method = resolve(options.method, d);
    if (!(options.tolerance >= 0))
      throw ConfigError(str("PoissonSolver: tolerance is ", options.tolerance, "; expected >= 0"));
    if (options.maxIterations < 0)
      throw ConfigError(
          str("PoissonSolver: maxIterations is ", options.maxIterations, "; expected >= 0"));
    // Values that are never live at the same time share a field, in the order a solve uses
    // them: b holds the right-hand side until f is formed, then q = A p and the multigrid fine
    // residual; p holds f until the first residual, then the search direction. Jacobi reads f
    // in every sweep: it has a field of its own there. fft reads the right-hand side in b and
    // forms neither f nor a residual field.
    b = std::make_unique<FieldType>(space, "eddy::fluids::poisson::rhs", d, 1);
    q = b.get();
    if (options.method == PoissonMethod::Fft) {
      fft = std::make_unique<FftPoisson>(space, c, d, h);
    } else if (options.method == PoissonMethod::Jacobi) {
      jacobiF = std::make_unique<FieldType>(space, "eddy::fluids::poisson::f", d, 1);
      f = jacobiF.get();
    } else {
      p = std::make_unique<FieldType>(space, "eddy::fluids::poisson::p", d, 1);
      f = p.get();
      halo = std::make_unique<Halo>(space, c, d, p->layout());
      if (options.overlap) {
        haloSpace =
            compat::secondInstance(space, HaloTuning<ExecSpace>::current().streamHighPriority);
        split = BoxSplit::awayFromPeerFaces(Box3{{0, 0, 0}, grid.hi()}, grid.hi(),
                                            halo->peerFaces(), 1);
      }
    }
    if (!fft) r = std::make_unique<FieldType>(space, "eddy::fluids::poisson::r", d, 1);
    if (options.method == PoissonMethod::MultigridCG) {
      z = std::make_unique<FieldType>(space, "eddy::fluids::poisson::z", d, 1);
      mg = std::make_unique<Multigrid>(space, c, d, h, options.preSmooth, options.postSmooth,
                                       options.multigrid, options.overlap, options.mixedPrecision);
    }
    // The exchange of a phi with ghost width 1 (the flow model's), so that bytes() is what a
    // solve holds; other widths get theirs on first use.
    phiExchange = std::make_unique<Halo>(space, c, d, b->layout());
  }

  void checkField(FieldType const& field, char const* role) const {
    if (field.centering() != Centering::Cell || field.cells() != decomp.localCells() ||
        field.dims() != decomp.dims())
      throw Error(str("PoissonSolver::solve: ", role, " field '", field.label(), "' is ",
                      eddy::toString(field.centering()), " with ", eddy::toString(field.cells()),
                      " cells in ", field.dims(), "D; expected a cell-centred field of ",
                      eddy::toString(decomp.localCells()), " cells on ", decomp.describe()));
  }

  /// The exchange for phi's layout, rebuilt for another one (collective: every rank solves).
  Halo& phiHalo(ExecSpace const& space, FieldType const& phi) {
    if (!phiExchange || phiExchange->layout() != phi.layout())
      phiExchange = std::make_unique<Halo>(space, comm, decomp, phi.layout());
    return *phiExchange;
  }

  double operatorDot(ExecSpace const& space, FieldType& dir);
  void conjugateGradient(ExecSpace const& space, FieldType& phi, double normF, PoissonStats& s);
  void jacobi(ExecSpace const& space, FieldType& phi, double normF, PoissonStats& s);

  MPI_Comm comm;
  CartDecomposition decomp;
  std::array<double, 3> h;
  PoissonOptions options;
  detail::PoissonGrid grid;
  std::unique_ptr<FieldType> b, r, z, p, jacobiF;
  FieldType* f = nullptr;  ///< mean - rhs: p, or jacobiF
  FieldType* q = nullptr;  ///< A p: b
  std::unique_ptr<Halo> halo, phiExchange;
  std::unique_ptr<Multigrid> mg;
  std::unique_ptr<FftPoisson> fft;
  ExecSpace haloSpace;  ///< the exchange of dir, with overlap
  BoxSplit split;       ///< owned cells around the exchange, with overlap
};

/// q = A dir after the halo exchange of dir; returns dir . q. With overlap and ghosts from other
/// ranks, the cells that read none of those are computed while the messages travel on
/// haloSpace (the ghosts this rank sends itself are copied on space first), the cells next to
/// the faces towards other ranks once they have arrived.
double PoissonSolver::Impl::operatorDot(ExecSpace const& space, FieldType& dir) {
  if (!options.overlap || !halo->hasPeers()) {
    halo->exchange(space, dir);
    return detail::applyOperatorDot(space, comm, grid, dir.access(), q->access());
  }
  ReproducibleAccumulator sum;
  halo->exchangeBeside(
      space, haloSpace, dir,
      [&] { detail::applyOperatorDot(space, grid, dir.access(), q->access(), {split.inner}, sum); },
      [&] { detail::applyOperatorDot(space, grid, dir.access(), q->access(), split.shell, sum); });
  return sum.finish(comm);
}

void PoissonSolver::Impl::conjugateGradient(ExecSpace const& space, FieldType& phi, double normF,
                                            PoissonStats& s) {
  ScopedRegion region("eddy::fluids::poisson::cg");
  auto const x = phi.access();
  phiHalo(space, phi).exchange(space, phi);
  double rr = detail::residualNorm2(space, comm, grid, f->access(), x, r->access());
  s.history.push_back(std::sqrt(rr) / normF);
  if (s.history.back() <= options.tolerance) {
    s.converged = true;
    return;
  }
  FieldType& dir = *p;
  double rz = rr;
  // With multigrid the residual and the preconditioned residual trade fields at every
  // iteration: the residual update writes into the field that held M r (free by then), so that
  // it sums the new residual's squares in the same pass; x takes its step with the next
  // direction's update. The same values as r -= alpha q, x += alpha p and r . r each on its own.
  FieldType* res = r.get();
  FieldType* pre = z.get();
  if (mg) {
    mg->apply(space, *res, *pre, *b);
    rz = detail::dot(space, comm, grid, res->access(), pre->access());
    detail::copyOwned(space, grid, pre->access(), dir.access());
  } else {
    detail::copyOwned(space, grid, r->access(), dir.access());
  }
  for (int it = 1; it <= options.maxIterations; ++it) {
    double const pq = operatorDot(space, dir);
    // A is semi-definite: pq <= 0 only when the direction has vanished (or gone non-finite).
    if (!(pq > 0) || !std::isfinite(rz)) break;
    double const alpha = rz / pq;
    if (mg) {
      rr = detail::residualUpdate(space, comm, grid, alpha, res->access(), q->access(),
                                  pre->access());
      std::swap(res, pre);
    } else {
      detail::cgUpdate(space, grid, alpha, dir.access(), q->access(), x, r->access());
      rr = detail::dot(space, comm, grid, r->access(), r->access());
    }
    s.iterations = it;
    s.history.push_back(std::sqrt(rr) / normF);
    if (s.history.back() <= options.tolerance) {
      s.converged = true;
      if (mg) detail::addScaled(space, grid, alpha, dir.access(), x);
      break;
    }
    if (mg) {
      mg->apply(space, *res, *pre, *b);
      double const rzNew = detail::dot(space, comm, grid, res->access(), pre->access());
      double const beta = rzNew / rz;
      rz = rzNew;
      detail::advanceAndUpdateDirection(space, grid, alpha, beta, pre->access(), dir.access(), x);
    } else {
      double const beta = rr / rz;
      rz = rr;
      detail::updateDirection(space, grid, beta, r->access(), dir.access());
    }
  }
}

void PoissonSolver::Impl::jacobi(ExecSpace const& space, FieldType& phi, double normF,
                                 PoissonStats& s) {
  ScopedRegion region("eddy::fluids::poisson::jacobi");
  auto const x = phi.access();
  Halo& exchange = phiHalo(space, phi);
  exchange.exchange(space, phi);
  double rr = detail::residualNorm2(space, comm, grid, f->access(), x, r->access());
  s.history.push_back(std::sqrt(rr) / normF);
  s.converged = s.history.back() <= options.tolerance;
  for (int it = 1; it <= options.maxIterations && !s.converged; ++it) {
    detail::jacobiUpdate(space, grid, kJacobiOmega, r->access(), x);
    exchange.exchange(space, phi);
    rr = detail::residualNorm2(space, comm, grid, f->access(), x, r->access());
    s.iterations = it;
    s.history.push_back(std::sqrt(rr) / normF);
    s.converged = s.history.back() <= options.tolerance;
  }
}

PoissonSolver::PoissonSolver(ExecSpace const& space, MPI_Comm comm, CartDecomposition const& decomp,
                             std::array<double, 3> const& h, PoissonOptions const& options)
    : m_impl(std::make_unique<Impl>(space, comm, decomp, h, options)) {}

PoissonSolver::~PoissonSolver() = default;

PoissonStats PoissonSolver::solve(ExecSpace const& space, Field<MemSpace> const& rhs,
                                  Field<MemSpace>& phi, bool check) {
  ScopedRegion region("eddy::fluids::poisson::solve");
  Impl& m = *m_impl;
  m.checkField(rhs, "rhs");
  m.checkField(phi, "phi");
  if (&phi == m.b.get())
    throw Error(str("PoissonSolver::solve: phi is the solver's right-hand side field '",
                    phi.label(), "'; expected a field of the caller"));
  auto const& g = m.grid;
  double const cells = static_cast<double>(g.globalCount());
  // fft reads rhs in place: its transforms leave out the zero mode, so the mean is not
  // subtracted first but counted out of the norm and of the residual that checks the solve.
  // Unchecked, fft measures neither.
  bool const measure = check || !m.fft;
  double mean = 0.0, normF = 0.0;
  if (measure) {
    mean = detail::sum(space, m.comm, g, rhs.access()) / cells;
    normF =
        std::sqrt(m.fft ? detail::centredNorm2(space, m.comm, g, rhs.access(), mean)
                        : detail::prepareRhs(space, m.comm, g, rhs.access(), mean, m.f->access()));
  }
  PoissonStats s;
  if (measure && !(normF > 0)) {
    // rhs is constant: the zero-mean solution is phi = 0.
    Kokkos::deep_copy(space, phi.view(), 0.0);
    s.history.push_back(0.0);
    s.converged = true;
  } else if (m.fft) {
    m.fft->solve(space, rhs.access(), phi.access(), -1.0);  // A = -lap: f = mean - rhs
    s.iterations = 1;
    s.history.push_back(1.0);  // the direct solve starts from zero, whatever phi held
  } else if (m.options.method == PoissonMethod::Jacobi) {
    m.jacobi(space, phi, normF, s);
  } else {
    m.conjugateGradient(space, phi, normF, s);
  }
  // Zero mean (fft sets the zero mode to 0 itself), then the ghosts the caller takes gradients
  // from.
  if (!m.fft) {
    double const phiMean = detail::sum(space, m.comm, g, phi.access()) / cells;
    detail::addConstant(space, g, -phiMean, phi.access());
  }
  m.phiHalo(space, phi).exchange(space, phi);
  mirrorWallGhosts(space, m.decomp, phi);
  if (m.fft && !measure) {
    // Taken as it is: no residual measured.
    s.history.push_back(std::numeric_limits<double>::quiet_NaN());
    s.converged = true;
  } else if (m.fft && normF > 0) {
    // The residual of what the caller gets: the check that the direct solve worked.
    double const rr =
        detail::centredResidualNorm2(space, m.comm, g, rhs.access(), mean, phi.access());
    s.history.push_back(std::sqrt(rr) / normF);
    s.converged = std::isfinite(s.history.back()) &&
                  s.history.back() <= std::max(m.options.tolerance, kDirectSolveResidualLimit);
  }
  s.relativeResidual = s.history.back();
  return s;
}

Field<MemSpace>& PoissonSolver::rightHandSide() {
  return *m_impl->b;
}

int PoissonSolver::levels() const {
  return m_impl->mg ? m_impl->mg->levels() : 1;
}

std::size_t PoissonSolver::bytes() const {
  Impl const& m = *m_impl;
  std::size_t s = 0;
  for (auto const* f : {m.b.get(), m.r.get(), m.z.get(), m.p.get(), m.jacobiF.get()})
    if (f) s += f->bytes();
  for (auto const* x : {m.halo.get(), m.phiExchange.get()})
    if (x) s += x->bytes();
  if (m.mg) s += m.mg->bytes();
  if (m.fft) s += m.fft->bytes();
  return s;
}

PoissonMethod PoissonSolver::method() const {
  return m_impl->options.method;
}

std::string PoissonSolver::describe() const {
  Impl const& m = *m_impl;
  if (m.fft) return str("fft (", m.fft->describe(), ")");
  if (m.mg) return str("mgcg (", m.mg->levels(), " multigrid levels)");
  return toString(m.options.method);
}

}  // namespace eddy::fluids
