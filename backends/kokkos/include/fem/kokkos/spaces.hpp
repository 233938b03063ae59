// Where the Kokkos backend runs: the execution spaces it compiles for and how a run picks one.
//
// Everything is written once for an execution space `Space`; the backend and every material
// build instantiate it for Kokkos' default space (Cuda in a CUDA-enabled Kokkos, else OpenMP or
// Serial) and, where it differs, for the default host space as well, so that one build can run on
// the GPU or on the CPU cores (FEM_KOKKOS_SPACE=host).
#pragma once

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace fem::kokkos {

using DeviceSpace = Kokkos::DefaultExecutionSpace;
using HostSpace = Kokkos::DefaultHostExecutionSpace;

/// Index of a space in the kernel tables.
enum SpaceIndex : int { kDeviceSpace = 0, kHostSpace = 1, kNumSpaces = 2 };

/// True where the host space is a second space (a CUDA-enabled Kokkos).
inline constexpr bool kSeparateHostSpace = !std::is_same_v<DeviceSpace, HostSpace>;

/// The space of a table index; without a separate host space both are the default space.
template <int I>
using SpaceOf = std::conditional_t<I == kHostSpace, HostSpace, DeviceSpace>;

/// Kernels of a host space run synchronously: phase times can be taken around each pass.
template <class Space>
inline constexpr bool kRunsOnHost =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible;

/// A 64-bit index range over Space (elements and nodes counts may exceed 2^31).
template <class Space>
using Range = Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>;

}  // namespace fem::kokkos
