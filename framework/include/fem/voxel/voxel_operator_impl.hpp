// The voxel multigrid's verbs (fem/voxel/voxel_operator.hpp) written once over an execution
// policy, so that every backend runs the same kernels (fem/kernels/voxel_kernels.hpp) in its
// own memory: the OpenMP backend with a parallel loop, CUDA with a kernel launch, Kokkos with
// parallel_for. `Exec` provides
//   template <class U> using Array   an owning array in the backend's memory (data(), size())
//   make<U>(n)                       an array of n zeros
//   upload(array, host, n, offset), download(array, host, n, offset)
//   for_each(begin, end, f)          f(i) for every i in [begin, end), in parallel
//   Lanes, for_each_lanes(begin, end, f)
//                                    f(i, lanes) for every i, by one or more threads each
//                                    (Lanes: lane(), count(), sum(x); kernels::voxel::OneLane
//                                    where one thread does an index's work)
//   sum(n, f)                        the sum over i < n of f(i) (a double), in a fixed order
//   Team, team(f)                    f(team) run by one team of threads (Team: rank(), size(),
//                                    barrier(), sum(double)): the coarsest level's CG
//   kEntryMajor                      the stencil layout (kernels::voxel::StencilLayout)
//   Recording, record(f), replay(r)  verbs recorded and run again as one (a null Recording:
//                                    not supported, f not called)
//   fork(), unfork(), join()         what is issued between fork and unfork runs on a side
//                                    queue, after what was issued before fork and alongside
//                                    what follows, until join() makes what follows wait for it
//                                    (no-ops where a backend runs its verbs in order)
//   synchronize()
// Lambdas are FEM_HD and capture only local copies (pointers, scalars), never `this`, so that
// they run on a device.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "fem/error.hpp"
#include "fem/kernels/voxel_kernels.hpp"
#include "fem/voxel/voxel_operator.hpp"

namespace fem::voxel {

template <class Exec, class T>
class VoxelOperatorOn final : public VoxelOperator {
  template <class U>
  using Array = typename Exec::template Array<U>;
  using Layout = kernels::voxel::StencilLayout;
  using Lanes = typename Exec::Lanes;

  struct Level {
    std::int64_t vertices = 0;
    std::array<std::int64_t, kColours + 1> colour_start{};
    Layout layout;
    Array<std::int32_t> neighbours, children, parents;
    Array<std::uint8_t> fixed;
    Array<T> a, b, u, r;
  };

 public:
  VoxelOperatorOn(const VoxelHierarchy& h, const VoxelMaterials& materials)
      : edge_(h.edge), elements_(h.elements) {
    for (const VoxelLevel& l : h.levels) {
      Level g;
      g.vertices = l.vertices;
      g.colour_start = l.colour_start;
      g.layout = Exec::kEntryMajor ? Layout{1, l.vertices} : Layout{kernels::voxel::kRowEntries, 1};
      g.neighbours = to_device(l.neighbours);
      g.children = to_device(l.children);
      g.parents = to_device(l.parents);
      g.fixed = Exec::template make<std::uint8_t>(l.vertices);
      g.a = Exec::template make<T>(kernels::voxel::kRowEntries * l.vertices);
      g.b = Exec::template make<T>(3 * l.vertices);
      g.u = Exec::template make<T>(3 * l.vertices);
      g.r = Exec::template make<T>(3 * l.vertices);
      levels_.push_back(std::move(g));
    }
    const std::int64_t n = 3 * levels_[0].vertices;
    element_vertices_ = to_device(h.element_vertices);
    vertex_elements_ = to_device(h.vertex_elements);
    element_material_ = to_device(materials.element_material);
    stiffness_ = to_device(converted(materials.stiffness));
    child_stiffness_ = to_device(converted(child_stiffness(materials.stiffness)));
    element_fixed_ = Exec::template make<std::uint8_t>(elements_);
    if (levels_.size() > 1) prepare_cells(h, materials.mass);
    tangent_ = to_device(converted(materials.tangent));
    mass_ = to_device(converted(materials.mass));
    rotations_ = Exec::template make<T>(9 * elements_);
    det_ = Exec::template make<T>(elements_);
    u_old_ = Exec::template make<T>(n);
    v_old_ = Exec::template make<T>(n);
    a_old_ = Exec::template make<T>(n);
    force_ = Exec::template make<T>(n);
    prescribed_ = Exec::template make<T>(n);
    const std::int64_t coarsest = levels_.back().vertices;
    for (Array<T>* s : {&cg_r_, &cg_z_, &cg_p_, &cg_q_}) *s = Exec::template make<T>(3 * coarsest);
    cg_report_ = Exec::template make<double>(3);
    // Padding vertices are prescribed (to zero) until set_masks says more.
    std::vector<std::vector<std::uint8_t>> masks = level_masks(h, {});
    for (std::size_t l = 0; l < levels_.size(); ++l)
      Exec::upload(levels_[l].fixed, masks[l].data(), levels_[l].vertices);
  }

  [[nodiscard]] Precision precision() const override {
    return sizeof(T) == 4 ? Precision::Single : Precision::Double;
  }
  [[nodiscard]] int levels() const override { return static_cast<int>(levels_.size()); }

  void set_state(const std::vector<double>& u, const std::vector<double>& v,
                 const std::vector<double>& a) override {
    await_coarse_levels();
    upload_values(u_old_, u);
    upload_values(v_old_, v);
    upload_values(a_old_, a);
    upload_values(levels_[0].u, u);
  }
  void state(std::vector<double>& u, std::vector<double>& v,
             std::vector<double>& a) const override {
    download_values(u_old_, u);
    download_values(v_old_, v);
    download_values(a_old_, a);
  }
  void displacements(const std::vector<std::int32_t>& vertices,
                     std::vector<double>& u) const override {
    gather_at(u_old_.data(), vertices, u);
  }
  void velocities(const std::vector<std::int32_t>& vertices,
                  std::vector<double>& v) const override {
    gather_at(v_old_.data(), vertices, v);
  }
  void support_forces(const std::vector<std::int32_t>& vertices, double mass_damping,
                      const std::array<double, 3>& gravity, std::vector<double>& f) const override {
    const std::int32_t* ve = vertex_elements_.data();
    const std::int32_t* ev = element_vertices_.data();
    const std::uint8_t* mat = element_material_.data();
    const T *rot = rotations_.data(), *k = stiffness_.data(), *mass = mass_.data();
    const T *u = u_old_.data(), *vel = v_old_.data(), *acc = a_old_.data(), *force = force_.data();
    const T edge = static_cast<T>(edge_), alpha = static_cast<T>(mass_damping);
    const T g0 = static_cast<T>(gravity[0]), g1 = static_cast<T>(gravity[1]),
            g2 = static_cast<T>(gravity[2]);
    per_vertex(vertices, f, [=] FEM_HD(std::int64_t v, T * out) {
      const T g[3] = {g0, g1, g2};
      kernels::voxel::support_force(v, ve, ev, mat, rot, k, edge, mass, u, vel, acc, force, alpha,
                                    g, out);
    });
  }
  void element_results(std::vector<double>& values) const override {
    if (tangent_.size() == 0)
      throw Error("voxel operator: element results need the materials' tangents (solver bug)");
    const std::int32_t* ev = element_vertices_.data();
    const std::uint8_t* mat = element_material_.data();
    const T *c = tangent_.data(), *k = stiffness_.data(), *u = u_old_.data();
    const T edge = static_cast<T>(edge_);
    const std::int64_t n = kernels::voxel::kResultValues * elements_;
    ensure(scratch_values_, n);
    T* out = scratch_values_.data();
    Exec::for_each(0, elements_, [=] FEM_HD(std::int64_t e) {
      kernels::voxel::voxel_results(e, ev, mat, c, k, edge, u,
                                    out + kernels::voxel::kResultValues * e);
    });
    std::vector<T> host(static_cast<std::size_t>(n));
    Exec::download(scratch_values_, host.data(), n);
    values.assign(host.begin(), host.end());
  }
  /// out = the 3 values of `from` at each vertex.
  void gather_at(const T* from, const std::vector<std::int32_t>& vertices,
                 std::vector<double>& out) const {
    per_vertex(vertices, out, [=] FEM_HD(std::int64_t v, T * to) {
      for (int c = 0; c < 3; ++c) to[c] = from[3 * v + c];
    });
  }
  /// out = the 3 values f(vertex, out) writes for each vertex: run on the backend, then one
  /// small transfer (public, and on no private type, as the device lambdas' enclosing functions
  /// must be).
  template <class F>
  void per_vertex(const std::vector<std::int32_t>& vertices, std::vector<double>& out, F f) const {
    const std::int64_t n = static_cast<std::int64_t>(vertices.size());
    ensure(scratch_index_, n);
    ensure(scratch_values_, 3 * n);
    Exec::upload(scratch_index_, vertices.data(), n);
    const std::int32_t* at = scratch_index_.data();
    T* to = scratch_values_.data();
    Exec::for_each(0, n, [=] FEM_HD(std::int64_t i) { f(at[i], to + 3 * i); });
    std::vector<T> host(static_cast<std::size_t>(3 * n));
    Exec::download(scratch_values_, host.data(), 3 * n);
    out.assign(host.begin(), host.end());
  }

  void set_masks(const std::vector<std::vector<std::uint8_t>>& masks,
                 const std::vector<double>& prescribed) override {
    await_coarse_levels();
    for (std::size_t l = 0; l < levels_.size(); ++l)
      Exec::upload(levels_[l].fixed, masks[l].data(), levels_[l].vertices);
    upload_values(prescribed_, prescribed);
    const std::int32_t* ev = element_vertices_.data();
    const std::uint8_t* fixed = levels_[0].fixed.data();
    std::uint8_t* element_fixed = element_fixed_.data();
    Exec::for_each(0, elements_, [=] FEM_HD(std::int64_t e) {
      std::uint8_t any = 0;
      for (int p = 0; p < kernels::voxel::kCorners; ++p)
        any |= fixed[ev[kernels::voxel::kCorners * e + p]];
      element_fixed[e] = any;
    });
  }
  void set_prescribed(const std::vector<std::int32_t>& vertices,
                      const std::vector<double>& values) override {
    scatter(prescribed_, vertices, values);
  }
  void set_forces(const std::vector<std::int32_t>& vertices,
                  const std::vector<double>& values) override {
    scatter(force_, vertices, values);
  }

  std::pair<std::int64_t, double> rotate() override {
    await_coarse_levels();
    const std::int32_t* ev = element_vertices_.data();
    const T* u = u_old_.data();
    T* rot = rotations_.data();
    T* det = det_.data();
    const T inverse_edge = static_cast<T>(1.0 / edge_);
    Exec::for_each(0, elements_, [=] FEM_HD(std::int64_t e) {
      det[e] = kernels::voxel::element_rotation(e, ev, u, inverse_edge, rot);
    });
    const T* d = det_.data();
    const double bad = Exec::sum(elements_, [=] FEM_HD(std::int64_t e) {
      return d[e] > T(0) ? 0.0 : 1.0;  // NaN counts as bad
    });
    if (bad == 0.0) return {-1, 1.0};
    std::vector<T> host(static_cast<std::size_t>(elements_));
    Exec::download(det_, host.data(), elements_);
    for (std::int64_t e = 0; e < elements_; ++e)
      if (!(host[e] > T(0))) return {e, static_cast<double>(host[e])};
    return {-1, 1.0};
  }

  void assemble(const VoxelStepScales& scales) override {
    await_coarse_levels();
    assemble_fine(scales);
  }

  /// assemble(), then every coarse level (coarsen(1), coarsen(2), ...) on the backend's side
  /// queue (Exec::fork): they read the rotations and the coarse levels, never level 0's rows,
  /// so they run alongside the fine assembly and the verbs on level 0 that follow (smooth(0),
  /// restrict_residual(0), residual_norms(0)); the first verb on a coarser level waits for them
  /// (await_coarse_levels). On a GPU the coarse levels' kernels, latency-bound, fill what the
  /// fine level's leave idle.
  void assemble_levels(const VoxelStepScales& scales) override {
    await_coarse_levels();
    if (levels_.size() > 1) {
      use_voxel_rows(scales);  // before the fork: coarsen_from_cells reads them
      Exec::fork();
      for (int l = 1; l < levels(); ++l) coarsen_level(l);
      Exec::unfork();
      coarse_levels_pending_ = true;
    }
    assemble_fine(scales);
  }

  /// The fine level's rows and right-hand side (public for the device lambdas'
  /// enclosing-function rules).
  void assemble_fine(const VoxelStepScales& scales) {
    Level& f = levels_[0];
    const std::int64_t nv = f.vertices;
    const std::int32_t* ve = vertex_elements_.data();
    const std::uint8_t* mat = element_material_.data();
    const T* rot = rotations_.data();
    const T* k = stiffness_.data();
    const T* mass = mass_.data();
    T* a = f.a.data();
    const Layout layout = f.layout;
    const std::int32_t* neighbours = f.neighbours.data();
    // A GPU (the entry-major layout) forms every vertex's whole row in one pass, each entry
    // written once (kernels::voxel::fine_row): its cost is bytes and latency. A CPU's is the
    // 3x3 products, which a first pass halves: block d of vertex v is the transpose of block -d
    // (slot 26 - s) of vertex v + d, so the slots from the centre on are formed and each but the
    // centre is written to both rows (one (vertex, slot) pair an index); fine_row then reads them.
    const bool blocks_stored = !Exec::kEntryMajor;
    if (blocks_stored) {
      const T mass_shift = static_cast<T>(scales.mass_shift);
      constexpr int upper = kernels::voxel::kSlots - kernels::voxel::kCentre;
      Exec::for_each(0, upper * nv, [=] FEM_HD(std::int64_t i) {
        const std::int64_t v = i / upper;
        const int s = kernels::voxel::kCentre + static_cast<int>(i % upper);
        T block[9];
        kernels::voxel::fine_block(v, s, ve, mat, rot, k, mass[v] * mass_shift, block);
        for (int e = 0; e < 9; ++e)
          a[layout.at(v, kernels::voxel::kBlockEntries * s + e)] = block[e];
        const std::int64_t n = neighbours[kernels::voxel::kSlots * v + s];
        if (s == kernels::voxel::kCentre || n < 0) return;
        const int mirror = kernels::voxel::kSlots - 1 - s;
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c)
            a[layout.at(n, kernels::voxel::kBlockEntries * mirror + 3 * c + r)] = block[3 * r + c];
      });
    }
    kernels::voxel::StepScales<T> sc{
        static_cast<T>(scales.mass_shift),
        static_cast<T>(scales.velocity_scale),
        {static_cast<T>(scales.gravity[0]), static_cast<T>(scales.gravity[1]),
         static_cast<T>(scales.gravity[2])}};
    const T edge = static_cast<T>(edge_);
    const T *u_old = u_old_.data(), *v_old = v_old_.data(), *a_old = a_old_.data(),
            *force = force_.data(), *prescribed = prescribed_.data();
    const std::uint8_t* fixed = f.fixed.data();
    T* b = f.b.data();
    T* u = f.u.data();
    use_voxel_rows(scales);
    // One thread a vertex (in the entry-major layout consecutive threads write consecutive
    // entries).
    Exec::for_each(0, nv, [=] FEM_HD(std::int64_t v) {
      kernels::voxel::fine_row(v, blocks_stored, ve, mat, rot, k, edge, mass, u_old, v_old, a_old,
                               force, sc, fixed, prescribed, neighbours, a, layout, b);
      // The solve starts from the last step's displacement, with this step's prescribed values.
      for (int c = 0; c < 3; ++c)
        u[3 * v + c] = ((fixed[v] >> c) & 1) ? prescribed[3 * v + c] : u_old[3 * v + c];
    });
  }

  void coarsen(int level) override {
    await_coarse_levels();
    coarsen_level(level);
  }
  void coarsen_level(int level) {
    if (level == 1 && fine_rows_from_voxels_) {
      coarsen_from_cells();
      return;
    }
    Level& f = levels_[level - 1];
    Level& c = levels_[level];
    const std::int64_t nv = c.vertices;
    const std::int32_t* children = c.children.data();
    const std::uint8_t* fine_fixed = f.fixed.data();
    const std::uint8_t* coarse_fixed = c.fixed.data();
    const T* fa = f.a.data();
    const Layout fl = f.layout, cl = c.layout;
    T* ca = c.a.data();
    // The 27 blocks of a coarse vertex in consecutive threads: they read the same children's
    // rows, which a device then fetches once for all of them (measured on the H100: 1.5 times
    // faster than a vertex per consecutive thread, whose writes coalesce instead).
    Exec::for_each_lanes(0, kernels::voxel::kSlots * nv,
                         [=] FEM_HD(std::int64_t i, const Lanes& lanes) {
                           const std::int64_t x = i / kernels::voxel::kSlots;
                           const int s = static_cast<int>(i % kernels::voxel::kSlots);
                           T block[9];
                           kernels::voxel::coarse_block(x, s, children, fine_fixed, fa, fl,
                                                        coarse_fixed, lanes, block);
                           if (lanes.lane() != 0) return;
                           for (int e = 0; e < 9; ++e)
                             ca[cl.at(x, kernels::voxel::kBlockEntries * s + e)] = block[e];
                         });
  }

  /// Level 1 cell by cell after assemble (kernels::voxel, "Level 1 cell by cell"): its cell
  /// matrices from the voxels, then its rows from them. Public for the device lambdas'
  /// enclosing-function rules.
  void coarsen_from_cells() {
    Level& g = levels_[1];
    const std::int64_t nv = g.vertices;
    const Layout cell_layout = cell_layout_;
    T* cells = cells_.data();
    constexpr int pairs = kernels::voxel::kCornerPairs;
    const kernels::voxel::FineVoxels<T> fine{cell_elements_.data(),    element_vertices_.data(),
                                             element_material_.data(), element_fixed_.data(),
                                             rotations_.data(),        stiffness_.data(),
                                             child_stiffness_.data(),  corner_mass_.data(),
                                             levels_[0].fixed.data(),  static_cast<T>(mass_shift_)};
    // A cell's pairs in consecutive threads: on a device they read the same voxels' rotations at
    // once and write the cell's pairs together.
    Exec::for_each(0, pairs * nv, [=] FEM_HD(std::int64_t i) {
      const int pair = static_cast<int>(i % pairs);
      T block[9];
      kernels::voxel::voxel_cell_block(i / pairs, pair, fine, block);
      for (int e = 0; e < 9; ++e)
        cells[cell_layout.at(i / pairs, kernels::voxel::kBlockEntries * pair + e)] = block[e];
    });
    const std::int32_t* neighbours = g.neighbours.data();
    const std::uint8_t* fixed = g.fixed.data();
    const Layout layout = g.layout;
    T* a = g.a.data();
    // As coarse_block: a vertex's 27 blocks in consecutive threads (they read the same cells).
    Exec::for_each(0, kernels::voxel::kSlots * nv, [=] FEM_HD(std::int64_t i) {
      const std::int64_t x = i / kernels::voxel::kSlots;
      const int s = static_cast<int>(i % kernels::voxel::kSlots);
      T block[9];
      kernels::voxel::row_block_from_cells(x, s, neighbours, cells, cell_layout, fixed, block);
      for (int e = 0; e < 9; ++e) a[layout.at(x, kernels::voxel::kBlockEntries * s + e)] = block[e];
    });
  }

  void smooth(int level, int sweeps, bool reversed) override {
    if (level > 0) await_coarse_levels();
    Level& g = levels_[level];
    const std::int32_t* nb = g.neighbours.data();
    const T* a = g.a.data();
    const T* b = g.b.data();
    T* u = g.u.data();
    const Layout layout = g.layout;
    for (int sweep = 0; sweep < sweeps; ++sweep)
      for (int k = 0; k < kColours; ++k) {
        const int colour = reversed ? kColours - 1 - k : k;
        Exec::for_each_lanes(g.colour_start[colour], g.colour_start[colour + 1],
                             [=] FEM_HD(std::int64_t v, const Lanes& lanes) {
                               kernels::voxel::relax_vertex(v, nb, a, layout, b, u, lanes);
                             });
      }
  }

  void restrict_residual(int level) override {
    if (level > 0) await_coarse_levels();
    residual(level);
    Level& f = levels_[level];
    Level& c = levels_[level + 1];
    const std::int32_t* children = c.children.data();
    const std::uint8_t* fine_fixed = f.fixed.data();
    const T* r = f.r.data();
    T* cb = c.b.data();
    T* cu = c.u.data();
    Exec::for_each_lanes(0, c.vertices, [=] FEM_HD(std::int64_t x, const Lanes& lanes) {
      kernels::voxel::restrict_vertex(x, children, fine_fixed, r, cb, cu, lanes);
    });
  }

  void interpolate(int level) override {
    await_coarse_levels();
    Level& f = levels_[level];
    const Level& c = levels_[level + 1];
    const std::int32_t* parents = f.parents.data();
    const std::uint8_t* fine_fixed = f.fixed.data();
    const T* e = c.u.data();
    T* u = f.u.data();
    Exec::for_each(0, f.vertices, [=] FEM_HD(std::int64_t x) {
      kernels::voxel::interpolate_vertex(x, parents, fine_fixed, e, u);
    });
  }

  CoarsestSolve solve_coarsest(int max_iterations, double tolerance, bool wanted) override {
    await_coarse_levels();
    Level& g = levels_.back();
    const std::int64_t nv = g.vertices;
    const std::int32_t* nb = g.neighbours.data();
    const T* a = g.a.data();
    const T* b = g.b.data();
    T* x = g.u.data();
    T *r = cg_r_.data(), *z = cg_z_.data(), *p = cg_p_.data(), *q = cg_q_.data();
    double* report = cg_report_.data();
    const Layout layout = g.layout;
    Exec::team([=] FEM_HD(const typename Exec::Team& team) {
      kernels::voxel::coarsest_cg(team, nv, nb, a, layout, b, x, r, z, p, q, max_iterations,
                                  tolerance, report);
    });
    if (!wanted) return {-1, -1.0};
    double host[3];
    Exec::download(cg_report_, host, 3);
    return {static_cast<int>(host[0]), host[2] > 0.0 ? std::sqrt(host[1] / host[2]) : 0.0};
  }

  std::array<double, 2> residual_norms(int level) override {
    if (level > 0) await_coarse_levels();
    residual(level);
    const Level& g = levels_[level];
    const std::uint8_t* fixed = g.fixed.data();
    const T* r = g.r.data();
    const T* b = g.b.data();
    const double rr = Exec::sum(3 * g.vertices, [=] FEM_HD(std::int64_t i) {
      return ((fixed[i / 3] >> (i % 3)) & 1)
                 ? 0.0
                 : static_cast<double>(r[i]) * static_cast<double>(r[i]);
    });
    const double bb = Exec::sum(3 * g.vertices, [=] FEM_HD(std::int64_t i) {
      return ((fixed[i / 3] >> (i % 3)) & 1)
                 ? 0.0
                 : static_cast<double>(b[i]) * static_cast<double>(b[i]);
    });
    return {std::sqrt(rr), std::sqrt(bb)};
  }

  void newmark(double time_step) override {
    await_coarse_levels();
    const T dt = static_cast<T>(time_step);
    const T* u = levels_[0].u.data();
    T *u_old = u_old_.data(), *v_old = v_old_.data(), *a_old = a_old_.data();
    Exec::for_each(0, levels_[0].vertices, [=] FEM_HD(std::int64_t v) {
      kernels::voxel::newmark_vertex(v, dt, u, u_old, v_old, a_old);
    });
  }

  void equations(int level, std::vector<double>& a, std::vector<double>& b) const override {
    const Level& g = levels_[level];
    std::vector<T> host(static_cast<std::size_t>(kernels::voxel::kRowEntries * g.vertices));
    Exec::download(g.a, host.data(), static_cast<std::int64_t>(host.size()));
    a.assign(host.size(), 0.0);
    for (std::int64_t v = 0; v < g.vertices; ++v)
      for (int e = 0; e < kernels::voxel::kRowEntries; ++e)
        a[kernels::voxel::kRowEntries * v + e] = static_cast<double>(host[g.layout.at(v, e)]);
    download_values(g.b, b);
  }
  void set_equations(int level, const std::vector<double>& a,
                     const std::vector<double>& b) override {
    await_coarse_levels();
    fine_rows_from_voxels_ = false;
    Level& g = levels_[level];
    std::vector<T> host(a.size());
    for (std::int64_t v = 0; v < g.vertices; ++v)
      for (int e = 0; e < kernels::voxel::kRowEntries; ++e)
        host[g.layout.at(v, e)] = static_cast<T>(a[kernels::voxel::kRowEntries * v + e]);
    Exec::upload(g.a, host.data(), static_cast<std::int64_t>(host.size()));
    upload_values(g.b, b);
  }
  void set_right_hand_side(int level, const std::vector<double>& b) override {
    await_coarse_levels();
    upload_values(levels_[level].b, b);
  }
  void unknown(int level, std::vector<double>& u) const override {
    download_values(levels_[level].u, u);
  }
  void set_unknown(int level, const std::vector<double>& u) override {
    await_coarse_levels();
    upload_values(levels_[level].u, u);
  }

  bool record(const std::function<void()>& enqueue) override {
    await_coarse_levels();
    // Whatever was forked is joined before the recording ends.
    recording_ = Exec::record([&] {
      enqueue();
      await_coarse_levels();
    });
    return static_cast<bool>(recording_);
  }
  void replay() override {
    await_coarse_levels();
    Exec::replay(recording_);
  }
  void synchronize() override {
    await_coarse_levels();
    Exec::synchronize();
  }
  [[nodiscard]] std::size_t memory_bytes() const override {
    std::size_t bytes = 0;
    for (const Level& g : levels_)
      bytes += sizeof(T) * (g.a.size() + g.b.size() + g.u.size() + g.r.size()) +
               sizeof(std::int32_t) * (g.neighbours.size() + g.children.size() + g.parents.size()) +
               g.fixed.size();
    bytes +=
        sizeof(T) * (rotations_.size() + det_.size() + stiffness_.size() + child_stiffness_.size() +
                     tangent_.size() + mass_.size() + 6 * u_old_.size()) +
        sizeof(std::int32_t) * (element_vertices_.size() + vertex_elements_.size()) +
        element_material_.size() + element_fixed_.size() +
        sizeof(std::int32_t) * cell_elements_.size() +
        sizeof(T) * (corner_mass_.size() + cells_.size());
    return bytes;
  }

  /// What coarsen_from_cells needs: room for level 1's cell matrices, its cells' voxels
  /// by child position, and the voxels' corner mass shares (public for the device lambdas'
  /// enclosing-function rules).
  void prepare_cells(const VoxelHierarchy& h, const std::vector<double>& mass) {
    const std::int64_t nv = levels_[1].vertices;
    // Cell by cell: a cell's pairs are written by consecutive threads.
    cell_layout_ = Layout{kernels::voxel::kCellEntries, 1};
    cells_ = Exec::template make<T>(kernels::voxel::kCellEntries * nv);
    cell_elements_ = Exec::template make<std::int32_t>(kernels::voxel::kCorners * nv);
    const std::int32_t* children = levels_[1].children.data();
    const std::int32_t* ve = vertex_elements_.data();
    std::int32_t* cell_elements = cell_elements_.data();
    Exec::for_each(0, nv, [=] FEM_HD(std::int64_t x) {
      for (int c = 0; c < kernels::voxel::kCorners; ++c) {
        const std::int32_t corner0 =
            children[kernels::voxel::kSlots * x +
                     kernels::voxel::offset_slot(kernels::voxel::corner_offset(c, 0),
                                                 kernels::voxel::corner_offset(c, 1),
                                                 kernels::voxel::corner_offset(c, 2))];
        cell_elements[kernels::voxel::kCorners * x + c] =
            corner0 < 0 ? -1 : ve[kernels::voxel::kCorners * corner0];
      }
    });
    std::vector<T> share(static_cast<std::size_t>(kernels::voxel::kCorners * elements_));
    for (std::int64_t e = 0; e < elements_; ++e)
      for (int a = 0; a < kernels::voxel::kCorners; ++a) {
        const std::int64_t x = h.element_vertices[kernels::voxel::kCorners * e + a];
        int voxels = 0;
        for (int p = 0; p < kernels::voxel::kCorners; ++p)
          voxels += h.vertex_elements[kernels::voxel::kCorners * x + p] >= 0;
        share[kernels::voxel::kCorners * e + a] = static_cast<T>(mass[x] / voxels);
      }
    corner_mass_ = to_device(share);
  }

  /// r = b - A u on level (public for the device lambdas' enclosing-function rules).
  void residual(int level) {
    Level& g = levels_[level];
    const std::int32_t* nb = g.neighbours.data();
    const T* a = g.a.data();
    const T* b = g.b.data();
    const T* u = g.u.data();
    T* r = g.r.data();
    const Layout layout = g.layout;
    Exec::for_each_lanes(0, g.vertices, [=] FEM_HD(std::int64_t v, const Lanes& lanes) {
      kernels::voxel::vertex_residual(v, nb, a, layout, b, u, r, lanes);
    });
  }

  void scatter(Array<T>& to, const std::vector<std::int32_t>& vertices,
               const std::vector<double>& values) {
    const std::int64_t n = static_cast<std::int64_t>(vertices.size());
    if (n == 0) return;
    if (values.size() != static_cast<std::size_t>(3 * n))
      throw Error("voxel operator: 3 values per vertex expected (solver bug)");
    ensure(scratch_index_, n);
    ensure(scratch_values_, 3 * n);
    Exec::upload(scratch_index_, vertices.data(), n);
    const std::vector<T> host = converted(values);
    Exec::upload(scratch_values_, host.data(), 3 * n);
    const std::int32_t* at = scratch_index_.data();
    const T* from = scratch_values_.data();
    T* dst = to.data();
    Exec::for_each(0, 3 * n, [=] FEM_HD(std::int64_t i) { dst[3 * at[i / 3] + i % 3] = from[i]; });
  }

 private:
  template <class U>
  static Array<U> to_device(const std::vector<U>& host) {
    Array<U> a = Exec::template make<U>(static_cast<std::int64_t>(host.size()));
    if (!host.empty()) Exec::upload(a, host.data(), static_cast<std::int64_t>(host.size()));
    return a;
  }
  /// kernels::voxel::child_stiffness of each material, by material, child position, row, column.
  static std::vector<double> child_stiffness(const std::vector<double>& stiffness) {
    constexpr int n = kernels::voxel::kElementDofs;
    const std::size_t materials = stiffness.size() / (n * n);
    std::vector<double> out(materials * kernels::voxel::kCorners * n * n);
    std::size_t at = 0;
    for (std::size_t m = 0; m < materials; ++m)
      for (int c = 0; c < kernels::voxel::kCorners; ++c)
        for (int row = 0; row < n; ++row)
          for (int column = 0; column < n; ++column)
            out[at++] =
                kernels::voxel::child_stiffness(stiffness.data() + m * n * n, c, row, column);
    return out;
  }
  static std::vector<T> converted(const std::vector<double>& x) {
    return std::vector<T>(x.begin(), x.end());
  }
  static void upload_values(Array<T>& to, const std::vector<double>& x) {
    std::vector<T> host(static_cast<std::size_t>(to.size()), T(0));
    std::copy_n(x.begin(), std::min(x.size(), host.size()), host.begin());
    Exec::upload(to, host.data(), static_cast<std::int64_t>(host.size()));
  }
  static void download_values(const Array<T>& from, std::vector<double>& x) {
    std::vector<T> host(static_cast<std::size_t>(from.size()));
    Exec::download(from, host.data(), static_cast<std::int64_t>(host.size()));
    x.assign(host.begin(), host.end());
  }
  template <class U>
  static void ensure(Array<U>& a, std::int64_t n) {
    if (static_cast<std::int64_t>(a.size()) < n) a = Exec::template make<U>(n);
  }

  /// Level 0's rows are the voxels' at this step's mass shift: level 1 is then formed cell by
  /// cell (coarsen_from_cells).
  void use_voxel_rows(const VoxelStepScales& scales) {
    fine_rows_from_voxels_ = true;
    mass_shift_ = scales.mass_shift;
  }

  /// The main queue waits for the coarse levels forked by assemble_levels, if it has not yet.
  void await_coarse_levels() {
    if (!coarse_levels_pending_) return;
    Exec::join();
    coarse_levels_pending_ = false;
  }

  double edge_;
  std::int64_t elements_;
  bool coarse_levels_pending_ = false;  ///< forked by assemble_levels, not yet joined
  /// Whether the rows are the voxels' (assemble) rather than given (set_equations): then level
  /// 1 is formed cell by cell from the voxels (coarsen_from_cells), with assemble's mass shift.
  bool fine_rows_from_voxels_ = false;
  double mass_shift_ = 0.0;
  std::vector<Level> levels_;
  Array<std::int32_t> element_vertices_, vertex_elements_;
  Array<std::uint8_t> element_material_;
  Array<std::uint8_t> element_fixed_;  ///< per voxel: a corner has a prescribed dof
  Array<std::int32_t> cell_elements_;  ///< 8 per level-1 vertex (kernels::voxel::FineVoxels)
  Array<T> corner_mass_;               ///< 8 per voxel (kernels::voxel::FineVoxels)
  Array<T> cells_;                     ///< level 1's cell matrices (coarsen_from_cells)
  Layout cell_layout_;
  Array<T> stiffness_, child_stiffness_, tangent_, mass_, rotations_, det_;
  Array<T> u_old_, v_old_, a_old_, force_, prescribed_;
  Array<T> cg_r_, cg_z_, cg_p_, cg_q_;
  Array<double> cg_report_;
  typename Exec::Recording recording_{};
  mutable Array<std::int32_t> scratch_index_;
  mutable Array<T> scratch_values_;
};

}  // namespace fem::voxel
