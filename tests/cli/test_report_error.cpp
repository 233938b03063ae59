// The exit code each kind of error ends `fem` with (apps/fem/commands.hpp), decided by
// report_error in one process.
#include <gtest/gtest.h>

#include <new>
#include <stdexcept>

#include <fem/error.hpp>

#include "commands.hpp"

namespace fem::cli {
namespace {

TEST(ReportError, EachKindOfErrorEndsWithItsExitCode) {
  EXPECT_EQ(report_error(InputError({"case.yaml", 3, 5}, "unknown key 'x'")), kBadInput);
  EXPECT_EQ(report_error(Error("the case needs 90 GiB of GPU memory")), kBadInput);
  EXPECT_EQ(report_error(std::bad_alloc()), kBadInput);  // a model too large for the machine
  EXPECT_EQ(report_error(SolveError("step 12: element 7 inverted")), kSolveFailed);
  // A failed device call is fem's fault, not the case's (an illegal address in a kernel).
  EXPECT_EQ(report_error(InternalError("CUDA error in cudaStreamSynchronize(stream_): "
                                       "cudaErrorIllegalAddress")),
            kInternal);
  EXPECT_EQ(report_error(std::logic_error("broken invariant")), kInternal);
}

}  // namespace
}  // namespace fem::cli
