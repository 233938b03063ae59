#include "pvd_index.hpp"

#include <fmt/format.h>

namespace fem::detail {

// File names come from user-chosen basenames; escape them so the index stays well-formed XML.
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

namespace {

/// A PPointData or PCellData element: the arrays, and which holds the global ids (the attribute
/// VTK's own writer puts on the pieces' PointData / CellData, so the reader marks it again).
std::string format_arrays(const char* element, const std::vector<PvtuArray>& arrays,
                          const std::string& global_ids) {
  std::string xml = fmt::format("    <{}", element);
  if (!global_ids.empty()) xml += fmt::format(" GlobalIds=\"{}\"", xml_escape(global_ids));
  xml += ">\n";
  for (const PvtuArray& a : arrays) {
    xml += fmt::format("      <PDataArray type=\"{}\"{} Name=\"{}\" NumberOfComponents=\"{}\"/>\n",
                       a.type, a.id_type ? " IdType=\"1\"" : "", xml_escape(a.name), a.components);
  }
  xml += fmt::format("    </{}>\n", element);
  return xml;
}

}  // namespace

std::string format_pvtu(const PvtuLayout& layout, const std::vector<std::string>& sources) {
  // The header matches the pieces' own (VtkSeriesWriter writes them with 64-bit headers).
  std::string xml =
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile type=\"PUnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" "
      "header_type=\"UInt64\">\n"
      "  <PUnstructuredGrid GhostLevel=\"0\">\n";
  xml += format_arrays("PPointData", layout.point_arrays, layout.point_global_ids);
  xml += format_arrays("PCellData", layout.cell_arrays, layout.cell_global_ids);
  xml +=
      "    <PPoints>\n"
      "      <PDataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\"/>\n"
      "    </PPoints>\n";
  for (const std::string& source : sources) {
    xml += fmt::format("    <Piece Source=\"{}\"/>\n", xml_escape(source));
  }
  xml +=
      "  </PUnstructuredGrid>\n"
      "</VTKFile>\n";
  return xml;
}

}  // namespace fem::detail
