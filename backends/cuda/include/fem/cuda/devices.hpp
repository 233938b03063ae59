// The GPUs the CUDA runtime sees, numbered as `device:` and `--device` take them and as
// `fem plugins` lists them. Shared by the CUDA backend and the Kokkos backend built for CUDA.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fem/backend.hpp>

namespace fem::cuda {

/// "sm_90, 132 SMs, 79.10 GiB, PCI 0000:19:00.0": what tells two GPUs of one machine apart.
inline std::string device_details(const cudaDeviceProp& p) {
  char text[128];
  std::snprintf(text, sizeof(text), "sm_%d%d, %d SMs, %.2f GiB, PCI %04x:%02x:%02x.0", p.major,
                p.minor, p.multiProcessorCount,
                static_cast<double>(p.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0), p.pciDomainID,
                p.pciBusID, p.pciDeviceID);
  return text;
}

/// Every GPU visible to this process (CUDA_VISIBLE_DEVICES applied), `in_use` marked.
inline std::vector<ComputeDevice> visible_devices(int in_use) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return {};
  std::vector<ComputeDevice> devices;
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, d) != cudaSuccess) continue;
    devices.push_back({d, p.name, device_details(p), d == in_use});
  }
  return devices;
}

/// Why `device` is not one of the `count` GPUs this process sees, or empty. `chosen_by` says
/// where the number came from when that is not the message's subject ("FEM_CUDA_DEVICE=3").
inline std::string device_out_of_range(int device, int count, const std::string& chosen_by = {}) {
  if (device >= 0 && device < count) return {};
  std::string why = (chosen_by.empty() ? "" : chosen_by + " but ") + "only " +
                    std::to_string(count) + " CUDA device(s) are visible, numbered from 0";
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"))
    why += " (CUDA_VISIBLE_DEVICES=" + std::string(visible) + " hides the others)";
  return why;
}

}  // namespace fem::cuda
