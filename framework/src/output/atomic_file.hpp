// Replacing a file so that readers see either the old or the new contents, never a partial one
// (framework/src/output/ only, not installed).
#pragma once

#include <string>
#include <string_view>

namespace fem::detail {

/// Writes `contents` to "<path>.tmp" in the same directory, then renames it over `path`.
/// rename() within one file system is atomic, so a run killed mid-write leaves the previous
/// version intact. Throws fem::Error with the path and the system's reason on failure.
void write_file_atomically(const std::string& path, std::string_view contents);

}  // namespace fem::detail
