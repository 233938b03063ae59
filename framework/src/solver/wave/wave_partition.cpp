#include "wave_partition.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "../../parallel/pick.hpp"
#include "../wall_clock.hpp"
#include "fem/error.hpp"

namespace fem {
namespace {

/// Positions (dofs) of the listed part nodes, `dim` each, neighbour after neighbour.
std::vector<std::int64_t> node_dofs(const std::vector<std::vector<std::int32_t>>& lists, int dim,
                                    std::vector<std::size_t>& counts) {
  std::vector<std::int64_t> dofs;
  counts.clear();
  for (const std::vector<std::int32_t>& list : lists) {
    for (const std::int32_t n : list)
      for (int c = 0; c < dim; ++c) dofs.push_back(dim * static_cast<std::int64_t>(n) + c);
    counts.push_back(list.size() * static_cast<std::size_t>(dim));
  }
  return dofs;
}

}  // namespace

WavePart partition_waves(WaveSetup& global, parallel::Communicator& comm) {
  const System& sys = global.explicit_setup.system;
  WavePart w;
  w.partition = parallel::partition_elements(sys, comm.size());
  w.part = parallel::distribute(sys, w.partition, comm);
  const parallel::LocalPart& part = w.part;
  const int dim = global.dofs_per_node;
  const auto local_nodes = static_cast<std::int64_t>(part.nodes.size());
  std::vector<std::int32_t> to_local(static_cast<std::size_t>(sys.num_nodes), -1);
  for (std::int64_t i = 0; i < local_nodes; ++i) to_local[part.nodes[i]] = static_cast<int>(i);

  // The owned rows, their columns renumbered: the part keeps the global order, so each row's
  // sum runs over the same terms in the same order as on one process.
  const BlockCsrMatrix& k = global.matrix;
  BlockCsrMatrix& m = w.matrix;
  const std::int64_t bs2 = static_cast<std::int64_t>(k.block_size) * k.block_size;
  m.block_size = k.block_size;
  m.rows = local_nodes;
  m.offsets.assign(static_cast<std::size_t>(local_nodes + 1), 0);
  for (std::int64_t i = 0; i < local_nodes; ++i) {
    const std::int32_t g = part.nodes[i];
    m.offsets[i + 1] = m.offsets[i] + (part.ghost[i] ? 0 : k.offsets[g + 1] - k.offsets[g]);
  }
  m.columns.resize(static_cast<std::size_t>(m.offsets[local_nodes]));
  m.values.resize(static_cast<std::size_t>(bs2) * m.columns.size());
  for (std::int64_t i = 0; i < local_nodes; ++i) {
    if (part.ghost[i]) continue;
    const std::int32_t g = part.nodes[i];
    std::int64_t p = m.offsets[i];
    for (std::int64_t j = k.offsets[g]; j < k.offsets[g + 1]; ++j, ++p) {
      const std::int32_t column = to_local[k.columns[j]];
      if (column < 0)
        throw InternalError("wave partition: node " + std::to_string(g) + " of part " +
                            std::to_string(part.rank) + " reads node " +
                            std::to_string(k.columns[j]) + ", which the part does not hold");
      m.columns[p] = column;
      std::copy_n(k.values.begin() + bs2 * j, bs2, m.values.begin() + bs2 * p);
    }
  }
  global.matrix = BlockCsrMatrix{};

  using parallel::detail::pick;
  const auto per_node = static_cast<std::size_t>(dim);
  w.b = pick(global.b, part.nodes, 1);
  w.initial_displacement = pick(global.initial_displacement, part.nodes, per_node);
  w.initial_increment = pick(global.initial_increment, part.nodes, per_node);
  for (const WaveSource& s : global.sources) {
    WaveSource mine;
    mine.mode = s.mode;
    mine.amplitude = s.amplitude;
    for (std::size_t i = 0; i < s.dofs.size(); ++i) {
      const std::int32_t local = to_local[s.dofs[i] / dim];
      if (local < 0 || part.ghost[local]) continue;
      mine.dofs.push_back(dim * static_cast<std::int64_t>(local) + s.dofs[i] % dim);
      mine.weights.push_back(s.weights[i]);
    }
    if (!mine.dofs.empty()) w.sources.push_back(std::move(mine));
  }
  return w;
}

WaveHalo::WaveHalo(const parallel::LocalPart& part, int dofs_per_node, LinearAlgebra& algebra,
                   parallel::Communicator& comm)
    : comm_(comm), algebra_(algebra), neighbours_(part.neighbours) {
  send_dofs_ = node_dofs(part.send_nodes, dofs_per_node, send_counts_);
  receive_dofs_ = node_dofs(part.receive_nodes, dofs_per_node, receive_counts_);
  if (!send_dofs_.empty()) {
    send_at_ = algebra.indices(send_dofs_);
    send_values_ = algebra.vector(static_cast<std::int64_t>(send_dofs_.size()));
  }
  if (!receive_dofs_.empty()) {
    receive_at_ = algebra.indices(receive_dofs_);
    receive_values_ = algebra.vector(static_cast<std::int64_t>(receive_dofs_.size()));
  }
  send_host_.resize(send_dofs_.size());
  receive_host_.resize(receive_dofs_.size());
}

WaveHalo::~WaveHalo() = default;

void WaveHalo::exchange_host() {
  std::vector<std::pair<const void*, std::size_t>> send;
  std::vector<std::pair<void*, std::size_t>> receive;
  std::size_t s = 0, r = 0;
  for (std::size_t i = 0; i < neighbours_.size(); ++i) {
    send.emplace_back(send_host_.data() + s, send_counts_[i] * sizeof(double));
    receive.emplace_back(receive_host_.data() + r, receive_counts_[i] * sizeof(double));
    s += send_counts_[i];
    r += receive_counts_[i];
  }
  comm_.exchange_bytes(neighbours_, send, receive);
}

void WaveHalo::exchange(const Vector& u_old, Vector& v, Vector& u) {
  const Clock::time_point start = Clock::now();
  if (send_at_) {
    algebra_.gather(u, *send_at_, *send_values_, 0);
    algebra_.download(*send_values_, send_host_);  // waits for the step
  }
  exchange_host();
  if (receive_at_) {
    algebra_.upload(receive_host_, *receive_values_);
    // A prescribed displacement of 1 x the owner's value: u = value, v = u - u_old (exact in
    // either precision: the values crossed as doubles converted from the run's precision).
    algebra_.wave_source(*receive_at_, *receive_values_, 1.0, SourceMode::Displacement, u_old, v,
                         u);
  }
  seconds_ += seconds_since(start);
}

void WaveHalo::exchange(std::vector<double>& values) {
  for (std::size_t k = 0; k < send_dofs_.size(); ++k)
    send_host_[k] = values[static_cast<std::size_t>(send_dofs_[k])];
  exchange_host();
  for (std::size_t k = 0; k < receive_dofs_.size(); ++k)
    values[static_cast<std::size_t>(receive_dofs_[k])] = receive_host_[k];
}

}  // namespace fem
