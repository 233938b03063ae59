// Replacing a file so that readers see either the old or the new contents, never a partial one
// (framework/src/output/ only, not installed).
#pragma once

#include <string>
#include <string_view>

namespace fem::detail {

/// Whether write_file_atomically() waits until the contents are on the storage device.
enum class Durability {
  Cached,  ///< the operating system's cache is enough (a .pvd index, rewritten every frame)
  Synced,  ///< fsync the file and its directory: survives a power cut (checkpoints)
};

/// Writes `contents` to "<path>.tmp" in the same directory, then renames it over `path`.
/// rename() within one file system is atomic, so a run killed mid-write leaves the previous
/// version intact. Throws fem::Error with the path and the system's reason on failure (a full
/// disk included), removing the temporary file.
void write_file_atomically(const std::string& path, std::string_view contents,
                           Durability durability = Durability::Cached);

}  // namespace fem::detail
