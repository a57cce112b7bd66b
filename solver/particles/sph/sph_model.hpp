#pragma once
// SPH as a model of the run loop (run/loop.hpp) and the run contract (run/command.hpp): a case's
// state stepped by either driver (SphCpu, or SphCuda: time_step, step, sync, diagnostics), its
// samples, snapshots, summary and checkpoint. Its clock is simulated time, the last step shortened
// to land on the end; samples and snapshots are taken after the first step at or past their ticks
// (no step is shortened for them, so the outputs never change a run's bits).
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/real.hpp"
#include "io/archive.hpp"
#include "run/loop.hpp"
#include "particles/sph/sph_cases.hpp"

namespace nbody::particles {

// The state an SPH checkpoint holds (SphModel::save) into c's state, which must be of the same case.
template <class T>
void read_sph_state(ArchiveReader& r, SphCase<T>& c) {
  SphState<T> s;
  s.box = c.state.box;
  r.get(s.time), r.get(s.steps), r.get(s.pos), r.get(s.vel), r.get(s.rho), r.get(s.mass), r.get(s.boundary);
  r.get(s.to_face), r.get(s.lists_at);
  s.n = s.rho.size();
  if (s.n != c.state.n || s.pos.size() != 3 * s.n || s.vel.size() != 3 * s.n || s.mass.size() != s.n ||
      s.boundary.size() != s.n || s.to_face.size() != c.state.to_face.size() || s.lists_at.size() != 3 * s.n)
    throw InputError("the checkpoint's SPH state is inconsistent with its case");
  try {
    check_sph(c.params, s);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("the checkpoint's state: ") + e.what());
  }
  c.state = std::move(s);
}

template <class T, class Driver>
class SphModel {
 public:
  using Time = double;
  using Sample = SphDiagnostics;
  static constexpr std::string_view command = "sph";

  // `c` and `driver` (made from it) outlive the model. measures: the case's own measures for the
  // summary (keys set to null where a case has none).
  SphModel(SphCase<T>& c, Driver& driver, std::string case_name, std::string engine, std::string device,
           std::function<void(nlohmann::json&)> measures)
      : c_(c),
        driver_(driver),
        case_name_(std::move(case_name)),
        engine_(std::move(engine)),
        device_(std::move(device)),
        measures_(std::move(measures)),
        eos_{c.params.rho0, c.params.c0},
        origin_(origin_of(c.walls)),
        start_step_(c.state.steps) {
    for (auto b : c.state.boundary) fluid_ += !b;
    first_mass_ = driver_.diagnostics(c_.walls, front_band()).mass;
  }

  run::Position<double> position() const { return {c_.state.time, c_.state.steps}; }
  void begin(const run::Mark<double>& end, const run::Every<double>&) {
    if (end.by_steps()) throw InputError("an SPH run ends at a time");
  }
  bool lands_on_snapshots() const { return false; }
  // One step of the size the state allows, the last one shortened to land on the end.
  void advance(const run::Bounds<double>& b) {
    SphState<T>& s = c_.state;
    const double dt = driver_.time_step();
    if (!(dt > 0) || !std::isfinite(dt))
      throw RunError("the time step is no longer positive and finite at step " + std::to_string(s.steps) + ", t = " +
                     RealTraits<double>::format(s.time) + " (the state has blown up: a smaller --cfl?)");
    const bool last = dt >= b.land_on - s.time;
    last_dt_ = last ? b.land_on - s.time : dt;
    driver_.step(T(last_dt_));
    if (last) s.time = b.land_on;  // exactly, whatever the rounding of the sum
    if constexpr (requires { driver_.last_step_seconds(); })  // the GPU's own time of the step and of its cell lists
      device_seconds_ += driver_.last_step_seconds(), cells_seconds_ += driver_.last_cells_seconds();
  }
  Sample sample() {
    const SphDiagnostics d = driver_.diagnostics(c_.walls, front_band());
    if (!std::isfinite(d.kinetic) || !std::isfinite(d.density_deviation))
      throw RunError("the state is no longer finite at step " + std::to_string(c_.state.steps) + " (a smaller --cfl?)");
    return d;
  }

  std::string diagnostics_header() const { return "t,step,dt,kinetic,mass,density_deviation,front,escaped"; }
  std::string diagnostics_row(const Sample& d) const {
    const auto f = [](double x) { return RealTraits<double>::format(x); };
    return f(c_.state.time) + "," + std::to_string(c_.state.steps) + "," + f(last_dt_) + "," + f(d.kinetic) + "," + f(d.mass) +
           "," + f(d.density_deviation) + "," + f(d.front - origin_[0]) + "," + std::to_string(d.escaped);
  }
  std::string particles_header() const { return "t,id,boundary,x,y,z,vx,vy,vz,rho,p"; }
  std::string particle_rows() {
    driver_.sync();
    const SphState<T>& s = c_.state;
    const std::size_t n = s.n;
    const auto f = [](T x) { return RealTraits<T>::format(x); };
    const auto d = [](double x) { return RealTraits<double>::format(x); };
    std::string out;
    for (std::size_t i = 0; i < n; ++i)
      out += d(s.time) + "," + std::to_string(i) + "," + std::to_string(int(s.boundary[i])) + "," +
             d(double(s.pos[i]) - origin_[0]) + "," + d(double(s.pos[n + i]) - origin_[1]) + "," +
             d(double(s.pos[2 * n + i]) - origin_[2]) + "," + f(s.vel[i]) + "," + f(s.vel[n + i]) + "," + f(s.vel[2 * n + i]) +
             "," + f(s.rho[i]) + "," + d(eos_.pressure(double(s.rho[i]))) + "\n";
    return out;
  }
  std::string final_state() { return particles_header() + "\n" + particle_rows(); }
  nlohmann::json parameters() const {
    return {{"n", c_.state.n},          {"fluid", fluid_},   {"h", c_.params.h},           {"c0", c_.params.c0},
            {"engine", engine_},        {"device", device_}, {"front_band", front_band()},
            {"frame", "x from the tank's inner left wall (Poiseuille: the box's start), y from its floor (the lower "
                      "plate), z from its inner side wall (3-D; 2-D: 0), in m"}};
  }
  nlohmann::json summary(const Sample& d) {
    driver_.sync();  // the case's measures read the state
    const auto taken = static_cast<double>(c_.state.steps - start_step_);
    const auto per_step = [&](double seconds) {
      return device_seconds_ > 0 && taken > 0 ? nlohmann::json(seconds / taken) : nlohmann::json();
    };
    nlohmann::json j = {{"model", "sph"},
                        {"case", case_name_},
                        {"precision", RealTraits<T>::name},
                        {"n", c_.state.n},
                        {"fluid", fluid_},
                        {"dx", c_.dx},
                        {"t", c_.state.time},
                        {"step", c_.state.steps},
                        {"kinetic", d.kinetic},
                        {"mass", d.mass},
                        {"mass_change", d.mass - first_mass_},
                        {"density_deviation", d.density_deviation},
                        {"front", d.front - origin_[0]},
                        {"escaped", d.escaped},
                        {"engine", engine_},
                        {"device", device_},
                        {"lists_made", driver_.lists_made()},
                        {"device_seconds_per_step", per_step(device_seconds_)},
                        {"cell_list_seconds_per_step", per_step(cells_seconds_)}};
    if (measures_) measures_(j);
    return j;
  }
  std::string summary_line(const nlohmann::json& s) const {
    char line[320];
    std::snprintf(line, sizeof line,
                  "sph %s %s: %zu particles (%zu fluid), t = %.6g after step %llu, %.3g ms per step, front %.4g m, "
                  "max |rho/rho0 - 1| %.3g, %zu escaped, %.3g s",
                  case_name_.c_str(), std::string(RealTraits<T>::name).c_str(), c_.state.n, fluid_, c_.state.time,
                  static_cast<unsigned long long>(c_.state.steps), 1e3 * s["seconds_per_step"].get<double>(),
                  s["front"].get<double>(), s["density_deviation"].get<double>(), s["escaped"].get<std::size_t>(),
                  s["wall_s"].get<double>());
    return line;
  }

  void save(ArchiveWriter& w) {
    driver_.sync();
    const SphState<T>& s = c_.state;
    w.put(s.time), w.put(s.steps), w.put(s.pos), w.put(s.vel), w.put(s.rho), w.put(s.mass);
    w.put(s.boundary), w.put(s.to_face), w.put(s.lists_at);
  }

  // Positions in the case's frame: the tank's inner left wall at x = 0, its floor (or the lower
  // plate) at y = 0, and in 3-D its inner side wall at z = 0.
  static std::array<double, 3> origin_of(const SphWalls& w) {
    const auto at = [](double face) { return std::isfinite(face) ? face : 0.0; };
    return {at(w.x_min), at(w.y_min), at(w.z_min)};
  }

 private:
  double front_band() const { return 2 * c_.dx; }

  SphCase<T>& c_;
  Driver& driver_;
  std::string case_name_, engine_, device_;
  std::function<void(nlohmann::json&)> measures_;
  sph::Tait<double> eos_;
  std::array<double, 3> origin_;
  std::uint64_t start_step_;  // of this process's part
  std::size_t fluid_ = 0;
  double first_mass_ = 0, last_dt_ = 0;
  double device_seconds_ = 0, cells_seconds_ = 0;
};

}  // namespace nbody::particles
