// The processes of a run and what they say to each other: the one place MPI enters fem. The
// solvers and the partitioned problem talk through this interface; without MPI (or without
// mpirun) a run has the one-process communicator, whose collectives are copies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace fem::parallel {

enum class Reduction { Sum, Min, Max };

class Communicator {
 public:
  virtual ~Communicator() = default;
  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  /// "one process", or "MPI (Open MPI v4.1.4), 4 ranks".
  [[nodiscard]] virtual std::string description() const = 0;

  /// Element-wise reduction over all ranks, in place; every rank gets the result.
  virtual void all_reduce(double* values, int count, Reduction op) = 0;
  virtual void all_reduce(std::int64_t* values, int count, Reduction op) = 0;
  /// `bytes` bytes of `data` on rank `root` copied to every rank.
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
  /// Every rank's bytes, concatenated in rank order, on every rank; `sizes` gets each rank's
  /// byte count.
  virtual std::vector<char> all_gather_bytes(const void* data, std::size_t bytes,
                                             std::vector<std::size_t>& sizes) = 0;
  /// Point-to-point exchange with neighbours: send[i] goes to ranks[i] and recv[i] (sized by the
  /// caller) comes from it. Both sides list each other.
  virtual void exchange_bytes(const std::vector<int>& ranks,
                              const std::vector<std::pair<const void*, std::size_t>>& send,
                              const std::vector<std::pair<void*, std::size_t>>& recv) = 0;
  /// Ends every process of the run now (an error only one rank met: the others would wait).
  [[noreturn]] virtual void abort(int exit_code) = 0;

  // Typed conveniences over the byte forms.
  double all_reduce(double value, Reduction op) {
    all_reduce(&value, 1, op);
    return value;
  }
  std::int64_t all_reduce(std::int64_t value, Reduction op) {
    all_reduce(&value, 1, op);
    return value;
  }
  /// Every rank's vector, concatenated in rank order; `counts` (optional) gets each rank's length.
  template <class T>
  std::vector<T> all_gather(const std::vector<T>& mine,
                            std::vector<std::size_t>* counts = nullptr) {
    std::vector<std::size_t> sizes;
    const std::vector<char> bytes = all_gather_bytes(mine.data(), mine.size() * sizeof(T), sizes);
    std::vector<T> all(bytes.size() / sizeof(T));
    if (!all.empty()) std::memcpy(all.data(), bytes.data(), bytes.size());
    if (counts) {
      counts->clear();
      for (const std::size_t s : sizes) counts->push_back(s / sizeof(T));
    }
    return all;
  }
  template <class T>
  void exchange(const std::vector<int>& ranks, const std::vector<std::vector<T>>& send,
                std::vector<std::vector<T>>& recv) {
    std::vector<std::pair<const void*, std::size_t>> s;
    std::vector<std::pair<void*, std::size_t>> r;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      s.emplace_back(send[i].data(), send[i].size() * sizeof(T));
      r.emplace_back(recv[i].data(), recv[i].size() * sizeof(T));
    }
    exchange_bytes(ranks, s, r);
  }
};

/// The communicator of a process that runs alone.
std::unique_ptr<Communicator> single_process();

/// Whether this libfem was built with MPI.
bool mpi_built();
/// Whether an MPI launcher (mpirun, srun) started this process.
bool launched_by_mpi();
/// MPI_COMM_WORLD (initialising MPI where nobody has) when launched by mpirun, else the
/// one-process communicator. The process's communicator until it ends.
Communicator& world();

}  // namespace fem::parallel
