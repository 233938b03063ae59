#include "fem/output/history.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "fem/error.hpp"

namespace fem {

namespace {

/// Column names come from node-set names in the case file; quote (RFC 4180) the ones that would
/// otherwise break the row apart.
std::string csv_field(const std::string& name) {
  if (name.find_first_of(",\"\r\n") == std::string::npos) return name;
  std::string quoted = "\"";
  for (const char c : name) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  quoted += '"';
  return quoted;
}

std::string system_reason() {
  return std::strerror(errno != 0 ? errno : EIO);
}

}  // namespace

CsvHistory::CsvHistory(const std::string& path, std::vector<std::string> columns,
                       std::uint64_t resume_at)
    : path_(path), num_columns_(columns.size()) {
  // Unbuffered: each row goes to the file in one write, and a row that fails leaves nothing
  // behind in a buffer that closing the stream would try to write after the cut below.
  out_.rdbuf()->pubsetbuf(nullptr, 0);
  std::error_code ec;
  if (resume_at > 0 && std::filesystem::file_size(path, ec) >= resume_at && !ec) {
    std::filesystem::resize_file(path, resume_at, ec);
    if (ec) throw Error("cannot continue history file '" + path + "': " + ec.message());
    errno = 0;
    out_.open(path, std::ios::out | std::ios::app);
    if (!out_) throw Error("cannot open history file '" + path + "': " + system_reason());
    bytes_ = resume_at;
    resumed_ = true;
    return;
  }
  errno = 0;
  out_.open(path, std::ios::out | std::ios::trunc);
  if (!out_) throw Error("cannot open history file '" + path + "': " + system_reason());
  std::string header = "time,step";
  for (const std::string& c : columns) {
    header += ',';
    header += csv_field(c);
  }
  header += '\n';
  out_ << header << std::flush;
  if (!out_) throw Error("cannot write history file '" + path + "': " + system_reason());
  bytes_ = header.size();
}

void CsvHistory::append(double time, long long step, const std::vector<double>& values) {
  if (values.size() != num_columns_) {
    throw Error("history file '" + path_ + "': " + std::to_string(values.size()) + " values for " +
                std::to_string(num_columns_) + " columns");
  }
  // "{}" is the shortest text that reads back as exactly the same double: full precision
  // without the noise digits of %.17g (0.1 stays "0.1").
  fmt::memory_buffer row;
  fmt::format_to(std::back_inserter(row), "{},{}", time, step);
  for (const double v : values) fmt::format_to(std::back_inserter(row), ",{}", v);
  row.push_back('\n');
  errno = 0;
  out_.write(row.data(), static_cast<std::streamsize>(row.size()));
  // Flushed per row so that a run that crashes later still leaves every row up to the crash.
  out_.flush();
  if (!out_) {
    const std::string reason = system_reason();
    // Part of the row may have reached the file: cut it off, so that the file stays a valid CSV
    // of whole rows, and refuse further rows on this stream.
    std::error_code ignored;
    std::filesystem::resize_file(path_, bytes_, ignored);
    throw Error("cannot write history file '" + path_ + "': " + reason);
  }
  bytes_ += row.size();
}

}  // namespace fem
