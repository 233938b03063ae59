// Steps of a partitioned series that every rank takes together (framework/src/output/ only, not
// installed). A failure on one rank must become the same exception on every rank: a rank that
// threw alone would leave the others waiting in the next collective call.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "fem/parallel/communicator.hpp"

namespace fem::detail {

/// Every rank's `mine`, in rank order, on every rank. Collective.
std::vector<std::string> gather_texts(parallel::Communicator& comm, const std::string& mine);

/// Runs `step` on this rank, then agrees with every rank on the outcome. Where it threw on any
/// rank, `undo` runs on every rank (removing what its step wrote; it must not throw) and every
/// rank throws the same fem::Error: the first failing rank's reason, with its rank. Collective.
void run_on_all_ranks(parallel::Communicator& comm, const std::function<void()>& step,
                      const std::function<void()>& undo);

/// Throws the same fem::Error on every rank unless `mine` is the same text on every rank;
/// `what` names it in the message ("output fields"). Collective.
void require_same_on_all_ranks(parallel::Communicator& comm, const std::string& mine,
                               const std::string& what);

}  // namespace fem::detail
