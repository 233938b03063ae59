// Follower pressures in explicit dynamics and dynamic relaxation.
//
// A backend's fused step knows external forces only as per-dof values times curves of time. A
// follower pressure acts on the deformed faces (its direction and area change with the body), so
// before every step the host reads the displacement of the loaded faces' nodes, integrates the
// pressure over the faces at X + u_n (fem/pressure_surface.hpp, the same forces the implicit
// solvers apply) and sets them, with any dead load of those nodes, as the nodes' loads
// (ExplicitProblem::set_nodal_loads). Everything else the step does (contact, the relaxation's
// residual and norms, reactions) then sees the pressure as it sees any load.
//
// Why on the host: the faces are a few per cent of the nodes, the same code serves every backend
// and every rank count (the forces depend only on u at the faces' nodes, which every rank count
// gives to the bit), and the face integration stays written once. The price is a copy of those
// nodes' displacement off the device and of their forces back at every step (its measured cost:
// docs/performance.md).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "fem/amplitude.hpp"
#include "fem/backend.hpp"
#include "fem/config.hpp"
#include "fem/pressure_surface.hpp"

namespace fem {

/// What the host needs to set the follower loads, taken out of a System.
struct FollowerPressureLoads {
  std::vector<std::int32_t> nodes;        ///< the loaded faces' nodes, ascending
  std::vector<PressureSurface> surfaces;  ///< their faces numbered by position in `nodes`
  std::vector<double> coordinates;        ///< reference coordinates, 3 per entry of `nodes`
  /// Per dof of `nodes` (3 per node): the dead load the System had there, value times curve
  /// (curve < 0: none).
  std::vector<double> dead_value;
  std::vector<std::int32_t> dead_amplitude;
  std::vector<Amplitude> amplitudes;  ///< System::amplitudes
  double time_step = 0.0;             ///< step k evaluates the curves at k * time_step
};

/// Takes over the loads at the nodes of `system`'s follower pressures: their dofs get a constant
/// curve (appended to system.amplitudes) whose value the host sets before every step, and their
/// dead loads move into the result. Empty when the system has no follower pressure. Call before
/// a problem is made from `system`.
std::optional<FollowerPressureLoads> take_follower_pressures(System& system);

/// `inner`, with the loads of `loads` evaluated on the deformed faces and set before every step.
/// Each advance runs its steps one at a time (ExplicitProblem::advance_step), which gives the
/// same bits as the backend's own batches would with the same loads.
std::unique_ptr<ExplicitProblem> with_follower_pressures(std::unique_ptr<ExplicitProblem> inner,
                                                         FollowerPressureLoads loads);

/// The explicit problem `make` builds from `system` (the backend's own, or a part of a partitioned
/// mesh), with follower pressures set before every step when `system` has any
/// (take_follower_pressures changes `system` before `make` sees it).
std::unique_ptr<ExplicitProblem> create_explicit_problem(
    System& system, const std::function<std::unique_ptr<ExplicitProblem>(const System&)>& make);

}  // namespace fem
