// The CUDA backend's tuning knobs: environment variables read when a problem is created, each
// with an `auto` default that takes what measured faster on the H100 (docs/performance.md), and
// the measurement behind it. Environment variables rather than case keys because they change
// speed, not results beyond the last bits, and are properties of the machine
// (docs/architecture.md).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <string>
#include <type_traits>

#include <fem/error.hpp>
#include <fem/kernels/element_kernels.hpp>
#include <fem/solver/explicit_system.hpp>

namespace fem::cuda {

/// Whether the read-only per-element arrays go to the device component-major (structure of
/// arrays, the default) or as the host's records: FEM_CUDA_ELEMENT_LAYOUT=records keeps the
/// records, for measuring one against the other with the same build (docs/performance.md).
inline bool component_major_elements() {
  const char* env = std::getenv("FEM_CUDA_ELEMENT_LAYOUT");
  if (!env || !*env || std::string(env) == "soa") return true;
  if (std::string(env) == "records") return false;
  throw Error("FEM_CUDA_ELEMENT_LAYOUT='" + std::string(env) +
              "' is not a layout: use soa (the default) or records");
}

/// How atomic assembly adds element-node forces (FEM_CUDA_ATOMICS): `plain` sends one atomic per
/// element-node; `warp` first sums the forces of a warp's lanes that add to the same node
/// (ElementPassArgs::warp_aggregated_atomics); `auto`, the default, takes what measured faster on
/// the H100 for the block (docs/performance.md, v9): warp for tetrahedra and double precision,
/// plain for single-precision hexahedra, where the aggregation costs more than it saves.
enum class AtomicMode { Auto, Plain, Warp };

inline AtomicMode atomic_mode() {
  const char* env = std::getenv("FEM_CUDA_ATOMICS");
  if (!env || !*env || std::string(env) == "auto") return AtomicMode::Auto;
  if (std::string(env) == "plain") return AtomicMode::Plain;
  if (std::string(env) == "warp") return AtomicMode::Warp;
  throw Error("FEM_CUDA_ATOMICS='" + std::string(env) +
              "' is not an atomic mode: use auto (the default), plain or warp");
}

/// How atomic assembly clears the node forces between steps (FEM_CUDA_FORCE_CLEAR): `fused`
/// zeroes each node's force at the end of the node pass that reads it; `fill` fills the whole
/// array before every element pass (one more pass over it per step); `auto`, the default, takes
/// what measured faster on the H100 (docs/performance.md, v10): fused in single precision, fill
/// in double, each by about 1 %.
template <class T>
inline bool fused_force_clear() {
  const char* env = std::getenv("FEM_CUDA_FORCE_CLEAR");
  if (!env || !*env || std::string(env) == "auto") return std::is_same_v<T, float>;
  if (std::string(env) == "fused") return true;
  if (std::string(env) == "fill") return false;
  throw Error("FEM_CUDA_FORCE_CLEAR='" + std::string(env) +
              "' is not a way to clear forces: use auto (the default), fused or fill");
}

/// Whether atomic assembly asks the L2 to keep the node forces resident (FEM_CUDA_L2_FORCES):
/// `persist`, `normal`, or `auto`, the default: persist where the array takes at most a quarter
/// of the L2. Measured on the H100 (docs/performance.md, v10): the 2M-element tet4 cube's 5.7 MB
/// of forces +1 % (single) and +2 % (double); the hex8r cube's 34 MB -8 % and -14 %, since the
/// set-aside then starves the displacements that the element pass gathers.
inline bool persist_node_forces(std::size_t bytes, std::size_t l2_bytes) {
  const char* env = std::getenv("FEM_CUDA_L2_FORCES");
  if (!env || !*env || std::string(env) == "auto") return 4 * bytes <= l2_bytes;
  if (std::string(env) == "persist") return true;
  if (std::string(env) == "normal") return false;
  throw Error("FEM_CUDA_L2_FORCES='" + std::string(env) +
              "' is not an L2 policy for node forces: use auto (the default), persist or normal");
}

/// Shared memory carve-out (bytes, and as the percentage of the H100's 228 KB that asks for it)
/// through which the deterministic gather's residency is limited (gather_blocks).
constexpr std::size_t kGatherCarveout = 32 * 1024;
constexpr int kGatherCarveoutPercent = 14;

/// Resident blocks per SM of the deterministic node gather (FEM_CUDA_GATHER_BLOCKS=N, or `auto`,
/// the default; 0: as many as registers allow). Each node sums its element-node forces from slots
/// scattered over the per-slot force array, through the L1; with too many gathers in flight they
/// evict each other's lines. Measured on the H100 (docs/performance.md, v10), 2M-element tet4
/// cube (23 slots per node): 5 resident blocks 6.33e9 element-steps/s, 3 blocks 6.80e9, 2 blocks
/// 7.06e9 (single; double 3.84e9 -> 4.52e9). Hexahedra (4 slots per node) gained nothing. `auto`:
/// 2 blocks where nodes average more than 8 slots, no limit otherwise.
inline std::size_t gather_blocks(const System& s) {
  const char* env = std::getenv("FEM_CUDA_GATHER_BLOCKS");
  if (env && *env && std::string(env) != "auto") {
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (*end != '\0' || n < 0 || n > 16)
      throw Error("FEM_CUDA_GATHER_BLOCKS='" + std::string(env) +
                  "' is not a number of blocks: use auto (the default), 0 (no limit) or 1..16");
    return static_cast<std::size_t>(n);
  }
  const double slots_per_node =
      s.num_nodes > 0 ? static_cast<double>(s.num_force_slots) / static_cast<double>(s.num_nodes)
                      : 0.0;
  return slots_per_node > 8.0 ? 2 : 0;
}

/// How the wave step loads its matrix (FEM_CUDA_WAVE_LOADS): `ldg` through the read-only path
/// (__ldg), the default; `stream` as streaming loads (__ldcs: evict first from L1 and L2), which
/// may leave the L2 to the vectors the step gathers and updates and that the next step reads
/// again. Not measured yet: the knob is there so that the two can be compared with one build
/// (tests/gpu/test_cuda_waves.cpp, StepBandwidth; scripts/device/wave-check.sh runs both).
inline bool streaming_wave_loads() {
  const char* env = std::getenv("FEM_CUDA_WAVE_LOADS");
  if (!env || !*env || std::string(env) == "ldg") return false;
  if (std::string(env) == "stream") return true;
  throw Error("FEM_CUDA_WAVE_LOADS='" + std::string(env) +
              "' is not a way to load the wave matrix: use ldg (the default) or stream");
}

template <class T>
inline bool warp_aggregated_atomics(AtomicMode mode, const BlockSystem& block) {
  if (mode != AtomicMode::Auto) return mode == AtomicMode::Warp;
  return kernels::warp_aggregation_pays<T>(block.nodes_per_element);
}

}  // namespace fem::cuda
