// How long an OpenMP thread that waits at a barrier spins before it sleeps, settled before the
// program does anything else.
#pragma once

namespace fem::cli {

/// The spin count fem asks of libgomp: about 40 us of waiting on a core before a waiting thread
/// sleeps (a spin is a `pause`, about 40 ns on recent x86 cores).
inline constexpr const char* kOpenMpSpinCount = "1000";

/// The one-minute load average from which the machine counts as busy: most of a core taken by
/// other processes. (The count of tasks running at this instant is no use: an idle machine
/// shows a second one most of the time.)
inline constexpr double kBusyLoad = 0.75;

/// Whether other processes have been taking CPU time as fem starts: the one-minute average of
/// `loadavg` (the kernel's /proc/loadavg) at or above kBusyLoad; false if it cannot be read. A
/// process started less than a minute ago may not show yet.
bool machine_busy(const char* loadavg = "/proc/loadavg");

/// Whether fem should run itself again with GOMP_SPINCOUNT set (settle_openmp_waiting): the
/// machine is busy and the user set none of GOMP_SPINCOUNT and OMP_WAIT_POLICY (how threads
/// wait) and OMP_PROC_BIND and OMP_PLACES (where they run). With either of the last two, libgomp
/// has bound this thread to one place before main runs, and a program executed again would
/// inherit that one-CPU affinity and run every OpenMP loop on one thread (measured: "OpenMP,
/// 1 threads" on the 16-core GPU machine and the 2-core one with OMP_PLACES=threads, the setting
/// Kokkos recommends). The arguments are those variables' values (null: unset).
bool openmp_waiting_needs_settling(bool busy, const char* spin_count, const char* wait_policy,
                                   const char* proc_bind, const char* places);

/// libgomp reads GOMP_SPINCOUNT and OMP_WAIT_POLICY once, when it loads, before main runs. Its
/// default when neither is set, 300,000 spins (about 10 ms), keeps a waiting thread on its core
/// through several of fem's steps: on a machine where another process takes a core, the waiting
/// thread then holds off the thread it waits for, and the quickstart's case took 3-4x its time
/// on 2 cores. Fewer spins cost 10-20 % on 16 idle cores, though (docs/performance.md, "A busy
/// machine"). So when openmp_waiting_needs_settling() says so, this sets GOMP_SPINCOUNT to
/// kOpenMpSpinCount and executes the program again, once (the second run finds it set). Returns
/// if it does not re-execute.
void settle_openmp_waiting(char** argv);

}  // namespace fem::cli
