// The communicators: MPI_COMM_WORLD where fem was built with MPI and started by a launcher, and
// the one-process communicator otherwise.
#include "fem/parallel/communicator.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "fem/error.hpp"

#if FEM_WITH_MPI  // 1 or 0 from framework/CMakeLists.txt
#include <mpi.h>
#endif

namespace fem::parallel {
namespace {

class SingleProcess final : public Communicator {
 public:
  [[nodiscard]] int rank() const override { return 0; }
  [[nodiscard]] int size() const override { return 1; }
  [[nodiscard]] std::string description() const override { return "one process"; }
  void all_reduce(double*, int, Reduction) override {}
  void all_reduce(std::int64_t*, int, Reduction) override {}
  void broadcast(void*, std::size_t, int) override {}
  std::vector<char> all_gather_bytes(const void* data, std::size_t bytes,
                                     std::vector<std::size_t>& sizes) override {
    sizes = {bytes};
    const char* p = static_cast<const char*>(data);
    return {p, p + bytes};
  }
  void exchange_bytes(const std::vector<int>& ranks,
                      const std::vector<std::pair<const void*, std::size_t>>&,
                      const std::vector<std::pair<void*, std::size_t>>&) override {
    if (!ranks.empty()) throw Error("a process that runs alone has no neighbours to exchange with");
  }
  [[noreturn]] void abort(int exit_code) override { std::_Exit(exit_code); }
};

#if FEM_WITH_MPI

void check(int status, const char* what) {
  if (status != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(status, text, &length);
    throw Error(std::string(what) +
                " failed: " + std::string(text, static_cast<std::size_t>(length)));
  }
}

MPI_Op mpi_op(Reduction op) {
  switch (op) {
    case Reduction::Sum:
      return MPI_SUM;
    case Reduction::Min:
      return MPI_MIN;
    case Reduction::Max:
      return MPI_MAX;
  }
  return MPI_SUM;
}

/// Byte counts as MPI's int counts (a part over 2 GiB would need MPI 4's large counts).
int mpi_count(std::size_t bytes) {
  if (bytes > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw Error("an MPI message of " + std::to_string(bytes) +
                " bytes is over 2 GiB\n  hint: run on more ranks");
  return static_cast<int>(bytes);
}

class MpiWorld final : public Communicator {
 public:
  MpiWorld() {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) {
      // FUNNELED: only the thread that runs the solver calls MPI; OpenMP threads do not.
      int provided = 0;
      check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
      std::atexit(finalise);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    // Errors come back as codes (check() turns them into fem::Error) instead of aborting inside
    // MPI with its own message.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  }
  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return size_; }
  [[nodiscard]] std::string description() const override {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    std::string v(version, static_cast<std::size_t>(length));
    v = v.substr(0, v.find_first_of(",\n"));
    return "MPI (" + v + "), " + std::to_string(size_) + (size_ == 1 ? " rank" : " ranks");
  }
  void all_reduce(double* values, int count, Reduction op) override {
    check(MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, mpi_op(op), MPI_COMM_WORLD),
          "MPI_Allreduce");
  }
  void all_reduce(std::int64_t* values, int count, Reduction op) override {
    check(MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_INT64_T, mpi_op(op), MPI_COMM_WORLD),
          "MPI_Allreduce");
  }
  void broadcast(void* data, std::size_t bytes, int root) override {
    check(MPI_Bcast(data, mpi_count(bytes), MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
  }
  std::vector<char> all_gather_bytes(const void* data, std::size_t bytes,
                                     std::vector<std::size_t>& sizes) override {
    std::vector<int> counts(static_cast<std::size_t>(size_)), displs(counts.size());
    const int mine = mpi_count(bytes);
    check(MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD),
          "MPI_Allgather");
    std::size_t total = 0;
    sizes.assign(counts.size(), 0);
    for (std::size_t r = 0; r < counts.size(); ++r) {
      displs[r] = mpi_count(total);
      sizes[r] = static_cast<std::size_t>(counts[r]);
      total += sizes[r];
    }
    std::vector<char> all(total);
    check(MPI_Allgatherv(data, mine, MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE,
                         MPI_COMM_WORLD),
          "MPI_Allgatherv");
    return all;
  }
  void exchange_bytes(const std::vector<int>& ranks,
                      const std::vector<std::pair<const void*, std::size_t>>& send,
                      const std::vector<std::pair<void*, std::size_t>>& recv) override {
    requests_.resize(2 * ranks.size());
    for (std::size_t i = 0; i < ranks.size(); ++i)
      check(MPI_Irecv(recv[i].first, mpi_count(recv[i].second), MPI_BYTE, ranks[i], kHaloTag,
                      MPI_COMM_WORLD, &requests_[i]),
            "MPI_Irecv");
    for (std::size_t i = 0; i < ranks.size(); ++i)
      check(MPI_Isend(send[i].first, mpi_count(send[i].second), MPI_BYTE, ranks[i], kHaloTag,
                      MPI_COMM_WORLD, &requests_[ranks.size() + i]),
            "MPI_Isend");
    check(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE),
          "MPI_Waitall");
  }
  [[noreturn]] void abort(int exit_code) override {
    MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::_Exit(exit_code);
  }

 private:
  static void finalise() {
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (!finalised) MPI_Finalize();
  }
  static constexpr int kHaloTag = 16;
  int rank_ = 0, size_ = 1;
  std::vector<MPI_Request> requests_;
};

#endif

}  // namespace

std::unique_ptr<Communicator> single_process() {
  return std::make_unique<SingleProcess>();
}

bool mpi_built() {
  return FEM_WITH_MPI != 0;
}

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

Communicator& world() {
  static const std::unique_ptr<Communicator> communicator = []() -> std::unique_ptr<Communicator> {
#if FEM_WITH_MPI
    if (launched_by_mpi()) return std::make_unique<MpiWorld>();
#endif
    return single_process();
  }();
  return *communicator;
}

}  // namespace fem::parallel
