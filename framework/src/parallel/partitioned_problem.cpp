#include "fem/parallel/partitioned_problem.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>

#include "../solver/wall_clock.hpp"
#include "fem/error.hpp"
#include "pick.hpp"

namespace fem::parallel {
namespace {

using detail::pick;

/// The rank-ordered concatenation of items by part: item i of part r comes after every item of
/// parts below r, items of one part ascending.
template <class Index>
std::vector<Index> order_by_part(const std::vector<std::int32_t>& part_of, std::size_t first,
                                 std::size_t count, int parts) {
  std::vector<std::size_t> start(static_cast<std::size_t>(parts) + 1, 0);
  for (std::size_t i = 0; i < count; ++i) ++start[part_of[first + i] + 1];
  for (int r = 0; r < parts; ++r) start[r + 1] += start[r];
  std::vector<Index> order(count);
  for (std::size_t i = 0; i < count; ++i)
    order[start[part_of[first + i]]++] = static_cast<Index>(i);
  return order;
}

/// Scatters gathered values (`per` per item, items in `order`'s sequence) to their places.
template <class Index>
void place(const std::vector<double>& gathered, const std::vector<Index>& order, std::size_t per,
           std::vector<double>& out) {
  if (gathered.empty()) {  // a field no part fills
    out.clear();
    return;
  }
  out.resize(order.size() * per);
  for (std::size_t i = 0; i < order.size(); ++i)
    std::copy_n(
        gathered.begin() + static_cast<std::ptrdiff_t>(i * per), per,
        out.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(order[i]) * per));
}

}  // namespace

PartitionedProblem::PartitionedProblem(const System& global, Backend& backend, Precision precision,
                                       Communicator& comm)
    : global_(global), comm_(comm) {
  partition_ = partition_elements(global, comm.size());
  part_ = distribute(global, partition_, comm);
  if (halo_overlap_from_environment()) order_halo_elements_first(global, part_);
  part_system_ = restrict_system(global, part_);
  part_problem_ = backend.create_explicit(part_system_, precision);

  for (std::size_t i = 0; i < part_.nodes.size(); ++i)
    if (!part_.ghost[i]) owned_.push_back(static_cast<std::int32_t>(i));
  node_order_ = order_by_part<std::int32_t>(
      partition_.node_owner, 0, static_cast<std::size_t>(global.num_nodes), comm.size());
  std::size_t first = 0;
  for (const BlockSystem& b : global.blocks) {
    element_order_.push_back(order_by_part<std::int64_t>(
        partition_.element_part, first, static_cast<std::size_t>(b.num_elements), comm.size()));
    first += static_cast<std::size_t>(b.num_elements);
  }
  // The backend packs and unpacks the halo as one list each, neighbour after neighbour.
  std::vector<std::int32_t> send_all, receive_all;
  for (std::size_t i = 0; i < part_.neighbours.size(); ++i) {
    send_all.insert(send_all.end(), part_.send_nodes[i].begin(), part_.send_nodes[i].end());
    receive_all.insert(receive_all.end(), part_.receive_nodes[i].begin(),
                       part_.receive_nodes[i].end());
  }
  part_problem_->set_halo(send_all, receive_all);
  setup_direct_halo(halo_choice_from_environment());

  report_.ranks = comm.size();
  report_.imbalance = partition_.imbalance;
  report_.edge_cut = partition_.edge_cut;
  report_.shared_nodes = partition_.shared_nodes;
  std::int64_t elements = 0;
  for (const auto& e : part_.elements) elements += static_cast<std::int64_t>(e.size());
  std::int64_t sizes[4] = {static_cast<std::int64_t>(part_.nodes.size()),
                           static_cast<std::int64_t>(part_.nodes.size() - owned_.size()), elements,
                           static_cast<std::int64_t>(send_all.size() * 3 * sizeof(double))};
  comm.all_reduce(sizes, 4, Reduction::Max);
  report_.max_part_nodes = sizes[0];
  report_.max_ghost_nodes = sizes[1];
  report_.max_part_elements = sizes[2];
  report_.max_halo_bytes = sizes[3];
}

PartitionedProblem::~PartitionedProblem() = default;

HaloChoice halo_choice_from_environment() {
  const char* value = std::getenv("FEM_HALO");
  const std::string v = value ? value : "";
  if (v.empty() || v == "auto") return HaloChoice::Auto;
  if (v == "host") return HaloChoice::Host;
  if (v == "device") return HaloChoice::Device;
  throw InputError({"FEM_HALO (environment)", 0, 0},
                   "'" + v + "' is not a way to exchange the halo",
                   "set FEM_HALO to auto (GPU to GPU where every rank can, the default), host "
                   "(through host memory and MPI) or device (GPU to GPU, or an error)");
}

bool halo_overlap_from_environment() {
  const char* value = std::getenv("FEM_HALO_OVERLAP");
  const std::string v = value ? value : "";
  if (v.empty() || v == "on") return true;
  if (v == "off") return false;
  throw InputError({"FEM_HALO_OVERLAP (environment)", 0, 0},
                   "'" + v + "' is not a choice of overlap",
                   "set FEM_HALO_OVERLAP to on (the halo's elements first, the exchange beside "
                   "the rest where the backend can, the default) or off (every element, then "
                   "the exchange)");
}

void PartitionedProblem::setup_direct_halo(HaloChoice choice) {
  if (comm_.size() == 1 || choice == HaloChoice::Host) return;
  std::vector<HaloLink> links;
  std::size_t sent = 0, received = 0;
  for (std::size_t i = 0; i < part_.neighbours.size(); ++i) {
    links.push_back({sent, part_.send_nodes[i].size(), received, part_.receive_nodes[i].size()});
    sent += part_.send_nodes[i].size();
    received += part_.receive_nodes[i].size();
  }
  // Every rank opens its end, the ranks agree, then each connects to its neighbours' ends and
  // they agree again: the halo goes device to device on every rank or on none.
  std::vector<std::vector<char>> mine;
  const bool opened = part_problem_->open_direct_halo(links, mine);
  const auto everywhere = [&](bool ok) {
    return comm_.all_reduce(ok ? 1.0 : 0.0, Reduction::Min) > 0.5;
  };
  bool connected = false;
  if (everywhere(opened && mine.size() == links.size())) {
    std::vector<std::vector<std::int64_t>> my_sizes, their_sizes(links.size(), {0});
    for (const auto& bytes : mine) my_sizes.push_back({static_cast<std::int64_t>(bytes.size())});
    comm_.exchange(part_.neighbours, my_sizes, their_sizes);
    std::vector<std::vector<char>> theirs;
    for (const auto& size : their_sizes) theirs.emplace_back(static_cast<std::size_t>(size[0]));
    comm_.exchange(part_.neighbours, mine, theirs);
    connected = everywhere(part_problem_->connect_direct_halo(theirs));
  }
  if (connected) {
    direct_halo_ = true;
    report_.halo_path = part_problem_->direct_halo_path();
    return;
  }
  // A part that connected while another could not exchanges through the host like the rest.
  part_problem_->close_direct_halo();
  if (choice == HaloChoice::Device)
    throw InputError({"FEM_HALO (environment)", 0, 0},
                     "'device' asks for the halo GPU to GPU, but it cannot go that way on every "
                     "rank (the backend has no direct exchange, or ranks are on different hosts "
                     "or on GPUs without peer access)",
                     "unset FEM_HALO (or set it to auto) to exchange through host memory where "
                     "it cannot go GPU to GPU");
}

void PartitionedProblem::exchange_halo() {
  if (direct_halo_) {
    // The device copies queue on each part's stream; the handshake tells each neighbour that
    // the copy it will wait for is queued (its event recorded), and which exchange it is.
    part_problem_->send_direct_halo(exchanges_);
    const std::size_t n = part_.neighbours.size();
    const std::vector<std::vector<std::uint64_t>> sent(n, {exchanges_});
    std::vector<std::vector<std::uint64_t>> heard(n, {0});
    comm_.exchange(part_.neighbours, sent, heard);
    for (const auto& h : heard)
      if (h[0] != exchanges_)
        throw Error("internal error: halo exchange " + std::to_string(exchanges_) +
                    " met a neighbour at exchange " + std::to_string(h[0]));
    part_problem_->receive_direct_halo(exchanges_);
    ++exchanges_;
    return;
  }
  // MPI reads and writes the backend's halo buffers in place: neighbour i's slice of each.
  part_problem_->pack_halo();
  const double* out = part_problem_->halo_send_buffer();
  double* in = part_problem_->halo_receive_buffer();
  std::vector<std::pair<const void*, std::size_t>> send;
  std::vector<std::pair<void*, std::size_t>> receive;
  for (std::size_t i = 0; i < part_.neighbours.size(); ++i) {
    const std::size_t s = 3 * part_.send_nodes[i].size(), r = 3 * part_.receive_nodes[i].size();
    send.emplace_back(out, s * sizeof(double));
    receive.emplace_back(in, r * sizeof(double));
    out += s;
    in += r;
  }
  comm_.exchange_bytes(part_.neighbours, send, receive);
  part_problem_->unpack_halo();
}

AdvanceResult PartitionedProblem::run_steps(std::int64_t first_step, std::int64_t num_steps,
                                            bool keep_last, StepNorms* norms) {
  // This part's first failure: the rank goes on exchanging (its halo values no longer matter)
  // so that no rank waits, and the ranks agree once, after the last step.
  const auto start = Clock::now();
  const double halo_before = part_problem_->phase_times().halo_s;
  double exchange_s = 0.0;
  const auto exchange = [&] {
    const auto t0 = Clock::now();
    exchange_halo();
    exchange_s += seconds_since(t0);
  };
  // The steps that keep forces or measure norms (the last one or two) one by one; the others
  // with their exchanges queued together where the halo goes device to device (a GPU part runs
  // them without the host waiting in between). Through the host each exchange waits for its
  // step anyway: step by step, so that the host's clock times the exchange alone.
  const std::int64_t tail = std::min<std::int64_t>(num_steps, norms ? 2 : keep_last ? 1 : 0);
  AdvanceResult mine =
      direct_halo_ ? part_problem_->advance_exchanging(first_step, num_steps - tail, exchange)
                   : part_problem_->ExplicitProblem::advance_exchanging(first_step,
                                                                        num_steps - tail, exchange);
  if (mine.status == AdvanceResult::Status::Ok) mine.steps_done = num_steps;
  for (std::int64_t k = num_steps - tail; k < num_steps; ++k) {
    const bool last = k + 1 == num_steps;
    if (mine.status == AdvanceResult::Status::Ok) {
      const bool keep = last ? keep_last : norms != nullptr && k + 2 == num_steps;
      const AdvanceResult r =
          part_problem_->advance_step(first_step + k, keep, last ? norms : nullptr);
      if (r.status != AdvanceResult::Status::Ok) {
        mine = r;
        mine.steps_done = k;
      }
    }
    exchange();
  }
  if (mine.status != AdvanceResult::Status::Ok && mine.block >= 0 && mine.element >= 0) {
    // The element as the global block knows it.
    const std::vector<std::int64_t>& block = part_.elements[static_cast<std::size_t>(mine.block)];
    mine.element = block[static_cast<std::size_t>(mine.element)];
  }
  // A direct halo's time is the device's (the host only queues it).
  if (direct_halo_) exchange_s = part_problem_->phase_times().halo_s - halo_before;
  const auto t0 = Clock::now();
  // The earliest failed step, then the lowest rank at it, tells every rank what failed.
  const std::int64_t none = std::numeric_limits<std::int64_t>::max();
  const bool failed = mine.status != AdvanceResult::Status::Ok;
  const std::int64_t first = comm_.all_reduce(
      failed ? mine.steps_done * comm_.size() + comm_.rank() : none, Reduction::Min);
  AdvanceResult result = mine;
  if (first != none) {
    double what[5] = {static_cast<double>(mine.status), static_cast<double>(mine.block),
                      static_cast<double>(mine.element), mine.value,
                      static_cast<double>(mine.steps_done)};
    comm_.broadcast(what, sizeof what, static_cast<int>(first % comm_.size()));
    result.status = static_cast<AdvanceResult::Status>(static_cast<int>(what[0]));
    result.block = static_cast<int>(what[1]);
    result.element = static_cast<std::int64_t>(what[2]);
    result.value = what[3];
    result.steps_done = static_cast<std::int64_t>(what[4]);
  } else if (norms) {
    combine(*norms);
  }
  report_.exchange_s += exchange_s + seconds_since(t0);
  steps_wall_s_ += seconds_since(start);
  return result;
}

void PartitionedProblem::combine(StepNorms& norms) const {
  double largest[3] = {norms.increment_max, norms.residual_max, norms.internal_max};
  comm_.all_reduce(largest, 3, Reduction::Max);
  norms.increment_max = largest[0];
  norms.residual_max = largest[1];
  norms.internal_max = largest[2];
  std::vector<double> sums = {norms.increment_sq, norms.residual_sq, norms.rayleigh_num,
                              norms.rayleigh_den};
  for (const auto& f : norms.contact_force) sums.insert(sums.end(), f.begin(), f.end());
  comm_.all_reduce(sums.data(), static_cast<int>(sums.size()), Reduction::Sum);
  norms.increment_sq = sums[0];
  norms.residual_sq = sums[1];
  norms.rayleigh_num = sums[2];
  norms.rayleigh_den = sums[3];
  for (std::size_t k = 0; k < norms.contact_force.size(); ++k)
    for (int i = 0; i < 3; ++i) norms.contact_force[k][i] = sums[4 + 3 * k + i];
  norms.contact_nodes = comm_.all_reduce(norms.contact_nodes, Reduction::Sum);
}

AdvanceResult PartitionedProblem::advance_step(std::int64_t step, bool keep_forces,
                                               StepNorms* norms) {
  if (norms) *norms = StepNorms{};
  return run_steps(step, 1, keep_forces, norms);
}

AdvanceResult PartitionedProblem::advance(std::int64_t first_step, std::int64_t num_steps) {
  return run_steps(first_step, num_steps, false, nullptr);
}

AdvanceResult PartitionedProblem::advance_measured(std::int64_t first_step, std::int64_t num_steps,
                                                   StepNorms& norms) {
  norms = StepNorms{};
  return run_steps(first_step, num_steps, false, &norms);
}

void PartitionedProblem::set_node_update(const NodeUpdate& update) {
  part_problem_->set_node_update(update);
}

std::vector<double> PartitionedProblem::gather_nodes(const std::vector<double>& part_values,
                                                     std::size_t per) const {
  const std::vector<double> gathered = comm_.all_gather(pick(part_values, owned_, per));
  std::vector<double> out;
  place(gathered, node_order_, per, out);
  return out;
}

std::vector<double> PartitionedProblem::to_part(const std::vector<double>& global,
                                                std::size_t per) const {
  return pick(global, part_.nodes, per);
}

template <class Local>
std::vector<double> PartitionedProblem::gather_listed(const std::vector<std::int32_t>& nodes,
                                                      std::size_t per, const Local& local) const {
  std::vector<std::int32_t> mine;
  for (const std::int32_t n : nodes)
    if (partition_.node_owner[n] == comm_.rank()) mine.push_back(part_.local_node(n));
  std::vector<double> values;
  if (!mine.empty()) local(mine, values);
  const std::vector<double> gathered = comm_.all_gather(values);
  std::vector<std::int32_t> owner(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) owner[i] = partition_.node_owner[nodes[i]];
  std::vector<double> out;
  place(gathered, order_by_part<std::int32_t>(owner, 0, nodes.size(), comm_.size()), per, out);
  return out;
}

void PartitionedProblem::displacement(std::vector<double>& u) const {
  std::vector<double> part_u;
  part_problem_->displacement(part_u);
  u = gather_nodes(part_u, 3);
}

void PartitionedProblem::previous_displacement(std::vector<double>& u) const {
  std::vector<double> part_u;
  part_problem_->previous_displacement(part_u);
  u = gather_nodes(part_u, 3);
}

void PartitionedProblem::set_displacement(const std::vector<double>& u,
                                          const std::vector<double>& u_prev) {
  part_problem_->set_displacement(to_part(u, 3), to_part(u_prev, 3));
}

void PartitionedProblem::material_state(std::size_t block, std::vector<double>& state) const {
  std::vector<double> part_state;
  part_problem_->material_state(block, part_state);
  const std::size_t count = part_.elements[block].size();
  const std::size_t per = count > 0 ? part_state.size() / count : 0;
  const std::vector<double> gathered =
      comm_.all_gather(pick(part_state, part_.owned_elements[block], per));
  const std::size_t global_per =
      global_.blocks[block].num_elements > 0
          ? gathered.size() / static_cast<std::size_t>(global_.blocks[block].num_elements)
          : 0;
  place(gathered, element_order_[block], global_per, state);
}

void PartitionedProblem::set_material_state(std::size_t block, const std::vector<double>& state) {
  const auto count = static_cast<std::size_t>(global_.blocks[block].num_elements);
  const std::size_t per = count > 0 ? state.size() / count : 0;
  part_problem_->set_material_state(block, pick(state, part_.elements[block], per));
}

void PartitionedProblem::nodal_displacements(const std::vector<std::int32_t>& nodes,
                                             std::vector<double>& u,
                                             std::vector<double>& u_prev) const {
  // One gather: u and u_{n-1} of each node side by side.
  const std::vector<double> both =
      gather_listed(nodes, 6, [&](const std::vector<std::int32_t>& mine, std::vector<double>& v) {
        std::vector<double> a, b;
        part_problem_->nodal_displacements(mine, a, b);
        v.resize(6 * mine.size());
        for (std::size_t k = 0; k < mine.size(); ++k)
          for (int i = 0; i < 3; ++i) {
            v[6 * k + i] = a[3 * k + i];
            v[6 * k + 3 + i] = b[3 * k + i];
          }
      });
  u.resize(3 * nodes.size());
  u_prev.resize(3 * nodes.size());
  for (std::size_t k = 0; k < nodes.size(); ++k)
    for (int i = 0; i < 3; ++i) {
      u[3 * k + i] = both[6 * k + i];
      u_prev[3 * k + i] = both[6 * k + 3 + i];
    }
}

void PartitionedProblem::held_nodes(const std::vector<std::int32_t>& nodes,
                                    const std::vector<double>& values,
                                    std::vector<std::int32_t>& local_nodes,
                                    std::vector<double>& local_values) const {
  local_nodes.clear();
  local_values.clear();
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const std::int32_t local = part_.local_node(nodes[k]);
    if (local < 0) continue;
    local_nodes.push_back(local);
    local_values.insert(local_values.end(), values.begin() + static_cast<std::ptrdiff_t>(3 * k),
                        values.begin() + static_cast<std::ptrdiff_t>(3 * k + 3));
  }
}

void PartitionedProblem::set_nodal_displacements(const std::vector<std::int32_t>& nodes,
                                                 const std::vector<double>& u) {
  std::vector<std::int32_t> mine;
  std::vector<double> values;
  held_nodes(nodes, u, mine, values);
  part_problem_->set_nodal_displacements(mine, values);
}

void PartitionedProblem::set_nodal_loads(const std::vector<std::int32_t>& nodes,
                                         const std::vector<double>& forces) {
  // Ghosts too: their node pass is skipped, and the values are the owner's anyway.
  std::vector<std::int32_t> mine;
  std::vector<double> values;
  held_nodes(nodes, forces, mine, values);
  part_problem_->set_nodal_loads(mine, values);
}

void PartitionedProblem::nodal_internal_forces(const std::vector<std::int32_t>& nodes,
                                               std::vector<double>& forces) const {
  forces =
      gather_listed(nodes, 3, [&](const std::vector<std::int32_t>& mine, std::vector<double>& v) {
        part_problem_->nodal_internal_forces(mine, v);
      });
}

void PartitionedProblem::internal_forces(const std::vector<double>& u,
                                         std::vector<double>& forces) {
  std::vector<double> part_forces;
  part_problem_->internal_forces(to_part(u, 3), part_forces);
  forces = gather_nodes(part_forces, 3);
}

void PartitionedProblem::element_results(const std::vector<double>& u,
                                         std::vector<BlockResults>& out) {
  gather_element_results(u, out, true);
}

void PartitionedProblem::element_energies(const std::vector<double>& u,
                                          std::vector<BlockResults>& out) {
  gather_element_results(u, out, false);
}

void PartitionedProblem::gather_element_results(const std::vector<double>& u,
                                                std::vector<BlockResults>& out, bool fields) {
  std::vector<BlockResults> part_results;
  if (fields)
    part_problem_->element_results(to_part(u, 3), part_results);
  else
    part_problem_->element_energies(to_part(u, 3), part_results);
  out.resize(part_results.size());
  for (std::size_t b = 0; b < part_results.size(); ++b) {
    const std::vector<std::int64_t>& owned = part_.owned_elements[b];
    const auto gather = [&](const std::vector<double>& part_field, std::size_t per,
                            std::vector<double>& field) {
      place(comm_.all_gather(pick(part_field, owned, per)), element_order_[b], per, field);
    };
    BlockResults& r = out[b];
    const BlockResults& p = part_results[b];
    gather(p.strain_energy, 1, r.strain_energy);
    // Without hourglass control the energies alone may leave hourglass_energy empty (zero):
    // decided by the block's family, the same on every rank, so that all ranks gather alike.
    if (fields || energies_include_hourglass(global_.blocks[b].family))
      gather(p.hourglass_energy, 1, r.hourglass_energy);
    else
      r.hourglass_energy.clear();
    if (!fields) {  // only the energies cross the ranks
      r.cauchy_stress.clear();
      r.green_lagrange.clear();
      r.min_jacobian.clear();
      continue;
    }
    gather(p.cauchy_stress, 6, r.cauchy_stress);
    gather(p.green_lagrange, 6, r.green_lagrange);
    gather(p.min_jacobian, 1, r.min_jacobian);
  }
}

PhaseTimes PartitionedProblem::phase_times() const {
  // The part's own phases, and the rest of the steps' wall time (exchange, agreement, waiting
  // for slower ranks or for a GPU the ranks share) as exchange: throughput counts wall time.
  PhaseTimes times = part_problem_->phase_times();
  const double part = times.element_pass_s + times.node_pass_s + times.fused_step_s;
  times.exchange_s = std::max(0.0, steps_wall_s_ - part);
  return times;
}

std::size_t PartitionedProblem::memory_bytes() const {
  return part_problem_->memory_bytes();
}

}  // namespace fem::parallel
