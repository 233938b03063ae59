#include "fem/output/checkpoint.hpp"

#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string_view>
#include <type_traits>

#include "atomic_file.hpp"
#include "crc32.hpp"
#include "fem/error.hpp"

namespace fem {
namespace {

static_assert(std::endian::native == std::endian::little,
              "checkpoints are little-endian; add byte swapping for this machine");

constexpr std::string_view kMagic = "FEMCHKPT";
constexpr std::size_t kHeaderBytes = 8 + 4 + 4 + 8;
constexpr std::size_t kChecksumBytes = 4;

class Writer {
 public:
  template <class T>
  void put(T value) {
    static_assert(std::is_arithmetic_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void put(const std::string& s) {
    put<std::uint64_t>(s.size());
    bytes_ += s;
  }
  void put(const std::vector<double>& v) {
    put<std::uint64_t>(v.size());
    bytes_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
  }
  [[nodiscard]] std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

/// Reads the payload back; any read past its end means the file lies about its own sizes.
class Reader {
 public:
  Reader(std::string_view bytes, const std::string& path) : bytes_(bytes), path_(path) {}
  template <class T>
  T get() {
    static_assert(std::is_arithmetic_v<T>);
    T value;
    std::memcpy(&value, take(sizeof value), sizeof value);
    return value;
  }
  std::string get_string() {
    const auto n = count(1);
    return std::string(take(n), n);
  }
  std::vector<double> get_doubles() {
    const auto n = count(sizeof(double));
    std::vector<double> v(n);
    std::memcpy(v.data(), take(n * sizeof(double)), n * sizeof(double));
    return v;
  }
  /// A count of items of `item_bytes` each that fits in what is left.
  std::size_t count(std::size_t item_bytes) {
    const auto n = get<std::uint64_t>();
    if (n > (bytes_.size() - pos_) / item_bytes) corrupted();
    return static_cast<std::size_t>(n);
  }
  [[nodiscard]] bool done() const { return pos_ == bytes_.size(); }
  [[noreturn]] void corrupted() const {
    throw CheckpointError(
        "checkpoint '" + path_ +
        "' is corrupted: its contents do not match their own sizes although the checksum "
        "matches (written by a different program?)");
  }

 private:
  const char* take(std::size_t n) {
    if (n > bytes_.size() - pos_) corrupted();
    const char* p = bytes_.data() + pos_;
    pos_ += n;
    return p;
  }
  std::string_view bytes_;
  const std::string& path_;
  std::size_t pos_ = 0;
};

std::string payload(const Checkpoint& c) {
  Writer w;
  for (const std::string* s : {&c.fem_version, &c.solver, &c.precision, &c.backend, &c.case_text})
    w.put(*s);
  w.put(c.model_hash);
  w.put(c.num_nodes);
  w.put(c.num_elements);
  w.put(c.time_step);
  w.put(c.step);
  w.put(c.time);
  w.put(c.displacement);
  w.put<std::uint64_t>(c.vectors.size());
  for (const auto& [name, v] : c.vectors) {
    w.put(name);
    w.put(v);
  }
  w.put<std::uint64_t>(c.material_state.size());
  for (const std::vector<double>& s : c.material_state) w.put(s);
  w.put<std::uint64_t>(c.values.size());
  for (const auto& [name, value] : c.values) {
    w.put(name);
    w.put(value);
  }
  w.put<std::uint64_t>(c.frames.size());
  for (const SeriesFrame& f : c.frames) {
    w.put(f.time);
    w.put(f.file);
  }
  w.put(c.next_frame_index);
  w.put<std::uint64_t>(c.files.size());
  for (const CheckpointFile& f : c.files) {
    w.put(f.name);
    w.put(f.bytes);
  }
  return std::move(w.bytes());
}

Checkpoint parse(std::string_view bytes, const std::string& path) {
  Reader r(bytes, path);
  Checkpoint c;
  for (std::string* s : {&c.fem_version, &c.solver, &c.precision, &c.backend, &c.case_text})
    *s = r.get_string();
  c.model_hash = r.get<std::uint64_t>();
  c.num_nodes = r.get<std::int64_t>();
  c.num_elements = r.get<std::int64_t>();
  c.time_step = r.get<double>();
  c.step = r.get<std::int64_t>();
  c.time = r.get<double>();
  c.displacement = r.get_doubles();
  for (std::size_t n = r.count(16); n > 0; --n) {
    std::string name = r.get_string();
    c.vectors[name] = r.get_doubles();
  }
  c.material_state.resize(r.count(8));
  for (std::vector<double>& s : c.material_state) s = r.get_doubles();
  for (std::size_t n = r.count(16); n > 0; --n) {
    std::string name = r.get_string();
    c.values[name] = r.get<double>();
  }
  c.frames.resize(r.count(16));
  for (SeriesFrame& f : c.frames) {
    f.time = r.get<double>();
    f.file = r.get_string();
  }
  c.next_frame_index = r.get<std::int64_t>();
  c.files.resize(r.count(16));
  for (CheckpointFile& f : c.files) {
    f.name = r.get_string();
    f.bytes = r.get<std::uint64_t>();
  }
  if (!r.done()) r.corrupted();
  return c;
}

template <class T>
T read_at(std::string_view bytes, std::size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

}  // namespace

void write_checkpoint(const std::string& path, const Checkpoint& c) {
  const std::string body = payload(c);
  Writer w;
  w.bytes() = kMagic;
  w.put(kCheckpointFormat);
  w.put<std::uint32_t>(0);
  w.put<std::uint64_t>(body.size());
  w.bytes() += body;
  w.put(detail::crc32(w.bytes()));
  detail::write_file_atomically(path, w.bytes(), detail::Durability::Synced);
}

Checkpoint read_checkpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CheckpointError("cannot read checkpoint '" + path + "': " + std::strerror(errno));
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string_view all(bytes);
  if (all.size() < kMagic.size() || all.substr(0, kMagic.size()) != kMagic)
    throw CheckpointError("'" + path + "' is not a fem checkpoint (it does not start with " +
                          std::string(kMagic) + ")");
  if (all.size() < kHeaderBytes + kChecksumBytes)
    throw CheckpointError("checkpoint '" + path + "' is truncated: " + std::to_string(all.size()) +
                          " bytes, less than its header");
  const auto format = read_at<std::uint32_t>(all, 8);
  if (format != kCheckpointFormat)
    throw CheckpointError(
        "checkpoint '" + path + "' has format version " + std::to_string(format) +
        "; this fem reads version " + std::to_string(kCheckpointFormat) +
        "\n  hint: continue it with the fem version that wrote it, or start the run again");
  const auto payload_bytes = read_at<std::uint64_t>(all, 16);
  const std::uint64_t expected = kHeaderBytes + payload_bytes + kChecksumBytes;
  if (all.size() != expected)
    throw CheckpointError(
        "checkpoint '" + path + "' is " +
        (all.size() < expected ? std::string("truncated") : std::string("corrupted")) + ": " +
        std::to_string(all.size()) + " bytes where its header says " + std::to_string(expected));
  const std::size_t body_end = all.size() - kChecksumBytes;
  if (detail::crc32(all.substr(0, body_end)) != read_at<std::uint32_t>(all, body_end))
    throw CheckpointError("checkpoint '" + path +
                          "' is corrupted: its CRC-32 checksum does not match its contents");
  return parse(all.substr(kHeaderBytes, payload_bytes), path);
}

}  // namespace fem
