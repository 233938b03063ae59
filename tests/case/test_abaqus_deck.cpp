// Abaqus/CalculiX decks as cases (fem/deck.hpp): what a deck translates to, and the messages for
// what fem does not run, at the deck's file:line.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fem/case.hpp>
#include <fem/deck.hpp>
#include <fem/error.hpp>
#include <fem/solver/linear_solver.hpp>

#include "support/abaqus_box.hpp"
#include "support/run_fem.hpp"

namespace {

namespace fs = std::filesystem;

/// A deck of a 2 x 2 x 2 C3D8 box with BOTTOM and TOP node sets, then `rest`.
std::string box_deck(const std::string& rest, const std::string& type = "C3D8") {
  fem::test::AbaqusBox b;
  b.type = type;
  b.node_sets["BOTTOM"] = [](double, double, double z) { return z < 1e-9; };
  b.node_sets["TOP"] = [](double, double, double z) { return z > 1 - 1e-9; };
  return b.text() + rest;
}

const std::string kMaterial = R"(*MATERIAL, NAME=Soft
*DENSITY
1000
*HYPERELASTIC, NEO HOOKE
500, 4.0E-5
*SOLID SECTION, ELSET=EALL, MATERIAL=SOFT
)";

const std::string kStep = R"(*STEP, NLGEOM
*STATIC
0.25, 1.0, 1e-4, 0.5
*BOUNDARY
BOTTOM, 1, 3
TOP, 3, 3, -0.1
*NODE PRINT, NSET=TOP
U, RF
*NODE FILE
U
*END STEP
)";

/// Writes the deck to a fresh folder; returns its path.
std::string write_deck(const std::string& name, const std::string& text) {
  const std::string dir = fem::test::fresh_temp_dir("deck", name);
  fs::create_directories(dir);
  const std::string path = dir + "/" + name + ".inp";
  std::ofstream(path) << text;
  return path;
}

/// The InputError of loading the deck (fails the test if it loads).
fem::InputError load_error(const std::string& name, const std::string& text) {
  const std::string path = write_deck(name, text);
  try {
    fem::load_case(path);
  } catch (const fem::InputError& e) {
    return e;
  }
  ADD_FAILURE() << "the deck loaded";
  return fem::InputError({}, "");
}

/// The 1-based line of the first line of `text` that starts with `start`.
int line_of(const std::string& text, const std::string& start) {
  int line = 1;
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (text.compare(pos, start.size(), start) == 0) return line;
    pos = text.find('\n', pos);
    if (pos == std::string::npos) break;
    ++pos;
    ++line;
  }
  return 0;
}

/// Whether the translation picks a linear solver with a costly setup (CHOLMOD's factorisation or
/// hypre's AMG, where fem was built with them), for which it asks for modified Newton.
bool direct_or_amg_built_in() {
  const fem::LinearSolverLibraries libraries = fem::linear_solver_libraries();
  return !libraries.cholmod.empty() || !libraries.hypre.empty();
}

TEST(AbaqusDeck, TranslatesModelAndStep) {
  const std::string path = write_deck("model", box_deck(kMaterial + kStep));
  const fem::CaseSpec spec = fem::load_case(path);
  EXPECT_EQ(spec.name, "model");
  EXPECT_EQ(spec.mesh.file, (fs::path(path).parent_path() / "model.inp").string());
  ASSERT_EQ(spec.materials.count("soft"), 1u);
  EXPECT_EQ(spec.materials.at("soft").type, "neo_hookean");
  EXPECT_EQ(spec.materials.at("soft").density, 1000);
  ASSERT_EQ(spec.blocks.size(), 1u);
  EXPECT_EQ(spec.blocks[0].region, "eall");
  EXPECT_EQ(spec.blocks[0].element, "hex8");
  EXPECT_EQ(spec.solver.type, fem::SolverType::Static);
  EXPECT_DOUBLE_EQ(spec.solver.end_time, 1.0);
  EXPECT_DOUBLE_EQ(spec.solver.increments.initial, 0.25);
  EXPECT_DOUBLE_EQ(spec.solver.increments.minimum, 1e-4);
  EXPECT_DOUBLE_EQ(spec.solver.increments.maximum, 0.5);
  // Automatic increments grow after few Newton iterations: full Newton. Fixed ones (DIRECT) keep
  // the tangent while it converges where its setup is costly (a factorisation, AMG).
  EXPECT_EQ(spec.solver.newton.method, "full");
  std::string direct = kStep;
  direct.replace(direct.find("*STATIC"), 7, "*STATIC, DIRECT");
  const fem::CaseSpec fixed = fem::load_case(write_deck("direct", box_deck(kMaterial + direct)));
  EXPECT_EQ(fixed.solver.newton.method, direct_or_amg_built_in() ? "modified" : "full");
  // BOTTOM fixed; TOP's z prescribed with the static step's default ramp.
  ASSERT_EQ(spec.boundary_conditions.size(), 2u);
  EXPECT_EQ(spec.boundary_conditions[0].set, "bottom");
  EXPECT_EQ(spec.boundary_conditions[0].constrained, (std::array<bool, 3>{true, true, true}));
  EXPECT_EQ(spec.boundary_conditions[1].set, "top");
  EXPECT_DOUBLE_EQ(spec.boundary_conditions[1].value[2], -0.1);
  const fem::Amplitude& ramp = spec.amplitudes.at(spec.boundary_conditions[1].amplitude).curve;
  EXPECT_EQ(ramp.kind, fem::AmplitudeKind::Linear);
  EXPECT_DOUBLE_EQ(ramp.end, 1.0);
  ASSERT_EQ(spec.output.histories.size(), 1u);
  EXPECT_EQ(spec.output.histories[0].quantities,
            (std::vector<std::string>{"displacement", "reaction_force"}));
  EXPECT_TRUE(spec.output.vtk);
  // Locations the case keeps are the deck's: the block is the *SOLID SECTION line.
  EXPECT_EQ(spec.blocks[0].where.file, path);
  EXPECT_EQ(spec.blocks[0].where.line, line_of(box_deck(kMaterial + kStep), "*SOLID SECTION"));
}

// A deck of several steps is one analysis in steps: the solver's steps end where the deck's
// do, and each condition's values over the steps become one curve in total time (CalculiX's
// rules: a ramp from the value the previous step ended with in a static step, a jump in a dynamic
// one, held where a step leaves it, OP=NEW removing the loads a step does not name).
TEST(AbaqusDeck, StepsBecomeOneAnalysisInSteps) {
  const std::string first = R"(*STEP, NLGEOM
*STATIC, DIRECT
0.25, 1.0
*BOUNDARY
BOTTOM, 1, 3
TOP, 3, 3, -0.1
*CLOAD
TOP, 1, 10
*NODE PRINT, NSET=TOP
U
*END STEP
)";
  const std::string later = R"(*STEP
*STATIC
0.5, 2.0
*BOUNDARY
TOP, 3, 3, -0.2
*END STEP
*STEP
*STATIC, DIRECT
0.5, 1.0
*CLOAD, OP=NEW
*NODE PRINT, NSET=BOTTOM
RF
*END STEP
)";
  const std::string path = write_deck("steps", box_deck(kMaterial + first + later));
  const fem::CaseSpec spec = fem::load_case(path);
  EXPECT_EQ(spec.solver.type, fem::SolverType::Static);
  ASSERT_EQ(spec.solver.steps.size(), 3u);
  EXPECT_DOUBLE_EQ(spec.solver.end_time, 4.0);
  EXPECT_DOUBLE_EQ(spec.solver.steps[0].end_time, 1.0);
  EXPECT_EQ(spec.solver.steps[0].increments.count, 4);
  EXPECT_DOUBLE_EQ(spec.solver.steps[1].end_time, 3.0);
  EXPECT_EQ(spec.solver.steps[1].increments.count, 0);
  EXPECT_DOUBLE_EQ(spec.solver.steps[1].increments.initial, 0.25);  // 0.5 of a 2.0 step
  EXPECT_EQ(spec.solver.steps[1].where.line,
            line_of(box_deck(kMaterial + first + later), "*STATIC\n"));
  EXPECT_EQ(spec.solver.steps[2].increments.count, 2);
  // The plate's z: -0.1 ramped in step 1, on to -0.2 over step 2, held in step 3.
  const auto curve = [&](const std::string& name) {
    const fem::Amplitude& a = spec.amplitudes.at(name).curve;
    EXPECT_EQ(a.kind, fem::AmplitudeKind::Tabular) << name;
    std::vector<std::pair<double, double>> points;
    for (int i = 0; i < a.num_points; ++i) points.emplace_back(a.time[i], a.value[i]);
    return points;
  };
  using Points = std::vector<std::pair<double, double>>;
  EXPECT_EQ(curve("displacement_top_z"), (Points{{0, 0}, {1, -0.1}, {3, -0.2}, {4, -0.2}}));
  // The load: 10 N ramped in, held in step 2, ramped out by OP=NEW in step 3.
  EXPECT_EQ(curve("load_top_x"), (Points{{0, 0}, {1, 10}, {3, 10}, {4, 0}}));
  // Histories of all steps' requests, over the whole run, and their tables in CalculiX's .dat.
  ASSERT_EQ(spec.output.histories.size(), 2u);
  EXPECT_TRUE(spec.output.calculix_dat);

  // Dynamic steps jump to a new value at the step's start (a time given twice).
  std::string dynamic = kMaterial + first + later;
  for (std::size_t at = dynamic.find("*STATIC"); at != std::string::npos;
       at = dynamic.find("*STATIC", at))
    dynamic.replace(at, 7, "*DYNAMIC");
  const fem::CaseSpec d = fem::load_case(write_deck("dynamic_steps", box_deck(dynamic)));
  EXPECT_EQ(d.solver.type, fem::SolverType::ImplicitDynamic);
  ASSERT_EQ(d.solver.steps.size(), 3u);
  EXPECT_DOUBLE_EQ(d.solver.steps[1].time_step, 0.5);
  const fem::Amplitude& z = d.amplitudes.at("displacement_top_z").curve;
  const Points jumps = [&] {
    Points p;
    for (int i = 0; i < z.num_points; ++i) p.emplace_back(z.time[i], z.value[i]);
    return p;
  }();
  EXPECT_EQ(jumps, (Points{{0, -0.1}, {1, -0.1}, {1, -0.2}, {4, -0.2}}));
  EXPECT_DOUBLE_EQ(fem::evaluate(z, 1.0), -0.1);  // the first step ends at its value
  EXPECT_DOUBLE_EQ(fem::evaluate(z, 1.0 + 1e-9), -0.2);

  // *STATIC and implicit *DYNAMIC steps mix: an implicit dynamic analysis whose static steps
  // keep their increments (and ramps), the dynamic one its time step (and jumps).
  std::string mixed = kMaterial + first + later;
  const std::size_t second = mixed.find("*STATIC\n0.5, 2.0");
  ASSERT_NE(second, std::string::npos);
  mixed.replace(second, 7, "*DYNAMIC");
  const fem::CaseSpec m = fem::load_case(write_deck("mixed_steps", box_deck(mixed)));
  EXPECT_EQ(m.solver.type, fem::SolverType::ImplicitDynamic);
  ASSERT_EQ(m.solver.steps.size(), 3u);
  EXPECT_EQ(m.solver.steps[0].type, fem::SolverType::Static);
  EXPECT_EQ(m.solver.steps[0].increments.count, 4);
  EXPECT_EQ(m.solver.steps[1].type, fem::SolverType::ImplicitDynamic);
  EXPECT_DOUBLE_EQ(m.solver.steps[1].time_step, 0.5);
  EXPECT_EQ(m.solver.steps[2].type, fem::SolverType::Static);
  EXPECT_EQ(m.solver.steps[2].increments.count, 2);
  EXPECT_DOUBLE_EQ(m.solver.alpha, -0.05);  // CalculiX's HHT default
  const auto points_of = [&](const fem::CaseSpec& c, const std::string& name) {
    const fem::Amplitude& a = c.amplitudes.at(name).curve;
    Points p;
    for (int i = 0; i < a.num_points; ++i) p.emplace_back(a.time[i], a.value[i]);
    return p;
  };
  // Ramped in the static step, a jump at the dynamic step's start; the load ramped out by OP=NEW
  // over the last (static) step.
  EXPECT_EQ(points_of(m, "displacement_top_z"), (Points{{0, 0}, {1, -0.1}, {1, -0.2}, {4, -0.2}}));
  EXPECT_EQ(points_of(m, "load_top_x"), (Points{{0, 0}, {1, 10}, {3, 10}, {4, 0}}));

  // Explicit steps: one run to the last step's end at fem's stable step; gravity doubled in the
  // second step (a jump: the step's default).
  const fem::CaseSpec e = fem::load_case(write_deck("explicit_steps", box_deck(kMaterial + R"(*STEP
*DYNAMIC, EXPLICIT
1e-5, 1e-3
*BOUNDARY
BOTTOM, 1, 3
*DLOAD
EALL, GRAV, 9.81, 0, 0, -1
*END STEP
*STEP
*DYNAMIC, EXPLICIT
1e-5, 2e-3
*DLOAD
EALL, GRAV, 19.62, 0, 0, -1
*END STEP
)")));
  EXPECT_EQ(e.solver.type, fem::SolverType::Explicit);
  EXPECT_TRUE(e.solver.steps.empty());
  EXPECT_DOUBLE_EQ(e.solver.end_time, 3e-3);
  ASSERT_TRUE(e.gravity.has_value());
  EXPECT_DOUBLE_EQ(e.gravity->acceleration[2], -9.81);
  const fem::Amplitude& g = e.amplitudes.at(e.gravity->amplitude).curve;
  EXPECT_DOUBLE_EQ(fem::evaluate(g, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(fem::evaluate(g, 1e-3), 1.0);
  EXPECT_DOUBLE_EQ(fem::evaluate(g, 1.5e-3), 2.0);
}

TEST(AbaqusDeck, ElPrintOfASectionSetIsAnElementHistory) {
  std::string step = kStep;
  const std::string print = "*EL PRINT, ELSET=EALL, FREQUENCY=2\nS\n*EL PRINT, ELSET=EALL\nE\n";
  step.replace(step.find("*NODE FILE"), 0, print);
  const std::string text = box_deck(kMaterial + step);
  const fem::CaseSpec spec = fem::load_case(write_deck("el_print", text));
  ASSERT_EQ(spec.output.histories.size(), 2u);
  const fem::HistorySpec& h = spec.output.histories[1];
  EXPECT_EQ(h.name, "eall");
  EXPECT_EQ(h.region, "eall");
  EXPECT_TRUE(h.set.empty());
  // S and E of two requests: one history at the more frequent of their cadences.
  EXPECT_EQ(h.quantities,
            (std::vector<std::string>{"cauchy_stress", "green_lagrange_strain", "von_mises"}));
  EXPECT_EQ(h.every_steps, 1);
  EXPECT_EQ(h.where.line, line_of(text, "*EL PRINT"));
  // A set that is no section's (here a node-print set's name is not an element set at all, so
  // a subset of the elements): its values go to the frames, as before.
  std::string subset = kStep;
  subset.replace(subset.find("*NODE FILE"), 0, "*EL PRINT, ELSET=TOPROW\nS\n");
  const fem::CaseSpec frames = fem::load_case(
      write_deck("el_print_subset", box_deck(kMaterial + "*ELSET, ELSET=TOPROW\n1, 2\n" + subset)));
  ASSERT_EQ(frames.output.histories.size(), 1u);
  EXPECT_NE(std::find(frames.output.fields.begin(), frames.output.fields.end(), "cauchy_stress"),
            frames.output.fields.end());
  // ENER: the set's strain energy.
  std::string ener = kStep;
  ener.replace(ener.find("*NODE FILE"), 0, "*EL PRINT, ELSET=EALL\nENER\n");
  const fem::CaseSpec energy =
      fem::load_case(write_deck("el_print_ener", box_deck(kMaterial + ener)));
  ASSERT_EQ(energy.output.histories.size(), 2u);
  EXPECT_EQ(energy.output.histories[1].quantities, std::vector<std::string>{"strain_energy"});
  // A variable fem does not record is refused at its line.
  std::string peeq = kStep;
  peeq.replace(peeq.find("*NODE FILE"), 0, "*EL PRINT, ELSET=EALL\nS, PEEQ\n");
  const std::string bad = box_deck(kMaterial + peeq);
  const fem::InputError e = load_error("el_print_peeq", bad);
  EXPECT_EQ(e.where().line, line_of(bad, "S, PEEQ"));
  EXPECT_NE(std::string(e.what()).find("*EL PRINT variable PEEQ is not supported"),
            std::string::npos)
      << e.what();
}

TEST(AbaqusDeck, DynamicStepsAndTheirDefaults) {
  const std::string dynamic = R"(*AMPLITUDE, NAME=Pulse
0, 0, 0.1, 1, 0.2, 0
*INITIAL CONDITIONS, TYPE=VELOCITY
TOP, 3, -1.5
*STEP
*DYNAMIC, ALPHA=-0.1
0.01, 0.5
*CLOAD
TOP, 1, 2.0
*CLOAD, AMPLITUDE=PULSE
TOP, 2, 3.0
*DLOAD
EALL, GRAV, 9.81, 0, 0, -1
*END STEP
)";
  const fem::CaseSpec spec = fem::load_case(write_deck("dynamic", box_deck(kMaterial + dynamic)));
  EXPECT_EQ(spec.solver.type, fem::SolverType::ImplicitDynamic);
  EXPECT_EQ(spec.solver.integrator, "hht");
  EXPECT_DOUBLE_EQ(spec.solver.alpha, -0.1);
  EXPECT_DOUBLE_EQ(spec.solver.time_step, 0.01);
  // With a factorisation or AMG (a costly setup) the tangent is kept while it converges.
  EXPECT_EQ(spec.solver.newton.method, direct_or_amg_built_in() ? "modified" : "full");
  // Loads without AMPLITUDE act at once in a dynamic step (ccx's default).
  ASSERT_EQ(spec.loads.size(), 2u);
  EXPECT_EQ(spec.loads[0].amplitude, "constant");
  EXPECT_EQ(spec.loads[0].force, (std::array<double, 3>{2, 0, 0}));
  EXPECT_EQ(spec.loads[1].amplitude, "pulse");
  EXPECT_EQ(spec.amplitudes.at("pulse").curve.num_points, 3);
  ASSERT_TRUE(spec.gravity.has_value());
  EXPECT_DOUBLE_EQ(spec.gravity->acceleration[2], -9.81);
  ASSERT_EQ(spec.initial_velocities.size(), 1u);
  EXPECT_DOUBLE_EQ(spec.initial_velocities[0].velocity[2], -1.5);

  const std::string explicit_step = R"(*STEP
*DYNAMIC, EXPLICIT, DIRECT
1e-5, 0.01
*BOUNDARY
BOTTOM, ENCASTRE
*END STEP
)";
  const std::string explicit_deck = write_deck("explicit", box_deck(kMaterial + explicit_step));
  const fem::CaseSpec ex = fem::load_case(explicit_deck);
  // What a user could expect otherwise is said (and logged by fem run / check).
  const std::vector<std::string> notes = fem::translate_abaqus_deck(explicit_deck).notes;
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("explicit.inp:"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("no VTK frames"), std::string::npos) << notes[0];
  EXPECT_EQ(ex.solver.type, fem::SolverType::Explicit);
  EXPECT_DOUBLE_EQ(ex.solver.time_step, 1e-5);
  EXPECT_DOUBLE_EQ(ex.solver.end_time, 0.01);
  ASSERT_EQ(ex.boundary_conditions.size(), 1u);
  EXPECT_EQ(ex.boundary_conditions[0].constrained, (std::array<bool, 3>{true, true, true}));
  EXPECT_FALSE(ex.output.vtk);  // no *NODE FILE: no frames, as the deck asks
}

TEST(AbaqusDeck, ElasticLawsFollowNlgeom) {
  const std::string steel = R"(*MATERIAL, NAME=STEEL
*ELASTIC
210e9, 0.3
*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL
)";
  const std::string step = "*STATIC\n*BOUNDARY\nBOTTOM, 1, 3\n*END STEP\n";
  // Without NLGEOM: small strain; with: CalculiX's St. Venant-Kirchhoff.
  EXPECT_EQ(fem::load_case(write_deck("small", box_deck(steel + "*STEP\n" + step)))
                .materials.at("steel")
                .type,
            "linear_elastic");
  EXPECT_EQ(fem::load_case(write_deck("large", box_deck(steel + "*STEP, NLGEOM\n" + step)))
                .materials.at("steel")
                .type,
            "saint_venant_kirchhoff");
  // Engineering constants of an isotropic solid give the isotropic stiffness (Voigt order of
  // fem: 11 22 33 23 13 12).
  const std::string ortho = R"(*MATERIAL, NAME=STEEL
*ELASTIC, TYPE=ENGINEERING CONSTANTS
200e9, 200e9, 200e9, 0.25, 0.25, 0.25, 80e9, 80e9, 80e9
*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL
)";
  const fem::DeckTranslation t =
      fem::translate_abaqus_deck(write_deck("ortho", box_deck(ortho + "*STEP\n" + step)));
  // lambda = E nu / ((1 + nu)(1 - 2 nu)) = 80e9, lambda + 2 mu = 240e9.
  EXPECT_NE(t.yaml.find("type: linear_elastic_anisotropic, c11: 240000000000.0"), std::string::npos)
      << t.yaml;
  EXPECT_NE(t.yaml.find("c44: 80000000000"), std::string::npos) << t.yaml;
}

TEST(AbaqusDeck, ViscoelasticPronySeriesBecomesTheViscoelasticLaw) {
  // Abaqus's g_i and tau_i are fem's (the law's normalised shear relaxation modulus is
  // g_R + sum g_i exp(-t / tau_i)); NEO HOOKE is Mooney-Rivlin with C01 = 0.
  const std::string soft = R"(*MATERIAL, NAME=SOFT
*DENSITY
1000
*HYPERELASTIC, NEO HOOKE
500, 4.0E-5
*VISCOELASTIC, TIME=PRONY
0.3, 0, 0.1
0.2, 0, 2.5
*SOLID SECTION, ELSET=EALL, MATERIAL=SOFT
)";
  const std::string deck = write_deck("prony", box_deck(soft + kStep));
  const fem::DeckTranslation t = fem::translate_abaqus_deck(deck);
  EXPECT_NE(t.yaml.find("type: viscoelastic, c10: 500, c01: 0, d1: 4.0000000000000003e-05, g1: "
                        "0.29999999999999999, tau1: 0.10000000000000001, g2: "
                        "0.20000000000000001, tau2: 2.5, density: 1000"),
            std::string::npos)
      << t.yaml;
  const fem::CaseSpec spec = fem::load_case(deck);
  EXPECT_EQ(spec.materials.at("soft").type, "viscoelastic");
  // MOONEY-RIVLIN keeps its C01.
  const std::string rubber = R"(*MATERIAL, NAME=RUBBER
*VISCOELASTIC, TIME=PRONY
0.4, 0.0, 0.05
*HYPERELASTIC, MOONEY-RIVLIN
300, 100, 4.0E-5
*SOLID SECTION, ELSET=EALL, MATERIAL=RUBBER
)";
  const fem::DeckTranslation r =
      fem::translate_abaqus_deck(write_deck("prony_mr", box_deck(rubber + kStep)));
  EXPECT_NE(r.yaml.find("type: viscoelastic, c10: 300, c01: 100, d1: 4.0000000000000003e-05, "
                        "g1: 0.40000000000000002, tau1: 0.050000000000000003}"),
            std::string::npos)
      << r.yaml;
}

TEST(AbaqusDeck, PlaneStrainElementsRunAsPlaneModelsPerUnitThickness) {
  const std::string mesh = R"(*NODE
1, 0, 0
2, 1, 0
3, 1, 1
4, 0, 1
5, 0.5, 2
*ELEMENT, TYPE=CPE4, ELSET=QUADS
1, 1, 2, 3, 4
*ELEMENT, TYPE=CPE3, ELSET=TRIS
2, 4, 3, 5
*NSET, NSET=BOTTOM
1, 2
*MATERIAL, NAME=M
*DENSITY
1000
*ELASTIC
1e6, 0.3
)";
  const std::string step =
      "*STEP\n*DYNAMIC, EXPLICIT\n1e-5, 0.01\n*BOUNDARY\nBOTTOM, 1, 2\n*END STEP\n";
  const std::string sections =
      "*SOLID SECTION, ELSET=QUADS, MATERIAL=M\n1.0\n*SOLID SECTION, ELSET=TRIS, MATERIAL=M\n";
  const fem::DeckTranslation t =
      fem::translate_abaqus_deck(write_deck("plane", mesh + sections + step));
  EXPECT_NE(t.yaml.find("element: quad4"), std::string::npos) << t.yaml;
  EXPECT_NE(t.yaml.find("element: tri3"), std::string::npos) << t.yaml;
  // A thickness other than 1 is refused at its line: fem's forces are per unit thickness.
  const std::string thick = mesh +
                            "*SOLID SECTION, ELSET=QUADS, MATERIAL=M\n0.01\n"
                            "*SOLID SECTION, ELSET=TRIS, MATERIAL=M\n" +
                            step;
  const fem::InputError e = load_error("thick", thick);
  EXPECT_EQ(e.where().line, line_of(thick, "0.01")) << e.what();
  EXPECT_NE(std::string(e.what()).find("thickness 0.01 of element set 'quads'"), std::string::npos)
      << e.what();
  // Plane stress is not plane strain: refused with the types fem runs.
  std::string stress = mesh + sections + step;
  stress.replace(stress.find("CPE4"), 4, "CPS4");
  const fem::InputError s = load_error("plane_stress", stress);
  EXPECT_NE(std::string(s.what()).find("type CPS4, which fem does not run"), std::string::npos)
      << s.what();
  EXPECT_NE(std::string(s.what()).find("CPE4 (quad4"), std::string::npos) << s.what();
}

TEST(AbaqusDeck, NodeNumbersBecomeNodeSets) {
  fem::test::AbaqusBox b;
  const int corner = b.corner_node(2, 2, 2);
  const std::string deck = b.text() + kMaterial + "*STEP\n*STATIC\n*BOUNDARY\n1, 1, 3\n*CLOAD\n" +
                           std::to_string(corner) + ", 3, -5.0\n*END STEP\n";
  const fem::CaseSpec spec = fem::load_case(write_deck("numbers", deck));
  ASSERT_EQ(spec.node_sets.size(), 2u);
  EXPECT_EQ(spec.node_sets[0].name, "node_1");
  ASSERT_EQ(spec.node_sets[0].ids.size(), 1u);
  EXPECT_EQ(spec.node_sets[0].ids[0], 0);  // the deck's first node
  EXPECT_EQ(spec.loads.at(0).set, "node_" + std::to_string(corner));
  EXPECT_DOUBLE_EQ(spec.loads.at(0).force[2], -5.0);
}

// *DLOAD Pn: the loaded faces' nodes become a node set, the pressure a load on it; a follower
// pressure in an NLGEOM step, a dead one without.
TEST(AbaqusDeck, FacePressuresBecomeLoadsOnNodeSets) {
  for (const bool nlgeom : {true, false}) {
    SCOPED_TRACE(nlgeom);
    // The bottom face (P1) of the four lower elements of the 2 x 2 x 2 box: its 9 nodes.
    const std::string deck = box_deck(kMaterial + (nlgeom ? "*STEP, NLGEOM\n" : "*STEP\n") +
                                      "*STATIC\n*BOUNDARY\nTOP, 1, 3\n*DLOAD\n1, P1, 10\n2, "
                                      "P1, 10\n3, P1, 10\n4, P1, 10\n*END STEP\n");
    const fem::CaseSpec spec =
        fem::load_case(write_deck(nlgeom ? "pressure_nl" : "pressure", deck));
    ASSERT_EQ(spec.pressure_loads.size(), 1u);
    const fem::PressureLoadSpec& p = spec.pressure_loads[0];
    EXPECT_EQ(p.set, "pressure_1");
    EXPECT_DOUBLE_EQ(p.pressure, 10.0);
    EXPECT_EQ(p.follower, nlgeom);
    const auto set = std::find_if(spec.node_sets.begin(), spec.node_sets.end(),
                                  [](const fem::NodeSetSpec& n) { return n.name == "pressure_1"; });
    ASSERT_NE(set, spec.node_sets.end());
    EXPECT_EQ(set->ids.size(), 9u);
  }
  // An explicit NLGEOM step follows the deformed faces too.
  const fem::CaseSpec explicit_nl = fem::load_case(write_deck(
      "pressure_explicit_nl",
      box_deck(kMaterial + "*STEP, NLGEOM\n*DYNAMIC, EXPLICIT\n1e-5, 1e-3\n*BOUNDARY\nTOP, 1, "
                           "3\n*DLOAD\n1, P1, 10\n*END STEP\n")));
  ASSERT_EQ(explicit_nl.pressure_loads.size(), 1u);
  EXPECT_TRUE(explicit_nl.pressure_loads[0].follower);
  EXPECT_EQ(explicit_nl.solver.type, fem::SolverType::Explicit);
  // Two lines on one face add up (4 + 6 Pa on element 1's): the four faces carry 10 Pa alike,
  // one set.
  const fem::CaseSpec summed = fem::load_case(write_deck(
      "pressure_summed", box_deck(kMaterial + "*STEP\n*STATIC\n*BOUNDARY\nTOP, 1, 3\n*DLOAD\n1, "
                                              "P1, 4\n1, P1, 6\n2, P1, 10\n3, P1, 10\n4, P1, "
                                              "10\n*END STEP\n")));
  ASSERT_EQ(summed.pressure_loads.size(), 1u);
  EXPECT_DOUBLE_EQ(summed.pressure_loads[0].pressure, 10.0);
}

struct BadDeck {
  const char* name;
  std::string rest;  ///< after the mesh
  std::string at;    ///< the deck line (its start) the message must name
  std::string says;  ///< part of the message
};

TEST(AbaqusDeck, WhatFemDoesNotRunIsRefusedAtItsLine) {
  // kMaterial with `lines` (a *VISCOELASTIC) before its *SOLID SECTION.
  const auto with_prony = [](const std::string& lines) {
    std::string m = kMaterial;
    return m.insert(m.find("*SOLID SECTION"), lines);
  };
  const BadDeck cases[] = {
      {"contact", kMaterial + "*CONTACT PAIR, INTERACTION=I\n" + kStep, "*CONTACT PAIR",
       "*CONTACT PAIR is not supported"},
      {"typo", kMaterial + "*SOLID SECTON, ELSET=EALL, MATERIAL=SOFT\n" + kStep, "*SOLID SECTON",
       "did you mean '*SOLID SECTION'"},
      {"plastic", R"(*MATERIAL, NAME=SOFT
*ELASTIC
1e9, 0.3
*PLASTIC
1e6, 0
*SOLID SECTION, ELSET=EALL, MATERIAL=SOFT
)" + kStep,
       "*PLASTIC", "*PLASTIC is not supported"},
      {"pressure_inside", kMaterial + "*STEP\n*STATIC\n*DLOAD\nEALL, P1, 10\n*END STEP\n",
       "EALL, P1", "face P1 of element 5 is inside the body"},
      {"pressure_shell", kMaterial + "*STEP\n*STATIC\n*DLOAD\nEALL, P, 10\n*END STEP\n", "EALL, P,",
       "P without a face number loads shells"},
      {"pressure_element", kMaterial + "*STEP\n*STATIC\n*DLOAD\n99, P1, 10\n*END STEP\n", "99, P1",
       "names element 99, which is not in any *SOLID SECTION's set"},
      {"centrifugal",
       kMaterial + "*STEP\n*STATIC\n*DLOAD\nEALL, CENTRIF, 1e4, 0, 0, 0, 0, 0, 1\n*END STEP\n",
       "EALL, CENTRIF", "fem has no centrifugal load"},
      {"option", kMaterial + "*STEP\n*STATIC, RIKS\n*END STEP\n", "*STATIC, RIKS",
       "parameter RIKS of *STATIC is not supported"},
      {"steps_of_two_procedures",
       kMaterial + kStep + "*STEP\n*DYNAMIC, EXPLICIT\n1e-5, 1e-3\n*END STEP\n",
       "*DYNAMIC, EXPLICIT", "step 2 is *DYNAMIC, EXPLICIT, step 1 *STATIC"},
      {"support_added_later",
       kMaterial + kStep + "*STEP\n*STATIC\n*BOUNDARY\nTOP, 1, 1\n*END STEP\n", "TOP, 1, 1",
       "which the earlier steps left free"},
      {"support_released", kMaterial + kStep + "*STEP\n*STATIC\n*BOUNDARY, OP=NEW\n*END STEP\n",
       "*BOUNDARY, OP=NEW", "fem does not release supports"},
      {"explicit_increments",
       kMaterial + "*STEP\n*DYNAMIC, EXPLICIT, DIRECT\n1e-5, 1e-3\n*END STEP\n*STEP\n*DYNAMIC, "
                   "DIRECT, EXPLICIT\n2e-5, 1e-3\n*END STEP\n",
       "*DYNAMIC, DIRECT, EXPLICIT", "step 2's time increment differs from step 1's"},
      {"nlgeom_changed", kMaterial + kStep + "*STEP, NLGEOM=NO\n*STATIC\n*END STEP\n",
       "*STEP, NLGEOM=NO", "step 2 changes NLGEOM"},
      {"nlgeom_given_later",
       kMaterial + "*STEP\n*STATIC\n*END STEP\n*STEP, NLGEOM\n*STATIC\n*END STEP\n",
       "*STEP, NLGEOM", "step 2 changes NLGEOM"},
      {"unknown_set", kMaterial + "*STEP\n*STATIC\n*BOUNDARY\nBOTOM, 1, 3\n*END STEP\n",
       "BOTOM, 1, 3", "did you mean 'bottom'"},
      {"no_material", "*SOLID SECTION, ELSET=EALL, MATERIAL=RUBBER\n" + kStep, "*SOLID SECTION",
       "material 'rubber', which the deck does not define"},
      {"rotation_dof", kMaterial + "*STEP\n*STATIC\n*BOUNDARY\nBOTTOM, 1, 6\n*END STEP\n",
       "BOTTOM, 1, 6", "degree of freedom 6"},
      {"prony_frequency", with_prony("*VISCOELASTIC, FREQUENCY=TABULAR\n0.1, 0, 1, 0\n") + kStep,
       "*VISCOELASTIC, FREQUENCY", "*VISCOELASTIC, FREQUENCY=TABULAR is not supported"},
      {"prony_bulk", with_prony("*VISCOELASTIC, TIME=PRONY\n0.1, 0.2, 1\n") + kStep, "0.1, 0.2, 1",
       "k_1 = 0.2 of material 'Soft' (bulk relaxation) is not supported"},
      {"prony_terms",
       with_prony("*VISCOELASTIC, TIME=PRONY\n0.1,0,1\n0.1,0,2\n0.1,0,3\n0.1,0,4\n") + kStep,
       "0.1,0,1", "has 4 Prony terms; fem's viscoelastic law takes at most 3"},
      {"prony_elastic", R"(*MATERIAL, NAME=SOFT
*ELASTIC
3000, 0.45
*VISCOELASTIC, TIME=PRONY
0.3, 0, 0.1
*SOLID SECTION, ELSET=EALL, MATERIAL=SOFT
)" + kStep,
       "*VISCOELASTIC", "goes with *ELASTIC, which fem's viscoelastic law does not relax"},
      {"incompressible", R"(*MATERIAL, NAME=SOFT
*HYPERELASTIC, NEO HOOKE
500, 0
*SOLID SECTION, ELSET=EALL, MATERIAL=SOFT
)" + kStep,
       "*HYPERELASTIC", "incompressible"},
  };
  for (const BadDeck& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string text = box_deck(c.rest);
    const fem::InputError e = load_error(c.name, text);
    EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
    const int line = line_of(text, c.at);
    EXPECT_EQ(e.where().line, line) << e.what();
    EXPECT_NE(e.where().file.find(std::string(c.name) + ".inp"), std::string::npos) << e.what();
  }
}

// A material's parameters are checked by its plugin when the model is built: the message still
// names the deck line of the law.
TEST(AbaqusDeck, MaterialParameterErrorsNameTheDeckLine) {
  const std::string text = box_deck(R"(*MATERIAL, NAME=SOFT
*HYPERELASTIC, OGDEN, N=1
500, 0, 4e-5
*SOLID SECTION, ELSET=EALL, MATERIAL=SOFT
)" + kStep);
  const std::string deck = write_deck("bad_law", text);
  const fem::test::FemResult r = fem::test::run_fem("check '" + deck + "'");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("bad_law.inp:" + std::to_string(line_of(text, "*HYPERELASTIC")) +
                          ": error: material 'soft' (ogden): alpha1 must not be 0"),
            std::string::npos)
      << r.output;
}

TEST(AbaqusDeck, ExportAsYamlRunsToTheSameResult) {
  const std::string deck = write_deck("roundtrip", box_deck(kMaterial + kStep));
  const std::string dir = fs::path(deck).parent_path().string();
  const fem::test::FemResult y =
      fem::test::run_fem("export '" + deck + "' --format yaml -o '" + dir + "/sub/case.yaml'",
                         "mkdir -p '" + dir + "/sub' &&");
  ASSERT_EQ(y.code, 0) << y.output;
  const fem::test::FemResult a =
      fem::test::run_fem("run '" + deck + "' --output '" + dir + "/from_deck'");
  ASSERT_EQ(a.code, 0) << a.output;
  const fem::test::FemResult b =
      fem::test::run_fem("run '" + dir + "/sub/case.yaml' --output '" + dir + "/from_yaml'");
  ASSERT_EQ(b.code, 0) << b.output;
  EXPECT_EQ(fem::test::read_text(dir + "/from_deck/top.csv"),
            fem::test::read_text(dir + "/from_yaml/top.csv"));
  // --set applies to decks as to YAML cases.
  const fem::test::FemResult c =
      fem::test::run_fem("check '" + deck + "' --set solver.linear.preconditioner=direct_typo");
  EXPECT_NE(c.code, 0);
  EXPECT_NE(c.output.find("--set solver.linear.preconditioner"), std::string::npos) << c.output;
}

// fem export writes the deck of a case; running that deck gives the case's result (the deck keeps
// 12 digits of each number): the exporter and the translator are each other's inverse, for the
// in-tree hyperelastic laws and the quadratic hexahedron.
TEST(AbaqusDeck, ExportedDeckRunsLikeItsCase) {
  const std::string laws[] = {
      "{type: mooney_rivlin, density: 1000, c10: 300, c01: 100, d1: 4.0e-5}",
      "{type: ogden, density: 1000, mu1: 600, alpha1: 2.5, mu2: -100, alpha2: -2, d1: 4.0e-5}",
      "{type: reduced_polynomial, density: 1000, c10: 400, c20: -40, c30: 10, d1: 4.0e-5}"};
  int k = 0;
  for (const std::string& law : laws) {
    SCOPED_TRACE(law);
    const std::string dir = fem::test::fresh_temp_dir("deck_export", std::to_string(k++));
    fs::create_directories(dir);
    std::ofstream(dir + "/case.yaml") << R"(name: pressed
mesh: {generator: box, cells: hex20, size: [1, 1, 1], divisions: 2}
materials:
  soft: )" + law + R"(
blocks: [{name: body, element: hex20, material: soft}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 1], normal: [0, 0, 1]}}
boundary_conditions:
  - {set: bottom, fixed: all}
  - {set: top, fixed: [x, y]}
  - {set: top, displacement: {z: -0.15}, amplitude: {type: linear}}
solver: {type: static, end_time: 1, increments: 4}
output:
  vtk: false
  histories: [{name: top, set: top, quantities: [displacement, reaction_force], every_steps: 1}]
)";
    const auto e = fem::test::run_fem(
        "export '" + dir + "/case.yaml' --step static --intervals 4 -o '" + dir + "/pressed.inp'");
    ASSERT_EQ(e.code, 0) << e.output;
    // At most 16 entries on a line, as ccx demands: a C3D20 record continues on a second line.
    std::istringstream lines(fem::test::read_text(dir + "/pressed.inp"));
    for (std::string line; std::getline(lines, line);)
      EXPECT_LE(std::count(line.begin(), line.end(), ','), 16) << line;
    const auto a = fem::test::run_fem("run '" + dir + "/case.yaml' --output '" + dir + "/yaml'");
    ASSERT_EQ(a.code, 0) << a.output;
    const auto b = fem::test::run_fem("run '" + dir + "/pressed.inp' --output '" + dir + "/deck'");
    ASSERT_EQ(b.code, 0) << b.output;
    const auto last_reaction = [](const std::string& csv) {
      const std::string text = fem::test::read_text(csv);
      const std::string last = text.substr(text.rfind('\n', text.size() - 2) + 1);
      return std::stod(last.substr(last.rfind(',') + 1));
    };
    const double from_yaml = last_reaction(dir + "/yaml/top.csv");
    const double from_deck = last_reaction(dir + "/deck/top.csv");
    EXPECT_LT(from_yaml, -1.0);  // the plate pushes down
    EXPECT_NEAR(from_deck, from_yaml, 1e-8 * std::abs(from_yaml));
  }
}

}  // namespace
