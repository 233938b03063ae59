#include "operators.hpp"

#include <string>

#include <fem/error.hpp>

#include "linear_algebra.hpp"
#include "nonlinear_operator.hpp"

namespace fem::kokkos {
namespace {

template <class Space>
std::unique_ptr<LinearAlgebra> linear_algebra_on(Precision precision) {
  if (precision == Precision::Single) return std::make_unique<LinearAlgebraImpl<Space, float>>();
  return std::make_unique<LinearAlgebraImpl<Space, double>>();
}

template <class Space>
std::unique_ptr<NonlinearOperator> nonlinear_operator_on(const System& system,
                                                         LinearAlgebra& algebra) {
  if (auto* single = dynamic_cast<LinearAlgebraImpl<Space, float>*>(&algebra))
    return std::make_unique<NonlinearOperatorImpl<Space, float>>(system, *single);
  if (auto* dbl = dynamic_cast<LinearAlgebraImpl<Space, double>*>(&algebra))
    return std::make_unique<NonlinearOperatorImpl<Space, double>>(system, *dbl);
  throw Error(std::string("kokkos backend: the operator's vectors must come from this backend, "
                          "on the execution space it runs on (") +
              Space::name() + ")");
}

}  // namespace

std::unique_ptr<LinearAlgebra> make_linear_algebra(bool on_host, Precision precision) {
  if constexpr (kSeparateHostSpace)
    if (on_host) return linear_algebra_on<HostSpace>(precision);
  (void)on_host;
  return linear_algebra_on<DeviceSpace>(precision);
}

std::unique_ptr<NonlinearOperator> make_nonlinear_operator(bool on_host, const System& system,
                                                           LinearAlgebra& algebra) {
  if constexpr (kSeparateHostSpace)
    if (on_host) return nonlinear_operator_on<HostSpace>(system, algebra);
  (void)on_host;
  return nonlinear_operator_on<DeviceSpace>(system, algebra);
}

}  // namespace fem::kokkos
