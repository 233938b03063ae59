// A case file, parsed and validated: the description of a run before any plugin is loaded.
//
// load_case() reads YAML, checks every key, type and reference, and throws fem::InputError with
// file:line:column on the first problem. Nothing in here knows about plugins: material parameters
// are kept as YAML (MaterialSpec::node) and validated later by the material plugin itself through
// fem::ParamReader, with the same quality of message.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "fem/amplitude.hpp"
#include "fem/config.hpp"
#include "fem/error.hpp"
#include "fem/mesh.hpp"
#include "fem/output/frame.hpp"
#include "fem/signal_table.hpp"

namespace fem {

/// The mesh: a file (Gmsh, Abaqus, VTK) or a segmented image (read when the case is loaded, so
/// that blocks and node sets are checked against its regions and sets) or a built-in generator,
/// whose mesh has one region named "domain".
struct MeshSpec {
  SourceLocation where;
  std::string file;                       ///< mesh file, resolved against the case file's folder
  double scale = 1.0;                     ///< file (image) coordinates times scale = metres
  std::shared_ptr<const Mesh> file_mesh;  ///< the file's or image's mesh, scaled; null otherwise
  // A segmented image (fem/mesh/voxels.hpp): a hexahedron per voxel, a region label_<n> per label.
  std::string image;                 ///< image file, resolved like `file`; its mesh is file_mesh
  int downsample = 1;                ///< blocks of downsample^3 voxels become one voxel
  std::int32_t background = 0;       ///< the label of empty voxels
  std::vector<std::int32_t> labels;  ///< labels kept; empty: every label but the background
  std::string generator = "box";     ///< "box" | "cylinder" | "rectangle" | "voxels"
  std::string shape = "sphere";      ///< voxels: sphere | torus | blob | box, inscribed in the box
  /// hex8, hex20 (hex8 with mid-edge nodes), tet4 (each hexahedron split into 6 tetrahedra) or
  /// tet10 (the same with mid-edge nodes)
  CellShape cells = CellShape::Hex8;
  // box
  std::array<double, 3> size = {0.05, 0.05, 0.05};
  std::array<double, 3> origin = {0, 0, 0};
  std::array<int, 3> divisions = {5, 5, 5};
  // cylinder: axis along z, base centred on origin
  double radius = 0.0;
  double height = 0.0;
  int radial_divisions = 4;
  int circumferential_divisions = 16;  ///< multiple of 4
  int axial_divisions = 4;
  // both: random perturbation of interior nodes, as a fraction of the local cell size (tests)
  double distortion = 0.0;
  unsigned seed = 1;
};

/// A named node set: one geometric or explicit selector. Evaluated against the mesh by
/// select_nodes() (mesh/selectors.hpp).
struct NodeSetSpec {
  SourceLocation where;
  std::string name;
  enum class Kind { All, Plane, Box, Sphere, Ids, Union } kind = Kind::All;
  std::array<double, 3> point = {0, 0, 0};   ///< plane point / box min / sphere centre
  std::array<double, 3> vector = {0, 0, 1};  ///< plane normal / box max
  double radius = 0.0;                       ///< sphere
  double tolerance = -1.0;                   ///< distance tolerance; < 0 means 1e-6 * mesh size
  std::vector<std::int32_t> ids;             ///< explicit node ids (0-based)
  std::vector<std::string> sets;             ///< union of these named sets
};

/// A material instance of the case: a plugin type plus its parameters (validated by the plugin).
struct MaterialSpec {
  SourceLocation where;
  std::string name;  ///< the key under `materials:`
  std::string type;  ///< material plugin name, e.g. "neo_hookean"
  double density = 1000.0;
  YAML::Node node;   ///< the whole mapping, for the plugin's parameter reader
  std::string file;  ///< case file, for messages
  std::vector<std::string> reserved_keys = {"type", "density"};  ///< keys the framework consumed
  /// A case translated from an Abaqus deck: per line of its text, the deck line (null: none).
  std::shared_ptr<const std::vector<SourceLocation>> translated_lines;
};

/// A group of cells run with one element type and one material.
struct BlockSpec {
  SourceLocation where;
  std::string name;
  std::string region = "domain";        ///< mesh region the cells come from
  std::string element;                  ///< element plugin name, e.g. "hex8r"
  std::string material;                 ///< key in materials
  double hourglass_coefficient = 0.05;  ///< for one-point hexahedra; 0 switches control off
};

struct AmplitudeSpec {
  SourceLocation where;
  std::string name;
  Amplitude curve;  ///< end < 0 before resolution means "solver end time"
  /// A tabular signal read from a file (`file:`): all its samples. The curve holds them too
  /// when they are at most kMaxAmplitudePoints; longer ones only the elastodynamic solver runs.
  std::shared_ptr<const SignalTable> table;
};

/// Prescribed displacement components on a node set: fixed (value 0) or given value * amplitude.
struct BoundaryConditionSpec {
  SourceLocation where;
  std::string set;
  std::array<bool, 3> constrained = {false, false, false};
  std::array<double, 3> value = {0, 0, 0};  ///< metres; 0 for fixed components
  std::string amplitude = "constant";
};

/// Force on every node of a set: value * amplitude(t), newtons per node.
struct NodalLoadSpec {
  SourceLocation where;
  std::string set;
  std::array<double, 3> force = {0, 0, 0};
  std::string amplitude = "constant";
};

/// A `loads:` entry with a pressure instead of a force: p(t) on the mesh boundary faces whose
/// nodes all belong to the set (fem/pressure_surface.hpp).
struct PressureLoadSpec {
  SourceLocation where;
  std::string set;
  double pressure = 0.0;  ///< Pa; positive pushes into the body
  std::string amplitude = "constant";
  /// On the deformed surface (true) or the reference one; resolved from the solver type where
  /// the case does not say (resolve_follower_pressures in case_loader.cpp).
  bool follower = false;
  bool follower_given = false;
  SourceLocation follower_where;
};

struct GravitySpec {
  SourceLocation where;
  std::array<double, 3> acceleration = {0, 0, 0};  ///< m/s^2
  std::string amplitude = "constant";
};

struct InitialVelocitySpec {
  SourceLocation where;
  std::string set;
  std::array<double, 3> velocity = {0, 0, 0};  ///< m/s
};

/// How a run integrates, decided once where the case is read.
enum class SolverType {
  Explicit,           ///< central differences (TLED)
  DynamicRelaxation,  ///< seed 003's iteration to the static equilibrium
  Static,             ///< load stepping, Newton-Raphson, a linear solver (docs/implicit.md)
  ImplicitDynamic,    ///< Newmark, HHT-alpha or backward Euler with Newton per step
  /// Linear elastodynamics with a precomputed stiffness (seed 002, docs/waves.md)
  Elastodynamic,
  /// Co-rotated linear elasticity on voxels, Newmark steps solved by multigrid V-cycles (seed
  /// 004, docs/voxels.md)
  Corotational,
};
const char* to_string(SolverType t);
/// Static and implicit dynamic: the solvers that linearize (Newton, linear solves).
inline bool is_implicit(SolverType t) {
  return t == SolverType::Static || t == SolverType::ImplicitDynamic;
}

/// Newton-Raphson of the implicit solvers.
struct NewtonSpec {
  SourceLocation where;
  /// full: iterate to the tolerances, a new tangent (and preconditioner) every iteration;
  /// modified: the same tolerances with the increment's first tangent kept while it still
  /// halves the residual at each iteration (a factorisation or AMG setup reused);
  /// linearized: seed 001's real-time mode, one linear solve per step or increment, accepted
  /// without a convergence check.
  std::string method = "full";
  int max_iterations = 25;
  /// Converged when |r|_2 <= residual_tolerance * force scale (the larger of the external
  /// forces' and the reactions' norms) ...
  double residual_tolerance = 1.0e-8;
  /// ... and |du . r| <= energy_tolerance * the first iteration's |du . r| (0: not checked).
  double energy_tolerance = 1.0e-12;
  bool line_search = true;
  /// Relative tolerance of the linear solves; 0: automatic (Eisenstat-Walker forcing terms).
  double linear_tolerance = 0.0;
};

/// The linear solver inside Newton.
struct LinearSolverSpec {
  SourceLocation where;
  std::string solver = "cg";              ///< cg | minres | direct
  std::string preconditioner = "jacobi";  ///< none | jacobi | block_jacobi | multigrid | amg
  int max_iterations = 2000;
  /// matrix_free: the tangent's action (the main path); assembled: a sparse matrix on the
  /// backend, rebuilt at every Newton iteration (seed 001 compares the two).
  std::string operator_form = "matrix_free";
};

/// Increments of the implicit solvers: a fixed count, or automatic (grow after easy
/// increments, cut back and retry after a failure).
struct IncrementSpec {
  SourceLocation where;
  int count = 0;            ///< > 0: that many equal increments over end_time (cutbacks allowed)
  double initial = 0.1;     ///< automatic: first increment, as a fraction of end_time
  double minimum = 1.0e-5;  ///< fraction of end_time below which a cutback gives up
  double maximum = 1.0;     ///< fraction of end_time
  double growth = 1.5;      ///< factor after an easy increment
  double cutback = 0.25;    ///< factor after a failed one
  int easy_iterations = 4;  ///< Newton iterations at most for an increment to count as easy
};

/// A step of a static or implicit dynamic analysis given in steps (`solver.steps`, and the
/// *STEPs of a deck): increments end exactly at each step's end, and each step has its own
/// increment settings (Abaqus's steps; the loads stay functions of the total time).
struct SolverStepSpec {
  SourceLocation where;
  /// Static or implicit_dynamic: an implicit dynamic analysis may have static steps (a preload
  /// before the dynamic response); the solver's type otherwise.
  SolverType type = SolverType::Static;
  double end_time = 0.0;     ///< the total time at the step's end
  double time_step = 0.0;    ///< implicit_dynamic: the step's time step
  IncrementSpec increments;  ///< static: fractions of the step's duration
};

/// An absorbing layer of the elastodynamic solver: graded mass-proportional damping
/// d = max_damping (x / thickness)^power at the nodes within `thickness` of the set's nodes,
/// x the depth into the layer (thickness minus the distance to the nearest node of the set).
struct AbsorbingLayerSpec {
  SourceLocation where;
  std::string set;
  double thickness = 0.0;    ///< m
  double max_damping = 0.0;  ///< 1/s, at the outer edge
  double power = 3.0;
  /// Stiffness reduction: the stiffness of the layer's elements scaled by exp(-g X^power), X the
  /// depth fraction (0: none, plain graded damping).
  double stiffness_reduction = 0.0;
};

/// The geometric multigrid of the co-rotational solver (seed 004's V-cycle).
struct VoxelMultigridSpec {
  SourceLocation where;
  int cycles = 2;       ///< V-cycles per time step
  int pre_sweeps = 2;   ///< coloured block Gauss-Seidel sweeps before the coarse correction
  int post_sweeps = 1;  ///< and after it
  /// Coarsen until the coarsest level has at most this many vertices.
  std::int64_t coarsest_vertices = 512;
  int coarsest_iterations = 200;  ///< conjugate gradients on the coarsest level, at most
  /// Relative residual of the coarsest solve; none: default_coarsest_tolerance(levels) below.
  std::optional<double> coarsest_tolerance;
  /// Steps between measurements of the V-cycles' residual reduction (two extra residuals and
  /// reductions); 0: never.
  int residual_every = 1;
};

/// The coarsest solve's relative residual by default, for a hierarchy of `levels` levels. Where
/// there are coarser levels than the finest, the coarse correction needs little accuracy: on the
/// seed's bunny and on cubes of 32^3 to 126^3 voxels, 0.1 and 1e-3 (and 1e-6) give the same
/// residual reduction per V-cycle, within 2 %, and 0.1 a third of the CG iterations
/// (docs/performance.md, "The coarsest solve"). Where the coarsest level is the whole model,
/// its solve is the step's: 1e-3.
inline double default_coarsest_tolerance(int levels) {
  return levels > 1 ? 1.0e-1 : 1.0e-3;
}

struct SolverSpec {
  SourceLocation where;
  SolverType type = SolverType::Explicit;
  double end_time = 1.0;       ///< s (dynamic relaxation and static: when amplitudes end)
  double time_step = 0.0;      ///< s; 0 = automatic (critical step * safety_factor)
  double safety_factor = 0.8;  ///< Courant number for the automatic step / fictitious mass
  double mass_damping = 0.0;   ///< mass-proportional damping coefficient, 1/s
  std::string assembly = "deterministic";
  /// auto, rcm, input or shuffled (fem/mesh/ordering.hpp). auto: input for the built-in
  /// generators (already numbered layer by layer, measured fastest), rcm for everything else.
  std::string node_ordering = "auto";
  // dynamic_relaxation
  double tolerance = 1.0e-5;        ///< m: bound on the estimated error rho/(1-rho) |du|_inf
  double force_tolerance = 1.0e-3;  ///< |R - P|_inf / max|P| over free dofs; 0: not checked
  std::int64_t max_iterations = 100000;
  int check_every = 20;       ///< iterations between convergence checks and rate updates
  int load_iterations = 200;  ///< iterations over which loads ramp up (0: at once)
  // static and implicit_dynamic
  NewtonSpec newton;
  LinearSolverSpec linear;
  IncrementSpec increments;
  /// The analysis in steps; empty: one step to end_time with `increments` and `time_step`.
  std::vector<SolverStepSpec> steps;
  // implicit_dynamic
  std::string integrator = "newmark";  ///< newmark | hht | backward_euler
  double beta = 0.25;                  ///< Newmark
  double gamma = 0.5;                  ///< Newmark
  double alpha = 0.0;                  ///< HHT-alpha, in [-1/3, 0]
  double stiffness_damping = 0.0;      ///< Rayleigh: C = mass_damping M + stiffness_damping K, s
  // elastodynamic
  std::vector<AbsorbingLayerSpec> absorbing_layers;
  // corotational
  VoxelMultigridSpec multigrid;
};

/// The steps of a static or implicit dynamic analysis: `steps`, or the one step to end_time.
[[nodiscard]] std::vector<SolverStepSpec> analysis_steps(const SolverSpec& solver);
/// Whether a static or implicit dynamic analysis has a static step (all of a static one).
[[nodiscard]] bool has_static_steps(const SolverSpec& solver);

/// A rigid contact surface and the mesh nodes that must not penetrate it.
/// A contact surface: rigid (plane, sphere, STL, a mesh file's surface group) and the mesh nodes
/// that must not penetrate it, or (implicit solvers) a deformable pair: the nodes of `set`
/// against the boundary faces of the mesh whose nodes all belong to `surface`.
struct ContactSpec {
  SourceLocation where;
  std::string name;
  std::string type;                         ///< "plane" | "sphere" | "stl" | "mesh" | "deformable"
  std::array<double, 3> point = {0, 0, 0};  ///< plane point / sphere centre
  std::array<double, 3> normal = {0, 0, 1};
  double radius = 0.0;
  int side = 1;       ///< +1: the body stays outside (sphere, stl); -1: inside
  std::string file;   ///< stl, mesh: resolved path
  std::string group;  ///< mesh: the surface group of the file
  SourceLocation file_where;
  double scale = 1.0;  ///< stl coordinates times scale = metres
  std::string set;     ///< contact nodes; empty: every boundary node of the mesh
  std::array<double, 3> translation = {0, 0, 0};  ///< rigid motion of the surface, m
  std::string amplitude = "constant";
  std::string surface;  ///< deformable: node set whose boundary faces are the target surface
  // Implicit solvers (the explicit ones project penetrating nodes back onto the surface):
  /// "penalty" or "augmented_lagrangian"
  std::string method = "penalty";
  double penalty = 0.0;  ///< Pa/m (force per area per penetration); 0: automatic
  /// augmented_lagrangian: the largest penetration accepted, m; 0: automatic
  double penetration_tolerance = 0.0;
  int max_augmentations = 20;
  SourceLocation method_where;  ///< where method/penalty were given (explicit solvers refuse them)
};

/// A time history written to <name>.csv: of a node set (`set`: mean displacement and velocity,
/// total reaction force) or of a block region's elements (`region`: reference-volume means of
/// the stress and strain, the largest von Mises stress, the strain energy). One of the two.
struct HistorySpec {
  SourceLocation where;
  std::string name;
  std::string set;
  std::string region;
  std::vector<std::string> quantities = {"displacement", "reaction_force"};
  int every_steps = 0;      ///< 0 = same cadence as field output
  double every_time = 0.0;  ///< s
  [[nodiscard]] bool of_elements() const { return !region.empty(); }
};

/// A receiver of the elastodynamic solver: the traces of every node of a set (or of the node
/// nearest a point), sampled on the device every `every_steps` steps.
struct ReceiverSpec {
  SourceLocation where;
  std::string name;
  std::string set;  ///< empty when `point` is given
  std::optional<std::array<double, 3>> point;
  std::vector<std::string> quantities = {"displacement"};  ///< displacement, velocity
  int every_steps = 1;
};

/// output.checkpoint: the run's complete state, written every so often for `fem run --restart`.
struct CheckpointSpec {
  SourceLocation where;
  int every_steps = 0;      ///< one of the two is > 0
  double every_time = 0.0;  ///< s
  int keep = 2;             ///< the newest files kept; older ones are removed
};

struct OutputSpec {
  SourceLocation where;
  std::string directory;  ///< default: the case file name without extension, beside the CWD
  int every_steps = 0;
  double every_time = 0.0;  ///< if both 0: 20 frames over the run
  std::vector<std::string> fields = {"displacement",  "velocity",  "green_lagrange_strain",
                                     "cauchy_stress", "von_mises", "block_id"};
  /// Where each of `fields` is written in the case; empty for the defaults.
  std::vector<SourceLocation> field_locations;
  bool vtk = true;
  /// Every frame also in one HDF5 file with an XDMF index (fem/output/xdmf_series.hpp).
  bool xdmf = false;
  /// The named node sets and the blocks' regions in every frame, as 0/1 arrays (OutputMesh).
  bool sets = true;
  /// Frames written by a thread of their own while the run goes on; unset: where the backend
  /// computes on a device (frame_writing(), fem/solver/run_output.hpp).
  std::optional<bool> background;
  /// Of the .vtu files' arrays (zlib, lz4 or none in the case).
  VtkCompression compression = VtkCompression::Zlib;
  std::vector<HistorySpec> histories;
  /// The node histories' samples also in <name>.dat, as CalculiX prints *NODE PRINT tables:
  /// each node's displacement and velocity, the set's total reaction force
  /// (fem/output/calculix_dat.hpp). A deck's translation asks for it.
  bool calculix_dat = false;
  std::vector<ReceiverSpec> receivers;  ///< elastodynamic only
  /// Receiver trace files: csv, hdf5 (fem built with HDF5), or both; empty: hdf5 where fem has
  /// it, csv otherwise.
  std::vector<std::string> receiver_formats;
  std::optional<CheckpointSpec> checkpoint;  ///< none: only a stop by a signal writes one
};

/// An entry of the case's plugin_paths: a folder of plugins (or one plugin file) and where the
/// case names it, for the message when it cannot be used.
struct PluginPathSpec {
  std::string path;  ///< resolved relative to the case file's folder
  SourceLocation where;
};

struct CaseSpec {
  std::string file;  ///< path of the case file ("<string>" when parsed from text)
  std::string name;  ///< default: file stem
  std::string backend = "openmp";
  int device = -1;              ///< the GPU to run on; -1: the backend's choice (kDefaultDevice)
  SourceLocation device_where;  ///< where `device` was given, for the message when it cannot be
  Precision precision = Precision::Double;
  std::vector<PluginPathSpec> plugin_paths;
  MeshSpec mesh;
  std::vector<BlockSpec> blocks;
  std::map<std::string, MaterialSpec> materials;
  std::vector<NodeSetSpec> node_sets;  ///< in file order (unions refer to earlier or later sets)
  std::map<std::string, AmplitudeSpec> amplitudes;  ///< includes the implicit "constant"
  std::vector<BoundaryConditionSpec> boundary_conditions;
  std::vector<NodalLoadSpec> loads;
  std::vector<PressureLoadSpec> pressure_loads;  ///< `loads:` entries with `pressure:`
  std::optional<GravitySpec> gravity;
  std::vector<InitialVelocitySpec> initial_velocities;
  std::vector<ContactSpec> contacts;
  SolverSpec solver;
  OutputSpec output;
};

/// One `--set key.path=value` override, applied to the YAML tree before validation.
struct CaseOverride {
  std::string path;   ///< dotted path, list items by index: "blocks.0.material", "solver.end_time"
  std::string value;  ///< YAML scalar or flow text: "0.5", "[1, 2, 3]", "{type: linear}"
};

/// Reads, overrides and validates a case file. Throws InputError.
CaseSpec load_case(const std::string& path, const std::vector<CaseOverride>& overrides = {});
/// Same from text (tests); `file` names it in messages.
CaseSpec parse_case(const std::string& yaml_text, const std::string& file = "<string>",
                    const std::vector<CaseOverride>& overrides = {});
/// Same from text translated from another file (an Abaqus deck, fem/deck.hpp): `lines` says for
/// each line of the text (index 0 is line 1) where it came from, so that every location the case
/// keeps and every message names the user's file.
CaseSpec parse_translated_case(const std::string& yaml_text, const std::string& file,
                               const std::vector<SourceLocation>& lines,
                               const std::vector<CaseOverride>& overrides = {});

}  // namespace fem
