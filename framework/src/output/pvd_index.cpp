#include "pvd_index.hpp"

#include <fmt/format.h>

namespace fem::detail {

namespace {

/// File names come from user-chosen basenames; escape them so the index stays well-formed XML.
std::string xml_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

std::string format_pvd(const std::vector<PvdEntry>& entries) {
  std::string xml =
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
      "  <Collection>\n";
  for (const PvdEntry& e : entries) {
    // Shortest representation that reads back to the same double: ParaView matches the times
    // exactly against the "TimeValue" stored in each .vtu.
    xml += fmt::format("    <DataSet timestep=\"{}\" group=\"\" part=\"0\" file=\"{}\"/>\n", e.time,
                       xml_escape(e.file));
  }
  xml +=
      "  </Collection>\n"
      "</VTKFile>\n";
  return xml;
}

}  // namespace fem::detail
