// An explicit problem spread over the processes of a communicator: each runs its part of the
// mesh on its backend, the halo exchange keeps its ghost nodes current after every step, and
// every query (state, forces, element results) is answered in the global numbering, gathered
// from the parts that own the nodes and elements. The solvers use it as one ExplicitProblem;
// every call is collective (all ranks make the same calls in the same order).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fem/backend.hpp"
#include "fem/parallel/communicator.hpp"
#include "fem/parallel/partition.hpp"

namespace fem::parallel {

/// The partition and halo, as the log and summary.json report them.
struct PartitionReport {
  int ranks = 1;
  double imbalance = 1.0;
  std::int64_t edge_cut = 0;
  std::int64_t shared_nodes = 0;
  /// Largest over ranks: part nodes, ghost nodes, part elements (owned and ghost), and the
  /// displacements one rank sends per step (bytes, double).
  std::int64_t max_part_nodes = 0, max_ghost_nodes = 0, max_part_elements = 0;
  std::int64_t max_halo_bytes = 0;
  /// This rank's time in the halo exchange and the agreement on failed steps (waits for slower
  /// ranks included); with a direct halo, the device's time in the exchange (halo_s) and the
  /// host's in the agreement.
  double exchange_s = 0.0;
  /// How the halo travels: "GPU to GPU (CUDA IPC)" or "host memory (MPI)".
  std::string halo_path = "host memory (MPI)";
};

/// How a run may exchange its halo (FEM_HALO): GPU to GPU where every part can (auto, the
/// default), always through host memory (host), or GPU to GPU or an error (device).
enum class HaloChoice { Auto, Host, Device };
/// FEM_HALO's value; an error naming the variable for anything else.
HaloChoice halo_choice_from_environment();
/// FEM_HALO_OVERLAP: whether a part computes the elements its halo needs first, so that a backend
/// that can exchanges while it computes the rest (on, the default) or not (off); an error naming
/// the variable for anything else.
bool halo_overlap_from_environment();

class PartitionedProblem final : public ExplicitProblem {
 public:
  /// Partitions `global` (which every rank holds, and which must outlive this) over `comm`, and
  /// creates this rank's part on `backend`.
  PartitionedProblem(const System& global, Backend& backend, Precision precision,
                     Communicator& comm);
  ~PartitionedProblem() override;

  AdvanceResult advance(std::int64_t first_step, std::int64_t num_steps) override;
  AdvanceResult advance_measured(std::int64_t first_step, std::int64_t num_steps,
                                 StepNorms& norms) override;
  AdvanceResult advance_step(std::int64_t step, bool keep_forces, StepNorms* norms) override;
  void set_node_update(const NodeUpdate& update) override;
  void displacement(std::vector<double>& u) const override;
  void previous_displacement(std::vector<double>& u) const override;
  void set_displacement(const std::vector<double>& u, const std::vector<double>& u_prev) override;
  void material_state(std::size_t block, std::vector<double>& state) const override;
  void set_material_state(std::size_t block, const std::vector<double>& state) override;
  void nodal_displacements(const std::vector<std::int32_t>& nodes, std::vector<double>& u,
                           std::vector<double>& u_prev) const override;
  void set_nodal_displacements(const std::vector<std::int32_t>& nodes,
                               const std::vector<double>& u) override;
  void set_nodal_loads(const std::vector<std::int32_t>& nodes,
                       const std::vector<double>& forces) override;
  void nodal_internal_forces(const std::vector<std::int32_t>& nodes,
                             std::vector<double>& forces) const override;
  void internal_forces(const std::vector<double>& u, std::vector<double>& forces) override;
  void element_results(const std::vector<double>& u, std::vector<BlockResults>& out) override;
  void element_energies(const std::vector<double>& u, std::vector<BlockResults>& out) override;
  [[nodiscard]] PhaseTimes phase_times() const override;
  [[nodiscard]] std::size_t memory_bytes() const override;

  [[nodiscard]] const PartitionReport& report() const { return report_; }
  [[nodiscard]] const LocalPart& part() const { return part_; }
  [[nodiscard]] const MeshPartition& partition() const { return partition_; }

 private:
  /// element_results (fields) or element_energies of the part, gathered in the global order.
  void gather_element_results(const std::vector<double>& u, std::vector<BlockResults>& out,
                              bool fields);
  /// Global per-node values (`per` per node) from each rank's owned nodes.
  [[nodiscard]] std::vector<double> gather_nodes(const std::vector<double>& part_values,
                                                 std::size_t per) const;
  /// Values at the given global nodes (`per` per node, in list order), each from its owner:
  /// `local` answers for this rank's owned nodes among them (part-local ids, in list order).
  template <class Local>
  [[nodiscard]] std::vector<double> gather_listed(const std::vector<std::int32_t>& nodes,
                                                  std::size_t per, const Local& local) const;
  /// Of the given global nodes and their values (3 per node), those this part holds (owned or
  /// ghost), in part-local ids: what set_nodal_displacements and set_nodal_loads pass on.
  void held_nodes(const std::vector<std::int32_t>& nodes, const std::vector<double>& values,
                  std::vector<std::int32_t>& local_nodes, std::vector<double>& local_values) const;
  /// A global per-node vector restricted to this part's nodes.
  [[nodiscard]] std::vector<double> to_part(const std::vector<double>& global,
                                            std::size_t per) const;
  /// Connects the parts' direct halo where `choice` allows it and every part can; every rank
  /// agrees on the outcome.
  void setup_direct_halo(HaloChoice choice);
  void exchange_halo();
  /// Steps with a halo exchange after each and one agreement of the ranks at the end (the
  /// earliest failed step stops all). keep_last: the last step keeps P(u_n); norms: the last
  /// step is measured (the one before it keeps), and the ranks' norms are combined.
  AdvanceResult run_steps(std::int64_t first_step, std::int64_t num_steps, bool keep_last,
                          StepNorms* norms);
  /// The ranks' norms: maxima of maxima, sums of sums.
  void combine(StepNorms& norms) const;

  const System& global_;
  Communicator& comm_;
  MeshPartition partition_;
  LocalPart part_;
  System part_system_;
  std::unique_ptr<ExplicitProblem> part_problem_;
  std::vector<std::int32_t> owned_;  ///< part-local ids of the owned nodes, ascending
  /// Global node of each entry of the rank-ordered concatenation of owned nodes.
  std::vector<std::int32_t> node_order_;
  /// Per block: global block-local element of each entry of the rank-ordered concatenation of
  /// owned elements.
  std::vector<std::vector<std::int64_t>> element_order_;
  double steps_wall_s_ = 0.0;    ///< wall time of the steps, exchanges and agreements included
  bool direct_halo_ = false;     ///< the halo goes device to device (setup_direct_halo)
  std::uint64_t exchanges_ = 0;  ///< halo exchanges so far (the direct halo's buffer parity)
  PartitionReport report_;
};

}  // namespace fem::parallel
