#pragma once
// DPD as a model of the run loop (run/loop.hpp) and the run contract (run/command.hpp): the state
// stepped by either driver (DpdCpu, or DpdCuda: step, sync, diagnostics), its samples, snapshots,
// summary and checkpoint. Its clock is the step count; t = step x dt.
#include <array>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/real.hpp"
#include "io/archive.hpp"
#include "run/loop.hpp"
#include "particles/dpd/dpd_cpu.hpp"

namespace nbody::particles {

// The state a DPD checkpoint holds (DpdModel::save), to make the driver of a resumed run from,
// checked against the run's parameters and box.
template <class T>
DpdState<T> read_dpd_state(ArchiveReader& r, const DpdParameters& p, const std::array<double, 3>& box) {
  DpdState<T> s;
  r.get(s.step), r.get(s.box.L[0]), r.get(s.box.L[1]), r.get(s.box.L[2]);
  r.get(s.species), r.get(s.pos), r.get(s.vel), r.get(s.force);
  s.n = s.species.size();
  for (int a = 0; a < 3; ++a)
    if (s.box.L[a] != T(box[a])) throw InputError("the checkpoint's DPD box is not its run's --box");
  try {
    check_dpd(p, s);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("the checkpoint's state: ") + e.what());
  }
  return s;
}

template <class T, class Driver>
class DpdModel {
 public:
  using Time = double;
  using Sample = DpdDiagnostics;
  static constexpr std::string_view command = "dpd";

  // `state` and `driver` (made from it) outlive the model; engine and device name where it runs.
  DpdModel(DpdState<T>& state, Driver& driver, const DpdParameters& p, std::string engine, std::string device)
      : s_(state), driver_(driver), p_(p), engine_(std::move(engine)), device_(std::move(device)), start_step_(state.step) {}

  run::Position<double> position() const { return {t(), s_.step}; }
  void begin(const run::Mark<double>& end, const run::Every<double>&) {
    if (!end.by_steps()) throw InputError("a DPD run ends at a step");
  }
  bool lands_on_snapshots() const { return false; }
  void advance(const run::Bounds<double>&) {
    driver_.step();
    if constexpr (requires { driver_.last_step_seconds(); })  // the GPU's own time of the step and of its cell list
      device_seconds_ += driver_.last_step_seconds(), cells_seconds_ += driver_.last_cells_seconds();
  }
  Sample sample() {
    const DpdDiagnostics d = driver_.diagnostics();
    if (!std::isfinite(d.kT) || !std::isfinite(d.pressure))
      throw RunError("the state is no longer finite at step " + std::to_string(s_.step) + " (a smaller --dt?)");
    kT_sum_ += d.kT, pressure_sum_ += d.pressure, ++samples_;
    return d;
  }

  std::string diagnostics_header() const { return "t,step,kT,pressure,potential,kinetic,px,py,pz"; }
  std::string diagnostics_row(const Sample& d) const {
    const auto f = [](double x) { return RealTraits<double>::format(x); };
    return f(t()) + "," + std::to_string(s_.step) + "," + f(d.kT) + "," + f(d.pressure) + "," + f(d.potential) + "," +
           f(d.kinetic) + "," + f(d.momentum[0]) + "," + f(d.momentum[1]) + "," + f(d.momentum[2]);
  }
  std::string particles_header() const { return "t,id,species,x,y,z,vx,vy,vz"; }
  std::string particle_rows() {
    driver_.sync();
    std::string out;
    const auto f = [](T x) { return RealTraits<T>::format(x); };
    const std::size_t n = s_.n;
    for (std::size_t i = 0; i < n; ++i)
      out += RealTraits<double>::format(t()) + "," + std::to_string(i) + "," + std::to_string(s_.species[i]) + "," +
             f(s_.pos[i]) + "," + f(s_.pos[n + i]) + "," + f(s_.pos[2 * n + i]) + "," + f(s_.vel[i]) + "," +
             f(s_.vel[n + i]) + "," + f(s_.vel[2 * n + i]) + "\n";
    return out;
  }
  std::string final_state() { return particles_header() + "\n" + particle_rows(); }
  nlohmann::json parameters() const { return {{"n", s_.n}, {"engine", engine_}, {"device", device_}}; }
  nlohmann::json summary(const Sample&) const {
    const auto taken = static_cast<double>(s_.step - start_step_);
    // The GPU's own time of a step and of its cell list (events); null on the CPU.
    const auto per_step = [&](double seconds) { return device_seconds_ > 0 ? nlohmann::json(seconds / taken) : nlohmann::json(); };
    return {{"model", "dpd"},
            {"precision", RealTraits<T>::name},
            {"engine", engine_},
            {"device", device_},
            {"n", s_.n},
            {"step", s_.step},
            {"t", t()},
            {"kT_mean", kT_sum_ / double(samples_)},
            {"pressure_mean", pressure_sum_ / double(samples_)},
            {"device_seconds_per_step", per_step(device_seconds_)},
            {"cell_list_seconds_per_step", per_step(cells_seconds_)}};
  }
  std::string summary_line(const nlohmann::json& s) const {
    char line[256];
    std::snprintf(line, sizeof line, "dpd %s %s: %zu particles, step %llu (t = %.6g), %.3g ms per step, <kT> = %.4g, <p> = %.4g, %.3g s",
                  std::string(RealTraits<T>::name).c_str(), engine_.c_str(), s_.n, static_cast<unsigned long long>(s_.step), t(),
                  1e3 * s["seconds_per_step"].get<double>(), kT_sum_ / double(samples_), pressure_sum_ / double(samples_),
                  s["wall_s"].get<double>());
    return line;
  }

  // The state, its forces (those of its last step) included.
  void save(ArchiveWriter& w) {
    driver_.sync();
    w.put(s_.step), w.put(s_.box.L[0]), w.put(s_.box.L[1]), w.put(s_.box.L[2]);
    w.put(s_.species), w.put(s_.pos), w.put(s_.vel), w.put(s_.force);
  }

 private:
  double t() const { return double(s_.step) * p_.dt; }

  DpdState<T>& s_;
  Driver& driver_;
  DpdParameters p_;
  std::string engine_, device_;
  std::uint64_t start_step_;  // of this process's part
  double kT_sum_ = 0, pressure_sum_ = 0;
  long long samples_ = 0;
  double device_seconds_ = 0, cells_seconds_ = 0;
};

}  // namespace nbody::particles
