// Finds, loads and validates plugins (backends, elements, materials per backend).
//
// Search order: the plugin folder next to libfem (<libdir>/fem/plugins, which is the build tree
// when running from it and the install prefix once installed), then every folder of
// FEM_PLUGIN_PATH (':'-separated), then the case's plugin_paths. Every *.so found is opened and
// its descriptor checked. In the default folders a file that fails is remembered with the reason
// (it may be something the case never needs), and a lookup that needs it reports it; an entry of
// the case's plugin_paths names plugins that case wants, so one that is missing, empty or holds
// a file that fails is an error at the entry.
#pragma once

#include <initializer_list>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "fem/backend.hpp"
#include "fem/case.hpp"
#include "fem/element.hpp"
#include "fem/error.hpp"
#include "fem/material.hpp"
#include "fem/plugin.hpp"

namespace fem {

/// One successfully loaded plugin file.
struct PluginInfo {
  std::string file;
  std::string kind;  ///< "backend", "element", "material"
  std::string name;
  std::string version;
  std::string backend;  ///< material builds: the backend; backends: own name
  const fem_plugin_descriptor_t* descriptor = nullptr;
};

/// A file in a search folder that could not be used, and why.
struct PluginProblem {
  std::string file;
  std::string reason;
};

/// Opens one plugin file and validates its descriptor. Throws PluginError with the file name,
/// the reason and the fix (not a plugin, missing entry point, ABI mismatch, C++ ABI mismatch).
PluginInfo load_plugin_file(const std::string& path);
/// The checks load_plugin_file() makes on the descriptor a plugin's entry point returned (ABI,
/// C++ library ABI, kind, name, the API table's size); `path` names the plugin in messages.
PluginInfo check_plugin_descriptor(const std::string& path, const fem_plugin_descriptor_t* d);

class PluginRegistry {
 public:
  /// Scans the default folders plus `extra_dirs`, remembering files that fail as problems().
  explicit PluginRegistry(const std::vector<std::string>& extra_dirs = {});
  /// The same for a braced list of folders ({"a", "b"} would otherwise also match the vector of
  /// PluginPathSpec below, through its iterator-pair constructor).
  explicit PluginRegistry(std::initializer_list<std::string> extra_dirs)
      : PluginRegistry(std::vector<std::string>(extra_dirs)) {}
  /// Scans the default folders, then the case's plugin_paths: an entry that does not exist, holds
  /// no plugin file, or holds one that cannot be loaded is an InputError at the entry, with the
  /// loader's reason (dlopen's message, the ABI found) and the fix.
  explicit PluginRegistry(const std::vector<PluginPathSpec>& case_paths);

  [[nodiscard]] const std::vector<std::string>& search_path() const { return dirs_; }
  [[nodiscard]] const std::vector<PluginInfo>& plugins() const { return plugins_; }
  [[nodiscard]] const std::vector<PluginProblem>& problems() const { return problems_; }

  /// Lookups. `where` locates the case-file reference for messages.
  [[nodiscard]] const ElementData& element(const std::string& name,
                                           const SourceLocation& where = {}) const;
  [[nodiscard]] const MaterialApi& material(const std::string& name, const std::string& backend,
                                            const SourceLocation& where = {}) const;
  /// Creates the backend on `device` (kDefaultDevice: the backend's choice). Throws with the
  /// reason when it cannot run on this machine; `device_where` locates the case's `device:`.
  [[nodiscard]] std::unique_ptr<Backend> create_backend(
      const std::string& name, int device = kDefaultDevice, const SourceLocation& where = {},
      const SourceLocation& device_where = {}) const;
  /// The case's backend on the case's device (`backend:`, `device:`). A device given to a
  /// backend without devices (openmp, Kokkos on the host) is ignored with a warning, so that one
  /// case runs on every backend.
  [[nodiscard]] std::unique_ptr<Backend> create_backend(const CaseSpec& spec) const;
  [[nodiscard]] const PluginInfo* find(const std::string& kind, const std::string& name,
                                       const std::string& backend = {}) const;
  /// Names of loaded plugins of a kind (unique, sorted).
  [[nodiscard]] std::vector<std::string> names(const std::string& kind) const;

  /// The default folders (libfem's plugin folder, then FEM_PLUGIN_PATH).
  static std::vector<std::string> default_dirs();

 private:
  /// Whether `dir` is seen for the first time (folders named twice are scanned once).
  bool first_visit(const std::string& dir);
  void scan(const std::string& dir);
  void load_case_path(const PluginPathSpec& entry);
  void add(PluginInfo info);
  [[nodiscard]] std::string problems_hint() const;

  std::vector<std::string> dirs_;
  std::set<std::string> visited_;  ///< canonical folders scanned
  std::vector<PluginInfo> plugins_;
  std::vector<PluginProblem> problems_;
  std::vector<std::pair<PluginInfo, PluginInfo>> duplicates_;
};

}  // namespace fem
