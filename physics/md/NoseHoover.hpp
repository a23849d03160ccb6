/// @file NoseHoover.hpp
/// @brief The Nose-Hoover chain thermostat: its variables and their half-step update, on the
/// host (a few numbers, the same on every rank).
#pragma once

#include "eddy/core/Error.hpp"

#include <cmath>
#include <vector>

namespace eddy::md {

/// A Nose-Hoover chain of M thermostats (Martyna, Klein and Tuckerman, J. Chem. Phys. 97, 2635
/// (1992)) on the atoms' velocities, integrated as in Martyna, Tuckerman, Tobias and Klein,
/// Mol. Phys. 87, 1117 (1996): a half step of the chain before velocity Verlet's first kick
/// and one after its second, each a symmetric Trotter splitting with the Suzuki-Yoshida
/// weights of order 4, so the atoms sample the canonical distribution at `temperature` and
///   H' = KE + PE + sum_j Q_j v_j^2 / 2 + Nf T xi_1 + T sum_{j>1} xi_j
/// is conserved to the integrator's accuracy. Masses as in LAMMPS' fix nvt: Q_1 = Nf T tau^2,
/// Q_j = T tau^2, `tau` the period of the chain's oscillation (about 100 time steps is usual).
class NoseHooverChain {
 public:
  NoseHooverChain() = default;
  /// A chain of `length` thermostats at rest, `dof` the atoms' degrees of freedom (Nf).
  NoseHooverChain(int length, double temperature, double tau, double dof)
      : m_xi(static_cast<std::size_t>(length), 0.0),
        m_v(m_xi.size(), 0.0),
        m_q(m_xi.size(), temperature * tau * tau),
        m_t(temperature),
        m_dof(dof) {
    EDDY_REQUIRE(length >= 1 && temperature > 0 && tau > 0 && dof > 0,
                 "md::NoseHooverChain: length ", length, ", temperature ", temperature, ", tau ",
                 tau, ", dof ", dof, "; expected all > 0");
    m_q[0] *= dof;
  }

  bool empty() const { return m_xi.empty(); }
  int length() const { return static_cast<int>(m_xi.size()); }

  /// Advances the chain by dt / 2 given the atoms' kinetic energy; returns the factor their
  /// velocities are to be scaled by (the kinetic energy then is `kinetic` times its square).
  double halfStep(double kinetic, double dt) {
    // Suzuki-Yoshida weights of order 4: 1 / (2 - 2^(1/3)), 1 - 2 w1, w1.
    double const w1 = 1.0 / (2.0 - std::cbrt(2.0)), w2 = 1.0 - 2.0 * w1;
    double const weights[3] = {w1, w2, w1};
    double twiceKinetic = 2.0 * kinetic;
    double scale = 1.0;
    int const m = length();
    for (double const w : weights) {
      double const h = 0.5 * dt * w;
      // Inwards from the chain's end, the atoms' scaling, then outwards again.
      kickChain(m - 1, h, twiceKinetic);
      for (int j = m - 2; j >= 0; --j) kickChain(j, h, twiceKinetic);
      double const s = std::exp(-h * m_v[0]);
      scale *= s;
      twiceKinetic *= s * s;
      for (int j = 0; j < m; ++j) m_xi[j] += h * m_v[j];
      for (int j = 0; j < m - 1; ++j) kickChain(j, h, twiceKinetic);
      kickChain(m - 1, h, twiceKinetic);
    }
    return scale;
  }

  /// The chain's share of the conserved quantity: sum_j Q_j v_j^2 / 2 + Nf T xi_1 +
  /// T sum_{j>1} xi_j (0 for an empty chain).
  double energy() const {
    double e = 0.0;
    for (int j = 0; j < length(); ++j)
      e += 0.5 * m_q[j] * m_v[j] * m_v[j] + (j == 0 ? m_dof : 1.0) * m_t * m_xi[j];
    return e;
  }

  /// The chain's positions then velocities (2 length values), for checkpoints.
  std::vector<double> state() const {
    std::vector<double> s = m_xi;
    s.insert(s.end(), m_v.begin(), m_v.end());
    return s;
  }
  /// Puts back what state() gave (throws eddy::Error on a size that is not 2 length).
  void setState(std::vector<double> const& s) {
    EDDY_REQUIRE(s.size() == 2 * m_xi.size(), "md::NoseHooverChain::setState: ", s.size(),
                 " values for a chain of ", m_xi.size(), "; expected twice its length");
    for (std::size_t j = 0; j < m_xi.size(); ++j) {
      m_xi[j] = s[j];
      m_v[j] = s[m_xi.size() + j];
    }
  }

 private:
  /// Thermostat j's velocity over h / 2 under its force, damped by the next one's over h / 4
  /// on each side (the last one is undamped).
  void kickChain(int j, double h, double twiceKinetic) {
    int const m = length();
    double const damp = j + 1 < m ? std::exp(-0.25 * h * m_v[j + 1]) : 1.0;
    double const force = j == 0 ? (twiceKinetic - m_dof * m_t) / m_q[0]
                                : (m_q[j - 1] * m_v[j - 1] * m_v[j - 1] - m_t) / m_q[j];
    m_v[j] = (m_v[j] * damp + 0.5 * h * force) * damp;
  }

  std::vector<double> m_xi, m_v, m_q;  ///< positions, velocities, masses
  double m_t = 0.0, m_dof = 0.0;
};

}  // namespace eddy::md
