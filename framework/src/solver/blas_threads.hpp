// How many threads the BLAS under CHOLMOD's supernodal factorization runs (the direct solver).
#pragma once

namespace fem {

/// Asks the BLAS library for one thread, unless the user chose a count (BLIS_NUM_THREADS,
/// OPENBLAS_NUM_THREADS, GOTO_NUM_THREADS or MKL_NUM_THREADS set). A supernodal factorization of
/// a finite-element tangent calls the BLAS on thousands of small dense blocks; a BLAS that forks
/// its threads for each (Debian's BLIS built with OpenMP, the default libblas.so.3 where it is
/// installed) took 4-6 times longer than one thread on the 2-core machine (docs/implicit.md).
/// BLIS reads BLIS_NUM_THREADS at its first call, so this must run before any BLAS call of the
/// process; OpenBLAS is told through openblas_set_num_threads where the library has it. Once
/// per process; later calls do nothing.
void prefer_single_threaded_blas();

}  // namespace fem
