// Reading a mesh file's bytes, with the message for a file that is missing or unreadable
// (framework/src/mesh/ only, not installed).
#pragma once

#include <cstdint>
#include <string>

namespace fem::detail {

/// The whole file. Throws InputError for a missing file, a directory or a read error.
/// Refuses (InputError) a file larger than the memory fem can still use (MemoryBudget).
std::string read_mesh_file_bytes(const std::string& path);

/// The refusal of a mesh file of `bytes` bytes that does not fit in memory, for readers that
/// hand the file to a library (VTK) instead of read_mesh_file_bytes().
void require_mesh_file_fits(const std::string& path, std::uintmax_t bytes);

/// The file's extension in lower case, with the dot (".msh"), or "".
std::string lower_extension(const std::string& path);

}  // namespace fem::detail
