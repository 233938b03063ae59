#include "least_squares.hpp"

#include <Eigen/Dense>
#include <unsupported/Eigen/LevenbergMarquardt>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace fem::cli {

namespace {

/// The residuals as a function of x = log(p / start), for Eigen's Levenberg-Marquardt.
struct LogResiduals : Eigen::DenseFunctor<double> {
  LogResiduals(const ResidualFunction& f, const std::vector<double>& start, std::size_t m,
               int max_evaluations, double step)
      : DenseFunctor<double>(static_cast<int>(start.size()), static_cast<int>(m)),
        f_(f),
        start_(start),
        max_evaluations_(max_evaluations),
        step_(step) {}

  std::vector<double> parameters(const Eigen::VectorXd& x) const {
    std::vector<double> p(start_.size());
    for (std::size_t i = 0; i < p.size(); ++i) p[i] = start_[i] * std::exp(x[static_cast<int>(i)]);
    return p;
  }

  /// One evaluation; a failed one gets `penalty_` in every residual. Negative: stop (Eigen's
  /// UserAsked), when the evaluations are used up.
  int operator()(const Eigen::VectorXd& x, Eigen::VectorXd& fvec) {
    if (evaluations_ >= max_evaluations_) return -1;
    ++evaluations_;
    const std::vector<double> p = parameters(x);
    std::vector<double> r(static_cast<std::size_t>(values()), 0.0);
    const bool ok = f_(p, r);
    fvec.resize(values());
    double ssr = 0.0;
    for (int i = 0; i < values(); ++i) {
      fvec[i] = ok && std::isfinite(r[static_cast<std::size_t>(i)]) ? r[static_cast<std::size_t>(i)]
                                                                    : penalty_;
      ssr += fvec[i] * fvec[i];
    }
    if (penalty_ == 0.0)  // the start: a failure from here on costs 1000 x its residuals
      penalty_ = ok ? 1e3 * (std::sqrt(ssr / values()) + 1e-300) : 1.0;
    if (ok && ssr < best_ssr_) {
      best_ssr_ = ssr;
      best_x_ = x;
    }
    last_x_ = x;
    last_f_ = fvec;
    return 0;
  }

  int df(const Eigen::VectorXd& x, Eigen::MatrixXd& fjac) {
    // Eigen asks for the Jacobian at the point it has just evaluated: one run fewer per step.
    Eigen::VectorXd f0, f1;
    if (last_x_.size() == x.size() && last_x_ == x)
      f0 = last_f_;
    else if ((*this)(x, f0) < 0)
      return -1;
    fjac.resize(values(), inputs());
    for (int j = 0; j < inputs(); ++j) {
      Eigen::VectorXd xj = x;
      xj[j] += step_;  // log step: a relative step of the parameter
      if ((*this)(xj, f1) < 0) return -1;
      fjac.col(j) = (f1 - f0) / step_;
    }
    return 0;
  }

  const ResidualFunction& f_;
  std::vector<double> start_;
  int max_evaluations_;
  double step_;
  int evaluations_ = 0;
  double penalty_ = 0.0;
  double best_ssr_ = std::numeric_limits<double>::infinity();
  Eigen::VectorXd best_x_;
  Eigen::VectorXd last_x_, last_f_;  ///< the latest evaluation
};

const char* stop_text(Eigen::LevenbergMarquardtSpace::Status s) {
  using namespace Eigen::LevenbergMarquardtSpace;
  switch (s) {
    case RelativeReductionTooSmall:
      return "the residual stopped decreasing";
    case RelativeErrorTooSmall:
      return "the parameters stopped changing";
    case RelativeErrorAndReductionTooSmall:
      return "the residual and the parameters stopped changing";
    case CosinusTooSmall:
      return "the residual is orthogonal to the Jacobian (a minimum)";
    case TooManyFunctionEvaluation:
    case UserAsked:
      return "the evaluations were used up";
    case FtolTooSmall:
    case XtolTooSmall:
    case GtolTooSmall:
      return "no further reduction is possible at this precision";
    default:
      return "improper input";
  }
}

}  // namespace

LeastSquaresResult fit_positive_parameters(const ResidualFunction& residuals,
                                           const std::vector<double>& start,
                                           std::size_t num_residuals, int max_evaluations,
                                           double relative_step) {
  for (const double p : start)
    if (!(p > 0.0 && std::isfinite(p)))
      throw std::invalid_argument("fit_positive_parameters: every start value must be > 0");
  if (num_residuals < start.size())
    throw std::invalid_argument("fit_positive_parameters: fewer residuals than parameters");
  LogResiduals functor(residuals, start, num_residuals, max_evaluations, relative_step);
  Eigen::LevenbergMarquardt<LogResiduals> lm(functor);
  // Tolerances of the log-parameters and the sum of squares: 1e-8 relative is far below what a
  // measured curve determines, and well above the noise of the finite differences.
  lm.setXtol(1e-8);
  lm.setFtol(1e-10);
  lm.setMaxfev(max_evaluations);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(static_cast<int>(start.size()));
  const Eigen::LevenbergMarquardtSpace::Status status = lm.minimize(x);

  LeastSquaresResult result;
  result.stop_reason = stop_text(status);
  result.converged = status == Eigen::LevenbergMarquardtSpace::RelativeReductionTooSmall ||
                     status == Eigen::LevenbergMarquardtSpace::RelativeErrorTooSmall ||
                     status == Eigen::LevenbergMarquardtSpace::RelativeErrorAndReductionTooSmall ||
                     status == Eigen::LevenbergMarquardtSpace::CosinusTooSmall ||
                     status == Eigen::LevenbergMarquardtSpace::FtolTooSmall ||
                     status == Eigen::LevenbergMarquardtSpace::XtolTooSmall ||
                     status == Eigen::LevenbergMarquardtSpace::GtolTooSmall;
  const Eigen::VectorXd best = functor.best_x_.size() > 0 ? functor.best_x_ : x;
  result.parameters = functor.parameters(best);
  const std::size_t n = start.size();
  result.standard_errors.assign(n, std::numeric_limits<double>::quiet_NaN());
  result.log_standard_errors = result.standard_errors;
  if (!std::isfinite(functor.best_ssr_)) {
    result.converged = false;
    result.evaluations = functor.evaluations_;
    result.rms = std::numeric_limits<double>::quiet_NaN();
    return result;
  }
  result.rms = std::sqrt(functor.best_ssr_ / static_cast<double>(num_residuals));
  // Standard errors: s^2 (J^T J)^-1 at the fit, J by forward differences in log(p) (n more
  // evaluations beyond the limit: the fit is done, this is its report).
  functor.max_evaluations_ = functor.evaluations_ + static_cast<int>(n) + 1;
  Eigen::MatrixXd jac;
  if (functor.df(best, jac) == 0) {
    const Eigen::MatrixXd normal = jac.transpose() * jac;
    const Eigen::FullPivLU<Eigen::MatrixXd> lu(normal);
    if (lu.rank() == static_cast<Eigen::Index>(n)) {
      const double dof = static_cast<double>(num_residuals) > static_cast<double>(n)
                             ? static_cast<double>(num_residuals - n)
                             : 1.0;
      const Eigen::MatrixXd covariance = (functor.best_ssr_ / dof) * lu.inverse();
      for (std::size_t i = 0; i < n; ++i) {
        const double s =
            std::sqrt(std::max(0.0, covariance(static_cast<int>(i), static_cast<int>(i))));
        result.log_standard_errors[i] = s;
        result.standard_errors[i] = result.parameters[i] * s;
      }
    }
  }
  result.evaluations = functor.evaluations_;
  return result;
}

}  // namespace fem::cli
