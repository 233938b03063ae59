// read_mesh: the format by extension, and reading a file's bytes for the text readers.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fem/error.hpp"
#include "fem/memory.hpp"
#include "fem/mesh/readers.hpp"
#include "parsers.hpp"
#include "read_file.hpp"

namespace fem {

namespace detail {

std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

std::string read_mesh_file_bytes(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw InputError({path, 0, 0}, "mesh file '" + path + "' does not exist",
                     "mesh.file is relative to the case file's folder");
  if (fs::is_directory(path, ec))
    throw InputError({path, 0, 0}, "mesh file '" + path + "' is a directory",
                     "give the path of a mesh file");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    throw InputError({path, 0, 0}, "cannot open mesh file '" + path +
                                       "': " + (err ? std::strerror(err) : "it cannot be read"));
  }
  const std::uintmax_t size = fs::is_regular_file(path, ec) ? fs::file_size(path, ec) : 0;
  if (ec || size == 0) {
    // Not a regular file (a pipe) or no size: read what comes.
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (in.bad()) throw InputError({path, 0, 0}, "cannot read mesh file '" + path + "'");
    return bytes.str();
  }
  require_mesh_file_fits(path, size);
  // One allocation of the file's size: a stream into a string would hold it twice.
  std::string bytes(static_cast<std::size_t>(size), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (in.bad()) throw InputError({path, 0, 0}, "cannot read mesh file '" + path + "'");
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  return bytes;
}

void require_mesh_file_fits(const std::string& path, std::uintmax_t bytes) {
  // Every reader holds the whole file while it parses, and the mesh it builds on top.
  require_memory(static_cast<double>(bytes),
                 "reading mesh file '" + path + "' (" + std::to_string(bytes) + " bytes)",
                 {path, 0, 0},
                 "the mesh is too large for this machine: use a coarser mesh, or run where more "
                 "memory is available");
}

}  // namespace detail

const char* mesh_file_formats() {
  return "'.msh' (Gmsh 2.2 or 4.1), '.inp' (Abaqus), '.vtu' or '.vtk' (VTK)";
}

Mesh read_mesh(const std::string& path) {
  const std::string ext = detail::lower_extension(path);
  if (ext == ".msh") return read_gmsh(path);
  if (ext == ".inp") return read_abaqus(path);
  if (ext == ".vtu" || ext == ".vtk") return read_vtk_mesh(path);
  throw InputError({path, 0, 0}, "unknown mesh file format '" + (ext.empty() ? path : ext) + "'",
                   std::string("fem reads ") + mesh_file_formats() + ", chosen by extension");
}

}  // namespace fem

namespace fem {

std::vector<double> read_surface_triangles(const std::string& path, const std::string& group) {
  const std::string ext = detail::lower_extension(path);
  if (ext == ".msh") return detail::parse_gmsh(path).surface_soup(group);
  if (ext == ".inp") return detail::parse_abaqus(path).surface_soup(group);
  if (ext == ".vtu" || ext == ".vtk") return detail::parse_vtk(path).surface_soup(group);
  throw InputError(
      {path, 0, 0}, "unknown mesh file format '" + (ext.empty() ? path : ext) + "'",
      std::string("fem reads surfaces from ") + mesh_file_formats() + ", chosen by extension");
}

}  // namespace fem
