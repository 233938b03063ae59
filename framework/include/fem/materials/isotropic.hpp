// Reading isotropic elastic constants in whichever pair the user knows.
//
// Accepted pairs: youngs_modulus + poisson_ratio, shear_modulus + bulk_modulus,
// lame_lambda + shear_modulus, or p_wave_speed + s_wave_speed (m/s, with the material's density:
// mu = rho c_s^2, lambda = rho c_p^2 - 2 mu, as seismic models give rocks). Exactly one pair; the
// result is checked for physical admissibility (shear and bulk modulus positive, Poisson's ratio in
// (-1, 0.5)).
#pragma once

#include <string>

#include "fem/config.hpp"
#include "fem/param_reader.hpp"

namespace fem {

struct IsotropicConstants {
  double lambda = 0.0;
  double mu = 0.0;
  [[nodiscard]] double bulk() const { return lambda + 2.0 * mu / 3.0; }
};

inline IsotropicConstants read_isotropic_constants(ParamReader& in) {
  const bool has_e = in.has("youngs_modulus");
  const bool has_nu = in.has("poisson_ratio");
  const bool has_mu = in.has("shear_modulus");
  const bool has_k = in.has("bulk_modulus");
  const bool has_lambda = in.has("lame_lambda");
  const bool has_speeds = in.has("p_wave_speed") || in.has("s_wave_speed");
  const int pairs =
      (has_e || has_nu) + (has_k || (has_mu && !has_lambda)) + has_lambda + has_speeds;
  const std::string hint =
      "give exactly one pair: youngs_modulus + poisson_ratio, shear_modulus + bulk_modulus, "
      "lame_lambda + shear_modulus, or p_wave_speed + s_wave_speed";
  if (pairs != 1 || (has_e && has_mu))
    in.fail_here("elastic constants are ambiguous or missing", hint);

  IsotropicConstants c;
  if (has_speeds) {
    const double cp = in.number("p_wave_speed");
    const double cs = in.number("s_wave_speed");
    in.require_positive("s_wave_speed", cs);
    if (!(cp * cp > 4.0 / 3.0 * cs * cs))
      in.fail("p_wave_speed",
              "p_wave_speed must exceed sqrt(4/3) s_wave_speed (a positive bulk modulus)");
    const double rho = in.number("density", 1000.0);
    c.mu = rho * cs * cs;
    c.lambda = rho * cp * cp - 2.0 * c.mu;
  } else if (has_e || has_nu) {
    const double E = in.number("youngs_modulus");
    const double nu = in.number("poisson_ratio");
    in.require_positive("youngs_modulus", E);
    in.require_range("poisson_ratio", nu, -1.0, 0.5, false, false);
    c.mu = E / (2.0 * (1.0 + nu));
    c.lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
  } else if (has_lambda) {
    c.lambda = in.number("lame_lambda");
    c.mu = in.number("shear_modulus");
    in.require_positive("shear_modulus", c.mu);
    if (c.lambda + 2.0 * c.mu / 3.0 <= 0.0)
      in.fail("lame_lambda", "bulk modulus lame_lambda + 2/3 shear_modulus must be > 0");
  } else {
    c.mu = in.number("shear_modulus");
    const double K = in.number("bulk_modulus");
    in.require_positive("shear_modulus", c.mu);
    in.require_positive("bulk_modulus", K);
    c.lambda = K - 2.0 * c.mu / 3.0;
  }
  return c;
}

/// Parameter handling shared by laws written in the Lame constants: params = {lambda, mu}.
/// A material class derives from it and adds stress() and strain_energy().
struct LameParameters {
  static constexpr int num_params = 2;
  static constexpr const char* param_names[num_params] = {"lame_lambda", "shear_modulus"};
  static void parse(ParamReader& in, double* p) {
    const IsotropicConstants c = read_isotropic_constants(in);
    p[0] = c.lambda;
    p[1] = c.mu;
  }
  static double dilatational_modulus(const double* p) { return lambda(p) + 2.0 * mu(p); }
  /// The parameters by name, in the order parse() writes them (laws read them through these).
  template <class T>
  FEM_HD static T lambda(const T* p) {
    return p[0];
  }
  template <class T>
  FEM_HD static T mu(const T* p) {
    return p[1];
  }
};

}  // namespace fem
