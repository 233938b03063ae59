// The operator contract: what a backend offers the solvers beyond the fused explicit step.
//
// In the manner of libCEED (CeedVector, CeedOperatorApply, CeedOperatorLinearAssembleDiagonal)
// and MFEM (Operator::Mult, GetGradient): vectors that live in the backend's memory and
// precision, and a small set of verbs on them, composed by solvers in framework/src/solver/
// (conjugate gradients, Newton, Newmark, multigrid) that never touch a kernel. A backend
// implements the required verbs; the optional ones have defaults built from the required ones
// (the same division as libCEED's delegation to its reference backend), so a new backend starts
// small and accelerates what measures. docs/implicit.md describes the design and its choices.
//
// Every verb is timed (seconds and calls per verb, VerbTimes): the public functions are
// non-virtual wrappers that time the protected virtual do_*() a backend overrides, and call the
// backend's synchronize() before reading the clock, so that asynchronous devices are timed too.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fem/config.hpp"
#include "fem/error.hpp"

namespace fem {

struct System;
struct BlockResults;

/// A vector in a backend's memory and precision. Only the LinearAlgebra that made it (and the
/// operators built on that LinearAlgebra) may use it.
class Vector {
 public:
  virtual ~Vector() = default;
  Vector(const Vector&) = delete;
  Vector& operator=(const Vector&) = delete;
  [[nodiscard]] std::int64_t size() const { return size_; }

 protected:
  explicit Vector(std::int64_t size) : size_(size) {}

 private:
  std::int64_t size_;
};

/// A sparse matrix in compressed rows on the host, in double: what a solver builds (multigrid
/// transfers) or receives (the assembled tangent for a direct or algebraic-multigrid solve).
struct CsrMatrix {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<std::int64_t> offsets;  ///< rows + 1
  std::vector<std::int64_t> columns;  ///< sorted within a row
  std::vector<double> values;
  [[nodiscard]] std::int64_t nonzeros() const { return static_cast<std::int64_t>(values.size()); }
};

/// A sparse matrix of square node blocks (block_size x block_size: 2 in plane strain, 3 in 3D)
/// in compressed block rows, on the host, in double: the precomputed stiffness of the
/// elastodynamic solver (LinearAlgebra::block_matrix, wave_step).
struct BlockCsrMatrix {
  int block_size = 3;
  std::int64_t rows = 0;              ///< block rows (nodes); the matrix is square
  std::vector<std::int64_t> offsets;  ///< rows + 1
  std::vector<std::int32_t> columns;  ///< block columns, sorted within a row
  std::vector<double> values;         ///< block_size^2 per block, row-major
  [[nodiscard]] std::int64_t blocks() const { return static_cast<std::int64_t>(columns.size()); }
};

/// A sparse matrix uploaded to a backend (LinearAlgebra::matrix, block_matrix).
class Matrix {
 public:
  virtual ~Matrix() = default;
  Matrix(const Matrix&) = delete;
  Matrix& operator=(const Matrix&) = delete;
  [[nodiscard]] std::int64_t rows() const { return rows_; }
  [[nodiscard]] std::int64_t cols() const { return cols_; }

 protected:
  Matrix(std::int64_t rows, std::int64_t cols) : rows_(rows), cols_(cols) {}

 private:
  std::int64_t rows_, cols_;
};

/// A list of vector positions in a backend's memory (LinearAlgebra::indices): where sources act
/// and receivers read.
class Indices {
 public:
  virtual ~Indices() = default;
  Indices(const Indices&) = delete;
  Indices& operator=(const Indices&) = delete;
  [[nodiscard]] std::int64_t size() const { return size_; }

 protected:
  explicit Indices(std::int64_t size) : size_(size) {}

 private:
  std::int64_t size_;
};

/// How a source acts at its positions (LinearAlgebra::wave_source).
enum class SourceMode {
  Force,         ///< adds its (already scaled) increment: v += s w, u_next += s w
  Displacement,  ///< prescribes the displacement: u_next = s w, v = u_next - u
};

/// Wall time and calls of one verb.
struct VerbTime {
  double seconds = 0.0;
  std::int64_t calls = 0;
  VerbTime& operator+=(const VerbTime& o) {
    seconds += o.seconds;
    calls += o.calls;
    return *this;
  }
};

/// Where the time of a solve went, verb by verb.
struct VerbTimes {
  VerbTime vector;     ///< fill, axpby, multiply, copy, invert_pivots, block_multiply
  VerbTime reduction;  ///< dot, dot2, max_abs
  VerbTime transfer;   ///< upload and download
  VerbTime sparse;     ///< sparse matrix products (multigrid transfers, assembled operators)
  VerbTime residual;   ///< internal_forces
  VerbTime linearize;  ///< linearize
  VerbTime apply;      ///< the tangent action
  VerbTime diagonal;   ///< diagonal and block_diagonal
  VerbTime assemble;   ///< assemble
  VerbTime replay;     ///< recorded verbs run again as one (LinearAlgebra::record, replay)
  VerbTime wave;       ///< wave_step, wave_source and gather (the elastodynamic solver)
  VerbTimes& operator+=(const VerbTimes& o);
};

namespace detail {
/// Times one verb: adds the wall time from construction to destruction, after synchronising.
template <class Owner>
class VerbTimer {
 public:
  VerbTimer(Owner& owner, VerbTime& slot)
      : owner_(owner), slot_(slot), start_(std::chrono::steady_clock::now()) {}
  ~VerbTimer() {
    if (owner_.recording()) return;  // enqueued for a recording, not run: its replays count
    if (owner_.timing()) owner_.synchronize();
    slot_.seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    ++slot_.calls;
  }
  VerbTimer(const VerbTimer&) = delete;
  VerbTimer& operator=(const VerbTimer&) = delete;

 private:
  Owner& owner_;
  VerbTime& slot_;
  std::chrono::steady_clock::time_point start_;
};
}  // namespace detail

/// Where a conjugate-gradient solve stands (LinearAlgebra::cg_progress).
struct CgProgress {
  enum class State { Running, Converged, Breakdown };
  State state = State::Running;
  int iterations = 0;  ///< completed iterations (cg_turn calls that counted)
  double rr = 0.0;     ///< r . r after the last of them
};

/// The scalars of one conjugate-gradient solve (r . z, p . Ap, r . r, the stopping threshold,
/// the iteration count and the state), kept where the backend's vectors are: made by
/// LinearAlgebra::cg_scalars() and used only by that LinearAlgebra's cg_* verbs.
class CgScalars {
 public:
  virtual ~CgScalars() = default;
  CgScalars(const CgScalars&) = delete;
  CgScalars& operator=(const CgScalars&) = delete;

 protected:
  CgScalars() = default;
};

/// Verbs recorded once by LinearAlgebra::record() and run again as one by
/// LinearAlgebra::replay(): on CUDA an instantiated graph, launched in one call instead of one
/// launch per verb.
class Recording {
 public:
  virtual ~Recording() = default;
  Recording(const Recording&) = delete;
  Recording& operator=(const Recording&) = delete;

 protected:
  Recording() = default;
  friend class LinearAlgebra;
  /// Enqueues the recorded verbs once more, on the queue they were recorded from.
  virtual void run() = 0;
};

/// Vectors and the verbs on them, for one backend and precision. Sizes of the vectors an
/// operation takes must match; a backend may check.
class LinearAlgebra {
 public:
  virtual ~LinearAlgebra() = default;
  [[nodiscard]] virtual Precision precision() const = 0;

  /// A vector of `size` entries, all zero.
  std::unique_ptr<Vector> vector(std::int64_t size) { return do_vector(size); }
  void upload(const std::vector<double>& host, Vector& x) {
    detail::VerbTimer t(*this, times_.transfer);
    do_upload(host, x);
  }
  void download(const Vector& x, std::vector<double>& host) {
    detail::VerbTimer t(*this, times_.transfer);
    do_download(x, host);
  }
  void fill(Vector& x, double value) {
    detail::VerbTimer t(*this, times_.vector);
    do_fill(x, value);
  }
  /// y = a x + b y. With b == 0, y is not read (whatever it held, even NaN, is overwritten).
  void axpby(double a, const Vector& x, double b, Vector& y) {
    detail::VerbTimer t(*this, times_.vector);
    do_axpby(a, x, b, y);
  }
  /// z = x .* y, entry by entry (z may be x or y).
  void multiply(const Vector& x, const Vector& y, Vector& z) {
    detail::VerbTimer t(*this, times_.vector);
    do_multiply(x, y, z);
  }
  void copy(const Vector& x, Vector& y) {
    detail::VerbTimer t(*this, times_.vector);
    do_copy(x, y);
  }
  double dot(const Vector& x, const Vector& y) {
    detail::VerbTimer t(*this, times_.reduction);
    return do_dot(x, y);
  }
  /// {a . b, c . d}, in one pass where the backend fuses them (conjugate gradients needs two
  /// reductions per iteration; on a GPU each costs a round trip).
  std::array<double, 2> dot2(const Vector& a, const Vector& b, const Vector& c, const Vector& d) {
    detail::VerbTimer t(*this, times_.reduction);
    return do_dot2(a, b, c, d);
  }
  /// max |x_i|.
  double max_abs(const Vector& x) {
    detail::VerbTimer t(*this, times_.reduction);
    return do_max_abs(x);
  }
  /// d_i = 1 / d_i where d_i is positive and finite, 1 elsewhere: a diagonal inverted for
  /// Jacobi in place, without a round trip (kernels::inverted_pivot).
  void invert_pivots(Vector& d) {
    detail::VerbTimer t(*this, times_.vector);
    do_invert_pivots(d);
  }
  /// y_n = B_n x_n for the 3x3 blocks B (9 entries per node, row-major) of a block-diagonal
  /// matrix: block Jacobi.
  void block_multiply(const Vector& blocks, const Vector& x, Vector& y) {
    detail::VerbTimer t(*this, times_.vector);
    do_block_multiply(blocks, x, y);
  }
  /// A sparse matrix in the backend's memory and precision.
  std::unique_ptr<Matrix> matrix(const CsrMatrix& host) { return do_matrix(host); }

  // Conjugate gradients with its scalars where the vectors are, so that a device runs an
  // iteration without a round trip to the host: conjugate_gradients() (framework/src/solver)
  // composes these and reads cg_progress() only every cg_progress_interval() iterations or so.
  // Once a solve has converged (r . r <= stop_rr) or broken down (p . Ap <= 0, or a non-finite
  // r . z), later cg_descend() and cg_turn() calls leave x, r and p as they are: reading the
  // progress late costs time, never a different answer. Timed as reductions.

  /// Scalars for one solve, in this algebra's memory.
  std::unique_ptr<CgScalars> cg_scalars() { return do_cg_scalars(); }
  /// Starts a solve at residual r (with r . r = rr, known to the caller) and preconditioned
  /// residual z: computes r . z; the solve stops when r . r <= stop_rr.
  void cg_start(const Vector& r, const Vector& z, double rr, double stop_rr, CgScalars& s) {
    detail::VerbTimer t(*this, times_.reduction);
    do_cg_start(r, z, rr, stop_rr, s);
  }
  /// alpha = (r . z) / (p . Ap); x += alpha p; r -= alpha Ap. Breaks down instead where
  /// p . Ap <= 0 or r . z is not finite.
  void cg_descend(const Vector& p, const Vector& ap, Vector& x, Vector& r, CgScalars& s) {
    detail::VerbTimer t(*this, times_.reduction);
    do_cg_descend(p, ap, x, r, s);
  }
  /// Counts the iteration and takes r . r and the new r . z; converged where r . r <= stop_rr,
  /// otherwise p = z + (r . z new / r . z old) p.
  void cg_turn(const Vector& r, const Vector& z, Vector& p, CgScalars& s) {
    detail::VerbTimer t(*this, times_.reduction);
    do_cg_turn(r, z, p, s);
  }
  /// cg_descend, z = d .* r (a diagonal preconditioner: Jacobi's inverted diagonal d), then
  /// cg_turn: an iteration's vector work after the operator's action, in one call, so that a
  /// backend can fuse it (CUDA: one pass over x, r and z instead of three, and two launches
  /// fewer). The default calls the three verbs; a fused version must give the same bits.
  void cg_descend_scale_turn(const Vector& ap, const Vector& d, Vector& x, Vector& r, Vector& z,
                             Vector& p, CgScalars& s) {
    detail::VerbTimer t(*this, times_.reduction);
    do_cg_descend_scale_turn(ap, d, x, r, z, p, s);
  }
  /// Where the solve stands (on a device: a round trip).
  CgProgress cg_progress(CgScalars& s) {
    detail::VerbTimer t(*this, times_.reduction);
    return do_cg_progress(s);
  }
  /// Iterations a solver may run between reads of cg_progress() without losing much to the
  /// work done after convergence: 1 where reading the scalars is free (host memory), more where
  /// each read is a round trip to a device.
  [[nodiscard]] virtual int cg_progress_interval() const { return 1; }
  /// y = A x.
  void multiply(const Matrix& a, const Vector& x, Vector& y) {
    detail::VerbTimer t(*this, times_.sparse);
    do_sparse_multiply(a, x, y);
  }

  // The explicit elastodynamic step (seed 002), in increment form: docs/waves.md. Vectors hold
  // block_size entries per node; `b` one per node.

  /// A block matrix in the backend's memory, precision and layout (the backend may reorder
  /// its storage for bandwidth; products use the host's numbering).
  std::unique_ptr<Matrix> block_matrix(const BlockCsrMatrix& host) {
    detail::VerbTimer t(*this, times_.transfer);
    return do_block_matrix(host);
  }
  /// Positions in vectors of this algebra.
  std::unique_ptr<Indices> indices(const std::vector<std::int64_t>& host) {
    detail::VerbTimer t(*this, times_.transfer);
    return do_indices(host);
  }
  /// One step, fused into one pass over the nodes: with K a block matrix (block_matrix) of a
  /// translation-invariant operator, stored without its diagonal blocks (rows sum to zero, so
  /// (K u)_n = sum over j != n of K_nj (u_j - u_n): fem/kernels/wave_step.hpp),
  ///   v_n <- (K u)_n + b_n v_n,   u_next_n = u_n + v_n
  /// for every node n (u_next must not alias u or v). Exchange point: after it u_next is
  /// complete at owned nodes.
  void wave_step(const Matrix& k, const Vector& b, const Vector& u, Vector& v, Vector& u_next) {
    detail::VerbTimer t(*this, times_.wave);
    do_wave_step(k, b, u, v, u_next);
  }
  /// A source at positions `at` with weights w, at signal value s: mode Force adds d = s w_k
  /// to v and u_next there; Displacement sets u_next = s w_k and v = u_next - u there.
  void wave_source(const Indices& at, const Vector& weights, double s, SourceMode mode,
                   const Vector& u, Vector& v, Vector& u_next) {
    detail::VerbTimer t(*this, times_.wave);
    do_wave_source(at, weights, s, mode, u, v, u_next);
  }
  /// out[offset + k] = x[at[k]]: receivers' samples kept where the vectors are.
  void gather(const Vector& x, const Indices& at, Vector& out, std::int64_t offset) {
    detail::VerbTimer t(*this, times_.wave);
    do_gather(x, at, out, offset);
  }

  /// Records the verbs that `enqueue` issues on this algebra and on the operators built on it,
  /// without running them, so that replay() runs them again in one go: on a GPU, one launch of
  /// a graph instead of a launch per verb, where launches cost more than the small kernels of a
  /// solve on a few thousand dofs. Only for work that never waits for the device nor reads from
  /// it (no verb that returns a value, no transfer), whose vectors outlive the recording, and
  /// whose scalar arguments stay the same. Returns nullptr where the backend does not record
  /// (the default) or while verbs are timed exactly (set_timing(true)): `enqueue` has then not
  /// been called, and the caller issues the verbs one by one.
  std::unique_ptr<Recording> record(const std::function<void()>& enqueue) {
    if (timing_) return nullptr;
    recording_ = true;
    struct Done {
      bool& flag;
      ~Done() { flag = false; }
    } done{recording_};
    return do_record(enqueue);
  }
  /// Runs the verbs of a recording made by this algebra once more. Timed as `replay`.
  void replay(Recording& r) {
    detail::VerbTimer t(*this, times_.replay);
    r.run();
  }

  /// Waits for the work queued so far (device backends); the timers call it.
  virtual void synchronize() {}
  /// Whether verbs synchronise to be timed exactly (default true). Off, a device's verbs are
  /// timed by their launch only, and run without the waits.
  void set_timing(bool on) { timing_ = on; }
  [[nodiscard]] bool timing() const { return timing_; }
  /// Whether verbs are being recorded (record()) rather than run: the timers skip them.
  [[nodiscard]] bool recording() const { return recording_; }
  [[nodiscard]] const VerbTimes& times() const { return times_; }
  void reset_times() { times_ = {}; }

 protected:
  virtual std::unique_ptr<Vector> do_vector(std::int64_t size) = 0;
  virtual void do_upload(const std::vector<double>& host, Vector& x) = 0;
  virtual void do_download(const Vector& x, std::vector<double>& host) = 0;
  virtual void do_fill(Vector& x, double value) = 0;
  virtual void do_axpby(double a, const Vector& x, double b, Vector& y) = 0;
  virtual void do_multiply(const Vector& x, const Vector& y, Vector& z) = 0;
  virtual double do_dot(const Vector& x, const Vector& y) = 0;
  // Optional, with defaults from the verbs above.
  virtual void do_copy(const Vector& x, Vector& y) { do_axpby(1.0, x, 0.0, y); }
  virtual std::array<double, 2> do_dot2(const Vector& a, const Vector& b, const Vector& c,
                                        const Vector& d) {
    return {do_dot(a, b), do_dot(c, d)};
  }
  /// Default: through the host.
  virtual double do_max_abs(const Vector& x);
  /// Default: through the host.
  virtual void do_invert_pivots(Vector& d);
  /// Default: through the host.
  virtual void do_block_multiply(const Vector& blocks, const Vector& x, Vector& y);
  /// Default: the matrix stays on the host and products go through it.
  virtual std::unique_ptr<Matrix> do_matrix(const CsrMatrix& host);
  virtual void do_sparse_multiply(const Matrix& a, const Vector& x, Vector& y);
  /// Defaults: the scalars on the host, and dot, dot2 and axpby.
  virtual std::unique_ptr<CgScalars> do_cg_scalars();
  virtual void do_cg_start(const Vector& r, const Vector& z, double rr, double stop_rr,
                           CgScalars& s);
  virtual void do_cg_descend(const Vector& p, const Vector& ap, Vector& x, Vector& r, CgScalars& s);
  virtual void do_cg_turn(const Vector& r, const Vector& z, Vector& p, CgScalars& s);
  virtual CgProgress do_cg_progress(CgScalars& s);
  virtual void do_cg_descend_scale_turn(const Vector& ap, const Vector& d, Vector& x, Vector& r,
                                        Vector& z, Vector& p, CgScalars& s);
  /// Default: nullptr, nothing recorded (enqueue not called).
  virtual std::unique_ptr<Recording> do_record(const std::function<void()>& enqueue);
  /// Defaults: the matrix and indices on the host, the verbs through host copies (correct and
  /// slow: a backend overrides them).
  virtual std::unique_ptr<Matrix> do_block_matrix(const BlockCsrMatrix& host);
  virtual std::unique_ptr<Indices> do_indices(const std::vector<std::int64_t>& host);
  virtual void do_wave_step(const Matrix& k, const Vector& b, const Vector& u, Vector& v,
                            Vector& u_next);
  virtual void do_wave_source(const Indices& at, const Vector& weights, double s, SourceMode mode,
                              const Vector& u, Vector& v, Vector& u_next);
  virtual void do_gather(const Vector& x, const Indices& at, Vector& out, std::int64_t offset);

  VerbTimes times_;

 private:
  bool timing_ = true;
  bool recording_ = false;
};

/// How an evaluation at a displacement went: an element whose det F is not positive, or
/// non-finite values, make it fail (the solver then cuts the increment back).
struct ElementCheck {
  enum class Status { Ok, InvertedElement, NotFinite };
  Status status = Status::Ok;
  int block = -1;  ///< offending block and element (block-local index)
  std::int64_t element = -1;
  double value = 0.0;  ///< its det F
  [[nodiscard]] bool ok() const { return status == Status::Ok; }
};

/// The nonlinear elasticity operator of a model's blocks on one backend: internal forces r(u),
/// and at a linearization point the tangent A = s_K K(u) + s_M M (M the lumped mass; the shift
/// is what Newmark and HHT add) as an action, a diagonal, 3x3 node blocks and an assembled
/// matrix. Vectors hold 3 entries per node (size()).
///
/// Prescribed dofs (System::prescribed_amplitude >= 0) are eliminated: apply() returns
/// (A v) at free dofs and v itself at prescribed ones, and diagonal(), block_diagonal() and
/// assemble() have identity rows and columns there. With v zero at prescribed dofs (every
/// Krylov vector of a solve) that is the operator of the free dofs; with v zero at free dofs it
/// gives the coupling (A v)_free that lifts a prescribed increment (the Newton solver's first
/// iteration of an increment).
///
/// Exchange point (for MPI, docs/implicit.md): internal_forces() and apply() complete the sums
/// over elements at a node where they gather element-node contributions; that is where a halo
/// exchange goes.
class NonlinearOperator {
 public:
  explicit NonlinearOperator(const System& system);
  virtual ~NonlinearOperator() = default;
  NonlinearOperator(const NonlinearOperator&) = delete;
  NonlinearOperator& operator=(const NonlinearOperator&) = delete;

  [[nodiscard]] virtual LinearAlgebra& algebra() = 0;
  [[nodiscard]] const System& system() const { return system_; }
  /// 3 * number of nodes.
  [[nodiscard]] std::int64_t size() const;

  /// Internal nodal forces f = P(u) at every dof (the element pass plus gather of the explicit
  /// step). Material history is read from the committed state and not changed.
  ElementCheck internal_forces(const Vector& u, Vector& f) {
    detail::VerbTimer t(*this, times_.residual);
    return do_internal_forces(u, f);
  }
  /// Makes u the point the tangent verbs below linearize at.
  ElementCheck linearize(const Vector& u) {
    detail::VerbTimer t(*this, times_.linearize);
    return do_linearize(u);
  }
  /// A = stiffness K(u) + mass M from now on (initially 1 and 0: the static tangent).
  void set_shift(double stiffness, double mass) {
    shift_stiffness_ = stiffness;
    shift_mass_ = mass;
  }
  /// The step the material history advances over in the evaluations from now on (rate-
  /// dependent laws, ElementPassArgs::dt): the increment of an implicit dynamic solve, +infinity
  /// in a static one (the long-term response); initially 0.
  void set_time_step(double dt) { time_step_ = dt; }
  [[nodiscard]] double time_step() const { return time_step_; }
  [[nodiscard]] double shift_stiffness() const { return shift_stiffness_; }
  [[nodiscard]] double shift_mass() const { return shift_mass_; }
  /// y = A v at free dofs, y = v at prescribed dofs. Only enqueues work (no wait for the
  /// device, no transfer), so that a backend that records verbs (LinearAlgebra::record) can
  /// record it.
  void apply(const Vector& v, Vector& y) {
    detail::VerbTimer t(*this, times_.apply);
    do_apply(v, y);
  }
  /// d = diag(A), 1 at prescribed dofs.
  void diagonal(Vector& d) {
    detail::VerbTimer t(*this, times_.diagonal);
    do_diagonal(d);
  }
  /// The 3x3 node blocks of A, 9 entries per node (row-major); rows and columns of prescribed
  /// dofs are those of the identity.
  void block_diagonal(Vector& blocks) {
    detail::VerbTimer t(*this, times_.diagonal);
    do_block_diagonal(blocks);
  }
  /// A assembled on the host, scalar rows by dof (3x3 node blocks expanded), identity rows and
  /// columns at prescribed dofs.
  void assemble(CsrMatrix& a) {
    detail::VerbTimer t(*this, times_.assemble);
    do_assemble(a);
  }
  /// Accepts the material history of the last internal_forces() as converged (laws with
  /// num_state > 0; nothing to do otherwise).
  virtual void commit() {}
  /// The committed material history of block b, [e][q][num_state] in double (checkpoints of
  /// laws with num_state > 0), and setting it (restarts). A backend that cannot says so.
  virtual void material_state(std::size_t /*block*/, std::vector<double>& /*state*/) const {
    throw Error(
        "this backend's implicit operator cannot read material history state: checkpoints of "
        "materials with state are not supported on it\n  hint: run the case on the openmp or "
        "kokkos backend");
  }
  virtual void set_material_state(std::size_t /*block*/, const std::vector<double>& /*state*/) {
    throw Error(
        "this backend's implicit operator cannot set material history state: restarts of "
        "materials with state are not supported on it\n  hint: run the case on the openmp or "
        "kokkos backend");
  }
  /// Stress, strain and energies of every element at u (output frames).
  virtual void element_results(const std::vector<double>& u, std::vector<BlockResults>& out) = 0;
  /// Bytes the operator holds in the backend's memory; 0 when the backend does not say.
  [[nodiscard]] virtual std::size_t memory_bytes() const { return 0; }

  void synchronize() { algebra().synchronize(); }
  [[nodiscard]] bool timing() { return algebra().timing(); }
  [[nodiscard]] bool recording() { return algebra().recording(); }
  [[nodiscard]] const VerbTimes& times() const { return times_; }
  void reset_times() { times_ = {}; }

 protected:
  virtual ElementCheck do_internal_forces(const Vector& u, Vector& f) = 0;
  virtual ElementCheck do_linearize(const Vector& u) = 0;
  virtual void do_apply(const Vector& v, Vector& y) = 0;
  // Optional: the defaults probe apply() with vectors that are nonzero on one colour of a
  // distance-2 colouring of the nodes, one component at a time (Curtis-Powell-Reid): exact,
  // in 3 x (number of colours) applications (81 on a hexahedral grid).
  virtual void do_diagonal(Vector& d);
  virtual void do_block_diagonal(Vector& blocks);
  virtual void do_assemble(CsrMatrix& a);

  VerbTimes times_;

 private:
  const System& system_;
  double shift_stiffness_ = 1.0;
  double shift_mass_ = 0.0;
  double time_step_ = 0.0;
};

}  // namespace fem
