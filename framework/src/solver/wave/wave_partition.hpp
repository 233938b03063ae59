// The elastodynamic solver on several processes (docs/parallel.md, "Waves on several ranks"):
// METIS splits the elements as for the explicit solver, each node has one owner, and each rank
// steps the matrix rows of its owned nodes; the nodes those rows read and another rank owns are
// its ghosts, brought up to date after every step by a halo exchange. A row's sum runs over its
// columns in the global order on any number of ranks, so a run gives the one-process bits.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "fem/operator.hpp"
#include "fem/parallel/communicator.hpp"
#include "fem/parallel/partition.hpp"
#include "fem/solver/wave_solver.hpp"

namespace fem {

/// One rank's share of a wave run, in the part's numbering (part.nodes: local node i is
/// global node nodes[i]); vectors hold dofs_per_node entries per local node.
struct WavePart {
  parallel::MeshPartition partition;
  parallel::LocalPart part;
  /// The step matrix's rows of the owned nodes, columns in part numbering (ascending, as in the
  /// global matrix); ghost rows empty: their values come from their owners.
  BlockCsrMatrix matrix;
  std::vector<double> b;  ///< per local node
  std::vector<double> initial_displacement, initial_increment;
  /// The sources at owned dofs (positions in the part's vectors); sources with none left out.
  std::vector<WaveSource> sources;
};

/// Partitions `global` (set up on every rank alike) over `comm` and takes this rank's share. The
/// global step matrix is freed (the part holds what this rank needs of it).
WavePart partition_waves(WaveSetup& global, parallel::Communicator& comm);

/// The halo of a wave part: after each step the ghost dofs take their owners' new values.
class WaveHalo {
 public:
  WaveHalo(const parallel::LocalPart& part, int dofs_per_node, LinearAlgebra& algebra,
           parallel::Communicator& comm);
  WaveHalo(const WaveHalo&) = delete;
  WaveHalo& operator=(const WaveHalo&) = delete;
  ~WaveHalo();

  /// After a step from u_old to u (and v its increment): u at ghost dofs takes the owners' u,
  /// v there becomes u - u_old. Through the host: gathered on the backend, downloaded,
  /// exchanged with the neighbours, uploaded and set.
  void exchange(const Vector& u_old, Vector& v, Vector& u);
  /// The same for host values (dofs_per_node per local node): ghost entries take the owners'.
  void exchange(std::vector<double>& values);

  [[nodiscard]] double seconds() const { return seconds_; }  ///< in exchange(u_old, v, u)
  /// Bytes this rank sends per exchange, as values of the run's precision.
  [[nodiscard]] std::int64_t send_bytes(int value_bytes) const {
    return value_bytes * static_cast<std::int64_t>(send_dofs_.size());
  }

 private:
  void exchange_host();

  parallel::Communicator& comm_;
  LinearAlgebra& algebra_;
  std::vector<int> neighbours_;
  std::vector<std::int64_t> send_dofs_, receive_dofs_;     ///< part dofs, neighbour after neighbour
  std::vector<std::size_t> send_counts_, receive_counts_;  ///< per neighbour
  std::unique_ptr<Indices> send_at_, receive_at_;
  std::unique_ptr<Vector> send_values_, receive_values_;
  std::vector<double> send_host_, receive_host_;
  double seconds_ = 0.0;
};

}  // namespace fem
