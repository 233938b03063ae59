// The explicit elastodynamic solver (seed 002, Pogo; docs/waves.md): linear small-strain waves,
// the stiffness precomputed once, each step one fused pass of the backend's wave_step verb in
// increment form
//   v_{n+1/2} = a (F_n - K u_n) + b v_{n-1/2},   u_{n+1} = u_n + v_{n+1/2}
// (a = 2 dt^2 / (m (2 + d dt)), b = (2 - d dt) / (2 + d dt), d the mass-proportional damping
// of the node), the same central difference as seed 002's eq. 4 with fewer digits lost in single
// precision. Sources are the case's loads (force) and prescribed displacements; receivers are
// sampled on the device and written as CSV and/or HDF5.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fem/backend.hpp"
#include "fem/model.hpp"
#include "fem/operator.hpp"
#include "fem/solver/explicit_system.hpp"
#include "fem/solver/wave_setup.hpp"

namespace fem {

namespace parallel {
class Communicator;
}

/// A source: positions (dofs) of one mode and one amplitude curve, with their weights.
struct WaveSource {
  SourceMode mode = SourceMode::Force;
  std::int32_t amplitude = 0;  ///< index into System::amplitudes
  std::vector<std::int64_t> dofs;
  std::vector<double> weights;  ///< Force: a * F (a m of displacement per N); Displacement: m
};

/// Everything precomputed before the first step, in double on the host.
struct WaveSetup {
  /// Masses and conditions (System); the blocks' reference geometry only where frames ask for
  /// element results (dropped once K is assembled otherwise).
  ExplicitSetup explicit_setup;
  std::vector<ElasticTangent> tangents;  ///< per block
  std::vector<double> wave_speeds;       ///< per block, the largest P-wave speed, m/s
  /// -a K per node row without the diagonal blocks (wave_step); rows of prescribed dofs zero
  BlockCsrMatrix matrix;
  std::vector<double> b;        ///< per node
  std::vector<double> damping;  ///< per node, 1/s (mass_damping + absorbing layers)
  StabilityLimit limit;
  double time_step = 0.0;
  std::int64_t num_steps = 0;
  std::vector<WaveSource> sources;
  /// 3, or 2 on a plane-strain mesh (tri3, quad4): the step's vectors and matrix blocks hold x
  /// and y only (2x2 blocks: 2.25 times fewer matrix bytes than 3x3 blocks with zero z rows).
  int dofs_per_node = 3;
  std::vector<double> initial_displacement;  ///< u_0, dofs_per_node per node
  std::vector<double> initial_increment;     ///< v_{-1/2} = dt v_0
  std::int64_t free_dofs = 0;
  double setup_s = 0.0;
};

/// Precomputes a wave run. Throws InputError for what the solver refuses (an element family
/// other than isoparametric, a material without a wave speed, a time step above the stability
/// limit), naming the limit and the element that sets it.
WaveSetup setup_waves(const Model& model, Backend& backend);

/// Bytes one step moves at least, the seed's Table A.5 way: the matrix (values, block columns,
/// row offsets), u read once, v read and written, u_next written, b read (`value_bytes` 4 or 8).
double wave_step_bytes(const BlockCsrMatrix& m, int value_bytes);

struct WaveRunOptions {
  std::string output_directory;  ///< empty: no files (benchmarks, tests)
  /// Keep every receiver sample in the report (tests): traces[r][sample][quantity][node][3].
  bool keep_traces = false;
  /// Called every few hundred steps and at the end: (step, num_steps, time).
  std::function<void(std::int64_t, std::int64_t, double)> progress;
  std::function<bool()> stop_requested;
  /// Steps after which the stepping loop's wall time so far is recorded (laps, increasing):
  /// fem bench times its repeats with them.
  std::vector<std::int64_t> lap_steps;
  /// Steps to run instead of the case's (0: the case's, to solver.end_time).
  std::int64_t steps = 0;
};

struct WaveRunReport {
  std::int64_t steps = 0;
  double time_step = 0.0;
  double critical_time_step = 0.0;
  double end_time = 0.0;
  std::int64_t num_nodes = 0, num_elements = 0, dofs = 0, matrix_blocks = 0;
  std::string backend, execution_space, precision;
  double setup_s = 0.0;   ///< precompute and upload
  double step_s = 0.0;    ///< the stepping loop (steps, sources, receiver sampling)
  double output_s = 0.0;  ///< frames and trace files
  double total_s = 0.0;
  double bytes_per_step = 0.0;
  [[nodiscard]] double dof_updates_per_second() const {
    return step_s > 0 ? static_cast<double>(dofs) * static_cast<double>(steps) / step_s : 0.0;
  }
  [[nodiscard]] double effective_bandwidth() const {  ///< bytes/s
    return step_s > 0 ? bytes_per_step * static_cast<double>(steps) / step_s : 0.0;
  }
  double max_displacement = 0.0;           ///< m, at the last step
  std::vector<double> final_displacement;  ///< every node's, on every rank
  int ranks = 1;
  double exchange_s = 0.0;                  ///< rank 0's halo exchanges (in step_s)
  std::vector<std::vector<double>> traces;  ///< keep_traces: per receiver
  std::vector<std::vector<double>> trace_times;
  std::vector<std::string> files;
  std::vector<double> lap_seconds;  ///< at WaveRunOptions::lap_steps
  bool interrupted = false;
};

class WaveSolver {
 public:
  /// With `comm` of more than one rank, each rank steps its part of the mesh (every rank sets
  /// up the whole model, then run() partitions it: docs/parallel.md).
  WaveSolver(const Model& model, Backend& backend, std::string backend_name,
             parallel::Communicator* comm = nullptr);
  /// With a setup made by setup_waves() and changed by the caller (an initial state that no
  /// case key gives, such as a mode shape in a test).
  WaveSolver(const Model& model, Backend& backend, std::string backend_name, WaveSetup setup,
             parallel::Communicator* comm = nullptr);
  [[nodiscard]] const WaveSetup& setup() const { return setup_; }
  /// Runs the case. Once per solver: the host copy of the matrix is freed after its upload.
  WaveRunReport run(const WaveRunOptions& options);

 private:
  const Model& model_;
  Backend& backend_;
  std::string backend_name_;
  WaveSetup setup_;
  parallel::Communicator* comm_;  ///< null on one process
};

}  // namespace fem
