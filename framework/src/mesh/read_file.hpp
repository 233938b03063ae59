// Reading a mesh file's bytes, with the message for a file that is missing or unreadable
// (framework/src/mesh/ only, not installed).
#pragma once

#include <string>

namespace fem::detail {

/// The whole file. Throws InputError for a missing file, a directory or a read error.
std::string read_mesh_file_bytes(const std::string& path);

/// The file's extension in lower case, with the dot (".msh"), or "".
std::string lower_extension(const std::string& path);

}  // namespace fem::detail
