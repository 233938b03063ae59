#include "fem/operator_assembly.hpp"

#include <algorithm>
#include <array>
#include <map>

namespace fem {

namespace {

/// The ANP connectivity in the global pressure order (4 nodes per ANP element).
std::vector<std::int32_t> anp_connectivity(const System& s) {
  std::vector<std::int32_t> conn(static_cast<std::size_t>(4 * s.num_pressure_elements));
  for (const BlockSystem& b : s.blocks)
    if (b.pressure_offset >= 0)
      std::copy(b.connectivity.begin(), b.connectivity.end(), conn.begin() + 4 * b.pressure_offset);
  return conn;
}

}  // namespace

std::int64_t NodeGraph::position(std::int32_t row, std::int32_t col) const {
  const auto begin = neighbours.begin() + offsets[row];
  const auto end = neighbours.begin() + offsets[row + 1];
  return std::lower_bound(begin, end, col) - begin;
}

NodeGraph tangent_graph(const System& s) {
  const std::int64_t nn = s.num_nodes;
  // Node-to-element incidence over all blocks (elements numbered block after block), so that
  // each node's list is built on its own: in parallel, without a list per node held at once.
  std::vector<std::int64_t> first_element;
  std::int64_t elements = 0;
  for (const BlockSystem& b : s.blocks) {
    first_element.push_back(elements);
    elements += b.num_elements;
  }
  std::vector<std::int64_t> at(static_cast<std::size_t>(nn + 1), 0);
  for (const BlockSystem& b : s.blocks)
    for (const std::int32_t n : b.connectivity) ++at[n + 1];
  for (std::int64_t n = 0; n < nn; ++n) at[n + 1] += at[n];
  std::vector<std::int64_t> incident(static_cast<std::size_t>(at[nn]));
  {
    std::vector<std::int64_t> fill(at.begin(), at.end() - 1);
    for (std::size_t b = 0; b < s.blocks.size(); ++b) {
      const BlockSystem& bs = s.blocks[b];
      for (std::int64_t e = 0; e < bs.num_elements; ++e)
        for (int a = 0; a < bs.nodes_per_element; ++a)
          incident[fill[bs.connectivity[e * bs.nodes_per_element + a]]++] = first_element[b] + e;
    }
  }
  const auto element_nodes = [&](std::int64_t e) {
    const std::size_t b =
        static_cast<std::size_t>(std::upper_bound(first_element.begin(), first_element.end(), e) -
                                 first_element.begin() - 1);
    const BlockSystem& bs = s.blocks[b];
    const std::int32_t* first =
        bs.connectivity.data() + (e - first_element[b]) * bs.nodes_per_element;
    return std::make_pair(first, first + bs.nodes_per_element);
  };
  // Averaged nodal pressure: through node k's pressure, every node of every ANP element at k
  // couples with every other (rows and columns of the rank-one term a_k b_k^T). Node n meets
  // that ring for each node k of each ANP element at n.
  const bool pressure = s.num_pressure_elements > 0;
  const std::vector<std::int32_t> conn =
      pressure ? anp_connectivity(s) : std::vector<std::int32_t>();
  const auto anp_at = [&](std::int64_t n, auto&& each) {
    for (std::int64_t j = s.pressure_incidence_offsets[n]; j < s.pressure_incidence_offsets[n + 1];
         ++j)
      each(conn.data() + 4 * static_cast<std::int64_t>(s.pressure_incidence_elements[j]));
  };
  const auto neighbours = [&](std::int64_t n, std::vector<std::int32_t>& out) {
    out.assign(1, static_cast<std::int32_t>(n));
    for (std::int64_t j = at[n]; j < at[n + 1]; ++j) {
      const auto [first, last] = element_nodes(incident[j]);
      out.insert(out.end(), first, last);
    }
    if (pressure)
      anp_at(n, [&](const std::int32_t* p) {
        for (int a = 0; a < 4; ++a)
          anp_at(p[a], [&](const std::int32_t* q) { out.insert(out.end(), q, q + 4); });
      });
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  };
  NodeGraph g;
  g.radius = pressure ? 2 : 1;
  g.offsets.assign(static_cast<std::size_t>(nn + 1), 0);
#pragma omp parallel
  {
    std::vector<std::int32_t> list;
#pragma omp for schedule(dynamic, 4096)
    for (std::int64_t n = 0; n < nn; ++n) {
      neighbours(n, list);
      g.offsets[n + 1] = static_cast<std::int64_t>(list.size());
    }
  }
  for (std::int64_t n = 0; n < nn; ++n) g.offsets[n + 1] += g.offsets[n];
  g.neighbours.resize(static_cast<std::size_t>(g.offsets[nn]));
#pragma omp parallel
  {
    std::vector<std::int32_t> list;
#pragma omp for schedule(dynamic, 4096)
    for (std::int64_t n = 0; n < nn; ++n) {
      neighbours(n, list);
      std::copy(list.begin(), list.end(), g.neighbours.begin() + g.offsets[n]);
    }
  }
  return g;
}

CsrMatrix tangent_matrix_pattern(const System& s, const NodeGraph& g) {
  const std::int64_t nn = s.num_nodes;
  CsrMatrix a;
  a.rows = a.cols = 3 * nn;
  a.offsets.assign(static_cast<std::size_t>(3 * nn + 1), 0);
  for (std::int64_t n = 0; n < nn; ++n) {
    const std::int64_t width = 3 * (g.offsets[n + 1] - g.offsets[n]);
    for (int i = 0; i < 3; ++i) a.offsets[3 * n + i + 1] = a.offsets[3 * n + i] + width;
  }
  a.columns.resize(static_cast<std::size_t>(a.offsets.back()));
  a.values.assign(a.columns.size(), 0.0);
  for (std::int64_t n = 0; n < nn; ++n)
    for (int i = 0; i < 3; ++i) {
      std::int64_t p = a.offsets[3 * n + i];
      for (std::int64_t j = g.offsets[n]; j < g.offsets[n + 1]; ++j)
        for (int k = 0; k < 3; ++k)
          a.columns[p++] = 3 * static_cast<std::int64_t>(g.neighbours[j]) + k;
    }
  return a;
}

namespace {

/// Adds value * (row block (r, c), entry (i, k)) unless a prescribed dof is involved.
inline void add_entry(const System& s, const NodeGraph& g, CsrMatrix& a, std::int32_t r, int i,
                      std::int32_t c, int k, double value) {
  if (s.prescribed_amplitude[3 * static_cast<std::int64_t>(r) + i] >= 0 ||
      s.prescribed_amplitude[3 * static_cast<std::int64_t>(c) + k] >= 0)
    return;
  a.values[a.offsets[3 * static_cast<std::int64_t>(r) + i] + 3 * g.position(r, c) + k] += value;
}

}  // namespace

template <class T>
void add_element_matrices(const System& s, const NodeGraph& g, const BlockSystem& b,
                          const T* matrices, double scale, CsrMatrix& a) {
  const std::int64_t npe = b.nodes_per_element;
  // In element order: the same sums on any thread count.
  for (std::int64_t e = 0; e < b.num_elements; ++e)
    for (std::int64_t ra = 0; ra < npe; ++ra) {
      const std::int32_t row = b.connectivity[e * npe + ra];
      for (std::int64_t cb = 0; cb < npe; ++cb) {
        const std::int32_t col = b.connectivity[e * npe + cb];
        const T* K = matrices + 9 * ((e * npe + ra) * npe + cb);
        for (int i = 0; i < 3; ++i)
          for (int k = 0; k < 3; ++k)
            add_entry(s, g, a, row, i, col, k, scale * static_cast<double>(K[3 * i + k]));
      }
    }
}
template void add_element_matrices<float>(const System&, const NodeGraph&, const BlockSystem&,
                                          const float*, double, CsrMatrix&);
template void add_element_matrices<double>(const System&, const NodeGraph&, const BlockSystem&,
                                           const double*, double, CsrMatrix&);

namespace {

/// a_k and b_k of node k (kernels::pressure_coupling) as node -> {a (3), b (3)}, over the nodes
/// of the ANP elements at k.
void node_coupling(const System& s, const std::vector<std::int32_t>& conn,
                   const std::vector<double>& coupling, std::int64_t k,
                   std::map<std::int32_t, std::array<double, 6>>& ab) {
  ab.clear();
  for (std::int64_t j = s.pressure_incidence_offsets[k]; j < s.pressure_incidence_offsets[k + 1];
       ++j) {
    const std::int64_t e = s.pressure_incidence_elements[j];
    const double* c = coupling.data() + 13 * e;
    for (int n = 0; n < 4; ++n) {
      std::array<double, 6>& entry = ab.try_emplace(conn[4 * e + n]).first->second;
      for (int i = 0; i < 3; ++i) {
        entry[i] += c[3 * n + i];              // a_k: V_e dJ_e/du
        entry[3 + i] += c[12] * c[3 * n + i];  // b_k: U''(J_e) V_e dJ_e/du
      }
    }
  }
}

}  // namespace

void add_pressure_coupling(const System& s, const NodeGraph& g, const std::vector<double>& coupling,
                           double scale, CsrMatrix& a) {
  if (s.num_pressure_elements == 0) return;
  const std::vector<std::int32_t> conn = anp_connectivity(s);
  std::map<std::int32_t, std::array<double, 6>> ab;
  for (std::int64_t k = 0; k < s.num_nodes; ++k) {
    if (s.pressure_incidence_offsets[k] == s.pressure_incidence_offsets[k + 1]) continue;
    node_coupling(s, conn, coupling, k, ab);
    const double w = scale * 0.25 * s.pressure_inverse_volume[k];
    for (const auto& [row, ra] : ab)
      for (const auto& [col, cb] : ab)
        for (int i = 0; i < 3; ++i)
          for (int c = 0; c < 3; ++c) add_entry(s, g, a, row, i, col, c, w * ra[i] * cb[3 + c]);
  }
}

void add_pressure_coupling_blocks(const System& s, const std::vector<double>& coupling,
                                  double scale, std::vector<double>& blocks) {
  if (s.num_pressure_elements == 0) return;
  const std::vector<std::int32_t> conn = anp_connectivity(s);
  std::map<std::int32_t, std::array<double, 6>> ab;
  for (std::int64_t k = 0; k < s.num_nodes; ++k) {
    if (s.pressure_incidence_offsets[k] == s.pressure_incidence_offsets[k + 1]) continue;
    node_coupling(s, conn, coupling, k, ab);
    const double w = scale * 0.25 * s.pressure_inverse_volume[k];
    for (const auto& [node, e] : ab)
      for (int i = 0; i < 3; ++i)
        for (int c = 0; c < 3; ++c)
          if (s.prescribed_amplitude[3 * static_cast<std::int64_t>(node) + i] < 0 &&
              s.prescribed_amplitude[3 * static_cast<std::int64_t>(node) + c] < 0)
            blocks[9 * static_cast<std::int64_t>(node) + 3 * i + c] += w * e[i] * e[3 + c];
  }
}

void finish_tangent_matrix(const System& s, const NodeGraph& g, double mass_shift, CsrMatrix& a) {
  for (std::int64_t n = 0; n < s.num_nodes; ++n) {
    const std::int64_t slot =
        g.position(static_cast<std::int32_t>(n), static_cast<std::int32_t>(n));
    for (int i = 0; i < 3; ++i) {
      const std::int64_t at = a.offsets[3 * n + i] + 3 * slot + i;
      a.values[at] = s.prescribed_amplitude[3 * n + i] >= 0
                         ? 1.0
                         : a.values[at] + mass_shift * s.lumped_mass[n];
    }
  }
}

}  // namespace fem
