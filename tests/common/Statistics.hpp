/// @file Statistics.hpp
/// @brief Estimates the validation tests make from samples of a run: the mean of block means
/// with its standard error, least-squares slopes and drifts.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace eddy::test {

/// A mean and the standard error of the mean.
struct Estimate {
  double mean = 0.0, error = 0.0;
};

/// The mean of `blocks` (block means, each over a span far longer than the correlation time, so
/// that they are independent) and its standard error from their scatter.
inline Estimate fromBlocks(std::vector<double> const& blocks) {
  double const n = static_cast<double>(blocks.size());
  Estimate e;
  for (double b : blocks) e.mean += b / n;
  double var = 0.0;
  for (double b : blocks) var += (b - e.mean) * (b - e.mean) / (n - 1.0);
  e.error = std::sqrt(var / n);
  return e;
}

/// The slope of the least-squares line of y against x.
inline double leastSquaresSlope(std::vector<double> const& x, std::vector<double> const& y) {
  double const n = static_cast<double>(x.size());
  double mx = 0.0, my = 0.0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    mx += x[k] / n;
    my += y[k] / n;
  }
  double sxy = 0.0, sxx = 0.0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    sxy += (x[k] - mx) * (y[k] - my);
    sxx += (x[k] - mx) * (x[k] - mx);
  }
  return sxy / sxx;
}

/// The rise of the least-squares line of equally spaced samples `y` over their span (a drift).
inline double lineRise(std::vector<double> const& y) {
  std::vector<double> k(y.size());
  for (std::size_t i = 0; i < y.size(); ++i) k[i] = static_cast<double>(i);
  return leastSquaresSlope(k, y) * static_cast<double>(y.size() - 1);
}

/// The largest distance of a sample of `y` from the first.
inline double largestChange(std::vector<double> const& y) {
  double most = 0.0;
  for (double v : y) most = std::fmax(most, std::fabs(v - y.front()));
  return most;
}

}  // namespace eddy::test
