/// @file Barostat.hpp
/// @brief The isotropic Martyna-Tobias-Klein barostat: the box's logarithmic strain rate, its
/// own Nose-Hoover chain, and the factors of the atoms' kick and drift, on the host (a few
/// numbers, the same on every rank).
#pragma once

#include "eddy/core/Error.hpp"
#include "md/NoseHoover.hpp"

#include <cmath>
#include <vector>

namespace eddy::md {

/// The isotropic MTK barostat (Martyna, Tobias and Klein, J. Chem. Phys. 101, 4177 (1994)) with
/// Nose-Hoover chains on the atoms and on the barostat, integrated by the Trotter splitting of
/// Tuckerman, Alejandre, Lopez-Rendon, Jochim and Martyna, J. Phys. A 39, 5629 (2006), which
/// samples the isothermal-isobaric ensemble at temperature T and pressure P_ext. The box edge
/// L grows as dL/dt = v_eps L; with d = 3 and Nf the atoms' degrees of freedom,
///   dr/dt = v + v_eps r,   dv/dt = F / m - (1 + d / Nf) v_eps v (- the chain's friction),
///   W dv_eps/dt = d V (P_int - P_ext) + (d / Nf) 2 KE (- the barostat chain's friction),
/// P_int = (2 KE + virial) / (d V), and
///   H' = KE + PE + W v_eps^2 / 2 + P_ext V + both chains' energies
/// is conserved. Masses as Tuckerman et al.: W = (Nf + d) T tau^2, the barostat chain's
/// Q_j = T tau^2 (one degree of freedom), `tau` the period of the box's oscillation (about 1000
/// time steps is usual: LAMMPS' Pdamp).
class MtkBarostat {
 public:
  MtkBarostat() = default;
  /// A barostat at rest holding `pressure` at `temperature`, over atoms of `dof` degrees of
  /// freedom, with a chain of `chainLength` thermostats.
  MtkBarostat(double pressure, double temperature, double tau, double dof, int chainLength)
      : m_on(true),
        m_pressure(pressure),
        m_mass((dof + 3.0) * temperature * tau * tau),
        m_alpha(1.0 + 3.0 / dof),
        m_chain(chainLength, temperature, tau, 1.0) {
    EDDY_REQUIRE(std::isfinite(pressure) && tau > 0 && dof > 0, "md::MtkBarostat: pressure ",
                 pressure, ", tau ", tau, ", dof ", dof,
                 "; expected a finite pressure, tau > 0 and dof > 0");
  }

  /// Whether there is a barostat (a default-constructed one is none).
  bool on() const { return m_on; }
  double pressure() const { return m_pressure; }
  /// v_eps: the box edge's relative rate of change, d ln L / dt.
  double strainRate() const { return m_v; }

  /// Advances the barostat's chain by dt / 2 and scales v_eps by its factor.
  void chainHalfStep(double dt) { m_v *= m_chain.halfStep(0.5 * m_mass * m_v * m_v, dt); }
  /// v_eps over `h` under its force, from the atoms' kinetic energy and virial and the volume.
  void kick(double h, double kinetic, double virial, double volume) {
    m_v += h * (m_alpha * 2.0 * kinetic + virial - 3.0 * volume * m_pressure) / m_mass;
  }

  /// The exact solution of dv/dt = F / m - alpha v_eps v over dt / 2 at constant F and v_eps:
  /// v <- a v + b (dt / 2) F / m.
  struct Kick {
    double a = 1.0, b = 1.0;
  };
  Kick kickFactors(double dt) const {
    double const x = 0.25 * m_alpha * m_v * dt;
    return {std::exp(-2.0 * x), std::exp(-x) * sinhc(x)};
  }
  /// The exact solution of dr/dt = v + v_eps r over dt at constant v and v_eps: r <- a r +
  /// b dt v; the box edges scale by a.
  struct Drift {
    double a = 1.0, b = 1.0;
  };
  Drift driftFactors(double dt) const {
    double const x = 0.5 * m_v * dt;
    return {std::exp(2.0 * x), std::exp(x) * sinhc(x)};
  }

  /// The barostat's share of the conserved quantity at `volume`: W v_eps^2 / 2 + P_ext V + its
  /// chain's energy (0 when there is none).
  double energy(double volume) const {
    return m_on ? 0.5 * m_mass * m_v * m_v + m_pressure * volume + m_chain.energy() : 0.0;
  }

  /// v_eps, then the chain's state (NoseHooverChain::state), for checkpoints.
  std::vector<double> state() const {
    std::vector<double> s{m_v};
    auto const chain = m_chain.state();
    s.insert(s.end(), chain.begin(), chain.end());
    return s;
  }
  /// Puts back what state() gave (throws eddy::Error on another size).
  void setState(std::vector<double> const& s) {
    EDDY_REQUIRE(s.size() == 1 + 2 * static_cast<std::size_t>(m_chain.length()),
                 "md::MtkBarostat::setState: ", s.size(), " values; expected 1 + twice ",
                 m_chain.length(), " (the chain's length)");
    m_v = s[0];
    m_chain.setState(std::vector<double>(s.begin() + 1, s.end()));
  }

 private:
  /// sinh(x) / x, 1 at 0 (its series where the quotient would lose digits).
  static double sinhc(double x) {
    double const x2 = x * x;
    return std::fabs(x) < 1e-4 ? 1.0 + x2 / 6.0 * (1.0 + x2 / 20.0) : std::sinh(x) / x;
  }

  bool m_on = false;
  double m_pressure = 0.0, m_mass = 1.0, m_alpha = 1.0, m_v = 0.0;
  NoseHooverChain m_chain;
};

}  // namespace eddy::md
