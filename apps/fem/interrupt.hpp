// Stopping `fem run` cleanly on SIGINT (Ctrl-C) and SIGTERM: the first one asks the solver to stop
// at the end of the step it is in (it writes a checkpoint and the last frame and closes its
// files; fem exits with kInterrupted); a second one ends fem at once, as without the handler.
#pragma once

namespace fem::cli {

/// Installs the handlers for the rest of the process. Also ignores SIGXFSZ, so that a file grown
/// past `ulimit -f` fails its write with a message (as a full disk does) instead of killing fem.
/// announce: the first signal prints that fem is stopping (rank 0 of an MPI run speaks for all).
void install_interrupt_handlers(bool announce = true);

/// SIGINT and SIGTERM end fem at once and silently from now on: an MPI rank whose run has ended
/// (mpirun ends the others when one exits with an error).
void default_interrupts();

/// Whether SIGINT or SIGTERM came since install_interrupt_handlers().
bool interrupt_requested();

}  // namespace fem::cli
