#include "blas_threads.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace fem {

void prefer_single_threaded_blas() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const char* chosen :
         {"BLIS_NUM_THREADS", "OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "MKL_NUM_THREADS"})
      if (std::getenv(chosen) != nullptr) return;
    setenv("BLIS_NUM_THREADS", "1", 0);
    using SetThreads = void (*)(int);
    if (void* f = dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))
      reinterpret_cast<SetThreads>(f)(1);
  });
}

}  // namespace fem
