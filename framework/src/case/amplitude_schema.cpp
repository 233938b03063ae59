// amplitudes: named time curves, and `amplitude:` references to them (or inline curves).
#include <algorithm>
#include <memory>

#include "case_schema.hpp"

namespace fem::case_io {

namespace {

const std::vector<std::string> kTypes = {"constant",   "linear",   "smooth_step", "tabular",
                                         "tone_burst", "gaussian", "ricker"};

bool applies(const std::string& key, const std::string& type) {
  if (type == "linear" || type == "smooth_step") return key == "start" || key == "end";
  if (type == "tabular")
    return key == "points" || key == "file" || key == "time_scale" || key == "value_scale";
  if (type == "tone_burst") return key == "frequency" || key == "cycles" || key == "start";
  if (type == "gaussian") return key == "centre" || key == "width";
  if (type == "ricker") return key == "frequency" || key == "centre";
  return false;
}

void read_points(const Value& v, Amplitude& curve) {
  // Counted on the YAML list before its items become Values: a curve of a million points is
  // refused at once instead of after building a million of them.
  const std::size_t count = v.is_list() ? v.node().size() : 0;
  if (count > static_cast<std::size_t>(kMaxAmplitudePoints))
    v.fail(
        "'points' has " + std::to_string(count) + " points; at most " +
            std::to_string(kMaxAmplitudePoints) + " are supported",
        "resample the curve: it is evaluated inside the compute kernels, which need a fixed size");
  const std::vector<Value> points = as_list(v);
  if (points.empty()) v.fail("'points' must list at least one [time, value] pair");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Value& p = points[i];
    if (!p.is_list() || p.node().size() != 2)
      p.fail(p.quoted() + " must be a [time, value] pair, got " +
             (p.is_list() ? std::to_string(p.node().size()) + " items" : p.describe()));
    const std::vector<Value> pair = as_list(p);
    const double t = as_number(pair[0]);
    // A time given twice is a jump: the first value holds up to it, the second after it.
    const bool jump = i > 0 && t == curve.time[i - 1] && (i < 2 || t > curve.time[i - 2]);
    if (i > 0 && !(t > curve.time[i - 1]) && !jump)
      pair[0].fail("times in 'points' must increase: " + format_number(t) + " follows " +
                       format_number(curve.time[i - 1]),
                   "a time may appear twice in a row (a jump), not more");
    curve.time[i] = t;
    curve.value[i] = as_number(pair[1]);
  }
  curve.num_points = static_cast<int>(points.size());
}

/// `file: signal.csv` (relative to the case file's folder): every sample in a.table, and in
/// the curve too where they fit.
void read_signal_file(const Value& file, const Mapping& m, AmplitudeSpec& a) {
  const std::string path =
      existing_file(file, "signal file", "the path is relative to the case file's folder");
  double time_scale = 1.0, value_scale = 1.0;
  if (auto t = m.get("time_scale")) time_scale = positive(*t);
  if (auto v = m.get("value_scale")) value_scale = as_number(*v);
  auto table = std::make_shared<SignalTable>(read_signal_csv(path, time_scale, value_scale));
  const std::size_t n = table->time.size();
  if (n <= static_cast<std::size_t>(kMaxAmplitudePoints)) {
    std::copy(table->time.begin(), table->time.end(), a.curve.time);
    std::copy(table->value.begin(), table->value.end(), a.curve.value);
    a.curve.num_points = static_cast<int>(n);
  }
  a.table = std::move(table);
}

AmplitudeSpec read_curve(const Value& v, const std::string& name) {
  const Mapping m(v, {"type", "start", "end", "points", "file", "time_scale", "value_scale",
                      "frequency", "cycles", "centre", "width"});
  AmplitudeSpec a;
  a.where = v.key_where();
  a.name = name;
  const std::string type = as_choice(m.required("type", "one of " + join(kTypes)), kTypes);
  for (const Value& e : m.entries())
    if (e.name() != "type" && !applies(e.name(), type))
      e.fail_at_key("'" + e.name() + "' does not apply to a " + type + " amplitude",
                    "linear and smooth_step take start and end; tabular takes points, or file "
                    "(with time_scale and value_scale); tone_burst "
                    "takes frequency, cycles and start; gaussian takes centre and width; ricker "
                    "takes frequency and centre; constant takes nothing");
  if (type == "constant") {
    a.curve.kind = AmplitudeKind::Constant;
  } else if (type == "tabular") {
    a.curve.kind = AmplitudeKind::Tabular;
    if (auto f = m.get("file")) {
      if (auto p = m.get("points"))
        p->fail_at_key("a tabular amplitude takes 'points' or 'file', not both");
      read_signal_file(*f, m, a);
    } else {
      for (const char* key : {"time_scale", "value_scale"})
        if (auto k = m.get(key)) k->fail_at_key(std::string("'") + key + "' applies to 'file'");
      read_points(
          m.required("points",
                     "a list of [time, value] pairs, e.g. [[0, 0], [1, 1]], or a file: of them"),
          a.curve);
    }
  } else if (type == "tone_burst") {
    a.curve.kind = AmplitudeKind::ToneBurst;
    a.curve.frequency = positive(m.required("frequency", "the centre frequency in Hz"));
    a.curve.cycles = 5.0;
    if (auto c = m.get("cycles")) a.curve.cycles = positive(*c);
    if (auto s = m.get("start")) a.curve.start = non_negative(*s);
  } else if (type == "gaussian") {
    a.curve.kind = AmplitudeKind::Gaussian;
    a.curve.start = as_number(m.required("centre", "the time of the peak in seconds"));
    a.curve.width = positive(m.required(
        "width", "the standard deviation in seconds (exp(-k (t - c)^2) has width 1/sqrt(2 k))"));
  } else if (type == "ricker") {
    a.curve.kind = AmplitudeKind::Ricker;
    a.curve.frequency = positive(m.required("frequency", "the peak frequency in Hz"));
    // A wavelet centred at 1.5 / f starts at 1e-4 of its peak: the run begins at rest.
    a.curve.start = 1.5 / a.curve.frequency;
    if (auto c = m.get("centre")) a.curve.start = non_negative(*c);
  } else {
    a.curve.kind = type == "linear" ? AmplitudeKind::Linear : AmplitudeKind::SmoothStep;
    if (auto s = m.get("start")) a.curve.start = non_negative(*s);
    a.curve.end = -1.0;  // open: closed with the solver's end time by close_open_amplitudes()
    if (auto e = m.get("end")) {
      a.curve.end = as_number(*e);
      if (!(a.curve.end > a.curve.start))
        e->fail("'end' must be after 'start' (" + format_number(a.curve.start) + "), got " +
                e->text());
    }
  }
  return a;
}

std::vector<std::string> names_of(const CaseSpec& spec) {
  std::vector<std::string> names;
  for (const auto& [name, a] : spec.amplitudes) names.push_back(name);
  return names;
}

}  // namespace

void read_amplitudes(const Value& v, CaseSpec& spec) {
  const Mapping m(v, {});
  for (const Value& e : m.entries()) {
    if (e.name() == "constant")
      e.fail_at_key("'constant' is a built-in amplitude and cannot be redefined",
                    "it always means a(t) = 1; give your curve another name");
    spec.amplitudes[e.name()] = read_curve(e, e.name());
  }
}

std::string read_amplitude_ref(const Value& v, CaseSpec& spec, const std::string& user) {
  if (v.is_map()) {
    // Inline curve: its path names it, so messages and the summary can still refer to it.
    const std::string name = v.path();
    spec.amplitudes[name] = read_curve(v, name);
    return name;
  }
  const std::string name = non_empty_string(v);
  if (!spec.amplitudes.count(name))
    v.fail(user + " uses amplitude '" + name + "', which is not defined",
           suggestion(name, names_of(spec), "amplitudes") +
               " (or give a curve inline: {type: linear, start: 0, end: 1})");
  return name;
}

void close_open_amplitudes(CaseSpec& spec) {
  for (auto& [name, a] : spec.amplitudes) {
    if (a.curve.kind != AmplitudeKind::Linear && a.curve.kind != AmplitudeKind::SmoothStep)
      continue;
    if (a.curve.end >= 0.0) continue;
    a.curve.end = spec.solver.end_time;
    if (!(a.curve.end > a.curve.start))
      throw InputError(
          a.where,
          "amplitude '" + name + "' starts at " + format_number(a.curve.start) +
              " s, but its end defaults to solver.end_time = " + format_number(a.curve.end) + " s",
          "give an 'end' after 'start', or start the curve earlier");
  }
}

}  // namespace fem::case_io
