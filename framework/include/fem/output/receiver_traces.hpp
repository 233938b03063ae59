// Receiver traces of the elastodynamic solver: every sample of every node of a receiver, in
// CSV (one file per receiver) and/or HDF5 (one receivers.h5, a group per receiver), appended as
// the run goes so that a run that stops early leaves readable traces.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fem {

/// Whether this fem was built with HDF5 (receiver_formats: [hdf5]).
bool hdf5_output_available();

class ReceiverTraces {
 public:
  /// Files go to `directory` (which exists); formats: "csv", "hdf5".
  ReceiverTraces(std::string directory, std::vector<std::string> formats);
  ~ReceiverTraces();
  ReceiverTraces(const ReceiverTraces&) = delete;
  ReceiverTraces& operator=(const ReceiverTraces&) = delete;

  /// Declares a receiver: its nodes (ids as the user knows them), their coordinates (3 each) and
  /// its quantities ("displacement", "velocity"). Returns its index.
  int add(const std::string& name, const std::vector<std::int32_t>& node_ids,
          const std::vector<double>& coordinates, const std::vector<std::string>& quantities);
  /// Appends samples to receiver r: values[s][quantity][node][3] for each sample s.
  void append(int r, const std::vector<double>& times, const std::vector<std::int64_t>& steps,
              const std::vector<double>& values);
  /// The files written so far.
  [[nodiscard]] std::vector<std::string> files() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fem
