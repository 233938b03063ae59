#include "fem/plugin_registry.hpp"

#include <dlfcn.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

namespace fem {
namespace fs = std::filesystem;

namespace {

const char* kind_name(std::uint32_t kind) {
  switch (kind) {
    case FEM_PLUGIN_BACKEND:
      return "backend";
    case FEM_PLUGIN_ELEMENT:
      return "element";
    case FEM_PLUGIN_MATERIAL:
      return "material";
    default:
      return nullptr;
  }
}

std::string str_or(const char* s, const char* fallback = "") {
  return s ? s : fallback;
}

/// Folder of the shared object that contains this function: libfem itself.
std::string libfem_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&libfem_dir), &info) == 0 || info.dli_fname == nullptr)
    return {};
  return fs::path(info.dli_fname).parent_path().string();
}

}  // namespace

PluginInfo load_plugin_file(const std::string& path) {
  // Plugins stay loaded for the life of the process: descriptors and tables point into them.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr)
    throw PluginError("cannot load plugin '" + path + "': " + str_or(dlerror(), "unknown error"),
                      "check that it was built for this machine and that the libraries it needs "
                      "are installed (ldd '" +
                          path + "')");
  dlerror();
  auto entry = reinterpret_cast<fem_plugin_entry_fn>(dlsym(handle, FEM_PLUGIN_ENTRY_SYMBOL));
  if (entry == nullptr) {
    dlclose(handle);
    throw PluginError("'" + path +
                          "' is not a fem plugin: it exports no '" FEM_PLUGIN_ENTRY_SYMBOL
                          "' entry point",
                      "define it with FEM_DEFINE_PLUGIN_ENTRY, or build the plugin with "
                      "fem_add_material()/fem_add_element()");
  }
  return check_plugin_descriptor(path, entry());
}

PluginInfo check_plugin_descriptor(const std::string& path, const fem_plugin_descriptor_t* d) {
  if (d == nullptr) throw PluginError("plugin '" + path + "' returned no descriptor");
  if (d->abi_version != FEM_PLUGIN_ABI_VERSION)
    throw PluginError(
        "plugin '" + path + "' was built against fem plugin ABI " + std::to_string(d->abi_version) +
            ", but this fem uses ABI " + std::to_string(FEM_PLUGIN_ABI_VERSION),
        "rebuild the plugin against this fem installation "
        "(re-run cmake with -Dfem_DIR=<this fem's prefix>/lib/cmake/fem and rebuild)");
  if (str_or(d->build_id) != FEM_PLUGIN_BUILD_ID)
    throw PluginError("plugin '" + path + "' was built with C++ library ABI '" +
                          str_or(d->build_id) + "', but this fem uses '" FEM_PLUGIN_BUILD_ID "'",
                      "rebuild the plugin with the same compiler and standard library as fem");
  const char* kind = kind_name(d->kind);
  if (kind == nullptr || d->name == nullptr || d->api == nullptr)
    throw PluginError("plugin '" + path + "' has a malformed descriptor (kind " +
                      std::to_string(d->kind) + ")");
  PluginInfo info{path, kind, d->name, str_or(d->version, "?"), str_or(d->backend), d};
  if (d->kind == FEM_PLUGIN_ELEMENT &&
      static_cast<const ElementData*>(d->api)->struct_size != sizeof(ElementData))
    throw PluginError("element plugin '" + path + "' has an ElementData of another size");
  if (d->kind == FEM_PLUGIN_MATERIAL &&
      static_cast<const MaterialApi*>(d->api)->host.struct_size != sizeof(MaterialHostApi))
    throw PluginError("material plugin '" + path + "' has a MaterialHostApi of another size");
  if (d->kind == FEM_PLUGIN_BACKEND &&
      static_cast<const BackendApi*>(d->api)->struct_size != sizeof(BackendApi))
    throw PluginError("backend plugin '" + path + "' has a BackendApi of another size");
  return info;
}

std::vector<std::string> PluginRegistry::default_dirs() {
  std::vector<std::string> dirs;
  const std::string lib = libfem_dir();
  if (!lib.empty()) dirs.push_back((fs::path(lib) / "fem" / "plugins").string());
  if (const char* env = std::getenv("FEM_PLUGIN_PATH")) {
    std::string s = env;
    std::size_t start = 0;
    while (start <= s.size()) {
      const std::size_t end = std::min(s.find(':', start), s.size());
      if (end > start) dirs.push_back(s.substr(start, end - start));
      start = end + 1;
    }
  }
  return dirs;
}

PluginRegistry::PluginRegistry(const std::vector<std::string>& extra_dirs) {
  dirs_ = default_dirs();
  dirs_.insert(dirs_.end(), extra_dirs.begin(), extra_dirs.end());
  for (const std::string& d : dirs_)
    if (first_visit(d)) scan(d);
}

PluginRegistry::PluginRegistry(const std::vector<PluginPathSpec>& case_paths)
    : PluginRegistry(std::vector<std::string>{}) {
  for (const PluginPathSpec& entry : case_paths) {
    dirs_.push_back(entry.path);
    if (first_visit(entry.path)) load_case_path(entry);
  }
}

bool PluginRegistry::first_visit(const std::string& dir) {
  std::error_code ec;
  const std::string canonical = fs::weakly_canonical(dir, ec).string();
  return visited_.insert(ec ? dir : canonical).second;
}

namespace {

/// The plugin files (*.so) of a folder, sorted; none if it is not a folder.
std::vector<std::string> plugin_files(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> files;
  if (!fs::is_directory(dir, ec)) return files;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.is_regular_file() && entry.path().extension() == ".so")
      files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

void PluginRegistry::scan(const std::string& dir) {
  for (const std::string& f : plugin_files(dir)) {
    try {
      add(load_plugin_file(f));
    } catch (const PluginError& e) {
      problems_.push_back({f, e.what()});
    }
  }
}

void PluginRegistry::load_case_path(const PluginPathSpec& entry) {
  const std::string& path = entry.path;
  const char* what_it_is =
      "plugin_paths lists folders of plugin files (*.so) or single plugin files, relative to "
      "the case file's folder";
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status))
    throw InputError(entry.where, "plugin path '" + path + "' does not exist", what_it_is);
  std::vector<std::string> files;
  if (fs::is_directory(status)) {
    files = plugin_files(path);
    if (files.empty())
      throw InputError(entry.where, "plugin folder '" + path + "' holds no plugin files (*.so)",
                       "build the plugins into it first, or give the folder they are built in "
                       "(the build folder, not the sources)");
  } else if (fs::path(path).extension() == ".so") {
    files.push_back(path);
  } else {
    throw InputError(entry.where, "plugin path '" + path + "' is neither a folder nor a .so file",
                     what_it_is);
  }
  for (const std::string& f : files) {
    try {
      add(load_plugin_file(f));
    } catch (const PluginError& e) {
      throw InputError(entry.where, e.reason(),
                       e.hint().empty() ? std::string("remove the file or rebuild it against "
                                                      "this fem")
                                        : e.hint());
    }
  }
}

void PluginRegistry::add(PluginInfo info) {
  for (const PluginInfo& p : plugins_)
    if (p.kind == info.kind && p.name == info.name && p.backend == info.backend) {
      duplicates_.emplace_back(p, info);
      problems_.push_back(
          {info.file, "duplicate " + info.kind + " '" + info.name + "': also in '" + p.file + "'"});
      return;
    }
  plugins_.push_back(std::move(info));
}

const PluginInfo* PluginRegistry::find(const std::string& kind, const std::string& name,
                                       const std::string& backend) const {
  for (const auto& [first, second] : duplicates_)
    if (first.kind == kind && first.name == name && (backend.empty() || first.backend == backend))
      throw PluginError("two plugins register the " + kind + " '" + name + "': '" + first.file +
                        "' and '" + second.file +
                        "'\n  hint: remove one of them, or rename one plugin");
  for (const PluginInfo& p : plugins_)
    if (p.kind == kind && p.name == name && (backend.empty() || p.backend == backend)) return &p;
  return nullptr;
}

std::vector<std::string> PluginRegistry::names(const std::string& kind) const {
  std::set<std::string> s;
  for (const PluginInfo& p : plugins_)
    if (p.kind == kind) s.insert(p.name);
  return {s.begin(), s.end()};
}

std::string PluginRegistry::problems_hint() const {
  std::string s;
  if (!problems_.empty()) {
    s += "\n  these plugin files could not be used:";
    for (const PluginProblem& p : problems_) s += "\n    " + p.reason;
  }
  std::string dirs;
  for (const std::string& d : dirs_) dirs += (dirs.empty() ? "" : ", ") + d;
  s += "\n  searched: " + (dirs.empty() ? std::string("(nothing)") : dirs);
  return s;
}

namespace {
std::string unknown_message(const std::string& kind, const std::string& name,
                            const std::vector<std::string>& known) {
  std::string hint = did_you_mean(name, known.data(), known.data() + known.size());
  std::string list;
  for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
  return (hint.empty() ? "" : hint + " ") + "available " + kind +
         "s: " + (list.empty() ? std::string("none") : list);
}
}  // namespace

const ElementData& PluginRegistry::element(const std::string& name,
                                           const SourceLocation& where) const {
  if (const PluginInfo* p = find("element", name))
    return *static_cast<const ElementData*>(p->descriptor->api);
  throw InputError(where, "unknown element type '" + name + "'",
                   unknown_message("element", name, names("element")) + problems_hint());
}

const MaterialApi& PluginRegistry::material(const std::string& name, const std::string& backend,
                                            const SourceLocation& where) const {
  if (const PluginInfo* p = find("material", name, backend))
    return *static_cast<const MaterialApi*>(p->descriptor->api);
  if (const PluginInfo* other = find("material", name)) {
    std::string built;
    for (const PluginInfo& q : plugins_)
      if (q.kind == "material" && q.name == name) built += (built.empty() ? "" : ", ") + q.backend;
    throw InputError(where,
                     "material '" + name + "' has no build for backend '" + backend + "' (found " +
                         other->file + ", built for: " + built + ")",
                     "rebuild the material with the " + backend +
                         " backend enabled (fem_add_material compiles it for every backend "
                         "fem was configured with), or choose --backend " +
                         other->backend);
  }
  throw InputError(where, "unknown material type '" + name + "'",
                   unknown_message("material", name, names("material")) + problems_hint());
}

std::unique_ptr<Backend> PluginRegistry::create_backend(const std::string& name, int device,
                                                        const SourceLocation& where,
                                                        const SourceLocation& device_where) const {
  const PluginInfo* p = find("backend", name);
  if (p == nullptr)
    throw InputError(where, "unknown backend '" + name + "'",
                     unknown_message("backend", name, names("backend")) + problems_hint());
  const auto* api = static_cast<const BackendApi*>(p->descriptor->api);
  char why[512] = {0};
  Backend* b = api->create(device, why, sizeof(why));
  if (b == nullptr) {
    const std::string reason = why[0] ? std::string(why) : std::string("no reason given");
    if (device != kDefaultDevice)
      throw InputError(
          device_where,
          "backend '" + name + "' cannot run on device " + std::to_string(device) + ": " + reason,
          "choose a device that `fem plugins` lists under the backend (numbers "
          "count the GPUs CUDA_VISIBLE_DEVICES leaves visible, from 0), or leave "
          "`device` out");
    throw Error("backend '" + name + "' cannot run on this machine: " + reason +
                "\n  hint: choose another backend with --backend (see `fem plugins`)");
  }
  return std::unique_ptr<Backend>(b);
}

std::unique_ptr<Backend> PluginRegistry::create_backend(const CaseSpec& spec) const {
  std::unique_ptr<Backend> backend =
      create_backend(spec.backend, spec.device, {}, spec.device_where);
  if (spec.device != kDefaultDevice && backend->devices().empty())
    spdlog::warn(
        "{}: device {} is ignored: backend '{}' runs on {}, which has no devices to "
        "choose from",
        spec.device_where.str(), spec.device, spec.backend, backend->execution_space());
  return backend;
}

}  // namespace fem
