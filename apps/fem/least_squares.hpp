// Least-squares fitting of positive parameters for `fem fit`: Eigen's Levenberg-Marquardt
// (unsupported/Eigen/LevenbergMarquardt, MINPACK's lmder) on log(p), with a forward-difference
// Jacobian and the parameters' standard errors from the Gauss-Newton covariance at the fit.
// No processes here: the residual function runs whatever it runs (fit_command.cpp: fem).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace fem::cli {

/// Fills `residuals` (its size fixed) for `parameters`; false when the evaluation failed (the
/// fit then treats the point as far worse than the start and steps back).
using ResidualFunction =
    std::function<bool(const std::vector<double>& parameters, std::vector<double>& residuals)>;

struct LeastSquaresResult {
  std::vector<double> parameters;       ///< the best point evaluated
  std::vector<double> standard_errors;  ///< of each parameter (delta method); NaN: not identifiable
  std::vector<double>
      log_standard_errors;  ///< of log(parameter): the 95 % interval is exp(±1.96 s)
  double rms = 0.0;         ///< root mean square residual at the fit
  int evaluations = 0;      ///< calls of the residual function, Jacobians included
  bool converged = false;
  std::string stop_reason;
};

/// Minimises sum(r_i^2) over parameters > 0 from `start` (each > 0). The fit works in log(p):
/// scale-free (a modulus in Pa and a ratio fit alike) and every trial point positive. The
/// Jacobian is taken by forward differences of relative step `relative_step` (1e-4: well above
/// the round-off of a double-precision run, well below the curvature's scale). Stops after
/// `max_evaluations` calls at the latest.
LeastSquaresResult fit_positive_parameters(const ResidualFunction& residuals,
                                           const std::vector<double>& start,
                                           std::size_t num_residuals, int max_evaluations,
                                           double relative_step = 1e-4);

}  // namespace fem::cli
