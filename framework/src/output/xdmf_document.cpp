#include "xdmf_document.hpp"

#include <array>

#include <fmt/format.h>

#include "fem/error.hpp"
#include "pvd_index.hpp"

namespace fem::detail {

namespace {

struct CellType {
  std::uint8_t vtk;
  const char* name;  ///< XDMF TopologyType
  int code;          ///< its number in a Mixed topology
  int nodes;
};

// XDMF's topology types (XdmfTopologyType.cpp) for the VTK cells fem's elements write. XDMF
// readers hand the nodes to VTK in the order given, so VTK's order is kept.
constexpr std::array<CellType, 16> kCellTypes = {{
    {1, "Polyvertex", 0x1, 1},
    {3, "Polyline", 0x2, 2},
    {5, "Triangle", 0x4, 3},
    {9, "Quadrilateral", 0x5, 4},
    {10, "Tetrahedron", 0x6, 4},
    {14, "Pyramid", 0x7, 5},
    {13, "Wedge", 0x8, 6},
    {12, "Hexahedron", 0x9, 8},
    {21, "Edge_3", 0x22, 3},
    {28, "Quadrilateral_9", 0x23, 9},
    {22, "Triangle_6", 0x24, 6},
    {23, "Quadrilateral_8", 0x25, 8},
    {24, "Tetrahedron_10", 0x26, 10},
    {27, "Pyramid_13", 0x27, 13},
    {26, "Wedge_15", 0x28, 15},
    {25, "Hexahedron_20", 0x30, 20},
}};

const CellType& cell_type(std::uint8_t vtk, std::int64_t cell) {
  for (const CellType& t : kCellTypes)
    if (t.vtk == vtk) return t;
  throw Error(fmt::format(
      "output.xdmf: cell {} has VTK cell type {}, which XDMF has no topology type for\n  hint: "
      "write this mesh's frames as VTK (output.vtk: true, output.xdmf: false)",
      cell, static_cast<int>(vtk)));
}

std::string data_item(const std::string& dimensions, const std::string& number_type, int precision,
                      const std::string& file, const std::string& dataset) {
  return fmt::format(
      "<DataItem Dimensions=\"{}\" NumberType=\"{}\" Precision=\"{}\" "
      "Format=\"HDF\">{}:{}</DataItem>",
      dimensions, number_type, precision, xml_escape(file), dataset);
}

std::string dimensions(std::int64_t rows, int components) {
  return components == 1 ? fmt::format("{}", rows) : fmt::format("{} {}", rows, components);
}

// Scalar and Vector are what they say; any other width (6 for fem's symmetric tensors, whose
// order is VTK's xx yy zz xy yz xz and not XDMF's Tensor6 order) is a plain multi-component
// array, as the .vtu holds it.
const char* attribute_type(int components) {
  if (components == 1) return "Scalar";
  if (components == 3) return "Vector";
  return "Matrix";
}

std::string attribute(const XdmfArray& a, const std::string& file, const std::string& indent) {
  return fmt::format(
      "{}<Attribute Name=\"{}\" AttributeType=\"{}\" Center=\"{}\">\n{}  {}\n{}</Attribute>\n",
      indent, xml_escape(a.name), attribute_type(a.components), a.cell ? "Cell" : "Node", indent,
      data_item(dimensions(a.rows, a.components), a.number_type, a.precision, file, a.dataset),
      indent);
}

}  // namespace

XdmfTopology xdmf_topology(const OutputMesh& mesh) {
  XdmfTopology t;
  t.cells = mesh.num_cells();
  bool uniform = true;
  for (std::int64_t c = 1; c < t.cells && uniform; ++c)
    uniform = mesh.cell_types[static_cast<std::size_t>(c)] == mesh.cell_types[0];
  for (std::int64_t c = 0; c < t.cells; ++c) {
    const auto cu = static_cast<std::size_t>(c);
    const CellType& type = cell_type(mesh.cell_types[cu], c);
    const std::int64_t begin = mesh.offsets[cu], end = mesh.offsets[cu + 1];
    if (end - begin != type.nodes)
      throw Error(fmt::format("output.xdmf: cell {} ({}) has {} nodes, not {}", c, type.name,
                              end - begin, type.nodes));
    if (!uniform) {
      t.data.push_back(type.code);
      if (type.code == 0x1 || type.code == 0x2) t.data.push_back(type.nodes);
    }
    t.data.insert(t.data.end(), mesh.connectivity.begin() + begin, mesh.connectivity.begin() + end);
  }
  if (uniform && t.cells > 0) {
    const CellType& type = cell_type(mesh.cell_types[0], 0);
    t.type = type.name;
    t.nodes_per_cell = type.nodes;
  } else {
    t.type = "Mixed";
  }
  return t;
}

std::string xdmf_frame_group(int index) {
  return fmt::format("/frames/{:06d}", index);
}

std::string format_piece_mesh(const std::string& file, std::int64_t points,
                              const XdmfTopology& topology,
                              const std::vector<XdmfArray>& mesh_arrays) {
  const std::string indent = "        ";
  std::string xml;
  if (topology.type == "Mixed") {
    xml += fmt::format("{}<Topology TopologyType=\"Mixed\" NumberOfElements=\"{}\">\n", indent,
                       topology.cells);
    xml += fmt::format(
        "{}  {}\n", indent,
        data_item(fmt::format("{}", topology.data.size()), "Int", 8, file, "/mesh/topology"));
  } else {
    xml += fmt::format(
        "{}<Topology TopologyType=\"{}\" NumberOfElements=\"{}\" NodesPerElement=\"{}\">\n", indent,
        topology.type, topology.cells, topology.nodes_per_cell);
    xml += fmt::format("{}  {}\n", indent,
                       data_item(dimensions(topology.cells, topology.nodes_per_cell), "Int", 8,
                                 file, "/mesh/topology"));
  }
  xml += indent + "</Topology>\n";
  xml += fmt::format("{}<Geometry GeometryType=\"XYZ\">\n{}  {}\n{}</Geometry>\n", indent, indent,
                     data_item(dimensions(points, 3), "Float", 8, file, "/mesh/points"), indent);
  for (const XdmfArray& a : mesh_arrays) xml += attribute(a, file, indent);
  return xml;
}

std::string format_xdmf(const std::string& name, const std::vector<XdmfPiece>& pieces,
                        const std::vector<XdmfFrame>& frames) {
  std::string xml = fmt::format(
      "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
      "<Xdmf Version=\"3.0\">\n"
      "  <Domain>\n"
      "    <Grid Name=\"{}\" GridType=\"Collection\" CollectionType=\"Temporal\">\n",
      xml_escape(name));
  const bool several = pieces.size() > 1;
  for (const XdmfFrame& f : frames) {
    const std::string group = xdmf_frame_group(f.index);
    // Shortest representation that reads back to the same double, as in the .pvd.
    const std::string time = fmt::format("<Time Value=\"{}\"/>\n", f.time);
    const std::string frame_name = group.substr(group.rfind('/') + 1);
    if (several)
      xml += fmt::format(
          "      <Grid Name=\"frame_{}\" GridType=\"Collection\" "
          "CollectionType=\"Spatial\">\n        {}",
          frame_name, time);
    for (std::size_t p = 0; p < pieces.size(); ++p) {
      const XdmfPiece& piece = pieces[p];
      const std::string grid_name =
          several ? fmt::format("frame_{}_piece_{}", frame_name, p) : "frame_" + frame_name;
      xml += fmt::format("      <Grid Name=\"{}\" GridType=\"Uniform\">\n", grid_name);
      if (!several) xml += "        " + time;
      xml += piece.mesh_xml;
      for (const XdmfFieldShape& field : f.fields) {
        XdmfArray a{field.name, group + "/" + field.name, field.cell, field.components,
                    field.cell ? piece.cells : piece.points};
        xml += attribute(a, piece.file, "        ");
      }
      xml += "      </Grid>\n";
    }
    if (several) xml += "      </Grid>\n";
  }
  xml +=
      "    </Grid>\n"
      "  </Domain>\n"
      "</Xdmf>\n";
  return xml;
}

}  // namespace fem::detail
