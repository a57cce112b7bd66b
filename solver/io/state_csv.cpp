#include "io/state_csv.hpp"

#include <array>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/real.hpp"

namespace nbody {

namespace {

// Body rows `id,mass,x,y,z,vx,vy,vz`, each after `prefix`.
template <class T>
void append_body_rows(std::string& out, const State<T>& s, const std::string& prefix) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    out += prefix;
    out += std::to_string(i);
    for (T v : {s.mass[i], s.pos(0)[i], s.pos(1)[i], s.pos(2)[i], s.vel(0)[i], s.vel(1)[i], s.vel(2)[i]}) {
      out += ',';
      out += RealTraits<T>::format(v);
    }
    out += '\n';
  }
}

}  // namespace

template <class T>
std::string format_state_csv(const State<T>& s) {
  std::string out = std::string(kStateHeader) + "\n";
  append_body_rows(out, s, "");
  return out;
}

template <class T>
std::string format_snapshot_rows(const State<T>& s) {
  std::string out;
  append_body_rows(out, s, RealTraits<T>::format(s.t) + ",");
  return out;
}

template <class T>
State<T> read_state_csv(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in)
    throw InputError("cannot open state file '" + path.string() + "'" + (std::filesystem::exists(path) ? " (permission?)" : " (no such file)"));
  const std::string where = "state file '" + path.string() + "'";
  std::string line;
  if (!std::getline(in, line)) throw InputError(where + " is empty (expected header " + kStateHeader + ")");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line != kStateHeader) throw InputError(where + ": header is '" + line + "', expected '" + kStateHeader + "'");
  std::vector<std::array<T, 7>> rows;
  for (std::size_t lineno = 2; std::getline(in, line); ++lineno) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::string at = where + " line " + std::to_string(lineno);
    std::vector<std::string> fields;
    std::stringstream ss(line);
    for (std::string f; std::getline(ss, f, ',');) fields.push_back(f);
    if (fields.size() != 8) throw InputError(at + ": expected 8 fields (" + kStateHeader + "), got " + std::to_string(fields.size()));
    if (fields[0] != std::to_string(rows.size()))
      throw InputError(at + ": id is '" + fields[0] + "', expected " + std::to_string(rows.size()) + " (ids count from 0 in order)");
    std::array<T, 7> v;
    static const char* names[] = {"mass", "x", "y", "z", "vx", "vy", "vz"};
    for (int k = 0; k < 7; ++k) {
      v[k] = RealTraits<T>::parse(fields[k + 1], at + ": " + names[k]);
      if (!is_finite(v[k])) throw InputError(at + ": " + names[k] + " is '" + fields[k + 1] + "', not a finite number");
    }
    if (!(v[0] > T(0))) throw InputError(at + ": mass must be positive, got '" + fields[1] + "'");
    rows.push_back(v);
  }
  if (rows.empty()) throw InputError(where + " has no bodies");
  State<T> s(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    s.mass[i] = rows[i][0];
    for (int d = 0; d < 3; ++d) s.pos(d)[i] = rows[i][1 + d], s.vel(d)[i] = rows[i][4 + d];
  }
  return s;
}

#define NBODY_INSTANTIATE(T)                                  \
  template std::string format_state_csv(const State<T>&);    \
  template std::string format_snapshot_rows(const State<T>&); \
  template State<T> read_state_csv<T>(const std::filesystem::path&);
NBODY_FOR_EACH_PRECISION(NBODY_INSTANTIATE)

}  // namespace nbody
