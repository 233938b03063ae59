// Algebraic multigrid of the assembled tangent through hypre's BoomerAMG, on the host: at every
// setup the operator assembles its tangent (scalar CSR, node-major dofs), hypre receives it as a
// ParCSR matrix of one process with the rigid-body rotations of the mesh, and every application
// is one V-cycle, so that the conjugate gradients around it stay valid (the cycle is symmetric
// positive definite: see configure()).
//
// hypre is optional (cmake/femLinearSolvers.cmake): without it the factory refuses the case key
// and says what to install. hypre and MPI headers stay in this file.
#include "fem/error.hpp"
#include "fem/parallel/communicator.hpp"
#include "preconditioner_factories.hpp"

#if FEM_WITH_HYPRE
#include <HYPRE.h>
#include <HYPRE_IJ_mv.h>
#include <HYPRE_parcsr_ls.h>
#include <HYPRE_utilities.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "fem/backend.hpp"
#if FEM_HYPRE_MPI
#include <mpi.h>
#endif
#endif

namespace fem {

#if FEM_WITH_HYPRE
namespace {

// --- MPI and hypre, once per process -----------------------------------------------------------

#if FEM_HYPRE_MPI
bool fem_initialised_mpi = false;

/// Open MPI settings for a process that runs alone (fem without mpirun: a singleton, whose only
/// communicator partner is itself, MPI_COMM_SELF below), each unless the user set it:
/// - ess_singleton_isolated: no orted daemon is forked to serve the singleton. The daemon's PMIx
///   server needs a network interface, so in a container without one MPI_Init aborted the whole
///   process ("The PMIx server's listener thread failed to start"); isolated also starts in
///   0.15 s instead of 0.4-0.6 s.
/// - pml ob1, btl self: a process talking to itself needs no transport; the others probe
///   InfiniBand, OFI, PSM2 and UCX devices and warn where they are visible but unusable (GPU
///   hosts, containers).
/// - if ^posix_ipv4: its interface scan prints "opal_ifinit: unable to find network interfaces"
///   where there is none; nothing here uses IP.
/// Other MPI implementations ignore OMPI_ variables.
void default_singleton_settings() {
  // Under a launcher (mpirun, srun, hydra) the settings are the launcher's, not ours to default.
  if (parallel::launched_by_mpi()) return;
  constexpr std::array<std::pair<const char*, const char*>, 4> settings = {{
      {"OMPI_MCA_ess_singleton_isolated", "1"},
      {"OMPI_MCA_pml", "ob1"},
      {"OMPI_MCA_btl", "self"},
      {"OMPI_MCA_if", "^posix_ipv4"},
  }};
  for (const auto& [name, value] : settings) setenv(name, value, /*overwrite=*/0);
}
#endif

/// At exit: hypre, then MPI if fem initialised it (a program that initialised MPI itself
/// finalises it itself).
void finalise_hypre() {
  HYPRE_Finalize();
#if FEM_HYPRE_MPI
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (fem_initialised_mpi && finalised == 0) MPI_Finalize();
#endif
}

/// Initialises MPI (where this hypre needs it and nobody has) and hypre, on the first amg
/// preconditioner of the process: runs without amg never start MPI.
void initialise_hypre_once() {
  static std::once_flag once;
  std::call_once(once, [] {
#if FEM_HYPRE_MPI
    int initialised = 0, finalised = 0;
    MPI_Initialized(&initialised);
    MPI_Finalized(&finalised);
    if (finalised != 0)
      throw SolveError("the amg preconditioner needs MPI, which this process has finalised");
    if (initialised == 0) {
      default_singleton_settings();
      int provided = 0;
      // FUNNELED: only the thread that runs the solver calls hypre (and so MPI); OpenMP threads
      // inside fem's verbs never do.
      if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        throw SolveError("the amg preconditioner could not initialise MPI (MPI_Init_thread)");
      fem_initialised_mpi = true;
    }
#endif
    HYPRE_Init();
    std::atexit(finalise_hypre);
  });
}

// --- hypre calls and objects -------------------------------------------------------------------

/// The communicator of a matrix that lives on this process alone (a hypre without MPI has a
/// stub communicator type).
MPI_Comm this_process() {
#if FEM_HYPRE_MPI
  return MPI_COMM_SELF;
#else
  return MPI_Comm{};
#endif
}

/// Throws SolveError naming the hypre call that reported an error. hypre's error flag is global
/// and sticky: it is cleared so that the next call starts clean.
void check(HYPRE_Int code, const char* call) {
  if (code == 0) return;
  char description[256] = {};
  HYPRE_DescribeError(code, description);
  HYPRE_ClearAllErrors();
  throw SolveError(std::string("the amg preconditioner failed in hypre's ") + call + ": " +
                   description);
}

/// A hypre object, destroyed with its own function.
template <class Handle, HYPRE_Int (*Destroy)(Handle)>
class Owned {
 public:
  Owned() = default;
  ~Owned() { reset(); }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  void reset() {
    if (handle_ != nullptr) Destroy(handle_);
    handle_ = nullptr;
  }
  Handle get() const { return handle_; }
  /// For the Create functions, after reset().
  Handle* out() { return &handle_; }

 private:
  Handle handle_ = nullptr;
};

using IJMatrix = Owned<HYPRE_IJMatrix, HYPRE_IJMatrixDestroy>;
using IJVector = Owned<HYPRE_IJVector, HYPRE_IJVectorDestroy>;
using AmgSolver = Owned<HYPRE_Solver, HYPRE_BoomerAMGDestroy>;

/// A ParCSR vector of n entries on this process.
void create_vector(IJVector& v, HYPRE_BigInt n) {
  v.reset();
  check(HYPRE_IJVectorCreate(this_process(), 0, n - 1, v.out()), "HYPRE_IJVectorCreate");
  check(HYPRE_IJVectorSetObjectType(v.get(), HYPRE_PARCSR), "HYPRE_IJVectorSetObjectType");
  check(HYPRE_IJVectorInitialize(v.get()), "HYPRE_IJVectorInitialize");
  check(HYPRE_IJVectorAssemble(v.get()), "HYPRE_IJVectorAssemble");
}

HYPRE_ParVector par_vector(const IJVector& v) {
  void* object = nullptr;
  check(HYPRE_IJVectorGetObject(v.get(), &object), "HYPRE_IJVectorGetObject");
  return static_cast<HYPRE_ParVector>(object);
}

/// Sets all n entries (null indices: the rows from the first on, hypre_IJVectorSetValuesPar).
void set_values(const IJVector& v, const std::vector<double>& values) {
  check(HYPRE_IJVectorSetValues(v.get(), static_cast<HYPRE_Int>(values.size()), nullptr,
                                values.data()),
        "HYPRE_IJVectorSetValues");
}

// --- The preconditioner ------------------------------------------------------------------------

/// The rotations of the body about its centroid, 3 vectors of 3 entries per node, zero at
/// prescribed dofs (whose rows and columns are the identity's). Only the rotations: BoomerAMG's
/// unknown-based interpolation of each displacement component already reproduces constants, so
/// the translations are in the range of every interpolation, and hypre's elasticity examples
/// (test/TEST_ij, MFEM's HypreBoomerAMG::SetElasticityOptions) pass the rotations alone; the
/// translations again would only add dependent columns.
std::array<std::vector<double>, 3> rigid_rotations(const System& system) {
  const std::size_t nodes = static_cast<std::size_t>(system.num_nodes);
  std::array<double, 3> centroid = {0, 0, 0};
  for (std::size_t n = 0; n < nodes; ++n)
    for (int k = 0; k < 3; ++k) centroid[k] += system.coordinates[3 * n + k];
  for (double& c : centroid) c /= static_cast<double>(nodes > 0 ? nodes : 1);
  std::array<std::vector<double>, 3> modes;
  for (int axis = 0; axis < 3; ++axis) {
    std::vector<double>& m = modes[axis];
    m.assign(3 * nodes, 0.0);
    const int a = (axis + 1) % 3, b = (axis + 2) % 3;  // rotation about `axis`: (a, b) plane
    for (std::size_t n = 0; n < nodes; ++n) {
      m[3 * n + a] = -(system.coordinates[3 * n + b] - centroid[b]);
      m[3 * n + b] = system.coordinates[3 * n + a] - centroid[a];
    }
    for (std::size_t d = 0; d < m.size(); ++d)
      if (system.prescribed_amplitude[d] >= 0) m[d] = 0.0;
  }
  return modes;
}

/// z = one BoomerAMG V-cycle applied to r, for the tangent of the last setup().
class HypreAmg final : public Preconditioner {
 public:
  HypreAmg(LinearAlgebra& la, const System& system) : la_(la), modes_(rigid_rotations(system)) {
    initialise_hypre_once();
  }

  void setup(NonlinearOperator& op, const Vector&) override {
    CsrMatrix a;
    op.assemble(a);
    if (a.rows > std::numeric_limits<HYPRE_Int>::max() ||
        a.nonzeros() > std::numeric_limits<HYPRE_Int>::max())
      throw SolveError("the amg preconditioner: the tangent (" + std::to_string(a.rows) +
                       " rows, " + std::to_string(a.nonzeros()) +
                       " nonzeros) exceeds this hypre's 32-bit indices");
    const auto n = static_cast<HYPRE_BigInt>(a.rows);
    // The solver refers to the matrix and the vectors: it goes first.
    solver_.reset();
    upload_matrix(a);
    if (size_ != n) {
      for (IJVector* v : {&rhs_, &solution_}) create_vector(*v, n);
      for (std::size_t i = 0; i < modes_.size(); ++i) {
        create_vector(mode_vectors_[i], n);
        set_values(mode_vectors_[i], modes_[i]);
        mode_objects_[i] = par_vector(mode_vectors_[i]);
      }
      size_ = n;
    }
    if (with_rotations_) {
      create_solver(true);
      const HYPRE_Int code = HYPRE_BoomerAMGSetup(solver_.get(), matrix_object_, par_vector(rhs_),
                                                  par_vector(solution_));
      if (code == 0) return;
      // hypre 2.26 refuses the interpolation vectors on some meshes ("Error in argument 1" in
      // BoomerAMGSetup: hex8 cubes with symmetry planes, where nodes have one or two
      // prescribed components). Without them the cycle is still a valid, somewhat weaker
      // preconditioner (about 10 % more CG iterations on the cubes measured): this run goes on
      // without them, and name() says so.
      HYPRE_ClearAllErrors();
      with_rotations_ = false;
    }
    create_solver(false);
    check(HYPRE_BoomerAMGSetup(solver_.get(), matrix_object_, par_vector(rhs_),
                               par_vector(solution_)),
          "HYPRE_BoomerAMGSetup");
  }

  void apply(const Vector& r, Vector& z) override {
    la_.download(r, host_);
    set_values(rhs_, host_);
    // BoomerAMGSolve starts from the vector it is given: a preconditioner starts from zero.
    const HYPRE_ParVector x = par_vector(solution_);
    check(HYPRE_ParVectorSetConstantValues(x, 0.0), "HYPRE_ParVectorSetConstantValues");
    check(HYPRE_BoomerAMGSolve(solver_.get(), matrix_object_, par_vector(rhs_), x),
          "HYPRE_BoomerAMGSolve");
    check(HYPRE_IJVectorGetValues(solution_.get(), static_cast<HYPRE_Int>(host_.size()), nullptr,
                                  host_.data()),
          "HYPRE_IJVectorGetValues");
    la_.upload(host_, z);
  }

  [[nodiscard]] std::string name() const override {
    return with_rotations_ ? "amg (hypre BoomerAMG on the host)"
                           : "amg (hypre BoomerAMG on the host, without the rigid-body rotations, "
                             "which hypre refused for this tangent)";
  }

 private:
  /// A fresh BoomerAMG, configured, with the rotations in its interpolation or not.
  void create_solver(bool rotations) {
    solver_.reset();
    check(HYPRE_BoomerAMGCreate(solver_.out()), "HYPRE_BoomerAMGCreate");
    configure(solver_.get());
    if (!rotations) return;
    // mode_objects_ outlives the solver: hypre keeps the pointer (and leaves the vectors to us).
    check(HYPRE_BoomerAMGSetInterpVectors(solver_.get(), static_cast<HYPRE_Int>(modes_.size()),
                                          mode_objects_.data()),
          "HYPRE_BoomerAMGSetInterpVectors");
  }

  /// BoomerAMG for 3D elasticity as a preconditioner of conjugate gradients.
  static void configure(HYPRE_Solver amg) {
    // One V-cycle per application, no convergence test (tolerance 0 also skips the residual
    // norms that a solver would compute).
    HYPRE_BoomerAMGSetMaxIter(amg, 1);
    HYPRE_BoomerAMGSetTol(amg, 0.0);
    HYPRE_BoomerAMGSetPrintLevel(amg, 0);
    // Systems AMG: 3 functions, dof d belonging to function d % 3, which is hypre's default map
    // and fem's node-major numbering (dof = 3 node + component). Nodal coarsening decides C and
    // F points per node, from the row-sum norm of the 3x3 node blocks with the diagonal taken as
    // the negative sum of the off-diagonal entries (nodal 4, nodal_diag 1): a node keeps its
    // three components together, which the rotation modes below require, and the strength of
    // a connection is that of the whole block rather than of one component pair, which in
    // nearly incompressible material (nu = 0.49) is weak on the diagonal blocks' scale.
    HYPRE_BoomerAMGSetNumFunctions(amg, 3);
    HYPRE_BoomerAMGSetNodal(amg, 4);
    HYPRE_BoomerAMGSetNodalDiag(amg, 1);
    // HMIS coarsening with extended+i interpolation truncated to 4 entries per row (hypre's
    // defaults, low operator complexity in 3D), no aggressive coarsening (it cut the setup but
    // cost CG iterations on these meshes, measured in docs), and a strength threshold of 0.5 as
    // hypre recommends for 3D and MFEM for elasticity systems.
    HYPRE_BoomerAMGSetCoarsenType(amg, 10);
    HYPRE_BoomerAMGSetInterpType(amg, 6);
    HYPRE_BoomerAMGSetPMaxElmts(amg, 4);
    HYPRE_BoomerAMGSetAggNumLevels(amg, 0);
    HYPRE_BoomerAMGSetStrongThreshold(amg, 0.5);
    // The rigid-body rotations enter every level's interpolation (GM variant 1, Q truncated to
    // 4 entries per row): without them the coarse spaces miss the rotations, the slowest modes
    // of elasticity, and the iterations grow with the mesh. Variant 2 (MFEM's choice) saved
    // 3 % of the iterations on an 8^3 cube but failed in BoomerAMGSetup ("Error in argument 1",
    // hypre 2.26) on a 12^3 one with nodal coarsening; variant 1 works on every mesh tried.
    HYPRE_BoomerAMGSetInterpVecVariant(amg, 1);
    HYPRE_BoomerAMGSetInterpVecQMax(amg, 4);
    // Symmetric positive definite, so that CG stays valid: the smoother is l1-scaled symmetric
    // Gauss-Seidel (a forward and a backward sweep: its own adjoint) on the way down, up and on
    // the coarsest level, relaxed in natural order (C/F ordering would be symmetric only with
    // the reversed order on the way up), restriction is the transpose of interpolation and the
    // coarse operators are Galerkin products, so the V-cycle is a symmetric positive definite
    // operator. On one process "hybrid" Gauss-Seidel is plain Gauss-Seidel.
    HYPRE_BoomerAMGSetRelaxType(amg, 8);
    HYPRE_BoomerAMGSetCycleRelaxType(amg, 8, 3);
    HYPRE_BoomerAMGSetRelaxOrder(amg, 0);
    HYPRE_BoomerAMGSetNumSweeps(amg, 1);
  }

  /// The tangent as a ParCSR matrix of this process, all of it in the diagonal part.
  void upload_matrix(const CsrMatrix& a) {
    const auto n = static_cast<HYPRE_Int>(a.rows);
    std::vector<HYPRE_Int> row_sizes(static_cast<std::size_t>(n));
    std::vector<HYPRE_BigInt> rows(static_cast<std::size_t>(n));
    for (HYPRE_Int r = 0; r < n; ++r) {
      rows[r] = r;
      row_sizes[r] = static_cast<HYPRE_Int>(a.offsets[r + 1] - a.offsets[r]);
    }
    const std::vector<HYPRE_BigInt> columns(a.columns.begin(), a.columns.end());
    const std::vector<HYPRE_Int> no_off_process(static_cast<std::size_t>(n), 0);
    matrix_.reset();
    check(HYPRE_IJMatrixCreate(this_process(), 0, n - 1, 0, n - 1, matrix_.out()),
          "HYPRE_IJMatrixCreate");
    check(HYPRE_IJMatrixSetObjectType(matrix_.get(), HYPRE_PARCSR), "HYPRE_IJMatrixSetObjectType");
    check(HYPRE_IJMatrixSetDiagOffdSizes(matrix_.get(), row_sizes.data(), no_off_process.data()),
          "HYPRE_IJMatrixSetDiagOffdSizes");
    check(HYPRE_IJMatrixInitialize(matrix_.get()), "HYPRE_IJMatrixInitialize");
    check(HYPRE_IJMatrixSetValues(matrix_.get(), n, row_sizes.data(), rows.data(), columns.data(),
                                  a.values.data()),
          "HYPRE_IJMatrixSetValues");
    check(HYPRE_IJMatrixAssemble(matrix_.get()), "HYPRE_IJMatrixAssemble");
    void* object = nullptr;
    check(HYPRE_IJMatrixGetObject(matrix_.get(), &object), "HYPRE_IJMatrixGetObject");
    matrix_object_ = static_cast<HYPRE_ParCSRMatrix>(object);
  }

  LinearAlgebra& la_;
  std::array<std::vector<double>, 3> modes_;
  // Destroyed in reverse: the solver before what it refers to.
  IJMatrix matrix_;
  HYPRE_ParCSRMatrix matrix_object_ = nullptr;
  IJVector rhs_, solution_;
  std::array<IJVector, 3> mode_vectors_;
  std::array<HYPRE_ParVector, 3> mode_objects_ = {};
  HYPRE_BigInt size_ = -1;
  AmgSolver solver_;
  bool with_rotations_ = true;  ///< false after hypre refused them once
  std::vector<double> host_;
};

}  // namespace
#endif

std::unique_ptr<Preconditioner> make_amg_preconditioner(const LinearSolverSpec& spec,
                                                        const PreconditionerContext& context) {
#if FEM_WITH_HYPRE
  (void)spec;
  return std::make_unique<HypreAmg>(context.algebra, context.op.system());
#else
  (void)context;
  throw InputError(spec.where, "preconditioner 'amg': this fem was built without hypre",
                   "install libhypre-dev (scripts/install-dependencies.sh) and rebuild, or use "
                   "multigrid, block_jacobi or jacobi");
#endif
}

}  // namespace fem
