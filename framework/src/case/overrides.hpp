// --set overrides: edits of the YAML tree made before validation, so that an overridden value is
// checked exactly like one written in the file.
#pragma once

#include <vector>

#include <yaml-cpp/yaml.h>

#include "fem/case.hpp"
#include "yaml_reader.hpp"

namespace fem::case_io {

/// The location label of one override: "<command line>: --set path=value".
[[nodiscard]] std::string override_label(const CaseOverride& o);

/// Applies `overrides` in order to `root` (later ones win). Records in origin.overridden every
/// subtree an override replaced or created, so messages about it point at the command line.
/// Throws InputError at "<command line>" for a path that cannot be followed.
void apply_overrides(YAML::Node& root, const std::vector<CaseOverride>& overrides, Origin& origin);

}  // namespace fem::case_io
