#include "fem/output/summary.hpp"

#include <nlohmann/json.hpp>

#include <vector>

#include "atomic_file.hpp"
#include "fem/error.hpp"

namespace fem {

struct RunSummary::Impl {
  // ordered_json keeps keys in the order they were set, which follows the run and reads better
  // than alphabetical order.
  nlohmann::ordered_json root = nlohmann::ordered_json::object();

  nlohmann::ordered_json& slot(const std::string& dotted_key) {
    std::vector<std::string> parts;
    for (std::size_t begin = 0;;) {
      const std::size_t dot = dotted_key.find('.', begin);
      parts.push_back(dotted_key.substr(begin, dot - begin));
      if (parts.back().empty()) {
        throw Error("run summary key '" + dotted_key + "' has an empty part");
      }
      if (dot == std::string::npos) break;
      begin = dot + 1;
    }
    // Check the whole path before creating anything, so a rejected key leaves no empty objects.
    const nlohmann::ordered_json* probe = &root;
    std::string prefix;
    for (const std::string& part : parts) {
      if (!probe->is_object()) {
        throw Error("run summary key '" + dotted_key + "': '" + prefix +
                    "' already holds a value, not an object");
      }
      const auto it = probe->find(part);
      if (it == probe->end()) break;
      probe = &*it;
      prefix += (prefix.empty() ? "" : ".") + part;
      if (prefix.size() == dotted_key.size() && probe->is_object()) {
        throw Error("run summary key '" + dotted_key +
                    "' already holds an object; set its members instead");
      }
    }
    nlohmann::ordered_json* node = &root;
    for (const std::string& part : parts) node = &(*node)[part];
    return *node;
  }
};

RunSummary::RunSummary() : impl_(std::make_unique<Impl>()) {}
RunSummary::~RunSummary() = default;
RunSummary::RunSummary(RunSummary&&) noexcept = default;
RunSummary& RunSummary::operator=(RunSummary&&) noexcept = default;

void RunSummary::set(const std::string& dotted_key, double value) {
  impl_->slot(dotted_key) = value;
}
void RunSummary::set(const std::string& dotted_key, std::int64_t value) {
  impl_->slot(dotted_key) = value;
}
void RunSummary::set(const std::string& dotted_key, const std::string& value) {
  impl_->slot(dotted_key) = value;
}
void RunSummary::set(const std::string& dotted_key, bool value) {
  impl_->slot(dotted_key) = value;
}

void RunSummary::write(const std::string& path) const {
  detail::write_file_atomically(path, json());
}

std::string RunSummary::json() const {
  return impl_->root.dump(2) + "\n";
}

}  // namespace fem
