#include "rank_agreement.hpp"

#include <exception>
#include <vector>

#include <fmt/format.h>

#include "fem/error.hpp"

namespace fem::detail {

std::vector<std::string> gather_texts(parallel::Communicator& comm, const std::string& mine) {
  std::vector<std::size_t> sizes;
  const std::vector<char> bytes = comm.all_gather_bytes(mine.data(), mine.size(), sizes);
  std::vector<std::string> texts;
  std::size_t at = 0;
  for (const std::size_t size : sizes) {
    texts.emplace_back(bytes.data() + at, size);
    at += size;
  }
  return texts;
}

void run_on_all_ranks(parallel::Communicator& comm, const std::function<void()>& step,
                      const std::function<void()>& undo) {
  std::string failure;  // empty: the step succeeded here
  try {
    step();
  } catch (const std::exception& e) {
    // An exception without text must still count as a failure.
    failure = *e.what() != '\0' ? e.what() : "unknown error";
  }
  const std::vector<std::string> outcomes = gather_texts(comm, failure);
  int first = -1;
  int failed = 0;
  for (int r = 0; r < static_cast<int>(outcomes.size()); ++r) {
    if (outcomes[static_cast<std::size_t>(r)].empty()) continue;
    if (first < 0) first = r;
    ++failed;
  }
  if (first < 0) return;
  undo();
  std::string others;
  if (failed > 1) others = fmt::format("; {} other rank(s) failed too", failed - 1);
  throw Error(fmt::format("{} (rank {} of {}{})", outcomes[static_cast<std::size_t>(first)], first,
                          comm.size(), others));
}

void require_same_on_all_ranks(parallel::Communicator& comm, const std::string& mine,
                               const std::string& what) {
  const std::vector<std::string> all = gather_texts(comm, mine);
  for (std::size_t r = 1; r < all.size(); ++r) {
    if (all[r] != all[0]) {
      throw Error(fmt::format("the ranks' {} differ: rank {}'s are not rank 0's", what, r));
    }
  }
}

}  // namespace fem::detail
