// The Kokkos backend's vectors and vector verbs (fem/operator.hpp): Views in the execution
// space's memory in the run's precision, one kernel per verb, and no host copy but the
// transfers and a reduction's result.
//
// Reductions accumulate in double over fixed chunks of entries, one team per chunk, and the
// chunks' partial sums are added in chunk order. On a host space a chunk is kReductionChunk
// entries (the OpenMP reference's) and a team one thread, so a dot product has the OpenMP
// backend's bits on any number of threads; on a device a chunk is kDeviceReductionChunk entries
// (four per thread of a team: a small solve's vectors still spread over several SMs) and the
// order within a chunk is the team's, fixed for a given team size, so results repeat from run to
// run.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fem/error.hpp>
#include <fem/kernels/cg_scalars.hpp>
#include <fem/kernels/pivots.hpp>
#include <fem/kernels/wave_step.hpp>
#include <fem/operator.hpp>
#include <fem/sliced_block_rows.hpp>
#if defined(KOKKOS_ENABLE_CUDA)
#include <fem/cuda/stream_recording.hpp>
#endif

#include "runtime.hpp"
#include "views.hpp"

namespace fem::kokkos {

/// Entries per partial sum of a reduction: fixed, so that the summation order is (the OpenMP
/// backend's kReductionChunk).
inline constexpr std::int64_t kReductionChunk = 2048;
/// Entries per chunk of a reduction on a device: four per thread of a 256-thread team. With the
/// host's 2,048, seed 001's real-time model (3,267 dofs) ran its CG reductions on two SMs.
inline constexpr std::int64_t kDeviceReductionChunk = 1024;

template <class Space, class T>
class DeviceVector final : public Vector {
 public:
  explicit DeviceVector(std::int64_t size)
      : Vector(size), data("fem::vector", static_cast<std::size_t>(size)) {}
  RuntimeRef runtime;  // declared before the View: outlives it
  View<Space, T> data;
};

template <class Space, class T>
const View<Space, T>& view_of(const Vector& x) {
  return static_cast<const DeviceVector<Space, T>&>(x).data;
}

namespace detail {

/// y = a x + b y.
template <class T>
struct Axpby {
  T a, b;
  const T* x;
  T* y;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const { y[i] = a * x[i] + b * y[i]; }
};

/// y = a x (y not read).
template <class T>
struct Scale {
  T a;
  const T* x;
  T* y;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const { y[i] = a * x[i]; }
};

/// z = x .* y.
template <class T>
struct Multiply {
  const T* x;
  const T* y;
  T* z;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const { z[i] = x[i] * y[i]; }
};

/// d_i = kernels::inverted_pivot(d_i).
template <class T>
struct InvertPivots {
  T* d;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    d[i] = static_cast<T>(kernels::inverted_pivot(static_cast<double>(d[i])));
  }
};

/// y_n = B_n x_n, B_n the 3x3 block of node n (row-major).
template <class T>
struct BlockMultiply {
  const T* blocks;
  const T* x;
  T* y;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t n) const {
    const T* b = blocks + 9 * n;
    const T* v = x + 3 * n;
    T r[3];
    for (int i = 0; i < 3; ++i) r[i] = b[3 * i] * v[0] + b[3 * i + 1] * v[1] + b[3 * i + 2] * v[2];
    for (int i = 0; i < 3; ++i) y[3 * n + i] = r[i];
  }
};

/// y = A x, one row per index, summed in the vectors' precision (as the OpenMP reference).
template <class T>
struct SparseMultiply {
  const std::int64_t* offsets;
  const std::int64_t* columns;
  const T* values;
  const T* x;
  T* y;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t r) const {
    T s = T(0);
    for (std::int64_t j = offsets[r]; j < offsets[r + 1]; ++j) s += values[j] * x[columns[j]];
    y[r] = s;
  }
};

/// max |x_i| (with Kokkos::Max). NaN entries are passed over, as std::max does.
template <class T>
struct MaxAbs {
  const T* x;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, double& m) const {
    const double v = static_cast<double>(x[i]);
    const double a = v < 0 ? -v : v;
    if (a > m) m = a;
  }
};

/// Nothing to finish: the chunk sums stay in the partials for the host (LinearAlgebraImpl::dots).
struct NoFinish {};

/// Two sums reduced in one team reduction.
struct SumPair {
  double a = 0.0, b = 0.0;
  KOKKOS_INLINE_FUNCTION SumPair& operator+=(const SumPair& o) {
    a += o.a;
    b += o.b;
    return *this;
  }
};

/// On a device, the team of a chunk reduction that finishes last (`tickets` counts them) sums
/// each of the PAIRS rows of chunk partials in the team's fixed order, as FinishChunkDots does
/// in a launch of its own, and hands the sums to `finish`, leaving the count at zero for the
/// next reduction: a launch fewer per reduction (the CUDA backend's reductions end alike).
template <int PAIRS, class Member, class Finish>
KOKKOS_INLINE_FUNCTION void finish_if_last(const Member& team, std::int64_t chunks,
                                           const double* partial, unsigned* tickets,
                                           const Finish& finish) {
  int last = 0;
  Kokkos::single(
      Kokkos::PerTeam(team),
      [&](int& is_last) {
        Kokkos::memory_fence();  // this team's partials are seen before its ticket
        is_last = Kokkos::atomic_fetch_add(tickets, 1u) + 1u == static_cast<unsigned>(chunks);
      },
      last);
  if (!last) return;
  Kokkos::memory_fence();
  double sums[PAIRS];
  for (int k = 0; k < PAIRS; ++k) {
    const volatile double* row = partial + k * chunks;  // other teams' stores: not cached here
    double sum = 0.0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, std::int64_t{0}, chunks),
        [=](const std::int64_t c, double& acc) { acc += row[c]; }, sum);
    sums[k] = sum;
  }
  Kokkos::single(Kokkos::PerTeam(team), [&]() {
    *tickets = 0;
    finish(sums);
  });
}

/// Partial sums of PAIRS dot products a_k . b_k over chunks of `chunk` entries: team c writes
/// chunk c's sums to partial[k * chunks + c], in double; with a Finish (on a device), the last
/// team adds them up and finishes (finish_if_last).
template <class Space, class T, int PAIRS, class Finish = NoFinish>
struct ChunkDots {
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;
  std::int64_t n, chunk, chunks;
  const T* a[PAIRS];
  const T* b[PAIRS];
  double* partial;
  unsigned* tickets = nullptr;
  Finish finish{};

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t c = team.league_rank();
    const std::int64_t begin = c * chunk;
    const std::int64_t end = begin + chunk < n ? begin + chunk : n;
    for (int k = 0; k < PAIRS; ++k) {
      const T* x = a[k];
      const T* y = b[k];
      double sum = 0.0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, begin, end),
          [=](const std::int64_t i, double& s) {
            s += static_cast<double>(x[i]) * static_cast<double>(y[i]);
          },
          sum);
      Kokkos::single(Kokkos::PerTeam(team), [&]() { partial[k * chunks + c] = sum; });
    }
    if constexpr (!std::is_same_v<Finish, NoFinish>)
      finish_if_last<PAIRS>(team, chunks, partial, tickets, finish);
  }
};

/// cg_descend's update of x and r, then z = d .* r, for the entries of chunk c (team c), with
/// the chunk's sums of r . z and r . r to partial[c] and partial[chunks + c]: the vector work of
/// a Jacobi-preconditioned CG iteration after the operator in one pass (cg_descend_scale_turn).
/// The expressions, and on a host space the order of the sums, are those of the verbs it
/// replaces (CgDescendUpdate, Multiply, ChunkDots). On a device the update and both sums are
/// one team reduction, and the last team finishes with `finish` (finish_if_last).
template <class Space, class T, class Finish = NoFinish>
struct DescendScaleChunkDots {
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;
  std::int64_t n, chunk, chunks;
  const double* s;
  const T* p;
  const T* ap;
  const T* d;
  T* x;
  T* r;
  T* z;
  double* partial;
  unsigned* tickets = nullptr;
  Finish finish{};

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t c = team.league_rank();
    const std::int64_t begin = c * chunk;
    const std::int64_t end = begin + chunk < n ? begin + chunk : n;
    const double* scalars = s;  // copies for the lambdas (no capture of this)
    const T *ps = p, *aps = ap, *ds = d;
    T *xs = x, *rs = r, *zs = z;
    if constexpr (!kRunsOnHost<Space>) {
      SumPair sum;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, begin, end),
          [=](const std::int64_t i, SumPair& acc) {
            kernels::cg::descend_entry(scalars, i, ps, aps, xs, rs);
            zs[i] = ds[i] * rs[i];
            const double rv = static_cast<double>(rs[i]);
            acc.a += rv * static_cast<double>(zs[i]);
            acc.b += rv * rv;
          },
          sum);
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        partial[c] = sum.a;
        partial[chunks + c] = sum.b;
      });
      if constexpr (!std::is_same_v<Finish, NoFinish>)
        finish_if_last<2>(team, chunks, partial, tickets, finish);
    } else {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, begin, end), [=](const std::int64_t i) {
        kernels::cg::descend_entry(scalars, i, ps, aps, xs, rs);
        zs[i] = ds[i] * rs[i];
      });
      team.team_barrier();
      double sums[2];
      for (int k = 0; k < 2; ++k) {
        const T* ys = k == 0 ? zs : rs;
        double sum = 0.0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, begin, end),
            [=](const std::int64_t i, double& acc) {
              acc += static_cast<double>(rs[i]) * static_cast<double>(ys[i]);
            },
            sum);
        sums[k] = sum;
      }
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        partial[c] = sums[0];
        partial[chunks + c] = sums[1];
      });
    }
  }
};

/// Sums each of the PAIRS rows of chunk partials (partial[k * chunks + c]) over its chunks, in
/// chunk order on a host space (a team of one thread: the order of the host-side sums and of the
/// OpenMP reference) or in the team's fixed order on a device, and hands the sums to finish on
/// one thread: the reductions of conjugate gradients whose results stay on the device.
template <class Space, int PAIRS, class Finish>
struct FinishChunkDots {
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;
  std::int64_t chunks;
  const double* partial;
  Finish finish;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    double sums[PAIRS];
    for (int k = 0; k < PAIRS; ++k) {
      const double* row = partial + k * chunks;
      double sum = 0.0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, std::int64_t{0}, chunks),
          [=](const std::int64_t c, double& s) { s += row[c]; }, sum);
      sums[k] = sum;
    }
    Kokkos::single(Kokkos::PerTeam(team), [&]() { finish(sums); });
  }
};

using CgStartFinish = kernels::cg::StartFinish;
using CgDescendFinish = kernels::cg::DescendFinish;
using CgTurnFinish = kernels::cg::TurnFinish;

/// x += alpha p, r -= alpha Ap (Axpby's expressions), unless the solve has stopped.
template <class T>
struct CgDescendUpdate {
  const double* s;
  const T* p;
  const T* ap;
  T* x;
  T* r;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    kernels::cg::descend_entry(s, i, p, ap, x, r);
  }
};

/// p = z + beta p (Axpby's expression), unless the solve has stopped.
template <class T>
struct CgTurnUpdate {
  const double* s;
  const T* z;
  T* p;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    kernels::cg::turn_entry(s, i, z, p);
  }
};

/// v_n <- (K u)_n + b_n v_n, u_next_n = u_n + v_n for node n, K in sliced block rows.
template <class T, int BS>
struct WaveStep {
  int slice_rows;
  const std::int64_t* starts;
  const std::int32_t* lengths;
  const std::int32_t* columns;
  const T* values;
  const T* b;
  const T* u;
  T* v;
  T* u_next;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t n) const {
    kernels::wave_sliced_node_step<BS, T>(n, slice_rows, starts, lengths, columns, values, b, u, v,
                                          u_next);
  }
};

/// The source at position at[k] for index k; with `in_order`, index 0 takes them all in order
/// (a list that names a position twice: the later acts after the earlier, as on the host).
template <class T>
struct WaveSource {
  std::int64_t count;
  bool in_order;
  const std::int64_t* at;
  const T* weights;
  T s;
  bool displacement;
  const T* u;
  T* v;
  T* u_next;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const std::int64_t last = in_order ? count : i + 1;
    for (std::int64_t k = i; k < last; ++k)
      kernels::wave_source_at<T>(at[k], s * weights[k], displacement, u, v, u_next);
  }
};

/// out[k] = x[at[k]].
template <class T>
struct Gather {
  const std::int64_t* at;
  const T* x;
  T* out;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const { out[k] = x[at[k]]; }
};

}  // namespace detail

template <class Space, class T>
class LinearAlgebraImpl final : public LinearAlgebra {
 public:
  LinearAlgebraImpl() { flush_denormals<Space>(); }

  [[nodiscard]] Precision precision() const override {
    return std::is_same_v<T, float> ? Precision::Single : Precision::Double;
  }

  void synchronize() override { Space().fence(); }
  /// On a device a read of the CG scalars is a round trip; on the host it is free.
  [[nodiscard]] int cg_progress_interval() const override { return kRunsOnHost<Space> ? 1 : 8; }

 protected:
  std::unique_ptr<Vector> do_vector(std::int64_t size) override {
    return std::make_unique<DeviceVector<Space, T>>(size);
  }
  void do_upload(const std::vector<double>& in, Vector& x) override {
    check(x, static_cast<std::int64_t>(in.size()));
    copy_in(view_of<Space, T>(x), in);
  }
  void do_download(const Vector& x, std::vector<double>& out) override {
    copy_out(view_of<Space, T>(x), out);
  }
  void do_fill(Vector& x, double value) override {
    Kokkos::deep_copy(Space(), view_of<Space, T>(x), static_cast<T>(value));
  }
  void do_axpby(double a, const Vector& x, double b, Vector& y) override {
    check(y, x.size());
    const T* xs = view_of<Space, T>(x).data();
    T* ys = view_of<Space, T>(y).data();
    if (b == 0.0)
      Kokkos::parallel_for("fem::kokkos::scale", Range<Space>(0, x.size()),
                           detail::Scale<T>{static_cast<T>(a), xs, ys});
    else
      Kokkos::parallel_for("fem::kokkos::axpby", Range<Space>(0, x.size()),
                           detail::Axpby<T>{static_cast<T>(a), static_cast<T>(b), xs, ys});
  }
  void do_multiply(const Vector& x, const Vector& y, Vector& z) override {
    check(y, x.size());
    check(z, x.size());
    Kokkos::parallel_for(
        "fem::kokkos::multiply", Range<Space>(0, x.size()),
        detail::Multiply<T>{view_of<Space, T>(x).data(), view_of<Space, T>(y).data(),
                            view_of<Space, T>(z).data()});
  }
  void do_invert_pivots(Vector& d) override {
    Kokkos::parallel_for("fem::kokkos::invert_pivots", Range<Space>(0, d.size()),
                         detail::InvertPivots<T>{view_of<Space, T>(d).data()});
  }
  void do_copy(const Vector& x, Vector& y) override {
    check(y, x.size());
    Kokkos::deep_copy(Space(), view_of<Space, T>(y), view_of<Space, T>(x));
  }
  double do_dot(const Vector& x, const Vector& y) override {
    check(y, x.size());
    return dots<1>({&x}, {&y})[0];
  }
  std::array<double, 2> do_dot2(const Vector& a, const Vector& b, const Vector& c,
                                const Vector& d) override {
    check(b, a.size());
    check(c, a.size());
    check(d, a.size());
    return dots<2>({&a, &c}, {&b, &d});
  }
  double do_max_abs(const Vector& x) override {
    double m = 0.0;
    if (x.size() > 0)
      Kokkos::parallel_reduce("fem::kokkos::max_abs", Range<Space>(0, x.size()),
                              detail::MaxAbs<T>{view_of<Space, T>(x).data()},
                              Kokkos::Max<double>(m));
    return m > 0.0 ? m : 0.0;
  }
  void do_block_multiply(const Vector& blocks, const Vector& x, Vector& y) override {
    check(blocks, 3 * x.size());
    check(y, x.size());
    Kokkos::parallel_for(
        "fem::kokkos::block_multiply", Range<Space>(0, x.size() / 3),
        detail::BlockMultiply<T>{view_of<Space, T>(blocks).data(), view_of<Space, T>(x).data(),
                                 view_of<Space, T>(y).data()});
  }

  /// A sparse matrix in the space's memory, values in the run's precision.
  class CsrImpl final : public Matrix {
   public:
    explicit CsrImpl(const CsrMatrix& m)
        : Matrix(m.rows, m.cols),
          offsets(fem::kokkos::upload<Space, std::int64_t>("fem::csr_offsets", m.offsets)),
          columns(fem::kokkos::upload<Space, std::int64_t>("fem::csr_columns", m.columns)),
          values(fem::kokkos::upload<Space, T>("fem::csr_values", m.values)) {}
    RuntimeRef runtime;  // declared before the Views: outlives them
    View<Space, std::int64_t> offsets, columns;
    View<Space, T> values;
  };

  std::unique_ptr<Matrix> do_matrix(const CsrMatrix& m) override {
    return std::make_unique<CsrImpl>(m);
  }
  void do_sparse_multiply(const Matrix& a, const Vector& x, Vector& y) override {
    const auto& m = static_cast<const CsrImpl&>(a);
    check(x, m.cols());
    check(y, m.rows());
    Kokkos::parallel_for(
        "fem::kokkos::sparse_multiply", Range<Space>(0, m.rows()),
        detail::SparseMultiply<T>{m.offsets.data(), m.columns.data(), m.values.data(),
                                  view_of<Space, T>(x).data(), view_of<Space, T>(y).data()});
  }

  // Conjugate gradients with its scalars in the space's memory: the chunk sums of a reduction,
  // then one team that adds them up and updates the scalars (FinishChunkDots), then the vector
  // update that reads them. On a host space the sums are added in the order dots() adds them,
  // so the solve has the OpenMP reference's bits.
  class CgScalarsImpl final : public CgScalars {
   public:
    RuntimeRef runtime;  // declared before the Views: outlives them
    View<Space, double> values{"fem::cg_scalars", kernels::cg::kSlots};
    typename View<Space, double>::HostMirror host = Kokkos::create_mirror_view(values);
  };
  static double* scalars_of(CgScalars& s) { return static_cast<CgScalarsImpl&>(s).values.data(); }

  std::unique_ptr<CgScalars> do_cg_scalars() override { return std::make_unique<CgScalarsImpl>(); }
  void do_cg_start(const Vector& r, const Vector& z, double rr, double stop_rr,
                   CgScalars& s) override {
    check(z, r.size());
    reduce_on_space<1>({&r}, {&z}, detail::CgStartFinish{scalars_of(s), rr, stop_rr});
  }
  void do_cg_descend(const Vector& p, const Vector& ap, Vector& x, Vector& r,
                     CgScalars& s) override {
    check(ap, p.size());
    check(x, p.size());
    check(r, p.size());
    double* scalars = scalars_of(s);
    reduce_on_space<1>({&p}, {&ap}, detail::CgDescendFinish{scalars});
    Kokkos::parallel_for("fem::kokkos::cg_descend", Range<Space>(0, p.size()),
                         detail::CgDescendUpdate<T>{
                             scalars, view_of<Space, T>(p).data(), view_of<Space, T>(ap).data(),
                             view_of<Space, T>(x).data(), view_of<Space, T>(r).data()});
  }
  void do_cg_turn(const Vector& r, const Vector& z, Vector& p, CgScalars& s) override {
    check(z, r.size());
    check(p, r.size());
    double* scalars = scalars_of(s);
    reduce_on_space<2>({&r, &r}, {&z, &r}, detail::CgTurnFinish{scalars});
    Kokkos::parallel_for(
        "fem::kokkos::cg_turn", Range<Space>(0, r.size()),
        detail::CgTurnUpdate<T>{scalars, view_of<Space, T>(z).data(), view_of<Space, T>(p).data()});
  }
  /// Three launches where the separate verbs take six: p . Ap and alpha; x, r, z with the
  /// chunk sums of r . z and r . r (DescendScaleChunkDots); the sums, beta and p.
  void do_cg_descend_scale_turn(const Vector& ap, const Vector& d, Vector& x, Vector& r, Vector& z,
                                Vector& p, CgScalars& s) override {
    for (const Vector* v : {&ap, &d, static_cast<const Vector*>(&x), static_cast<const Vector*>(&r),
                            static_cast<const Vector*>(&z)})
      check(*v, p.size());
    double* scalars = scalars_of(s);
    reduce_on_space<1>({&p}, {&ap}, detail::CgDescendFinish{scalars});
    const std::int64_t n = p.size();
    const std::int64_t chunks = reserve_partials(2, n);
    // On a device the last team finishes (one launch fewer); on a host space a team of its own
    // adds the chunks in order (the OpenMP reference's bits).
    using Finish = std::conditional_t<kRunsOnHost<Space>, detail::NoFinish, detail::CgTurnFinish>;
    if (chunks > 0)
      Kokkos::parallel_for(
          "fem::kokkos::cg_descend_scale",
          Kokkos::TeamPolicy<Space>(static_cast<int>(chunks), kReductionTeam),
          detail::DescendScaleChunkDots<Space, T, Finish>{
              n, kChunk, chunks, scalars, view_of<Space, T>(p).data(), view_of<Space, T>(ap).data(),
              view_of<Space, T>(d).data(), view_of<Space, T>(x).data(), view_of<Space, T>(r).data(),
              view_of<Space, T>(z).data(), partial_.data(), tickets_.data(), [scalars] {
                if constexpr (kRunsOnHost<Space>)
                  return detail::NoFinish{};
                else
                  return detail::CgTurnFinish{scalars};
              }()});
    if (chunks == 0 || kRunsOnHost<Space>)
      Kokkos::parallel_for("fem::kokkos::finish_dots", Kokkos::TeamPolicy<Space>(1, kReductionTeam),
                           detail::FinishChunkDots<Space, 2, detail::CgTurnFinish>{
                               chunks, partial_.data(), detail::CgTurnFinish{scalars}});
    Kokkos::parallel_for(
        "fem::kokkos::cg_turn", Range<Space>(0, n),
        detail::CgTurnUpdate<T>{scalars, view_of<Space, T>(z).data(), view_of<Space, T>(p).data()});
  }
  CgProgress do_cg_progress(CgScalars& s) override {
    auto& impl = static_cast<CgScalarsImpl&>(s);
    Kokkos::deep_copy(impl.host, impl.values);
    return kernels::cg::progress(impl.host.data());
  }

  /// On the Cuda space, what the verbs launch on the space's stream is captured into a graph, as
  /// the CUDA backend records its own: a real-time CG iteration becomes one launch instead of
  /// seven. Relaxed capture, since a Kokkos launch makes bookkeeping calls that thread-local
  /// capture refuses (a team's level-1 scratch of no bytes). Other spaces record nothing.
  std::unique_ptr<Recording> do_record(const std::function<void()>& enqueue) override {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same_v<Space, Kokkos::Cuda>) {
      return cuda::record_stream(Space().cuda_stream(), enqueue, cudaStreamCaptureModeRelaxed);
    } else {
      return LinearAlgebra::do_record(enqueue);
    }
#else
    return LinearAlgebra::do_record(enqueue);
#endif
  }

  // The explicit elastodynamic step (seed 002): one node per index of a parallel_for
  // (kernels::wave_sliced_node_step, the reference's sums), the block matrix in sliced block
  // rows (fem/sliced_block_rows.hpp): slices of 32 on a device, where 32 threads side by side
  // then load each entry as one contiguous run (row by row, a warp's loads were 32 lines apart:
  // 3.8x slower on hexahedra on the H100), and of 1 (the compressed rows) on the host, where one
  // thread reads its rows in order.
  static constexpr int kWaveSliceRows =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible ? 1
                                                                                              : 32;

  class BlockCsrImpl final : public Matrix {
   public:
    explicit BlockCsrImpl(const BlockCsrMatrix& m)
        : BlockCsrImpl(m, sliced_block_rows(m, kWaveSliceRows)) {}
    int block_size;
    std::int64_t nodes;
    RuntimeRef runtime;  // declared before the Views: outlives them
    View<Space, std::int64_t> starts;
    View<Space, std::int32_t> lengths;
    View<Space, std::int32_t> columns;
    View<Space, T> values;

   private:
    BlockCsrImpl(const BlockCsrMatrix& m, const SlicedBlockRows& sell)
        : Matrix(m.rows * m.block_size, m.rows * m.block_size),
          block_size(m.block_size),
          nodes(m.rows),
          starts(fem::kokkos::upload<Space, std::int64_t>("fem::sell_starts", sell.starts)),
          lengths(fem::kokkos::upload<Space, std::int32_t>("fem::sell_lengths", sell.lengths)),
          columns(fem::kokkos::upload<Space, std::int32_t>("fem::sell_columns", sell.columns)),
          values(fem::kokkos::upload<Space, T>("fem::sell_values", sell.values)) {}
  };

  class IndicesImpl final : public Indices {
   public:
    explicit IndicesImpl(const std::vector<std::int64_t>& at)
        : Indices(static_cast<std::int64_t>(at.size())),
          positions(fem::kokkos::upload<Space, std::int64_t>("fem::indices", at)) {
      std::vector<std::int64_t> sorted = at;
      std::sort(sorted.begin(), sorted.end());
      if (!sorted.empty() && sorted.front() < 0)
        throw Error("kokkos backend: a negative vector position " + std::to_string(sorted.front()) +
                    " (solver bug)");
      distinct = std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
      end = sorted.empty() ? 0 : sorted.back() + 1;
    }
    RuntimeRef runtime;  // declared before the Views: outlives them
    View<Space, std::int64_t> positions;
    bool distinct = true;  ///< no position twice: the sources may act in parallel
    std::int64_t end = 0;  ///< past the largest position
  };

  std::unique_ptr<Matrix> do_block_matrix(const BlockCsrMatrix& m) override {
    if (m.block_size != 2 && m.block_size != 3)
      throw Error("kokkos backend: blocks of " + std::to_string(m.block_size) +
                  " rows; the wave step takes 2 or 3");
    if (static_cast<std::int64_t>(m.offsets.size()) != m.rows + 1 ||
        static_cast<std::int64_t>(m.values.size()) != m.block_size * m.block_size * m.blocks())
      throw Error(
          "kokkos backend: a block matrix whose offsets or values do not match its rows "
          "and blocks (solver bug)");
    return std::make_unique<BlockCsrImpl>(m);
  }
  std::unique_ptr<Indices> do_indices(const std::vector<std::int64_t>& at) override {
    return std::make_unique<IndicesImpl>(at);
  }
  void do_wave_step(const Matrix& k, const Vector& b, const Vector& u, Vector& v,
                    Vector& u_next) override {
    const auto& m = static_cast<const BlockCsrImpl&>(k);
    check(u, m.rows());
    check(v, m.rows());
    check(u_next, m.rows());
    check(b, m.nodes);
    if (m.block_size == 2)
      wave_step<2>(m, b, u, v, u_next);
    else
      wave_step<3>(m, b, u, v, u_next);
  }
  void do_wave_source(const Indices& at, const Vector& weights, double s, SourceMode mode,
                      const Vector& u, Vector& v, Vector& u_next) override {
    const auto& p = static_cast<const IndicesImpl&>(at);
    check(weights, p.size());
    check(v, u.size());
    check(u_next, u.size());
    check_positions(p, u);
    Kokkos::parallel_for(
        "fem::kokkos::wave_source",
        Range<Space>(0, p.distinct ? p.size() : std::min<std::int64_t>(p.size(), 1)),
        detail::WaveSource<T>{p.size(), !p.distinct, p.positions.data(),
                              view_of<Space, T>(weights).data(), static_cast<T>(s),
                              mode == SourceMode::Displacement, view_of<Space, T>(u).data(),
                              view_of<Space, T>(v).data(), view_of<Space, T>(u_next).data()});
  }
  void do_gather(const Vector& x, const Indices& at, Vector& out, std::int64_t offset) override {
    const auto& p = static_cast<const IndicesImpl&>(at);
    check_positions(p, x);
    if (offset < 0 || offset + p.size() > out.size())
      throw Error("kokkos backend: gather of " + std::to_string(p.size()) + " samples at offset " +
                  std::to_string(offset) + " into a vector of " + std::to_string(out.size()) +
                  " entries (solver bug)");
    Kokkos::parallel_for("fem::kokkos::gather", Range<Space>(0, p.size()),
                         detail::Gather<T>{p.positions.data(), view_of<Space, T>(x).data(),
                                           view_of<Space, T>(out).data() + offset});
  }

 private:
  template <int BS>
  static void wave_step(const BlockCsrImpl& m, const Vector& b, const Vector& u, Vector& v,
                        Vector& u_next) {
    Kokkos::parallel_for(
        "fem::kokkos::wave_step", Range<Space>(0, m.nodes),
        detail::WaveStep<T, BS>{kWaveSliceRows, m.starts.data(), m.lengths.data(), m.columns.data(),
                                m.values.data(), view_of<Space, T>(b).data(),
                                view_of<Space, T>(u).data(), view_of<Space, T>(v).data(),
                                view_of<Space, T>(u_next).data()});
  }

  static void check_positions(const IndicesImpl& at, const Vector& x) {
    if (at.end > x.size())
      throw Error("kokkos backend: a position " + std::to_string(at.end - 1) + " in a vector of " +
                  std::to_string(x.size()) + " entries (solver bug)");
  }

  /// Chunk sums of the PAIRS dot products a_k . b_k (vectors of one size) into partial_;
  /// returns the number of chunks.
  template <int PAIRS, class Finish = detail::NoFinish>
  std::int64_t chunk_sums(const std::array<const Vector*, PAIRS>& a,
                          const std::array<const Vector*, PAIRS>& b, const Finish& finish = {}) {
    const std::int64_t n = a[0]->size();
    const std::int64_t chunks = reserve_partials(PAIRS, n);
    if (chunks == 0) return 0;
    detail::ChunkDots<Space, T, PAIRS, Finish> f{n,  kChunk,          chunks,          {},
                                                 {}, partial_.data(), tickets_.data(), finish};
    for (int k = 0; k < PAIRS; ++k) {
      f.a[k] = view_of<Space, T>(*a[k]).data();
      f.b[k] = view_of<Space, T>(*b[k]).data();
    }
    Kokkos::parallel_for("fem::kokkos::dot",
                         Kokkos::TeamPolicy<Space>(static_cast<int>(chunks), kReductionTeam), f);
    return chunks;
  }

  /// Room in partial_ for `rows` rows of chunk sums over n entries; returns the chunks.
  std::int64_t reserve_partials(int rows, std::int64_t n) {
    const std::int64_t chunks = (n + kChunk - 1) / kChunk;
    const auto used = static_cast<std::size_t>(rows * chunks);
    if (partial_.extent(0) < used) {
      partial_ = View<Space, double>("fem::reduction_partials", used);
      partial_host_ = Kokkos::create_mirror_view(partial_);
    }
    return chunks;
  }

  /// The PAIRS dot products, added up on the space and handed to finish there.
  template <int PAIRS, class Finish>
  void reduce_on_space(const std::array<const Vector*, PAIRS>& a,
                       const std::array<const Vector*, PAIRS>& b, const Finish& finish) {
    // On a device the last team of the chunk sums finishes; on a host space (and for empty
    // vectors) a team of its own adds the chunks in order.
    if constexpr (!kRunsOnHost<Space>)
      if (chunk_sums<PAIRS>(a, b, finish) > 0) return;
    const std::int64_t chunks = chunk_sums<PAIRS>(a, b);
    Kokkos::parallel_for(
        "fem::kokkos::finish_dots", Kokkos::TeamPolicy<Space>(1, kReductionTeam),
        detail::FinishChunkDots<Space, PAIRS, Finish>{chunks, partial_.data(), finish});
  }

  /// The PAIRS dot products a_k . b_k (vectors of one size): chunk sums on the space, then
  /// the chunks in order on the host.
  template <int PAIRS>
  std::array<double, PAIRS> dots(const std::array<const Vector*, PAIRS>& a,
                                 const std::array<const Vector*, PAIRS>& b) {
    std::array<double, PAIRS> sums{};
    const std::int64_t chunks = chunk_sums<PAIRS>(a, b);
    if (chunks == 0) return sums;
    const auto used = static_cast<std::size_t>(PAIRS * chunks);
    const auto range = std::make_pair(std::size_t{0}, used);
    Kokkos::deep_copy(Kokkos::subview(partial_host_, range), Kokkos::subview(partial_, range));
    for (int k = 0; k < PAIRS; ++k)
      for (std::int64_t c = 0; c < chunks; ++c) sums[k] += partial_host_(k * chunks + c);
    return sums;
  }

  static void check(const Vector& x, std::int64_t size) {
    if (x.size() != size)
      throw Error("kokkos backend: a vector of " + std::to_string(x.size()) + " entries where " +
                  std::to_string(size) + " were expected (solver bug)");
  }

  /// Threads per chunk of a reduction: one on a host space (the reference's order), a block's
  /// worth on a device.
  static constexpr int kReductionTeam = kRunsOnHost<Space> ? 1 : 256;
  /// Entries per chunk of a reduction.
  static constexpr std::int64_t kChunk =
      kRunsOnHost<Space> ? kReductionChunk : kDeviceReductionChunk;

  RuntimeRef runtime_;  // declared before the Views: outlives them
  View<Space, double> partial_;
  typename View<Space, double>::HostMirror partial_host_;
  /// Teams of a reduction done so far (finish_if_last): zero between reductions.
  View<Space, unsigned> tickets_{"fem::reduction_tickets", 1};
};

}  // namespace fem::kokkos

namespace Kokkos {
/// The identity of fem's paired sums (Kokkos::Sum of a custom type needs it).
template <>
struct reduction_identity<fem::kokkos::detail::SumPair> {
  KOKKOS_FORCEINLINE_FUNCTION static fem::kokkos::detail::SumPair sum() { return {}; }
};
}  // namespace Kokkos
