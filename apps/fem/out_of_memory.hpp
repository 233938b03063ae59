// The report when memory runs out. std::bad_alloc says nothing about what was being allocated,
// so each command names what it is doing (with the model's size where known) before each stage,
// and the report adds the limits that applied: the address-space limit (`ulimit -v`) and the
// memory the system had available.
#pragma once

#include <string>

namespace fem::cli {

/// What fem is doing now: "building the model", "setting up the solver for 8 M elements".
void set_activity(std::string what);

/// "error: out of memory while <activity>" with a hint to reduce the size and the limits.
std::string out_of_memory_message();

}  // namespace fem::cli
