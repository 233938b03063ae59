// fem._fem: the compiled half of the Python module (python/fem/__init__.py is the other half).
//
// A case is prepared as `fem run` prepares it (load_case with the overrides, the plugins, the
// model) and run by the same solver classes; the results come back through a MemorySink as NumPy
// arrays instead of (or besides) files. fem's errors become the Python exceptions of
// fem/errors.py with the same message and the CLI's exit code.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fem/case.hpp>
#include <fem/error.hpp>
#include <fem/model.hpp>
#include <fem/output/run_sink.hpp>
#include <fem/output/vtk_series.hpp>
#include <fem/plugin_registry.hpp>
#include <fem/solver/corotational_solver.hpp>
#include <fem/solver/explicit_solver.hpp>
#include <fem/solver/implicit_solver.hpp>
#include <fem/solver/wave_solver.hpp>

namespace py = pybind11;

namespace {

using Overrides = std::vector<std::pair<std::string, std::string>>;

/// A 2-D (rows x columns) float64 array copied from `values`.
py::array_t<double> matrix(const std::vector<double>& values, py::ssize_t columns) {
  const py::ssize_t rows = columns > 0 ? static_cast<py::ssize_t>(values.size()) / columns : 0;
  py::array_t<double> a({rows, columns});
  std::copy(values.begin(), values.begin() + rows * columns, a.mutable_data());
  return a;
}

template <class T>
py::array_t<T> vector_array(const std::vector<T>& values) {
  py::array_t<T> a(static_cast<py::ssize_t>(values.size()));
  std::copy(values.begin(), values.end(), a.mutable_data());
  return a;
}

/// Fields of the same name stacked over frames: frames x entities x components. A field missing
/// from some frames (none so far) is left out rather than padded.
py::dict stack_fields(const std::vector<fem::OutputFrame>& frames, bool cells) {
  py::dict out;
  if (frames.empty()) return out;
  const auto& first = cells ? frames.front().cell_fields : frames.front().point_fields;
  for (std::size_t f = 0; f < first.size(); ++f) {
    const fem::Field& field = first[f];
    const auto count = static_cast<py::ssize_t>(field.values.size()) / field.components;
    bool everywhere = true;
    for (const fem::OutputFrame& frame : frames) {
      const auto& list = cells ? frame.cell_fields : frame.point_fields;
      everywhere = everywhere && f < list.size() && list[f].name == field.name &&
                   list[f].values.size() == field.values.size();
    }
    if (!everywhere) continue;
    py::array_t<double> a({static_cast<py::ssize_t>(frames.size()), count,
                           static_cast<py::ssize_t>(field.components)});
    double* p = a.mutable_data();
    for (const fem::OutputFrame& frame : frames) {
      const auto& values = (cells ? frame.cell_fields : frame.point_fields)[f].values;
      p = std::copy(values.begin(), values.end(), p);
    }
    out[py::str(field.name)] = a;
  }
  return out;
}

py::dict fields_dict(const std::vector<fem::Field>& fields) {
  py::dict out;
  for (const fem::Field& f : fields) out[py::str(f.name)] = matrix(f.values, f.components);
  return out;
}

py::dict mesh_dict(const fem::OutputMesh& mesh) {
  py::dict d;
  d["points"] = matrix(mesh.points, 3);
  d["cell_types"] = vector_array(mesh.cell_types);
  d["offsets"] = vector_array(mesh.offsets);
  d["connectivity"] = vector_array(mesh.connectivity);
  return d;
}

/// What a run sends back to Python: the frames, tables and summary a MemorySink kept.
py::dict results_dict(const fem::MemorySink& sink) {
  py::dict d;
  const auto& frames = sink.frames();
  std::vector<double> times;
  std::vector<std::int64_t> steps;
  for (const fem::OutputFrame& f : frames) {
    times.push_back(f.time);
    steps.push_back(f.step);
  }
  d["times"] = vector_array(times);
  d["steps"] = vector_array(steps);
  d["point_fields"] = stack_fields(frames, false);
  d["cell_fields"] = stack_fields(frames, true);
  py::dict tables;
  for (const std::string& name : sink.table_order()) {
    const fem::MemoryTable& t = sink.tables().at(name);
    py::dict table;
    table["columns"] = t.columns;
    table["time"] = vector_array(t.time);
    table["step"] = vector_array(t.step);
    table["values"] = matrix(t.values, static_cast<py::ssize_t>(t.columns.size()));
    tables[py::str(name)] = table;
  }
  d["tables"] = tables;
  d["summary"] = sink.summary();
  return d;
}

/// Python callbacks asked from the solver while it runs without the GIL: the progress callback,
/// and Ctrl-C (Python's signal handlers run in PyErr_CheckSignals). The first Python exception
/// stops the run at its next stop and is raised again once the run has returned.
class PythonHooks {
 public:
  explicit PythonHooks(py::object progress) : progress_(std::move(progress)) {}

  void progress(std::int64_t step, std::int64_t steps, double time) {
    if (progress_.is_none() || failed_) return;
    py::gil_scoped_acquire gil;
    try {
      progress_(step, steps, time);
    } catch (py::error_already_set& e) {
      keep(std::move(e));
    }
  }
  bool stop_requested() {
    if (failed_) return true;
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) keep(py::error_already_set());
    return failed_;
  }
  /// Raises the kept exception (with the GIL held), if any.
  void raise_if_failed() {
    if (error_) {
      std::optional<py::error_already_set> e = std::move(error_);
      error_.reset();
      e->restore();
      throw py::error_already_set();
    }
  }

 private:
  void keep(py::error_already_set e) {
    if (!error_) error_.emplace(std::move(e));
    failed_ = true;
  }
  py::object progress_;
  bool failed_ = false;
  std::optional<py::error_already_set> error_;
};

/// Frames of the solver types that do not send them to a sink yet (elastodynamic,
/// corotational): the final displacement as the one frame.
void final_state_frame(fem::MemorySink& sink, std::int64_t step, double time,
                       const std::vector<double>& u) {
  fem::OutputFrame frame;
  frame.step = step;
  frame.time = time;
  frame.point_fields.push_back({"displacement", 3, u});
  sink.frame(frame);
}

/// A case loaded, overridden, checked and built into a model with its plugins, as `fem run`
/// prepares it (apps/fem/case_options.cpp: prepare_case).
class PreparedCase {
 public:
  PreparedCase(const std::string& file, const std::optional<std::string>& text,
               const std::string& label, const Overrides& overrides) {
    std::vector<fem::CaseOverride> o;
    for (const auto& [path, value] : overrides) o.push_back({path, value});
    fem::CaseSpec spec = text ? fem::parse_case(*text, label, o) : fem::load_case(file, o);
    plugins_ = std::make_unique<fem::PluginRegistry>(spec.plugin_paths);
    model_ = fem::build_model(spec, *plugins_);
    // What checkpoints record (CaseOptions::case_text): the case's text and its overrides.
    case_text_ = text ? *text : read_text(file);
    if (!case_text_.empty() && case_text_.back() != '\n') case_text_ += '\n';
    for (const auto& [path, value] : overrides)
      case_text_ += "# --set " + path + "=" + value + "\n";
  }

  [[nodiscard]] const fem::Model& model() const { return model_; }

  [[nodiscard]] py::dict info() const {
    const fem::CaseSpec& s = model_.spec;
    py::dict d;
    d["file"] = s.file;
    d["name"] = s.name;
    d["backend"] = s.backend;
    d["device"] = s.device;  // -1: the backend's choice
    d["precision"] = std::string(fem::to_string(s.precision));
    d["solver"] = std::string(fem::to_string(s.solver.type));
    d["end_time"] = s.solver.end_time;
    d["output_directory"] = case_output_directory();
    d["nodes"] = model_.mesh.num_nodes();
    d["elements"] = model_.num_elements();
    d["dimension"] = model_.mesh.dimension();
    std::vector<std::string> histories;
    for (const fem::HistorySpec& h : s.output.histories) histories.push_back(h.name);
    d["histories"] = histories;
    return d;
  }

  [[nodiscard]] py::dict mesh() const {
    py::dict d = mesh_dict(fem::output_mesh(model_));
    std::vector<std::int32_t> block;
    std::vector<std::string> names;
    for (std::size_t b = 0; b < model_.blocks.size(); ++b) {
      names.push_back(model_.blocks[b].spec->name);
      block.insert(block.end(), static_cast<std::size_t>(model_.blocks[b].num_elements()),
                   static_cast<std::int32_t>(b));
    }
    d["cell_block"] = vector_array(block);
    d["block_names"] = names;
    py::dict sets;
    for (const auto& [name, nodes] : model_.mesh.node_sets)
      sets[py::str(name)] = vector_array(nodes);
    d["node_sets"] = sets;
    std::vector<std::int32_t> ids(static_cast<std::size_t>(model_.mesh.num_nodes()));
    for (std::size_t n = 0; n < ids.size(); ++n)
      ids[n] = model_.mesh.input_node_id(static_cast<std::int32_t>(n));
    d["input_node_ids"] = vector_array(ids);
    return d;
  }

  /// Runs the case on its backend. write_files: the files `fem run` writes, in
  /// output_directory (empty: the case's). Returns the results_dict() and the solver's report
  /// of what was run.
  py::dict run(bool write_files, const std::string& output_directory, const py::object& progress,
               bool time_verbs) const {
    const fem::CaseSpec& spec = model_.spec;
    std::unique_ptr<fem::Backend> backend = plugins_->create_backend(spec);
    const std::string dir = output_directory.empty() ? case_output_directory() : output_directory;
    fem::MemorySink sink;
    PythonHooks hooks(progress);
    auto on_step = [&hooks](std::int64_t step, std::int64_t steps, double t) {
      hooks.progress(step, steps, t);
    };
    auto stop = [&hooks] { return hooks.stop_requested(); };
    bool interrupted = false;
    py::dict report;
    {
      py::gil_scoped_release released;
      if (fem::is_implicit(spec.solver.type)) {
        fem::ImplicitSolver solver(model_, *backend, spec.backend);
        fem::ImplicitRunOptions o;
        o.output_directory = dir;
        o.write_files = write_files;
        o.time_verbs = time_verbs;
        o.case_text = case_text_;
        o.sink = &sink;
        o.stop_requested = stop;
        o.progress = [&on_step](std::int64_t inc, double t, int, int) { on_step(inc, 0, t); };
        const fem::ImplicitRunReport r = solver.run(o);
        interrupted = r.interrupted;
      } else if (spec.solver.type == fem::SolverType::Elastodynamic) {
        fem::WaveSolver solver(model_, *backend, spec.backend);
        fem::WaveRunOptions o;
        o.output_directory = write_files ? dir : std::string();
        o.stop_requested = stop;
        o.progress = on_step;
        const fem::WaveRunReport r = solver.run(o);
        interrupted = r.interrupted;
        final_state_frame(sink, r.steps, static_cast<double>(r.steps) * r.time_step,
                          r.final_displacement);
      } else if (spec.solver.type == fem::SolverType::Corotational) {
        fem::CorotationalRunOptions o;
        o.output_directory = write_files ? dir : std::string();
        o.stop_requested = stop;
        o.progress = on_step;
        o.time_verbs = time_verbs;
        const fem::CorotationalRunReport r =
            fem::run_corotational(model_, *backend, spec.backend, o);
        interrupted = r.interrupted;
        final_state_frame(sink, r.steps, static_cast<double>(r.steps) * r.time_step,
                          r.final_displacement);
      } else {
        fem::ExplicitSolver solver(model_, *backend, spec.backend);
        fem::ExplicitRunOptions o;
        o.output_directory = dir;
        o.write_files = write_files;
        o.case_text = case_text_;
        o.sink = &sink;
        o.stop_requested = stop;
        o.progress = on_step;
        const fem::ExplicitRunReport r = solver.run(o);
        interrupted = r.interrupted;
      }
    }
    hooks.raise_if_failed();
    py::dict d = results_dict(sink);
    d["interrupted"] = interrupted;
    d["output_directory"] = write_files ? dir : std::string();
    return d;
  }

 private:
  /// Where `fem run` writes this case's files (apps/fem: output_directory()).
  [[nodiscard]] std::string case_output_directory() const {
    const fem::OutputSpec& o = model_.spec.output;
    return o.directory.empty() ? model_.spec.name + "_results" : o.directory;
  }
  static std::string read_text(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  std::unique_ptr<fem::PluginRegistry> plugins_;
  fem::Model model_;
  std::string case_text_;
};

/// fem's exceptions as the classes of fem/errors.py, with the message `fem` prints and, for bad
/// input, where it is.
void translate(std::exception_ptr p) {
  const auto raise = [](const char* name, const std::string& message) {
    py::object cls = py::module_::import("fem.errors").attr(name);
    py::object e = cls(message);
    PyErr_SetObject(cls.ptr(), e.ptr());
    return e;
  };
  try {
    if (p) std::rethrow_exception(p);
  } catch (const fem::InputError& e) {
    py::object x = raise("InputError", e.what());
    x.attr("file") = e.where().file;
    x.attr("line") = e.where().line;
    x.attr("column") = e.where().column;
    x.attr("message") = e.message();
  } catch (const fem::PluginError& e) {
    raise("PluginError", e.what());
  } catch (const fem::CheckpointError& e) {
    raise("CheckpointError", e.what());
  } catch (const fem::SolveError& e) {
    raise("SolveError", e.what());
  } catch (const fem::Error& e) {
    raise("Error", e.what());
  }
}

}  // namespace

PYBIND11_MODULE(_fem, m) {
  m.doc() = "The compiled part of the fem module; use `import fem`.";
  // Quiet by default: a script prints what it wants; fem.set_log_level("info") shows the run.
  spdlog::set_level(spdlog::level::warn);
  spdlog::set_pattern("%^%l%$: %v");
  py::register_exception_translator(&translate);

  py::class_<PreparedCase>(m, "PreparedCase")
      .def(py::init<const std::string&, const std::optional<std::string>&, const std::string&,
                    const Overrides&>(),
           py::arg("file"), py::arg("text"), py::arg("label"), py::arg("overrides"))
      .def("info", &PreparedCase::info)
      .def("mesh", &PreparedCase::mesh)
      .def("run", &PreparedCase::run, py::arg("write_files"), py::arg("output_directory"),
           py::arg("progress"), py::arg("time_verbs"));

  m.def(
      "read_vtu",
      [](const std::string& path) {
        const fem::VtuContents c = fem::read_vtu(path);
        py::dict d = mesh_dict(c.mesh);
        d["point_fields"] = fields_dict(c.point_fields);
        d["cell_fields"] = fields_dict(c.cell_fields);
        return d;
      },
      py::arg("path"));
  m.def(
      "set_log_level",
      [](const std::string& level) {
        const spdlog::level::level_enum l = spdlog::level::from_str(level);
        if (l == spdlog::level::off && level != "off")
          throw fem::InputError({"<set_log_level>", 0, 0}, "unknown log level '" + level + "'",
                                "use trace, debug, info, warn, error or off");
        spdlog::set_level(l);
      },
      py::arg("level"));
}
