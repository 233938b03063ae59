// The halo of a partitioned run sent GPU to GPU between the processes of one host, through CUDA
// IPC: each part exports its receive buffer and the events it records after each copy, each
// neighbour maps them once, and every exchange is a device-to-device copy straight into the
// neighbour's buffer (over NVLink where the GPUs have it) and a stream wait on the neighbour's
// event. The host queues all of it without waiting for the GPU; the partitioned problem's
// handshake (fem/parallel/partitioned_problem.cpp) tells each part when its neighbours' events
// are recorded.
//
// Buffer reuse: the receive buffer has two halves, by exchange parity. A neighbour writes half p
// at exchange k + 2 only after its stream has waited for this part's event of exchange k + 1,
// which this part records after unpacking exchange k from half p: neighbours list each other
// and record their events every exchange, so that order holds without any other wait.
#pragma once

#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include <fem/backend.hpp>
#include <fem/cuda/check.hpp>

#include "device_array.cuh"

namespace fem::cuda {

class IpcHalo {
 public:
  IpcHalo() = default;
  IpcHalo(const IpcHalo&) = delete;
  IpcHalo& operator=(const IpcHalo&) = delete;
  ~IpcHalo() {
    close();
    for (auto& [begin, end] : timers_) {
      cudaEventDestroy(begin);
      cudaEventDestroy(end);
    }
  }

  /// Allocates the receive buffer (both halves of `receive_values` doubles) and the events, and
  /// writes each link's endpoint: what that neighbour needs to reach this part.
  bool open(const std::vector<HaloLink>& links, std::size_t receive_values,
            std::vector<std::vector<char>>& endpoints) {
    close();
    links_ = links;
    half_ = std::max<std::size_t>(1, receive_values);
    receive_.resize(2 * half_);
    Endpoint mine{};
    mine.magic = kMagic;
    if (gethostname(mine.host, sizeof mine.host - 1) != 0) return false;
    if (cudaIpcGetMemHandle(&mine.buffer, receive_.data()) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    mine.half = half_;
    endpoints.clear();
    for (const HaloLink& link : links_) {
      std::array<cudaEvent_t, 2>& sent = sent_.emplace_back();
      for (int p = 0; p < 2; ++p) {
        FEM_CUDA_CHECK(
            cudaEventCreateWithFlags(&sent[p], cudaEventDisableTiming | cudaEventInterprocess));
        FEM_CUDA_CHECK(cudaIpcGetEventHandle(&mine.sent[p], sent[p]));
      }
      mine.offset = 3 * link.receive_first;
      mine.count = 3 * link.receive_count;
      std::vector<char>& bytes = endpoints.emplace_back(sizeof(Endpoint));
      std::memcpy(bytes.data(), &mine, sizeof mine);
    }
    return true;
  }

  /// Maps each neighbour's buffer and events (peers[i] from links[i]'s neighbour). False, with
  /// nothing mapped, where one is on another host or its GPU cannot be reached.
  bool connect(const std::vector<std::vector<char>>& peers) {
    if (peers.size() != links_.size()) return false;
    char host[sizeof(Endpoint::host)] = {};
    if (gethostname(host, sizeof host - 1) != 0) return false;
    for (std::size_t i = 0; i < peers.size(); ++i) {
      Endpoint peer{};
      if (peers[i].size() != sizeof peer) return disconnect();
      std::memcpy(&peer, peers[i].data(), sizeof peer);
      if (peer.magic != kMagic || std::strncmp(peer.host, host, sizeof host) != 0 ||
          peer.count != 3 * links_[i].send_count)
        return disconnect();
      void* base = nullptr;
      if (cudaIpcOpenMemHandle(&base, peer.buffer, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess) {
        cudaGetLastError();
        return disconnect();
      }
      peer_buffers_.push_back(base);
      std::array<cudaEvent_t, 2>& sent = peer_sent_.emplace_back();
      for (int p = 0; p < 2; ++p)
        if (cudaIpcOpenEventHandle(&sent[p], peer.sent[p]) != cudaSuccess) {
          cudaGetLastError();
          sent[p] = nullptr;
          return disconnect();
        }
      peer_targets_.push_back({static_cast<double*>(base) + peer.offset,
                               static_cast<double*>(base) + peer.half + peer.offset});
    }
    connected_ = true;
    return true;
  }

  [[nodiscard]] bool connected() const { return connected_; }

  /// Unmaps the neighbours' memory and events and frees this part's (after the stream's work).
  void close() {
    disconnect();
    for (auto& sent : sent_)
      for (cudaEvent_t e : sent)
        if (e) cudaEventDestroy(e);
    sent_.clear();
    receive_ = DeviceArray<double>();
  }

  /// Queues the copies of `packed` (this part's send list, 3 doubles a node) into the
  /// neighbours' halves for `parity`, each followed by its event.
  void send(cudaStream_t stream, int parity, const double* packed) {
    for (std::size_t i = 0; i < links_.size(); ++i) {
      if (links_[i].send_count > 0)
        FEM_CUDA_CHECK(cudaMemcpyAsync(peer_targets_[i][parity], packed + 3 * links_[i].send_first,
                                       3 * links_[i].send_count * sizeof(double),
                                       cudaMemcpyDeviceToDevice, stream));
      FEM_CUDA_CHECK(cudaEventRecord(sent_[i][parity], stream));
    }
  }

  /// Makes the stream wait for every neighbour's copy of `parity`; then received(parity) holds
  /// this part's receive list.
  void wait(cudaStream_t stream, int parity) {
    for (const auto& sent : peer_sent_)
      FEM_CUDA_CHECK(cudaStreamWaitEvent(stream, sent[parity], 0));
  }
  [[nodiscard]] const double* received(int parity) const {
    return receive_.data() + static_cast<std::size_t>(parity) * half_;
  }

  /// Device time of the exchanges: begin() before the packing, end() after the unpacking;
  /// collect() (after the stream has been synchronised) adds the finished ones to seconds() and
  /// returns what it added.
  void begin(cudaStream_t stream) {
    if (pending_ == timers_.size()) {
      auto& [b, e] = timers_.emplace_back();
      FEM_CUDA_CHECK(cudaEventCreate(&b));
      FEM_CUDA_CHECK(cudaEventCreate(&e));
    }
    FEM_CUDA_CHECK(cudaEventRecord(timers_[pending_].first, stream));
  }
  void end(cudaStream_t stream) {
    FEM_CUDA_CHECK(cudaEventRecord(timers_[pending_++].second, stream));
  }
  double collect() {
    double added = 0.0;
    for (std::size_t k = 0; k < pending_; ++k) {
      float ms = 0.0f;
      FEM_CUDA_CHECK(cudaEventElapsedTime(&ms, timers_[k].first, timers_[k].second));
      added += 1e-3 * ms;
    }
    pending_ = 0;
    seconds_ += added;
    return added;
  }
  [[nodiscard]] double seconds() const { return seconds_; }

 private:
  static constexpr std::uint64_t kMagic = 0x66656d2d69706331ull;  // "fem-ipc1"
  /// What a neighbour needs to reach this part, as bytes it receives through MPI.
  struct Endpoint {
    std::uint64_t magic;
    char host[256];
    cudaIpcMemHandle_t buffer;     ///< this part's receive buffer (both halves)
    std::uint64_t half;            ///< doubles in one half
    std::uint64_t offset;          ///< where the neighbour's values land in each half (doubles)
    std::uint64_t count;           ///< how many it sends (doubles)
    cudaIpcEventHandle_t sent[2];  ///< recorded after this part's copy to the neighbour, by parity
  };

  /// Unmaps what connect mapped; returns false (connect's failures end with it).
  bool disconnect() {
    for (auto& sent : peer_sent_)
      for (cudaEvent_t e : sent)
        if (e) cudaEventDestroy(e);
    for (void* base : peer_buffers_) cudaIpcCloseMemHandle(base);
    peer_sent_.clear();
    peer_buffers_.clear();
    peer_targets_.clear();
    connected_ = false;
    return false;
  }

  std::vector<HaloLink> links_;
  std::size_t half_ = 0;
  DeviceArray<double> receive_;
  std::vector<std::array<cudaEvent_t, 2>> sent_;       ///< per link, by parity
  std::vector<void*> peer_buffers_;                    ///< mapped bases, to unmap
  std::vector<std::array<double*, 2>> peer_targets_;   ///< per link: where this part writes
  std::vector<std::array<cudaEvent_t, 2>> peer_sent_;  ///< per link: what this part waits for
  bool connected_ = false;
  std::vector<std::pair<cudaEvent_t, cudaEvent_t>> timers_;
  std::size_t pending_ = 0;
  double seconds_ = 0.0;
};

}  // namespace fem::cuda
